"""`kernel-builder build-and-upload`: builds, then uploads to the Hub, warning when the upload is
a partial bundle (docs/cli.md)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

NOARCH_FIXTURE = Path(__file__).resolve().parents[1] / "builder" / "data" / "noarch_scale"


def test_build_and_upload_warns_about_a_partial_bundle(hf_env, kernel_builder, tmp_path):
    hf_env.add_org("acme")
    token = hf_env.add_user("alice", "acme")
    project = tmp_path / "noarch_scale"
    shutil.copytree(NOARCH_FIXTURE, project)
    env = {**os.environ, "HF_ENDPOINT": hf_env.url, "HF_TOKEN": token}
    command = [str(kernel_builder), "build-and-upload", str(project), "--python", sys.executable,
               "--unique-id", "bu1", "--repo-id", "acme/noarch-scale"]
    partial = subprocess.run(command + ["--variant", "torch-cpu"], env=env, capture_output=True, text=True)
    assert partial.returncode == 0, partial.stderr
    assert ("warning: uploading a partial bundle: 1 variant(s) of this kernel were not built in this run: "
            "torch-cuda.") in partial.stderr
    assert "Kernel uploaded: " in partial.stderr + partial.stdout
    # Every variant built: no warning.
    whole = subprocess.run(command, env=env, capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    assert "partial bundle" not in whole.stderr
    assert "torch-cuda" in whole.stderr + whole.stdout
