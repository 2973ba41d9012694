"""The init scaffold's CUDA kernel really computes `x + 1`, where a GPU is present: the golden
scaffold (exactly what `init` writes, see tests/unit/scaffold) is compiled as a Torch extension.
Its CPU kernel is built by kernel-builder and run in every dtype it dispatches by
tests/python/test_first_run_scaffold.py."""
import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
cpp_extension = pytest.importorskip("torch.utils.cpp_extension")

REPO = Path(__file__).resolve().parents[3]
GOLDEN = REPO / "tests/unit/scaffold/golden/all-backends"
REGISTRATION_H = REPO / "templates/project/registration.h"


def build(tmp_path: Path, backend: str, sources: list[str], define: str):
    project = tmp_path / "project"
    shutil.copytree(GOLDEN, project)
    shutil.copy(REGISTRATION_H, project / "torch-ext/registration.h")
    ops_id = f"_my_kernel_{backend}_test"
    cpp_extension.load(
        name=ops_id,
        sources=[str(project / s) for s in ["torch-ext/torch_binding.cpp", *sources]],
        extra_include_paths=[str(project / "torch-ext")],
        extra_cflags=[f"-D{define}", f"-DTORCH_EXTENSION_NAME={ops_id}", "-O1"],
        extra_cuda_cflags=[f"-D{define}", f"-DTORCH_EXTENSION_NAME={ops_id}"],
        build_directory=str(tmp_path),
        is_python_module=False,
    )
    return getattr(torch.ops, ops_id)


@pytest.mark.slow
@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_scaffold_cuda_kernel_adds_one(tmp_path):
    ops = build(tmp_path, "cuda", ["my_kernel_cuda/my_kernel.cu"], "CUDA_KERNEL")
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for n in (0, 1, 1031, 70_000_001):
            x = torch.randn(n, dtype=dtype, device="cuda")
            out = torch.full_like(x, float("nan"))
            ops.my_kernel(out, x)
            torch.testing.assert_close(out, x + 1)
