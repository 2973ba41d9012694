"""Statistics of `kernels benchmark`: exact values on known samples (numpy's linear percentiles,
population std, 1.5·IQR outliers), carried unchanged into the run document through a fake timer,
and the roofline fractions computed from the declared bytes/FLOPs."""
from __future__ import annotations

import json
import statistics

import numpy
import pytest

from benchmark_testlib import FakeTimer, make_project, run_cli_in_process
from kernels._benchmark.stats import summarize

SAMPLES = [1.0, 1.5, 1.25, 2.0, 1.0, 9.0, 1.5, 1.75]


def test_summary_is_exact():
    s = summarize(SAMPLES)
    assert s.mean == pytest.approx(sum(SAMPLES) / 8, abs=0)
    assert s.std == pytest.approx(numpy.std(SAMPLES), rel=1e-15)  # population, not sample
    assert s.std != pytest.approx(statistics.stdev(SAMPLES))
    assert (s.min, s.max) == (1.0, 9.0)
    assert [s.q1, s.median, s.q3] == pytest.approx(list(numpy.percentile(SAMPLES, [25, 50, 75])), rel=1e-15)
    assert (s.q1, s.median, s.q3) == (1.1875, 1.5, 1.8125)
    assert s.outliers == 1  # 9.0 > q3 + 1.5 * iqr = 2.75
    assert s.samples == 8


def test_outlier_fences_are_inclusive_and_two_sided():
    # q1 = 2, q3 = 4, iqr = 2: fences -1 and 7; -1 and 7 themselves are not outliers.
    assert summarize([2, 2, 4, 4, -1, 7, 3, 3, 2, 4]).outliers == 0
    assert summarize([2, 2, 4, 4, -1.5, 7.5, 3, 3, 2, 4]).outliers == 2


def test_single_sample():
    s = summarize([3.0])
    assert (s.mean, s.std, s.q1, s.median, s.q3, s.outliers) == (3.0, 0.0, 3.0, 3.0, 3.0, 0)


def test_no_samples_is_an_error():
    with pytest.raises(ValueError, match="no timing samples"):
        summarize([])


SCRIPT = '''
import torch
from kernels.benchmark import Benchmark

class Rates(Benchmark):
    def setup(self):
        self.x = torch.randn(1000)
    def benchmark_declared(self):
        self.kernel.relu(self.x)
    def bytes_declared(self):
        return 8000
    flops_declared = 1000
    def benchmark_plain(self):
        self.kernel.relu(self.x)
'''


def test_document_carries_the_timer_samples_and_fractions(tmp_path, monkeypatch):
    make_project(tmp_path / "k", {"benchmark.py": SCRIPT})
    out = tmp_path / "run.json"
    timer = FakeTimer(SAMPLES)
    rc, _, err = run_cli_in_process(["benchmark", str(tmp_path / "k"), "--iterations", "8", "--warmup", "1",
                                     "--output", str(out)], monkeypatch, timer)
    assert rc == 0, err
    doc = json.loads(out.read_text())
    # Roofs: copy (call 0) and matmul (call 1) went through the fake timer too.
    copy_median = statistics.median((SAMPLES * 2)[0:10])
    assert doc["device"]["copy_bandwidth_bytes_per_s"] == pytest.approx(2 * (1 << 20) / (copy_median / 1e3))
    matmul_median = statistics.median((SAMPLES * 2)[1:4])
    assert doc["device"]["peak_flops_per_s"] == pytest.approx(2 * 64 ** 3 / (matmul_median / 1e3))
    declared, plain = doc["results"]
    expected = summarize((SAMPLES * 2)[2:10])  # workload call 2
    for key in ("mean", "std", "min", "max", "q1", "median", "q3"):
        assert declared[key] == pytest.approx(getattr(expected, key), rel=1e-15), key
    assert (declared["outliers"], declared["samples"]) == (expected.outliers, 8)
    bandwidth = doc["device"]["copy_bandwidth_bytes_per_s"]
    peak = doc["device"]["peak_flops_per_s"]
    assert (declared["bytes"], declared["flops"]) == (8000, 1000)
    assert declared["bandwidth_fraction"] == pytest.approx(8000 / (expected.mean / 1e3) / bandwidth)
    assert declared["peak_fraction"] == pytest.approx(1000 / (expected.mean / 1e3) / peak)
    assert plain["bytes"] is None and plain["bandwidth_fraction"] is None and plain["peak_fraction"] is None


def test_a_bad_declaration_is_reported(tmp_path, monkeypatch):
    make_project(tmp_path / "k", {"benchmark.py": SCRIPT.replace("return 8000", "return -1")})
    rc, out, err = run_cli_in_process(["benchmark", str(tmp_path / "k"), "--iterations", "2"], monkeypatch)
    assert rc == 1
    assert "`Rates.declared` raised TypeError: `Rates.bytes_declared` must give a finite number >= 0, got -1" in err
    assert "Rates        plain" in out or "plain" in out
