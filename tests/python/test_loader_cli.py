"""The `kernels` command line (docs/cli.md) against kernel-hub: versions, info (human and --json,
Hub and local), variants --explain, check, lock errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from loader_testlib import OUR_PYTHONPATH, make_variant

CLI = "import sys; from kernels.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def clirepo(hub, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    for tag in ("v1", "v2"):
        for variant, backend in (("torch-cpu", "cpu"), ("torch-cuda", "cuda"),
                                 ("torch29-cxx11-cu126-x86_64-linux", "cuda")):
            make_variant(tmp / tag / "build", variant, name="cli-k", backend=backend, value="1")
    return hub.publish("trusted-org/cli-k", tmp, {"v1": tmp / "v1", "v2": tmp / "v2"}), tmp


def kernels_cli(hub, *args, cwd=None):
    env = dict(os.environ, PYTHONPATH=OUR_PYTHONPATH, HF_ENDPOINT=hub.endpoint)
    return subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, cwd=cwd)


def test_check_moved(hub):
    r = kernels_cli(hub, "check", "org/x")
    assert r.returncode == 1 and r.stderr.strip() == "`kernels check` has moved to `kernel-builder check-abi`"


def test_versions(hub, clirepo, tmp_path):
    r = kernels_cli(hub, "versions", "trusted-org/cli-k")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("Version 1:\n\ntorch-cuda compatible, preferred ✅\n")
    assert "Version 2:\n\n" in out
    assert "torch-cpu: backend (cpu) does not match system backend (cuda) and is not universal" in out


def test_versions_unversioned_repo(hub, clirepo, tmp_path):
    hub.api().create_repo("trusted-org/noversions", repo_type="kernel", exist_ok=True)
    r = kernels_cli(hub, "versions", "trusted-org/noversions")
    assert r.returncode == 0 and r.stdout.strip() == "Repository does not support kernel versions: trusted-org/noversions"


def test_variants_explain(hub, clirepo):
    r = kernels_cli(hub, "variants", "trusted-org/cli-k", "--version", "1", "--explain")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "torch-cuda compatible, preferred ✅"
    assert len(lines) == 3
    assert any(line.startswith("torch29-cxx11-cu126-x86_64-linux: Torch version (2.9) does not match") for line in lines)
    r = kernels_cli(hub, "variants", "trusted-org/cli-k", "--backend", "cpu")
    assert r.returncode == 0 and r.stdout.strip() == "torch-cpu"


def test_info_hub_json_and_human(hub, clirepo):
    r = kernels_cli(hub, "info", "trusted-org/cli-k", "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["repo_id"] == "trusted-org/cli-k" and info["revision"] == "v2"
    assert info["name"] == "cli-k" and info["license"] == "Apache-2.0" and info["backends"] == ["cpu", "cuda"]
    r = kernels_cli(hub, "info", "trusted-org/cli-k", "--version", "1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:3] == ["Repository: trusted-org/cli-k", "Revision: v1", "Name: cli-k"]
    assert "Upstream: -" in r.stdout and "Backends: cpu, cuda" in r.stdout
    r = kernels_cli(hub, "info", "trusted-org/cli-k", "--version", "1", "--revision", "main")
    assert r.returncode == 1 and "Only one of --revision or --version can be specified" in r.stderr


def test_info_version_not_found(hub, clirepo):
    # The core's text (the same as get_kernel(version=3) raises), not a copy in the CLI.
    r = kernels_cli(hub, "info", "trusted-org/cli-k", "--version", "3")
    assert r.returncode == 1 and r.stderr == "Version 3 not found, available versions: 1, 2\n"


def test_info_local(hub, clirepo):
    _, tmp = clirepo
    r = kernels_cli(hub, "info", str(tmp / "v1"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == f"Path: {tmp / 'v1'}"
    r = kernels_cli(hub, "info", str(tmp / "v1"), "--version", "1")
    assert r.returncode == 1 and "--revision and --version cannot be used with a local path" in r.stderr
    (tmp / "empty").mkdir(exist_ok=True)
    r = kernels_cli(hub, "info", str(tmp / "empty"))
    assert r.returncode == 1 and f"No build variants found in: {tmp / 'empty' / 'build'}" in r.stderr


def test_lock_without_table_and_download_without_lock(hub, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    r = kernels_cli(hub, "lock", str(tmp_path))
    assert r.returncode == 1 and f"No [tool.kernels.dependencies] table in {tmp_path / 'pyproject.toml'}" in r.stderr
    r = kernels_cli(hub, "download", str(tmp_path))
    assert r.returncode == 1 and f"No kernels.lock file found in: {tmp_path}" in r.stderr
