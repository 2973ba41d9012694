"""`Benchmark` discovery and the order of calls, compared with upstream kernels 0.17.2 running the
same scripts on the same kernel (a subprocess with PYTHONPATH=.upstream-site): which scripts,
classes and workloads run, fresh instances, `setup_<name>` over `setup`, seeding, the benchmark
before `verify_<name>`, warmup plus iterations. Upstream calls `verify_<name>` 1 + warmup times
(it times the reference); ours once, so repeated consecutive events are collapsed."""
from __future__ import annotations

import itertools
import json

import pytest

from benchmark_testlib import UPSTREAM_SITE, make_project, run_kernels

PROBE = '''
import os, random
import torch
from kernels.benchmark import Benchmark

def log(*args):
    with open(os.environ["PROBE_LOG"], "a") as f:
        print(*args, file=f)

class Zeta(Benchmark):
    seed = 7
    def setup(self):
        drawn = (round(torch.rand(1).item(), 6), round(random.random(), 6))
        log("Zeta.setup", type(self).__name__, self.kernel is not None, self.out is None,
            drawn if self.seed is not None else "unseeded")
        self.x = torch.randn(16)
    def setup_two(self):
        drawn = round(torch.rand(1).item(), 6)
        log("Zeta.setup_two", type(self).__name__, drawn if self.seed is not None else "unseeded")
        self.x = torch.randn(16)
    def benchmark_one(self):
        log("Zeta.one", id(self) % 1, self.out is None)
        self.out = self.kernel.relu(self.x)
    def verify_one(self):
        log("Zeta.verify_one")
        return torch.relu(self.x)
    def benchmark_two(self):
        log("Zeta.two", hasattr(self, "marker"))
        self.marker = 1
        self.out = self.x + 0.005
    def verify_two(self):
        return self.x
    benchmark_not_callable = 3
    def helper_benchmark_x(self):
        log("never")

class Alpha(Zeta):
    seed = None
    def benchmark_three(self):
        log("Alpha.three")

class _Private(Benchmark):
    def benchmark_p(self):
        log("_Private.p")
'''

IMPORTED = '''
from kernels.benchmark import Benchmark
class Imported(Benchmark):
    def benchmark_imported(self):
        pass
'''

FIRST = '''
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from kernels.benchmark import Benchmark
from helper_classes import Imported

class First(Benchmark):
    def benchmark_f(self):
        with open(os.environ["PROBE_LOG"], "a") as f:
            print("First.f", os.path.basename(os.getcwd()), file=f)
'''


def _collapse(lines):
    return [line for line, _ in itertools.groupby(lines)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not (UPSTREAM_SITE / "tabulate").is_dir():
        pytest.fail("upstream's benchmark extra (tabulate) is missing from .upstream-site: run scripts/install-deps")
    root = tmp_path_factory.mktemp("semantics")
    project = make_project(root / "probe", {"benchmark_b.py": PROBE, "benchmark_a.py": FIRST,
                                            "helper_classes.py": IMPORTED,
                                            "not_a_benchmark.py": "raise SystemExit('imported')\n"})
    results = {}
    for who in ("upstream", "ours"):
        log = root / f"{who}.log"
        output = root / f"{who}.json"
        r = run_kernels(["benchmark", "./probe", "--iterations", "3", "--warmup", "2", "--output", str(output)],
                        cwd=root, env={"PROBE_LOG": str(log)}, upstream=who == "upstream")
        assert r.returncode == 0, f"{who}:\n{r.stdout}\n{r.stderr}"
        results[who] = (log.read_text().splitlines(), json.loads(output.read_text()))
    return results


def test_call_order_and_seeding_match_upstream(runs):
    upstream_log, _ = runs["upstream"]
    ours_log, _ = runs["ours"]
    assert _collapse(ours_log) == _collapse(upstream_log)
    # The log is not trivially empty: every workload and setup path ran.
    assert {line.split()[0] for line in ours_log} >= {"First.f", "Zeta.setup", "Zeta.setup_two", "Zeta.one",
                                                      "Zeta.verify_one", "Zeta.two", "Alpha.three", "_Private.p"}


def test_same_workloads_as_upstream(runs):
    upstream = sorted(r["workload"] for r in runs["upstream"][1]["results"])
    ours = sorted(f"{r['benchmark']}.{r['case']}" for r in runs["ours"][1]["results"])
    assert ours == upstream
    assert "Imported.imported" not in ours and "_Private.p" in ours and "Alpha.one" in ours


def test_verification_outcome_matches_upstream(runs):
    upstream = {r["workload"]: r.get("verified") for r in runs["upstream"][1]["results"]}
    ours = {f"{r['benchmark']}.{r['case']}": r["verified"] for r in runs["ours"][1]["results"]}
    assert ours == upstream
    assert ours["Zeta.two"] is True and ours["Alpha.three"] is None


def test_iterations_and_warmup_counts_match_upstream(runs):
    upstream_log, _ = runs["upstream"]
    ours_log, _ = runs["ours"]
    for name in ("First.f", "Alpha.three", "_Private.p"):
        assert sum(line.startswith(name) for line in ours_log) == 5  # warmup 2 + iterations 3
        assert sum(line.startswith(name) for line in ours_log) == sum(line.startswith(name) for line in upstream_log)


DESCRIBE_BASE = '''
import json, kernels
from kernels.benchmark import Benchmark
b = Benchmark()
print(json.dumps({"exported": kernels.Benchmark is Benchmark, "in_all": "Benchmark" in kernels.__all__,
                  "seed": Benchmark.seed, "device": Benchmark.device, "instance": sorted(vars(b)),
                  "kernel": b.kernel, "out": b.out, "setup": b.setup(),
                  "annotations": sorted(Benchmark.__annotations__)}))
'''


def test_base_class_matches_upstream(tmp_path):
    import subprocess
    import sys

    from loader_testlib import OUR_PYTHONPATH

    described = {}
    for who, path in (("upstream", str(UPSTREAM_SITE)), ("ours", OUR_PYTHONPATH)):
        env = {"PYTHONPATH": path} if path else {}
        r = subprocess.run([sys.executable, "-c", DESCRIBE_BASE], capture_output=True, text=True, cwd=tmp_path,
                           env={**__import__("os").environ, **env}, timeout=120)
        assert r.returncode == 0, r.stderr
        described[who] = json.loads(r.stdout)
    assert described["ours"] == described["upstream"]
    assert described["ours"]["exported"] and described["ours"]["in_all"]
