"""A CUDA variant compiles and links (on a CPU-only machine: build only; the import check still
runs because torch's CUDA libraries load without a GPU)."""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, import_check_script, run_build, shape_error_script  # noqa: E402

pytestmark = pytest.mark.slow


def _nvcc() -> str:
    for candidate in [Path("/usr/local/cuda/bin/nvcc"), shutil.which("nvcc")]:
        if candidate and Path(candidate).exists():
            return str(candidate)
    pytest.skip("nvcc not available")


def _cuobjdump() -> str:
    """cuobjdump from PATH, the CUDA toolkit, or the nvidia-cuda-cuobjdump wheel (requirements/dev.txt)."""
    candidates = [shutil.which("cuobjdump"), "/usr/local/cuda/bin/cuobjdump"]
    try:
        import nvidia
        candidates += [str(Path(root) / "cu13" / "bin" / "cuobjdump") for root in nvidia.__path__]
    except ImportError:
        pass
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return candidate
    pytest.fail("cuobjdump not found: install nvidia-cuda-cuobjdump (requirements/dev.txt)")


def test_cuda_variant_compiles_and_links(tmp_path, kernel_builder, kb_python):
    nvcc = _nvcc()
    release = re.search(r"release (\d+)\.(\d+)", subprocess.run([nvcc, "--version"], capture_output=True,
                                                                 text=True).stdout)
    torch = subprocess.run([str(kb_python), "-c", "import torch; print(torch.__version__.split('+')[0]);"
                            "print(torch.version.cuda or '')"], capture_output=True, text=True).stdout.split("\n")
    if not torch[1]:
        pytest.skip("the test interpreter's torch is not a CUDA build")
    major, minor = torch[0].split(".")[:2]
    variant = f"torch{major}{minor}-cxx11-cu{release.group(1)}{release.group(2)}-x86_64-linux"
    project = copy_fixture("addone", tmp_path)
    run_build(kernel_builder, project, kb_python, "--variant", variant, "--unique-id", "cu1")
    out = project / "build" / variant
    library = out / "_addone_cuda_cu1.abi3.so"
    assert library.exists()
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["backend"] == {"type": "cuda", "archs": ["8.0", "9.0+PTX"]}
    dynamic = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True).stdout
    assert "libcudart.so" in dynamic and "RPATH" not in dynamic and "RUNPATH" not in dynamic
    assert "libstdc++.so.6" in dynamic
    # Only the shared CUDA runtime (torch's): no static copy of cudart inside the module.
    defined = subprocess.run(["nm", "--defined-only", str(library)], capture_output=True, text=True).stdout
    assert "cudaLaunchKernel" not in defined and "cudaGetDevice" not in defined
    # An error raised by host code that nvcc compiled reaches Python whole. Without a GPU the CUDA
    # kernel is reached by redispatching CPU tensors to the CUDA key; the shape check comes first.
    code = import_check_script(out, "_addone_cuda_cu1") + (
        "import torch\n"
        "keys = torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA)\n"
    ) + shape_error_script("module.ops.addone.default.redispatch(keys, torch.empty(3), torch.randn(4))") + (
        "print('ok')\n"
    )
    result = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
    sass = subprocess.run([_cuobjdump(), "--list-elf", str(library)],
                          capture_output=True, text=True).stdout
    assert "sm_80" in sass and "sm_90" in sass
