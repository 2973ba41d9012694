"""Issue 17 end to end, as a new kernel author meets it: `kernel-builder init --backends cpu cuda`,
`kernel-builder build`, then the scaffold's own `pytest tests` and `python example.py` pass —
on a machine without a GPU (the CPU variant; PyPI's torch is a CUDA build) and, on the GPU
machine, with the CUDA variant. Builds a real kernel: minutes, not seconds."""
from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from loader_testlib import BUILD_DIR, OUR_PYTHONPATH, make_variant

torch = pytest.importorskip("torch")
GPU = torch.cuda.is_available()
TORCH = "torch" + "".join(torch.__version__.split("+")[0].split(".")[:2])


def _env():
    # The source tree's package when it has a built `_core`; else whatever this process imports
    # (an installed wheel, or PYTHONPATH as on the GPU machine).
    return dict(os.environ, PYTHONPATH=OUR_PYTHONPATH) if OUR_PYTHONPATH else dict(os.environ)


def _run(args, cwd, timeout=600):
    return subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    kernel_builder = BUILD_DIR / "src" / "cli" / "kernel-builder"
    if not kernel_builder.exists():
        pytest.skip("kernel-builder not built; set KB_BUILD_DIR")
    root = tmp_path_factory.mktemp("first-run")
    r = _run([str(kernel_builder), "init", "--name", "acme/my-kernel", "--backends", "cpu", "cuda"], root)
    assert r.returncode == 0, r.stderr
    project = root / "my-kernel"
    build = [str(kernel_builder), "build", "--python", sys.executable]
    if not GPU:  # what a machine without a GPU can use: the CPU variant
        build += ["--variant", f"{TORCH}-cxx11-cpu-{platform.machine()}-linux"]
    r = _run(build, project, timeout=1500)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return project


def _scaffold_checks(project):
    tests = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], project)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert "2 passed" in tests.stdout
    example = _run([sys.executable, "example.py"], project)
    assert example.returncode == 0, example.stderr[-3000:]
    assert example.stdout == "acme/my-kernel: my_kernel(x) == x + 1\n"


def test_scaffold_tests_and_example_pass(project):
    names = sorted(p.name for p in (project / "build").iterdir() if p.is_dir() and p.name.startswith("torch"))
    assert any("-cpu-" in n for n in names)
    if GPU:
        assert any("-cu" in n for n in names), names
    _scaffold_checks(project)


def test_cpu_kernel_adds_one_in_every_dtype_it_dispatches(project):
    # The scaffold's own tests check float32; its CPU kernel dispatches float16 and bfloat16 too
    # (the CUDA kernel's dtypes: tests/e2e/variant/test_scaffold_kernels.py, on a GPU).
    code = ("import torch; from kernels import get_local_kernel; "
            "k = get_local_kernel('build', backend='cpu'); "
            "[torch.testing.assert_close(k.my_kernel(x), x + 1) for dtype in (torch.float32, torch.float16, torch.bfloat16) "
            "for x in (torch.randn(1031, dtype=dtype), torch.randn(0, dtype=dtype))]; print('ok')")
    r = _run([sys.executable, "-c", code], project)
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr[-3000:]


@pytest.mark.skipif(GPU, reason="the fallback is for machines without a GPU")
def test_first_run_call_falls_back_to_cpu(project):
    # The call of the issue: get_local_kernel(build/) with no backend= on PyPI's CUDA torch.
    code = ("import warnings, torch; warnings.simplefilter('always'); from kernels import get_local_kernel; "
            "k = get_local_kernel('build'); x = torch.randn(8); torch.testing.assert_close(k.my_kernel(x), x + 1)")
    r = _run([sys.executable, "-c", code], project)
    assert r.returncode == 0, r.stderr[-3000:]
    if torch.version.cuda:
        assert "has no variant for this system's `cuda` backend" in r.stderr
        assert 'Pass `backend="cpu"` to choose the CPU variant explicitly' in r.stderr


@pytest.mark.skipif(GPU, reason="checks the scaffold's choice where no GPU is visible")
def test_scaffold_asks_for_cpu_beside_a_gpu_variant(project):
    # A GPU variant built beside the CPU one (nvcc present, no GPU) is chosen by default; the
    # scaffold's tests and example ask for the CPU variant instead, so they still pass.
    fake = f"{TORCH}-cxx11-cu130-{platform.machine()}-linux"
    make_variant(project / "build", fake, name="my-kernel", backend="cuda", ops_id="_my_kernel_fake_gpu")
    try:
        _scaffold_checks(project)
    finally:
        import shutil

        shutil.rmtree(project / "build" / fake)
