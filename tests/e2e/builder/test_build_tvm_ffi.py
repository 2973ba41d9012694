"""[tvm-ffi] projects (docs/build-output.md): `kernel-builder build` makes a
`tvm-ffi<MM>-<compute>-<cpu>-<os>` variant holding a plain `<ops id>.so` linked to libtvm_ffi (no
torch), the TVM-FFI `_ops.py` and metadata.json; the loader picks it by the installed tvm_ffi's
version and its ops run on torch tensors and numpy arrays. The CPU variant is built once per
session from examples/tvm-ffi-axpy; the CUDA variant is compiled for one capability."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import run_build  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "tvm-ffi-axpy"
UNIQUE_ID = "tvm1"
OPS_ID = f"_tvm_ffi_axpy_cpu_{UNIQUE_ID}"


def _python_out(python: Path, code: str) -> str:
    return subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="session")
def tvm_ffi_tag(kb_python) -> str:
    """`tvm-ffi<M><m>` of the test interpreter's tvm_ffi (docs/variants.md)."""
    version = _python_out(kb_python, "import tvm_ffi; print(tvm_ffi.__version__)")
    major, minor = re.match(r"(\d+)\.(\d+)", version).groups()
    return f"tvm-ffi{major}{minor}"


def _copy_example(root: Path) -> Path:
    project = root / "tvm-ffi-axpy"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("build", "__pycache__"))
    return project


@pytest.fixture(scope="session")
def tvm_cpu_build(tmp_path_factory, kernel_builder, kb_python, tvm_ffi_tag):
    project = _copy_example(tmp_path_factory.mktemp("tvm-ffi"))
    variant = f"{tvm_ffi_tag}-cpu-x86_64-linux"
    result = run_build(kernel_builder, project, kb_python, "--variant", variant, "--unique-id", UNIQUE_ID)
    return {"project": project, "variant": variant, "dir": project / "build" / variant, "stderr": result.stderr}


def test_cpu_variant_is_a_plain_tvm_ffi_library(tvm_cpu_build):
    out = tvm_cpu_build["dir"]
    library = out / f"{OPS_ID}.so"
    assert sorted(p.name for p in out.iterdir()) == sorted(["__init__.py", "_ops.py", f"{OPS_ID}.so", "metadata.json"])
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["id"] == OPS_ID and metadata["backend"] == {"type": "cpu"}
    assert sorted(metadata["digest"]["files"]) == ["__init__.py", "_ops.py", f"{OPS_ID}.so"]
    dynamic = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic)
    assert "libtvm_ffi.so" in needed and not [n for n in needed if "torch" in n or "c10" in n or "python" in n], needed
    assert "RPATH" not in dynamic and "RUNPATH" not in dynamic
    exported = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True).stdout
    assert "__tvm_ffi_axpy_cpu" in exported
    ops_py = (out / "_ops.py").read_text()
    assert f'_OPS_ID = "{OPS_ID}"' in ops_py and f'"{OPS_ID}.so"' in ops_py


