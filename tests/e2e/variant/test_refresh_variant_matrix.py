"""scripts/refresh-variant-matrix: upstream's versions.nix (a Nix list of attribute sets) becomes
data/variant-matrix.json's build sets; --check reports a stale matrix."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "refresh-variant-matrix"

# Same shape as upstream's file: comments, booleans, one backend key per entry.
VERSIONS_NIX = """[
  {
    torchVersion = "2.14";
    cpu = true;
    systems = [ "x86_64-linux" "aarch64-linux" ];
    bundleBuild = true;
    tvmFfiVersion = "0.2";
  }
  # two CUDA toolkits with the same settings become one entry
  { torchVersion = "2.14"; cudaVersion = "13.0"; systems = [ "x86_64-linux" ]; bundleBuild = true; }
  { torchVersion = "2.14"; cudaVersion = "13.2"; systems = [ "x86_64-linux" ]; bundleBuild = true; }
  { torchVersion = "2.13"; tpu = true; systems = [ "x86_64-linux" ]; bundleBuild = false; }
]
"""


SNAPSHOT_SETS = [
    {"torch": "2.14", "backend": "cpu", "systems": ["x86_64-linux", "aarch64-linux"], "bundle": True, "tvm_ffi": "0.2"},
    {"torch": "2.14", "backend": "cuda", "toolkits": ["13.0", "13.2"], "systems": ["x86_64-linux"], "bundle": True},
    {"torch": "2.13", "backend": "tpu", "systems": ["x86_64-linux"], "bundle": False, "noarch_only": True},
]


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def matrix_file(tmp_path, tracker=None, build_sets=()):
    """The repository's matrix file with its tracker changes and build sets replaced."""
    data = json.loads((REPO / "data" / "variant-matrix.json").read_text())
    data["upstream"].pop("tracker", None)
    if tracker is not None:
        data["upstream"]["tracker"] = tracker
    data["build_sets"] = list(build_sets)
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(data))
    return path


def test_refresh_writes_build_sets_and_revision(tmp_path):
    nix = tmp_path / "versions.nix"
    nix.write_text(VERSIONS_NIX)
    matrix = matrix_file(tmp_path)
    result = run(nix, "--matrix", matrix, "--revision", "0123abc")
    assert result.returncode == 0, result.stderr
    data = json.loads(matrix.read_text())
    assert data["format_version"] == 1
    assert data["description"] == json.loads((REPO / "data" / "variant-matrix.json").read_text())["description"]
    assert data["upstream"]["revision"] == "0123abc"
    assert data["build_sets"] == SNAPSHOT_SETS
    assert run(nix, "--matrix", matrix, "--check").returncode == 0


def test_tracker_changes_survive_a_refresh(tmp_path):
    """Sets read from upstream's tracker (with `source`) stay until the snapshot has that torch
    and backend; a torch the tracker removed is dropped from an older snapshot."""
    tracker = [{"ref": "org/repo#1", "date": "2026-09-04", "states": "drop 2.13", "removes_torch": ["2.13"]},
               {"ref": "org/repo#2", "date": "2026-09-17", "states": "2.15 nightly"}]
    newer_cuda = {"torch": "2.15", "backend": "cuda", "toolkits": ["13.4"], "systems": ["x86_64-linux"],
                  "bundle": False, "source": "org/repo#2 (systems inferred)"}
    xpu = {"torch": "2.14", "backend": "xpu", "toolkits": ["2026.1"], "systems": ["x86_64-linux"], "bundle": True,
           "source": "org/repo#1"}
    superseded = {"torch": "2.14", "backend": "cpu", "systems": ["x86_64-linux"], "bundle": True, "source": "org/repo#1"}
    matrix = matrix_file(tmp_path, tracker, [superseded, xpu, newer_cuda])
    nix = tmp_path / "versions.nix"
    nix.write_text(VERSIONS_NIX)
    result = run(nix, "--matrix", matrix, "--revision", "0123abc")
    assert result.returncode == 0, result.stderr
    data = json.loads(matrix.read_text())
    assert data["build_sets"] == SNAPSHOT_SETS[:2] + [xpu, newer_cuda]
    assert data["upstream"]["tracker"] == tracker
    assert "torch 2.13: removed per the tracker" in result.stderr
    assert "torch 2.14 cpu: versions.nix now has it (tracker set dropped)" in result.stderr
    # The rendered file is stable: a second refresh and --check agree with it.
    text = matrix.read_text()
    assert run(nix, "--matrix", matrix, "--check").returncode == 0
    assert run(nix, "--matrix", matrix).returncode == 0
    assert matrix.read_text() == text
    # One tracker change a line in the written file.
    assert '\n    {"ref": "org/repo#2", "date": "2026-09-17", "states": "2.15 nightly"}\n' in text


def test_repository_matrix_records_its_tracker_sources():
    """Every `source` of data/variant-matrix.json names a change listed in upstream.tracker."""
    data = json.loads((REPO / "data" / "variant-matrix.json").read_text())
    refs = {change["ref"] for change in data["upstream"]["tracker"]}
    sourced = [s for s in data["build_sets"] if "source" in s]
    assert sourced
    for build_set in sourced:
        named = {word.strip(",;()") for word in build_set["source"].split() if "#" in word}
        assert named and named <= refs, (build_set, named - refs)
    removed = {t for change in data["upstream"]["tracker"] for t in change.get("removes_torch", [])}
    assert not any(s["torch"] in removed for s in data["build_sets"])


def test_check_reports_a_stale_matrix(tmp_path):
    nix = tmp_path / "versions.nix"
    nix.write_text(VERSIONS_NIX)
    result = run(nix, "--matrix", REPO / "data" / "variant-matrix.json", "--check")
    assert result.returncode == 1
    assert "differs from versions.nix" in result.stderr


def test_unknown_key_is_refused(tmp_path):
    nix = tmp_path / "versions.nix"
    nix.write_text('[ { torchVersion = "2.14"; cpu = true; systems = [ "x86_64-linux" ]; newThing = true; } ]')
    matrix = tmp_path / "matrix.json"
    shutil.copy(REPO / "data" / "variant-matrix.json", matrix)
    result = run(nix, "--matrix", matrix)
    assert result.returncode != 0
    assert "unknown keys ['newThing']" in result.stderr
