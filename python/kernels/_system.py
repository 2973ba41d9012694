"""Inspection of the running Python/Torch (docs/loader.md, docs/variants.md).

This is the only place that looks at torch; everything it learns is handed to the C++ core as
a plain dict, which does the selection.
"""
from __future__ import annotations

import ctypes
import importlib
import os
import platform
import sys
import sysconfig
from typing import Dict, List, Optional

from kernels import _core


def _major_minor(version: str) -> str:
    """`2.11` of `2.11.0+cu130`: the core's rule (`variant::MajorMinor`), which reads it back."""
    return _core.major_minor(version)


# The torch device (and module) of each loader backend that has one (upstream maps rocm -> cuda,
# metal -> mps, cann -> npu).
TORCH_DEVICE = {"cuda": "cuda", "rocm": "cuda", "xpu": "xpu", "metal": "mps", "cann": "npu"}


def _torch():
    try:
        import torch  # noqa: F401

        return torch
    except ImportError:
        return None


def detect_backend() -> Dict[str, str]:
    """The detected backend name and its version string ("" when it has none)."""
    torch = _torch()
    if torch is not None:
        if hasattr(torch.backends, "tpu"):
            return {"name": "tpu", "version": ""}
        if hasattr(torch, "neuron"):
            return {"name": "neuron", "version": ""}
        if getattr(torch.version, "cuda", None):
            return {"name": "cuda", "version": _major_minor(torch.version.cuda)}
        if getattr(torch.version, "hip", None):
            return {"name": "rocm", "version": _major_minor(torch.version.hip.split("-")[0])}
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return {"name": "metal", "version": ""}
        xpu = getattr(torch.version, "xpu", None)
        if xpu:
            return {"name": "xpu", "version": xpu[0:4] + "." + xpu[5:6]}
        try:
            privateuse = torch._C._get_privateuse1_backend_name()
        except Exception:  # noqa: BLE001 - older torch
            privateuse = None
        if privateuse == "npu":
            try:
                from torch_npu.utils.collect_env import get_cann_version  # type: ignore

                cann = get_cann_version()
                return {"name": "cann", "version": cann[0] + "." + cann[2]}
            except Exception:  # noqa: BLE001
                return {"name": "cann", "version": ""}
        return {"name": "cpu", "version": ""}
    version = _cuda_runtime_int("cudaRuntimeGetVersion")
    if version is not None:
        return {"name": "cuda", "version": f"{version // 1000}.{(version % 1000) // 10}"}
    return {"name": "cpu", "version": ""}


def _cuda_runtime_int(function: str) -> Optional[int]:
    """The int that the CUDA runtime's `function(int*)` writes, from the first libcudart that
    loads and answers; None without one (no torch: the loader still sees a CUDA system)."""
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        value = ctypes.c_int(0)
        if getattr(lib, function)(ctypes.byref(value)) == 0:
            return value.value
    return None


def _cuda_runtime_devices() -> int:
    return _cuda_runtime_int("cudaGetDeviceCount") or 0


def device_available(backend: str) -> bool:
    """Whether a device of the detected `backend` is visible; the loader falls back to a CPU
    variant only where it is not (docs/loader.md)."""
    torch = _torch()
    if backend == "cpu":
        return True
    if torch is None:
        return backend != "cuda" or _cuda_runtime_devices() > 0
    module = TORCH_DEVICE.get(backend)
    if module is None or backend == "metal":  # metal is detected by availability; neuron, tpu: no probe
        return True
    probe = getattr(getattr(torch, module, None), "is_available", None)
    try:
        return bool(probe()) if probe is not None else False
    except Exception:  # noqa: BLE001 - a broken driver counts as no device
        return False


# Test-only: the device architecture to report instead of the detected one ("8.0", "gfx90a"; ""
# for none), so tests on a machine without a GPU can drive the architecture check.
_TEST_DEVICE_ARCH_ENV = "KERNELS_TEST_DEVICE_ARCH"

# The key of `system_info()` holding the device's architecture (None: unknown, nothing checked).
DEVICE_ARCH_KEY = "device_arch"