def test_cpu_variant_is_manylinux_2_28(tvm_cpu_build, kernel_builder):
    """TVM_FFI_THROW builds its message in a default std::ostringstream, whose constructor
    libstdc++ exports only from GLIBCXX_3.4.26: the portable build's own copy keeps the library
    within torch 2.11's policy (manylinux_2_28), so --bundle release builds pass."""
    result = subprocess.run([str(kernel_builder), "check-abi", "--manylinux", "manylinux_2_28",
                             str(tvm_cpu_build["project"])], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not within" not in tvm_cpu_build["stderr"], tvm_cpu_build["stderr"]


def test_get_local_kernel_loads_and_calls_the_ops(tvm_cpu_build, kb_python):
    code = (
        "import numpy as np, torch\n"
        "from kernels import get_local_kernel\n"
        f"k = get_local_kernel({str(tvm_cpu_build['project'] / 'build')!r}, backend='cpu')\n"
        "x = torch.arange(6, dtype=torch.float32); y = torch.ones(6); out = torch.empty(6)\n"
        "k.axpy(out, x, y, 2.0)\n"
        "assert out.tolist() == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0], out\n"
        "a = np.zeros(3, dtype=np.float32); k.axpy(a, np.ones(3, dtype=np.float32), np.ones(3, dtype=np.float32), 4.0)\n"
        "assert a.tolist() == [5.0, 5.0, 5.0], a\n"
        "print(k.__name__, type(k.ops).__name__, k._ops.jax_add_ffi_target_name_prefix('axpy'))\n"
    )
    result = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [OPS_ID, "Module", f"{OPS_ID}.axpy"]


def test_loader_selects_by_the_installed_tvm_ffi_version(tvm_cpu_build, kb_python, tmp_path, tvm_ffi_tag):
    build = tmp_path / "build"
    shutil.copytree(tvm_cpu_build["dir"], build / tvm_cpu_build["variant"])
    # A variant for another tvm-ffi version (0.9) next to it: rejected, the matching one is loaded.
    other = build / "tvm-ffi09-cpu-x86_64-linux"
    shutil.copytree(tvm_cpu_build["dir"], other)
    metadata = json.loads((other / "metadata.json").read_text())
    metadata["id"] = "_tvm_ffi_axpy_cpu_other"
    (other / "metadata.json").write_text(json.dumps(metadata))
    loaded = _python_out(kb_python, f"from kernels import get_local_kernel; print(get_local_kernel({str(build)!r}, backend='cpu').__name__)")
    assert loaded == OPS_ID
    # Without tvm_ffi no TVM-FFI variant is usable, and the trace says why.
    code = (
        "import sys; sys.modules['tvm_ffi'] = None\n"
        "from kernels import get_local_kernel\n"
        f"get_local_kernel({str(build)!r}, backend='cpu')\n"
    )
    result = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    version = tvm_ffi_tag[len("tvm-ffi"):]
    assert f"tvm-ffi version ({version[0]}.{version[1:]}) does not match environment tvm-ffi version (None)" in result.stderr
    assert "tvm-ffi version (0.9) does not match environment tvm-ffi version (None)" in result.stderr


def test_rebuild_without_changes_is_up_to_date(tvm_cpu_build, kernel_builder, kb_python):
    before = (tvm_cpu_build["dir"] / "metadata.json").read_bytes()
    result = run_build(kernel_builder, tvm_cpu_build["project"], kb_python, "--variant", tvm_cpu_build["variant"],
                       "--unique-id", UNIQUE_ID)
    assert "up to date" in result.stderr
    assert (tvm_cpu_build["dir"] / "metadata.json").read_bytes() == before


@pytest.mark.slow
def test_cuda_variant_compiles_for_one_capability(tmp_path, kernel_builder, kb_python, tvm_ffi_tag):
    nvcc = next((c for c in [Path("/usr/local/cuda/bin/nvcc"), shutil.which("nvcc")] if c and Path(c).exists()), None)
    if nvcc is None:
        pytest.skip("nvcc not available")
    if not _python_out(kb_python, "import torch; print(torch.version.cuda or '')"):
        pytest.skip("the test interpreter's torch is not a CUDA build")
    release = re.search(r"release (\d+)\.(\d+)", subprocess.run([str(nvcc), "--version"], capture_output=True,
                                                                 text=True).stdout)
    project = _copy_example(tmp_path)
    toml = project / "build.toml"
    toml.write_text(toml.read_text().replace('[kernel.axpy_cuda]\n', '[kernel.axpy_cuda]\ncuda-capabilities = ["8.0"]\n'))
    variant = f"{tvm_ffi_tag}-cu{release.group(1)}{release.group(2)}-x86_64-linux"
    run_build(kernel_builder, project, kb_python, "--variant", variant, "--unique-id", "tvmcu")
    out = project / "build" / variant
    library = out / "_tvm_ffi_axpy_cuda_tvmcu.so"
    assert library.exists()
    assert json.loads((out / "metadata.json").read_text())["backend"] == {"type": "cuda", "archs": ["8.0"]}
    dynamic = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic)
    # The CUDA runtime is linked in: the library loads without torch (or another framework)
    # having loaded libcudart first; only the driver (libcuda, dlopened) is needed at run time.
    assert "libtvm_ffi.so" in needed and not [n for n in needed if "cudart" in n or "torch" in n], needed
    exported = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True).stdout
    assert "__tvm_ffi_axpy_cuda" in exported and "__tvm_ffi_axpy_cpu" not in exported


def test_user_agent_names_the_installed_tvm_ffi(kb_python):
    """docs/python-api.md: the Hub user agent carries `tvm-ffi/<version>` when tvm_ffi is installed."""
    code = "import tvm_ffi; from kernels._system import user_agent; print(tvm_ffi.__version__); print(user_agent())"
    version, agent = _python_out(kb_python, code).splitlines()
    assert f"tvm-ffi/{version}" in agent.split("; ")
    without = _python_out(kb_python, "import sys; sys.modules['tvm_ffi'] = None\n"
                                     "from kernels._system import user_agent; print(user_agent())")
    assert "tvm-ffi/" not in without


def test_upstream_kernels_loads_the_variant(tvm_cpu_build, kb_python):
    """Upstream `kernels==0.17.2` (the black-box peer in .upstream-site) picks and calls our
    TVM-FFI variant too."""
    upstream = Path(__file__).resolve().parents[3] / ".upstream-site"
    if not (upstream / "kernels").is_dir():
        pytest.skip("upstream kernels not installed: pip install --target .upstream-site kernels==0.17.2")
    code = (
        "from pathlib import Path\nimport torch\nfrom kernels import get_local_kernel\n"
        f"k = get_local_kernel(Path({str(tvm_cpu_build['project'])!r}), backend='cpu')\n"
        "out = torch.empty(3); k.axpy(out, torch.ones(3), torch.arange(3.0), 3.0)\n"
        "print(k.__name__, out.tolist())\n"
    )
    result = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(upstream)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == f"{OPS_ID} [3.0, 4.0, 5.0]"
