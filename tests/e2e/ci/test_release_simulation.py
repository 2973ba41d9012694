"""The release matrix simulated here (docs/release-ci.md): scripts/simulate-release runs the CPU and
noarch groups of a plan with 2 local runners (separate clones, ccaches and user caches), one real
redis-server as the shared compile cache, concurrent uploads to one kernel-hub branch, and
`kernel-builder ci verify` against the plan. A second round on fresh runners takes every compile
from the shared cache."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "simulate-release"
pytestmark = pytest.mark.slow


def simulate(kernel_builder, kernel_hub, tmp_path, kernel: Path, *extra) -> dict:
    out = tmp_path / "summary.json"
    result = subprocess.run([sys.executable, str(SCRIPT), str(kernel), "--kernel-builder", str(kernel_builder),
                             "--kernel-hub", str(kernel_hub), "--work", str(tmp_path / "work"), "--json", str(out),
                             *map(str, extra)], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-6000:]
    print(result.stderr)
    return json.loads(out.read_text())


def test_cpu_groups_on_two_runners_share_the_cache_and_complete_the_branch(kernel_builder, kernel_hub, kb_python,
                                                                           tmp_path, torch215_python_if_installed):
    pythons = ["--python", kb_python]
    torch215 = torch215_python_if_installed
    if torch215 is not None:
        pythons += ["--python", torch215]
    summary = simulate(kernel_builder, kernel_hub, tmp_path, REPO / "tests" / "e2e" / "builder" / "data" / "addone",
                       "--runners", 2, "--rounds", 2, "--backend", "cpu", *pythons)
    assert "torch211-cpu-x86_64-linux" in summary["groups_run"]
    if torch215 is not None:
        assert "torch215-cpu-x86_64-linux" in summary["groups_run"]
    assert any(g.startswith("torch213-") for g in summary["groups_skipped"])  # no toolchain here
    first, second = summary["rounds"]
    for r in (first, second):
        assert r["verify_exit"] == 0, r["verify"]
        assert f"{len(summary['groups_run'])} of {len(summary['groups_run'])} planned variant(s)" in r["verify"]
        assert all("error" not in job for job in r["jobs"]), r["jobs"]
    assert first["compiles"] > 0 and first["from_remote_cache"] == 0
    # Fresh runners, empty local caches: every compile from the shared cache.
    assert second["remote_hit_rate"] == 1.0, second["jobs"]
    print(f"round 1 {first['seconds']} s, round 2 {second['seconds']} s, hit rate {second['remote_hit_rate']}, "
          f"upload retries {first['upload_retries']}")


def test_noarch_group(kernel_builder, kernel_hub, kb_python, tmp_path):
    summary = simulate(kernel_builder, kernel_hub, tmp_path, REPO / "tests" / "e2e" / "builder" / "data" / "noarch_scale",
                       "--rounds", 1, "--python", kb_python)
    assert summary["groups_run"] == ["noarch"] and summary["groups_skipped"] == []
    (only,) = summary["rounds"]
    assert only["verify_exit"] == 0 and "2 of 2 planned variant(s)" in only["verify"]
