"""Fixtures of the Hub end-to-end tests: a `kernel-hub serve` on a free port in a temp root,
with an organization and users whose tokens the tests use."""
import base64
import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

# kernel-hub speaks plain LFS, not Xet (yet): huggingface_hub reads this once, when a test module
# first imports it during collection, so it is set before any of them is collected.
os.environ.setdefault("HF_HUB_DISABLE_XET", "1")


@dataclass
class Hub:
    root: Path
    url: str
    process: subprocess.Popen
    binary: Path

    def add_user(self, name: str, *orgs: str) -> str:
        args = [str(self.binary), "user", "add", name, "--root", str(self.root)]
        for org in orgs:
            args += ["--org", org]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        return out.strip().splitlines()[-1]

    def add_org(self, name: str, trusted: bool = False) -> None:
        args = [str(self.binary), "org", "add", name, "--root", str(self.root)]
        if trusted:
            args.append("--trusted")
        subprocess.run(args, check=True, capture_output=True)

    def log(self) -> str:
        return (self.root.parent / "hub.log").read_text()


def start_hub(binary: Path, root: Path) -> Hub:
    log = open(root.parent / "hub.log", "ab")
    process = subprocess.Popen(
        [str(binary), "serve", "--root", str(root), "--port", "0"],
        stdout=subprocess.PIPE, stderr=log, text=True)
    line = process.stdout.readline().strip()
    assert line.startswith("Listening on http://"), line
    return Hub(root, line.split(" ", 2)[2], process, binary)


@pytest.fixture
def hub(kernel_hub, tmp_path):
    root = tmp_path / "hub-root"
    root.mkdir()
    server = start_hub(kernel_hub, root)
    yield server
    server.process.kill()
    server.process.wait()


@pytest.fixture
def hf_env(hub, tmp_path, monkeypatch):
    """Points huggingface_hub (imported afresh) at the local hub."""
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_HUB_DISABLE_XET", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    import huggingface_hub.constants as constants
    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", hub.url + "/{repo_id}/resolve/{revision}/{filename}")
    return hub


def digest_json(files: dict) -> str:
    """The `digest` value of metadata.json (docs/build-output.md) for {relative path: bytes},
    computed here independently of the C++ code, in the canonical layout."""
    entries = ",\n".join('      "%s": "%s"' % (name, base64.b64encode(hashlib.sha256(data).digest()).decode())
                          for name, data in sorted(files.items()))
    return '{\n    "algorithm": "sha256",\n    "files": {\n%s\n    }\n  }' % entries


def make_variant_tree(kernel_dir: Path, version: int = 1, variants=("torch-cpu",), dirty=False) -> dict:
    """A small fake build: per variant __init__.py, _ops.py, a binary .so with NUL bytes and
    metadata.json recording their digest (upload refuses variants without one). Returns
    {repo path: bytes} of what upload must send to the version branch."""
    files = {}
    kernel_dir.mkdir(parents=True, exist_ok=True)
    (kernel_dir / "build.toml").write_text(
        "[general]\nname = \"relu\"\nversion = %d\nlicense = \"Apache-2.0\"\nbackends = [\"cpu\"]\n\n"
        "[general.hub]\nrepo-id = \"acme/relu\"\n\n[torch]\nsrc = []\n" % version)
    for variant in variants:
        d = kernel_dir / "build" / variant
        d.mkdir(parents=True)
        contents = {
            "__init__.py": b"from ._ops import ops\n",
            "_ops.py": b"ops = None\n",
            "_relu_cpu_abc1234.abi3.so": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64 + b"\x00" * 100,
        }
        contents["metadata.json"] = (
            '{\n  "name": "relu",\n  "id": "_relu_cpu_abc1234",\n  "version": %d,\n'
            '  "license": "Apache-2.0",\n  "python-depends": [],\n  "kernel-depends": [],\n'
            '  "backend": {\n    "type": "cpu"\n  },\n  "digest": %s,\n  "provenance": {\n    "kernel-builder": {\n'
            '      "version": "0.1.0"\n    },\n    "kernel": {\n      "commit": "%s",\n      "dirty": %s\n    }\n  }\n}'
            % (version, digest_json(contents), "a" * 40, "true" if dirty else "false")).encode()
        for name, data in contents.items():
            (d / name).write_bytes(data)
            files[f"build/{variant}/{name}"] = data
    return files


@pytest.fixture
def variant_tree():
    return make_variant_tree


@pytest.fixture
def hub_factory():
    """start_hub, for tests that restart servers themselves."""
    return start_hub
