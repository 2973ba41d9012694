"""`kernels benchmark` as a user sees it: the table (golden, stable numbers from a fake timer;
refresh with KB_REFRESH_GOLDEN=1), the run document's shape, a failed verification reported,
the charts written (valid SVG and PNG), usage errors, and `--help`."""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from benchmark_testlib import FakeTimer, make_project, run_cli_in_process

GOLDEN = Path(__file__).resolve().parent / "golden" / "benchmark"

SCRIPT = '''
import torch
from kernels.benchmark import Benchmark

class ReluBench(Benchmark):
    seed = 1
    def setup(self):
        self.x = torch.randn(4096)
        self.out = torch.empty_like(self.x)
    def benchmark_relu(self):
        self.kernel.relu(self.x, out=self.out)
    def verify_relu(self):
        return torch.relu(self.x)
    def bytes_relu(self):
        return 2 * 4 * self.x.numel()
    def flops_relu(self):
        return self.x.numel()
    def benchmark_untimed_reference(self):
        self.kernel.relu(self.x, out=self.out)

class WrongBench(Benchmark):
    def setup(self):
        self.x = torch.arange(-4.0, 4.0)
    def benchmark_wrong(self):
        self.out = self.kernel.wrong(self.x)
    def verify_wrong(self):
        return torch.relu(self.x)
'''

RESULT_KEYS = {"benchmark", "case", "verified", "unit", "mean", "std", "min", "max", "q1", "median", "q3",
               "outliers", "samples", "bytes", "flops", "bandwidth_fraction", "peak_fraction"}


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("KB_REFRESH_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "relu", {"benchmark.py": SCRIPT})


def test_table_golden(project, monkeypatch):
    monkeypatch.chdir(project.parent)
    rc, out, err = run_cli_in_process(["benchmark", "./relu", "--iterations", "6", "--warmup", "2"], monkeypatch)
    assert rc == 1  # WrongBench.wrong does not verify
    _golden("table.txt", out)
    _golden("stderr.txt", err)


def test_json_document_shape(project, monkeypatch):
    rc, out, err = run_cli_in_process(["benchmark", str(project), "--iterations", "4", "--warmup", "0", "--json"],
                                      monkeypatch, FakeTimer([0.5, 0.25]))
    doc = json.loads(out)  # stdout is the document alone; the table went to stderr
    assert "Benchmark" in err and "ReluBench" in err
    assert doc["format"] == "kernels-benchmark/1"
    assert doc["kernel"] == {"repo_id": str(project), "revision": "local", "variant": "torch-universal"}
    assert set(doc["machine"]) == {"cpu", "gpu", "driver", "cuda", "torch", "python", "platform"}
    assert doc["settings"] == {"iterations": 4, "warmup": 0, "timer": "monotonic"}
    assert set(doc["device"]) == {"copy_bandwidth_bytes_per_s", "peak_flops_per_s", "peak_source"}
    assert doc["device"]["peak_source"].startswith("measured: 64x64 float32 matmul")
    assert [(r["benchmark"], r["case"], r["verified"]) for r in doc["results"]] == [
        ("ReluBench", "relu", True), ("ReluBench", "untimed_reference", None), ("WrongBench", "wrong", False)]
    for r in doc["results"]:
        assert set(r) == RESULT_KEYS and r["unit"] == "ms" and r["samples"] == 4
    assert doc["results"][0]["bytes"] == 32768 and doc["results"][0]["flops"] == 4096
    assert doc["results"][0]["bandwidth_fraction"] > 0


def test_failed_verification_is_reported(project, monkeypatch):
    rc, out, err = run_cli_in_process(["benchmark", str(project), "--iterations", "2"], monkeypatch)
    assert rc == 1
    assert "error: Verification failed for WrongBench.wrong: max |out - reference| = 4 (atol 0.01)" in err
    row = next(line for line in out.splitlines() if line.startswith("WrongBench"))
    assert "FAILED" in row.split()


def test_charts_written(project, tmp_path, monkeypatch):
    base = tmp_path / "charts" / "relu"
    rc, _, err = run_cli_in_process(["benchmark", str(project), "--iterations", "4", "--visual", str(base),
                                     "--rasterized"], monkeypatch)
    assert rc == 1, err  # the failing case is still drawn
    for theme in ("light", "dark"):
        svg = Path(f"{base}-{theme}.svg")
        root = ElementTree.parse(svg).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        text = svg.read_text()
        assert "Roofline" in text and "ReluBench.relu" in text
        png = Path(f"{base}-{theme}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
    assert Path(f"{base}-light.svg").read_text() != Path(f"{base}-dark.svg").read_text()
    assert f"Chart written to {base}-dark.png" in err


def test_charts_without_rasterized_are_svg_only(project, tmp_path, monkeypatch):
    base = tmp_path / "only"
    run_cli_in_process(["benchmark", str(project), "--iterations", "2", "--visual", str(base)], monkeypatch)
    assert sorted(p.name for p in tmp_path.glob("only*")) == ["only-dark.svg", "only-light.svg"]


@pytest.mark.parametrize("argv, message", [
    (["org/name"], "error: must specify either branch or version\n"),
    (["org/name@1"], "error: version must be prefixed with 'v'\n"),
    (["{project}", "--version", "1"], "error: --branch and --version cannot be used with a local path\n"),
    (["{project}", "--upload"], "error: --upload needs a Hub repository"),
    (["{project}", "--iterations", "0"], "error: --iterations must be at least 1 and --warmup at least 0\n"),
])
def test_usage_errors(project, monkeypatch, argv, message):
    argv = [a.replace("{project}", str(project)) for a in argv]
    rc, out, err = run_cli_in_process(["benchmark", *argv], monkeypatch)
    assert (rc, out) == (2, "")
    assert err.startswith(message)


def test_missing_benchmarks(tmp_path, monkeypatch):
    make_project(tmp_path / "k", {})
    rc, _, err = run_cli_in_process(["benchmark", str(tmp_path / "k")], monkeypatch)
    assert rc == 1 and f"error: No benchmark scripts found in '{tmp_path / 'k' / 'benchmarks'}'" in err


def test_help_golden(monkeypatch, capsys):
    from kernels import cli

    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        cli.main(["benchmark", "--help"])
    _golden("help.txt", capsys.readouterr().out)
