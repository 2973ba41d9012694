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


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_refresh_writes_build_sets_and_revision(tmp_path):
    nix = tmp_path / "versions.nix"
    nix.write_text(VERSIONS_NIX)
    matrix = tmp_path / "matrix.json"
    shutil.copy(REPO / "data" / "variant-matrix.json", matrix)
    result = run(nix, "--matrix", matrix, "--revision", "0123abc")
    assert result.returncode == 0, result.stderr
    data = json.loads(matrix.read_text())
    assert data["format_version"] == 1
    assert data["upstream"]["revision"] == "0123abc"
    assert data["build_sets"] == [
        {"torch": "2.14", "backend": "cpu", "systems": ["x86_64-linux", "aarch64-linux"], "bundle": True, "tvm_ffi": "0.2"},
        {"torch": "2.14", "backend": "cuda", "toolkits": ["13.0", "13.2"], "systems": ["x86_64-linux"], "bundle": True},
        {"torch": "2.13", "backend": "tpu", "systems": ["x86_64-linux"], "bundle": False, "noarch_only": True},
    ]
    assert run(nix, "--matrix", matrix, "--check").returncode == 0


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
