"""A CUDA variant compiles and links (on a CPU-only machine: build only; the import check still
runs because torch's CUDA libraries load without a GPU). The addone fixture's .cu includes torch
(its host code raises a TORCH_CHECK error) and compiles for one capability: nvcc parses torch's
headers again for every capability, over a minute each here. Several capabilities are checked on
the cuda_anon fixture, whose device code has no torch headers."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, cuda_variant, import_check_script, run_build, shape_error_script  # noqa: E402

pytestmark = pytest.mark.slow


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


def _build(tmp_path, kernel_builder, kb_python, fixture: str, unit: str, capabilities: str, unique_id: str):
    """Builds the CUDA variant of `fixture` with `unit` compiled for `capabilities` (a TOML list);
    the variant directory and its metadata."""
    variant = cuda_variant(kb_python)
    project = copy_fixture(fixture, tmp_path)
    toml = (project / "build.toml").read_text()
    line = toml.index("cuda-capabilities = ", toml.index(f"[kernel.{unit}]"))
    end = toml.index("\n", line)
    (project / "build.toml").write_text(toml[:line] + f"cuda-capabilities = {capabilities}" + toml[end:])
    run_build(kernel_builder, project, kb_python, "--variant", variant, "--unique-id", unique_id)
    out = project / "build" / variant
    return out, json.loads((out / "metadata.json").read_text())


def _sass(library: Path) -> str:
    return subprocess.run([_cuobjdump(), "--list-elf", str(library)], capture_output=True, text=True).stdout


def test_cuda_variant_compiles_and_links(tmp_path, kernel_builder, kb_python):
    out, metadata = _build(tmp_path, kernel_builder, kb_python, "addone", "addone_cuda", '["9.0+PTX"]', "cu1")
    library = out / "_addone_cuda_cu1.abi3.so"
    assert library.exists()
    assert metadata["backend"] == {"type": "cuda", "archs": ["9.0+PTX"]}
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
    assert "sm_90" in _sass(library)


def test_every_capability_gets_its_code(tmp_path, kernel_builder, kb_python):
    """Two capabilities of one unit: SASS for each in the module, PTX for the `+PTX` one, and both
    recorded in metadata.json."""
    out, metadata = _build(tmp_path, kernel_builder, kb_python, "cuda_anon", "scale_cuda", '["8.0", "9.0+PTX"]', "cu2")
    library = out / "_cuda_anon_cuda_cu2.abi3.so"
    assert metadata["backend"] == {"type": "cuda", "archs": ["8.0", "9.0+PTX"]}
    sass = _sass(library)
    assert "sm_80" in sass and "sm_90" in sass, sass
    ptx = subprocess.run([_cuobjdump(), "--list-ptx", str(library)], capture_output=True, text=True).stdout
    assert "sm_90" in ptx and "sm_80" not in ptx, ptx
