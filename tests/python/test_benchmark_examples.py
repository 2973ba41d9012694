"""`kernels benchmark` on the example kernels as built by kernel-builder (CPU): a local project
prints the table with verified cases and roofline fractions and writes the run document and the
charts; relu published to a real kernel-hub with `kernel-builder upload` is benchmarked from the
Hub (scripts from its `benchmarks/`) and its results uploaded and served back."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest

from benchmark_testlib import run_kernels
from loader_testlib import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"


def _example_build():
    spec = importlib.util.spec_from_file_location("kb_example_build_bench", EXAMPLES / "example_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def built():
    example_build = _example_build()
    variants = {}
    for name in ("relu", "activation", "matmul"):
        try:
            variants[name] = example_build.build_with_kernel_builder(EXAMPLES / name, "cpu").name
        except example_build.BuildError as error:
            pytest.fail(str(error), pytrace=False)
    return variants


def _row(table: str, benchmark: str, case: str) -> list:
    for line in table.splitlines():
        cells = line.split()
        if cells[:2] == [benchmark, case]:
            return cells
    raise AssertionError(f"no row {benchmark} {case} in:\n{table}")


@pytest.mark.parametrize("example, benchmark, cases, declares", [
    ("relu", "ReluBenchmark", ["bfloat16", "float32"], {"bytes", "flops"}),
    ("activation", "SiluAndMulBenchmark", ["float32"], {"bytes"}),
    ("matmul", "MatmulBenchmark", ["square"], {"bytes", "flops"}),
])
def test_local_example(built, tmp_path, example, benchmark, cases, declares):
    r = run_kernels(["benchmark", str(EXAMPLES / example), "--iterations", "2", "--warmup", "0",
                     "--output", "run.json", "--visual", "charts/run"], cwd=tmp_path, env={})
    assert r.returncode == 0, r.stderr
    for case in cases:
        cells = _row(r.stdout, benchmark, case)
        assert cells[2] == "yes" and cells[-3].endswith("%")  # of copy bandwidth
        assert cells[-1].endswith("%") == ("flops" in declares)  # of peak
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["kernel"]["variant"] == built[example]
    for result in doc["results"]:
        assert result["verified"] is True
        assert result["bandwidth_fraction"] is not None
        assert (result["peak_fraction"] is not None) == ("flops" in declares)
    for theme in ("light", "dark"):
        assert (tmp_path / "charts" / f"run-{theme}.svg").read_text().lstrip().startswith("<?xml")


def test_published_example_benchmarked_and_uploaded(built, hub, tmp_path):
    repo = "trusted-org/relu-bench"
    env = {"HF_ENDPOINT": hub.endpoint, "HF_TOKEN": hub.token, "HF_HUB_CACHE": str(tmp_path / "cache"),
           "HF_HOME": str(tmp_path / "home"), "HF_HUB_DISABLE_XET": "1"}
    upload = subprocess.run([str(_example_build().kernel_builder_binary()), "upload", str(EXAMPLES / "relu"),
                             "--repo-id", repo], capture_output=True, text=True, timeout=300,
                            env={**os.environ, **env})
    assert upload.returncode == 0, upload.stderr
    r = run_kernels(["benchmark", repo, "--version", "1", "--iterations", "3", "--warmup", "1", "--upload",
                     "--output", "run.json", "--visual", "relu", "--rasterized"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert _row(r.stdout, "ReluBenchmark", "float32")[2] == "yes"
    sent = json.loads((tmp_path / "run.json").read_text())
    assert sent["kernel"] == {"repo_id": repo, "revision": "v1", "variant": built["relu"]}
    assert all(Path(tmp_path, f"relu-{t}.{s}").stat().st_size > 0 for t in ("light", "dark") for s in ("svg", "png"))
    run_id = next(line.split()[2] for line in r.stderr.splitlines() if line.startswith("Uploaded run "))
    import urllib.request

    with urllib.request.urlopen(f"{hub.endpoint}/api/kernels/{repo}/benchmarks/{run_id}", timeout=30) as answer:
        stored = json.loads(answer.read())
    assert stored["document"] == sent