def device_arch(backend: str) -> Optional[str]:
    """The architecture of the current device of the detected `backend`: the CUDA compute
    capability ("9.0"), or the ROCm gfx name without its feature flags ("gfx90a"); None without
    torch, without a visible device, or for other backends."""
    override = os.environ.get(_TEST_DEVICE_ARCH_ENV)
    if override is not None:
        return override or None
    torch = _torch()
    if torch is None or backend not in ("cuda", "rocm"):
        return None
    try:
        if not torch.cuda.is_available():
            return None
        if backend == "cuda":
            major, minor = torch.cuda.get_device_capability()
            return f"{major}.{minor}"
        name = torch.cuda.get_device_properties(torch.cuda.current_device()).gcnArchName
        return str(name).split(":")[0] or None
    except Exception:  # noqa: BLE001 - a broken driver: nothing to check against
        return None


def without_arch_check(info: Dict[str, object]) -> Dict[str, object]:
    """`info` with the device architecture unknown, so the core checks no variant's declared
    architectures (`check_arch=False`)."""
    return {**info, DEVICE_ARCH_KEY: None}


def _cpu() -> str:
    machine = platform.machine()
    if machine in ("arm64", "ARM64"):
        return "aarch64"
    if machine in ("AMD64", "amd64"):
        return "x86_64"
    return machine


def _free_threaded() -> bool:
    if sys.version_info >= (3, 15):
        return False
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def system_info(backend: Optional[str] = None, *, with_device_arch: bool = True) -> Dict[str, object]:
    """System description for the core; `backend` is the already validated `backend=`. The
    device's architecture initialises the device's runtime (torch's CUDA context); callers that
    only describe the system (the user agent) pass `with_device_arch=False`."""
    detected = detect_backend()
    torch = _torch()
    selected = detected
    if backend is not None and backend != detected["name"]:
        selected = {"name": backend, "version": ""}
    info: Dict[str, object] = {
        "backend": selected["name"],
        "backend_version": selected["version"],
        "cpu": _cpu(),
        "os": platform.system().lower(),
        "torch_version": _major_minor(torch.__version__) if torch is not None else "",
        "cxx11": None,
        "tvm_ffi_version": "",
        "macos_version": "",
        "free_threaded": _free_threaded(),
        "detected_backend": detected["name"],
        "detected_backend_version": detected["version"],
        "backend_explicit": backend is not None,
        "device_available": device_available(detected["name"]),
        DEVICE_ARCH_KEY: device_arch(detected["name"]) if with_device_arch else None,
        "kernels_version": _kernels_version(),
    }
    if torch is not None and info["os"] == "linux":
        info["cxx11"] = bool(torch.compiled_with_cxx11_abi())
    try:
        tvm_ffi = importlib.import_module("tvm_ffi")
        info["tvm_ffi_version"] = _major_minor(str(tvm_ffi.__version__).split("-")[0])
    except Exception:  # noqa: BLE001 - optional
        pass
    if info["os"] == "darwin":
        info["macos_version"] = platform.mac_ver()[0]
    return info


def _kernels_version() -> str:
    from kernels import __version__

    return __version__


def validate_backend(backend: Optional[str]) -> Optional[str]:
    if backend is None:
        return None
    detected = detect_backend()["name"]
    if backend in ("cpu", detected):
        return backend
    supported = ", ".join(sorted({"cpu", detected}))
    raise ValueError(f"Invalid backend '{backend}', system supported backends: {supported}")


def compute_string(info: Dict[str, object]) -> str:
    """The compute part of a variant name for `info` (`cu128`, `rocm71`, `cpu`), from the core."""
    return _core.compute_string(info)


def user_agent(extra=None) -> str:
    import os

    if os.environ.get("HF_HUB_DISABLE_TELEMETRY", "").upper() in ("1", "ON", "YES", "TRUE"):
        return ""
    from kernels import __version__

    parts: List[str] = []
    if isinstance(extra, dict):
        parts.extend(f"{k}/{v}" for k, v in extra.items())
    elif isinstance(extra, str) and extra:
        parts.append(extra)
    info = system_info(with_device_arch=False)
    parts += [
        f"kernels/{__version__}",
        f"python/{sys.version_info.major}.{sys.version_info.minor}",
        f"backend/{compute_string(info)}",
        f"platform/{info['cpu']}-{info['os']}",
        "file_type/kernel",
    ]
    torch = _torch()
    if torch is not None:
        parts.append(f"torch/{torch.__version__}")
    tvm_ffi = sys.modules.get("tvm_ffi")  # imported by system_info() when installed
    if tvm_ffi is not None:
        parts.append(f"tvm-ffi/{tvm_ffi.__version__}")
    libc = platform.libc_ver()
    if libc[0] == "glibc" and libc[1]:
        parts.append(f"glibc/{libc[1]}")
    return "; ".join(p for p in parts if p)
