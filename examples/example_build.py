"""Build an example kernel and import one of its variants, as the loader would.

Used by `examples/conftest.py` and `bench/kernels_bandwidth.py`. Two ways to build:

- `kernel-builder build <example> --variant <v>` (the default; the product under test), with the
  binary taken from `$KB_BUILD_DIR/src/cli/` or `PATH`;
- `torch.utils.cpp_extension` (`KB_EXAMPLES_BUILD=cpp_extension`): a stand-in that follows the
  same contract (own `registration.h`, ops id as `TORCH_EXTENSION_NAME`, `CPU_KERNEL` /
  `CUDA_KERNEL`, staged flattened variant with `_ops.py` and `metadata.json`). It exists to check
  the example sources without the builder, e.g. on a GPU machine; it is not the product.

Either way the variant directory is imported from outside `sys.path` under its ops id
(`metadata.json` `id`), so several builds of one kernel can coexist in a process.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

EXAMPLES_DIR = Path(__file__).resolve().parent
REPO_ROOT = EXAMPLES_DIR.parent

_imported: dict[str, ModuleType] = {}


class BuildError(RuntimeError):
    """A build failed; the message carries the command and its output tail."""


def _torch_tag() -> str:
    import torch

    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return f"{major}{minor}"


def _cpu_tag() -> str:
    machine = platform.machine()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine)


def _cuda_tag() -> str:
    """`cu<M><m>` of the CUDA toolkit (nvcc) that will compile the variant."""
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    nvcc = shutil.which("nvcc") or str(Path(cuda_home) / "bin" / "nvcc")
    try:
        text = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        match = re.search(r"release (\d+)\.(\d+)", text)
        if match:
            return f"cu{match.group(1)}{match.group(2)}"
    except OSError:
        pass
    import torch

    if torch.version.cuda is None:
        raise BuildError("no CUDA toolkit found (nvcc) and torch has no CUDA")
    major, minor = torch.version.cuda.split(".")[:2]
    return f"cu{major}{minor}"


def read_build_toml(example_dir: Path) -> dict:
    with open(example_dir / "build.toml", "rb") as f:
        return tomllib.load(f)


def python_name(config: dict) -> str:
    return config["general"]["name"].replace("-", "_")


def _stable_abi(config: dict, backend: str) -> str | None:
    stable = config.get("torch", {}).get("stable-abi")
    if isinstance(stable, dict):
        return stable.get(backend)
    return stable


def variant_name(example_dir: Path, backend: str) -> str:
    """Name of the variant of `backend` that this machine's toolchain builds (docs/variants.md)."""
    config = read_build_toml(example_dir)
    units = [u for u in config.get("kernel", {}).values() if u.get("backend") == backend]
    if "torch-noarch" in config or not units:
        return f"torch-{backend}"
    compute = "cpu" if backend == "cpu" else _cuda_tag()
    if "tvm-ffi" in config:
        import tvm_ffi

        major, minor = tvm_ffi.__version__.split("-")[0].split(".")[:2]
        return f"tvm-ffi{major}{minor}-{compute}-{_cpu_tag()}-linux"
    stable = _stable_abi(config, backend)
    if stable is not None:
        major, minor = stable.split(".")[:2]
        return f"torch-stable-abi{major}{minor}-{compute}-{_cpu_tag()}-linux"
    return f"torch{_torch_tag()}-cxx11-{compute}-{_cpu_tag()}-linux"


def kernel_builder_binary() -> Path:
    build_dir = Path(os.environ.get("KB_BUILD_DIR", REPO_ROOT / "build-release"))
    path = build_dir / "src" / "cli" / "kernel-builder"
    if path.exists():
        return path
    found = shutil.which("kernel-builder")
    if found is None:
        raise BuildError(
            f"kernel-builder not found in {build_dir}/src/cli or on PATH; run scripts/build "
            "or set KB_BUILD_DIR"
        )
    return Path(found)


def _run(command: list[str], what: str, env: dict | None = None) -> None:
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        tail = (result.stdout + result.stderr)[-6000:]
        raise BuildError(f"{what} failed (exit {result.returncode}): {' '.join(command)}\n{tail}")


def _in_git_work_tree(path: Path) -> bool:
    try:
        result = subprocess.run(["git", "-C", str(path), "rev-parse", "--is-inside-work-tree"],
                                capture_output=True, text=True)
    except OSError:
        return False
    return result.returncode == 0 and result.stdout.strip() == "true"


