"""The benchmark `kernel-builder init` scaffolds (templates/init/benchmarks/benchmark.py) imports
`kernels.benchmark.Benchmark` and runs under `kernels benchmark`: its `verify_base` passes on a
kernel computing x + 1 and fails on one that does not. The kernel is a pure-Python noarch
variant standing in for the compiled one (the compiled build is test_first_run_scaffold's)."""
from __future__ import annotations

import json
import subprocess

import pytest

from benchmark_testlib import run_kernels
from loader_testlib import BUILD_DIR, make_variant


def _kernel(result: str) -> str:
    return ("import torch\n"
            "def my_kernel(x, out=None):\n"
            "    if out is None:\n"
            "        out = torch.empty_like(x)\n"
            f"    out.copy_({result})\n"
            "    return out\n")


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory):
    kernel_builder = BUILD_DIR / "src" / "cli" / "kernel-builder"
    if not kernel_builder.exists():
        pytest.skip("kernel-builder not built; set KB_BUILD_DIR")
    root = tmp_path_factory.mktemp("scaffold")
    r = subprocess.run([str(kernel_builder), "init", "--name", "acme/my-kernel", "--backends", "cpu"],
                       cwd=root, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return root / "my-kernel"


@pytest.mark.parametrize("result, verified, rc", [("x + 1", True, 0), ("x + 2", False, 1)])
def test_scaffolded_benchmark_runs(scaffold, tmp_path, result, verified, rc):
    project = tmp_path / "my-kernel"
    project.mkdir()
    (project / "benchmarks").mkdir()
    (project / "benchmarks" / "benchmark.py").write_text((scaffold / "benchmarks" / "benchmark.py").read_text())
    make_variant(project / "build", "torch-universal", name="my-kernel", init_extra=_kernel(result))
    r = run_kernels(["benchmark", str(project), "--iterations", "3", "--warmup", "1", "--json"], cwd=tmp_path, env={})
    assert r.returncode == rc, r.stderr
    doc = json.loads(r.stdout)
    assert [(x["benchmark"], x["case"], x["verified"]) for x in doc["results"]] == [
        ("MyKernelBenchmark", "base", verified)]
