"""The machine a run measures: the torch device to benchmark on, a description of the machine,
and the two roofs of its roofline — copy bandwidth (measured in the same run with a large
device-to-device copy) and peak FLOP/s (FP32, from the GPU datasheet table below, else measured
with a large FP32 matmul). `peak_source` says which."""
from __future__ import annotations

import platform
import re
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from kernels._system import TORCH_DEVICE as _TORCH_DEVICE
from kernels._system import detect_backend, device_available

# Dense FP32 (non-tensor-core) peak of known GPUs, from NVIDIA's datasheets, matched against
# `torch.cuda.get_device_name()` in this order (the more specific names first).
FP32_PEAKS = (
    ("H200 NVL", 60e12, "NVIDIA H200 NVL datasheet"),
    ("H200", 67e12, "NVIDIA H200 SXM datasheet"),
    ("H100 NVL", 60e12, "NVIDIA H100 NVL datasheet"),
    ("H100 PCIe", 51e12, "NVIDIA H100 PCIe datasheet"),
    ("H100", 67e12, "NVIDIA H100 SXM datasheet"),
    ("A100", 19.5e12, "NVIDIA A100 datasheet"),
    ("L40S", 91.6e12, "NVIDIA L40S datasheet"),
    ("L4", 30.3e12, "NVIDIA L4 datasheet"),
)

COPY_BYTES = {"cpu": 128 << 20}  # per buffer; other devices: 1 GiB (well past any cache)
COPY_REPS = 10
MATMUL_SIZE = {"cpu": 2048}  # other devices: 8192
MATMUL_REPS = 3


@dataclass(frozen=True)
class Roofs:
    copy_bandwidth: Optional[float]  # bytes/s, read + written
    copy_source: Optional[str]
    peak_flops: Optional[float]  # FLOP/s
    peak_source: Optional[str]


def torch_device() -> str:
    """The device the benchmarks run on: the detected backend's, where such a device is visible."""
    backend = detect_backend()["name"]
    device = _TORCH_DEVICE.get(backend)
    if device is None or not device_available(backend):
        return "cpu"
    return device


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _nvidia_driver() -> Optional[str]:
    try:
        text = Path("/proc/driver/nvidia/version").read_text(encoding="utf-8", errors="replace")
        found = re.search(r"Kernel Module(?: for \S+)?\s+(\d+(?:\.\d+)+)", text)
        if found:
            return found.group(1)
    except OSError:
        pass
    try:
        result = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = result.stdout.strip().splitlines()
    return lines[0].strip() if result.returncode == 0 and lines else None


def machine_info(device: str) -> dict:
    import torch

    gpu = driver = cuda = None
    if device == "cuda":
        gpu = torch.cuda.get_device_name()
        if torch.version.hip:
            cuda = f"ROCm {torch.version.hip}"
        else:
            cuda = torch.version.cuda
            driver = _nvidia_driver()
    elif device in ("xpu", "npu"):
        gpu = getattr(torch, device).get_device_name()
    elif device == "mps":
        gpu = "Apple MPS"
    return {
        "cpu": _cpu_name(),
        "gpu": gpu,
        "driver": driver,
        "cuda": cuda,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def table_peak(gpu_name: Optional[str]):
    if gpu_name:
        for pattern, peak, source in FP32_PEAKS:
            if pattern in gpu_name:
                return peak, f"{source}: {peak / 1e12:g} TFLOP/s FP32"
    return None


def measure_roofs(device: str, gpu_name: Optional[str], timer, synchronize: Callable[[], None]) -> Roofs:
    import torch

    nbytes = COPY_BYTES.get(device, 1 << 30)
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    dst.copy_(src)
    synchronize()
    median_ms = statistics.median(timer.run(lambda: dst.copy_(src), COPY_REPS))
    bandwidth = 2 * nbytes / (median_ms / 1e3) if median_ms > 0 else None
    copy_source = f"measured: {nbytes >> 20} MiB float32 copy on {device}, median of {COPY_REPS}"
    del src, dst

    known = table_peak(gpu_name) if device == "cuda" else None
    if known is not None:
        return Roofs(bandwidth, copy_source, known[0], known[1])
    size = MATMUL_SIZE.get(device, 8192)
    a = torch.randn(size, size, dtype=torch.float32, device=device)
    b = torch.randn(size, size, dtype=torch.float32, device=device)
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # the FP32 peak, as in the table
    try:
        torch.mm(a, b)
        synchronize()
        median_ms = statistics.median(timer.run(lambda: torch.mm(a, b), MATMUL_REPS))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    peak = 2 * size ** 3 / (median_ms / 1e3) if median_ms > 0 else None
    return Roofs(bandwidth, copy_source, peak,
                 f"measured: {size}x{size} float32 matmul on {device}, median of {MATMUL_REPS}")