@contextlib.contextmanager
def _exclusive(example_dir: Path):
    """Holds a lock of `example_dir` across processes. Test processes running side by side
    (pytest-xdist workers) build the same example in place; the builder refuses a second build of
    a directory while one runs, so the second process waits here and then finds it up to date."""
    name = hashlib.sha256(str(example_dir.resolve()).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"kb-example-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        yield


def build_with_kernel_builder(example_dir: Path, backend: str) -> Path:
    with _exclusive(example_dir):
        return _build_with_kernel_builder(example_dir, backend)


def _build_with_kernel_builder(example_dir: Path, backend: str) -> Path:
    variant = variant_name(example_dir, backend)
    command = [str(kernel_builder_binary()), "build", str(example_dir), "--variant", variant,
               "--python", sys.executable]
    # Outside git the builder draws a random unique id, so every build would recompile
    # everything; an id from the sources keeps repeated builds incremental.
    if os.environ.get("KB_UNIQUE_ID"):
        # A fixed id (e.g. on a machine whose copy of the repository has no usable git history).
        command += ["--unique-id", os.environ["KB_UNIQUE_ID"]]
    elif not _in_git_work_tree(example_dir):
        command += ["--unique-id", "x" + _source_digest(example_dir)]
    _run(command, f"kernel-builder build of {example_dir.name} ({variant})")
    variant_dir = example_dir / "build" / variant
    if not (variant_dir / "metadata.json").is_file():
        raise BuildError(f"kernel-builder build did not stage {variant_dir}/metadata.json")
    return variant_dir


# ---------------------------------------------------------------------------------------------
# Stand-in build through torch.utils.cpp_extension (see module docstring).

_REGISTRATION_H = """\
// registration.h of the cpp_extension stand-in build (examples/example_build.py).
#pragma once
#include <Python.h>

#define _CONCAT(A, B) A##B
#define CONCAT(A, B) _CONCAT(A, B)
#define _STRINGIFY(A) #A
#define STRINGIFY(A) _STRINGIFY(A)

#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)
#define TORCH_LIBRARY_IMPL_EXPAND(NAME, DEVICE, MODULE) TORCH_LIBRARY_IMPL(NAME, DEVICE, MODULE)
#define STABLE_TORCH_LIBRARY_EXPAND(NAME, MODULE) STABLE_TORCH_LIBRARY(NAME, MODULE)
#define STABLE_TORCH_LIBRARY_IMPL_EXPAND(NAME, DEVICE, MODULE) \\
  STABLE_TORCH_LIBRARY_IMPL(NAME, DEVICE, MODULE)

#define REGISTER_EXTENSION(NAME)                                              \\
  PyMODINIT_FUNC CONCAT(PyInit_, NAME)(void) {                                \\
    static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, STRINGIFY(NAME), \\
                                        nullptr, 0, nullptr};                 \\
    return PyModule_Create(&module);                                          \\
  }
"""

_ARCH_OPS_PY = """\
import torch
from . import {ops_id}

ops = torch.ops.{ops_id}


def add_op_namespace_prefix(op_name: str) -> str:
    return f"{ops_id}::{{op_name}}"
"""

_NOARCH_OPS_PY = """\
import torch


def _backend() -> str:
    if hasattr(torch.backends, "tpu"):
        return "tpu"
    if hasattr(torch, "neuron"):
        return "neuron"
    if torch.version.cuda is not None:
        return "cuda"
    if torch.version.hip is not None:
        return "rocm"
    if torch.backends.mps.is_available():
        return "metal"
    if getattr(torch.version, "xpu", None) is not None:
        return "xpu"
    return "cpu"


_OPS_NAME = f"_{python_name}_{{_backend()}}_{unique_id}"
ops = getattr(torch.ops, _OPS_NAME)


def add_op_namespace_prefix(op_name: str) -> str:
    return f"{{_OPS_NAME}}::{{op_name}}"
"""

# Compiled in a child process: loading the library registers its ops namespace, and the parent
# must register it only once, from the staged copy.
_COMPILE_SCRIPT = """\
import json, sys
from torch.utils import cpp_extension
args = json.loads(sys.argv[1])
print(cpp_extension.load(is_python_module=False, verbose=True, **args))
"""


def _scratch_root() -> Path:
    root = Path(os.environ.get("KB_EXAMPLES_SCRATCH", Path(tempfile.gettempdir()) / "kb-examples"))
    root.mkdir(parents=True, exist_ok=True)
    return root


_NOT_SOURCES = {"build", "tests", "CARD.md", "benchmarks"}


def _source_digest(example_dir: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(example_dir.rglob("*")):
        # Tests and docs do not change what is compiled; leaving them out keeps the cache.
        parts = path.relative_to(example_dir).parts
        if path.is_file() and parts[0] not in _NOT_SOURCES and "__pycache__" not in parts:
            digest.update(str(path.relative_to(example_dir)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:7]


def _copy_package(package_dir: Path, variant_dir: Path) -> None:
    shutil.copytree(package_dir, variant_dir,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_ops.py"))


def _write_metadata(variant_dir: Path, config: dict, ops_id: str, backend: str) -> None:
    general = config["general"]
    metadata = {"name": general["name"], "id": ops_id, "version": general["version"],
                "license": general["license"], "python-depends": [], "kernel-depends": [],
                "backend": {"type": backend}}
    (variant_dir / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")


def build_with_cpp_extension(example_dir: Path, backend: str) -> Path:
    config = read_build_toml(example_dir)
    if "tvm-ffi" in config:
        raise BuildError(f"{example_dir.name} is a [tvm-ffi] kernel: the cpp_extension stand-in builds torch kernels only")
    name = python_name(config)
    unique_id = "x" + _source_digest(example_dir)
    ops_id = f"_{name}_{backend}_{unique_id}"
    work = _scratch_root() / example_dir.name / unique_id
    variant_dir = work / "build" / variant_name(example_dir, backend)
    if (variant_dir / "metadata.json").is_file():
        return variant_dir
    if variant_dir.exists():
        shutil.rmtree(variant_dir)
    package_dir = example_dir / "torch-ext" / name

    if "torch-noarch" in config:
        _copy_package(package_dir, variant_dir)
        (variant_dir / "_ops.py").write_text(
            _NOARCH_OPS_PY.format(python_name=name, unique_id=unique_id))
        _write_metadata(variant_dir, config, ops_id, backend)
        return variant_dir

    include_dir = work / "include"
    include_dir.mkdir(parents=True, exist_ok=True)
    (include_dir / "registration.h").write_text(_REGISTRATION_H)
    sources = list(config["torch"].get("src", []))
    for unit in config.get("kernel", {}).values():
        if unit.get("backend") == backend:
            sources += unit["src"]
    compiled = [str(example_dir / s) for s in sources if s.endswith((".cpp", ".cc", ".cu"))]
    defines = ["-DCPU_KERNEL"] if backend == "cpu" else ["-DUSE_CUDA=1", "-DCUDA_KERNEL"]
    stable = _stable_abi(config, backend)
    if stable is not None:
        major, minor = (int(p) for p in stable.split(".")[:2])
        defines.append(f"-DTORCH_TARGET_VERSION={hex((major << 56) | (minor << 48))}")
    build_dir = work / f"obj-{backend}"
    build_dir.mkdir(parents=True, exist_ok=True)
    args = {
        "name": ops_id,
        "sources": compiled,
        "extra_include_paths": [str(include_dir), str(example_dir / "torch-ext")],
        # -fno-gnu-unique as in the builder (docs/build-output.md): two builds of one kernel in a
        # process must not share template statics and inline-function statics.
        "extra_cflags": ["-O3", "-fno-gnu-unique", *defines],
        "extra_cuda_cflags": ["-O3", "-Xcompiler", "-fno-gnu-unique", *defines, "-U__CUDA_NO_HALF_OPERATORS__",
                              "-U__CUDA_NO_HALF_CONVERSIONS__",
                              "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
                              "-U__CUDA_NO_HALF2_OPERATORS__"],
        "build_directory": str(build_dir),
    }
    _run([sys.executable, "-c", _COMPILE_SCRIPT, json.dumps(args)],
         f"cpp_extension build of {example_dir.name} ({backend})")
    _copy_package(package_dir, variant_dir)
    shutil.copy2(build_dir / f"{ops_id}.so", variant_dir / f"{ops_id}.abi3.so")
    (variant_dir / "_ops.py").write_text(_ARCH_OPS_PY.format(ops_id=ops_id))
    _write_metadata(variant_dir, config, ops_id, backend)
    return variant_dir


# ---------------------------------------------------------------------------------------------

def build_example(name: str, backend: str) -> Path:
    """Build `examples/<name>` for `backend`; returns the staged variant directory."""
    example_dir = EXAMPLES_DIR / name
    how = os.environ.get("KB_EXAMPLES_BUILD", "kernel-builder")
    if how == "cpp_extension":
        return build_with_cpp_extension(example_dir, backend)
    if how != "kernel-builder":
        raise BuildError(f"KB_EXAMPLES_BUILD must be `kernel-builder` or `cpp_extension`, not `{how}`")
    return build_with_kernel_builder(example_dir, backend)


def import_variant(variant_dir: Path) -> ModuleType:
    """Import a variant directory as a package named by its ops id (from `metadata.json`)."""
    ops_id = json.loads((variant_dir / "metadata.json").read_text())["id"]
    if ops_id in _imported:
        return _imported[ops_id]
    spec = importlib.util.spec_from_file_location(
        ops_id, variant_dir / "__init__.py", submodule_search_locations=[str(variant_dir)])
    if spec is None or spec.loader is None:
        raise BuildError(f"cannot import {variant_dir} as {ops_id}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[ops_id] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[ops_id]
        raise
    _imported[ops_id] = module
    return module


def load_example(name: str, backend: str) -> ModuleType:
    return import_variant(build_example(name, backend))


def main(argv: list[str]) -> int:
    """`python examples/example_build.py relu:cpu activation:cuda ...`: build in parallel."""
    from concurrent.futures import ThreadPoolExecutor

    targets = [tuple(arg.split(":", 1)) for arg in argv]
    if not targets or any(len(t) != 2 for t in targets):
        print("usage: example_build.py <example>:<backend> ...", file=sys.stderr)
        return 2
    with ThreadPoolExecutor(max_workers=len(targets)) as pool:
        futures = {t: pool.submit(build_example, *t) for t in targets}
    failed = 0
    for (name, backend), future in futures.items():
        try:
            print(f"{name}:{backend} -> {future.result()}")
        except BuildError as error:
            failed += 1
            print(f"{name}:{backend} FAILED\n{error}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
