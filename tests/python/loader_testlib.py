"""Helpers of the loader tests: a private `kernel-hub serve` on port 0 with a trusted and an
untrusted organisation, a publisher using the official huggingface_hub client, and helpers to
build small hand-made variant directories (pure-Python noarch variants, fake arch variants)."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest

# Our server speaks plain LFS, not Xet; huggingface_hub reads this when it is first imported.
os.environ.setdefault("HF_HUB_DISABLE_XET", "1")

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("KB_BUILD_DIR", REPO_ROOT / "build-release"))
PYTHON_DIR = REPO_ROOT / "python"
# PYTHONPATH for subprocesses: the source tree when it holds a built `_core` (development, the
# module symlinked from a build dir), else "" so the installed package (`pip install .`) is used.
OUR_PYTHONPATH = str(PYTHON_DIR) if list((PYTHON_DIR / "kernels").glob("_core*.so")) else ""


def _kernel_hub_binary() -> Path:
    path = BUILD_DIR / "src" / "cli" / "kernel-hub"
    if path.exists():
        return path
    found = shutil.which("kernel-hub")
    if found is None:
        pytest.skip("kernel-hub not built; set KB_BUILD_DIR")
    return Path(found)


class Hub:
    """A running kernel-hub; `requests()` returns the access-log lines seen so far."""

    def __init__(self, root: Path):
        self.root = root
        exe = str(_kernel_hub_binary())
        # The accounts file in the server's documented format (one user in both organisations).
        self.token = "hf_loadertests" + hashlib.sha256(str(root).encode()).hexdigest()[:20]
        root.mkdir(parents=True, exist_ok=True)
        (root / "accounts.json").write_text(json.dumps({
            "format_version": 1,
            "orgs": {"trusted-org": {"trusted": True}, "other-org": {"trusted": False}},
            "users": {"tester": {"orgs": ["trusted-org", "other-org"],
                                 "token_sha256": [hashlib.sha256(self.token.encode()).hexdigest()]}},
        }))
        self.proc = subprocess.Popen([exe, "serve", "--root", str(root), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"http://[\d.]+:(\d+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"kernel-hub did not start: {line!r} {self.proc.stderr.read()}")
        self.endpoint = f"http://127.0.0.1:{m.group(1)}"
        self._log: List[str] = []
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self._log.append(line.rstrip("\n"))

    def requests(self) -> List[str]:
        time.sleep(0.2)  # let the reader thread catch up with the server's log
        return [line for line in self._log if re.search(r"\b(GET|HEAD|POST|PUT)\b", line)]

    def mark(self) -> int:
        return len(self.requests())

    def since(self, mark: int) -> List[str]:
        return self.requests()[mark:]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def api(self):
        from huggingface_hub import HfApi

        return HfApi(endpoint=self.endpoint, token=self.token)

    def publish(self, repo_id: str, folder: Path, branches: Dict[str, Optional[Path]],
                main_files: Optional[Dict[str, str]] = None) -> Dict[str, str]:
        """Create `repo_id`, write `main_files` on main, and upload each branch's folder."""
        api = self.api()
        api.create_repo(repo_id, repo_type="kernel", exist_ok=True)
        if main_files:
            staging = folder / "_main"
            for path, text in main_files.items():
                (staging / path).parent.mkdir(parents=True, exist_ok=True)
                (staging / path).write_text(text)
            _upload(api, repo_id, staging, "main")
        commits = {}
        for branch, content in branches.items():
            api.create_branch(repo_id, repo_type="kernel", branch=branch, exist_ok=True)
            if content is not None:
                commits[branch] = _upload(api, repo_id, content, branch)
        return commits


def _upload(api, repo_id: str, folder: Path, revision: str) -> str:
    """Commit a folder with the official client. Its write methods still validate the repo type
    against the pre-kernel list (the URL/API mapping knows `kernel`), so widen that list."""
    from huggingface_hub import CommitOperationAdd, constants

    if "kernel" not in constants.REPO_TYPES:
        constants.REPO_TYPES.append("kernel")

    ops = [CommitOperationAdd(path_in_repo=p.relative_to(folder).as_posix(), path_or_fileobj=str(p))
           for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    info = api.create_commit(repo_id=repo_id, repo_type="kernel", operations=ops, revision=revision,
                             commit_message="Upload test kernel")
    return info.oid


def digest_of(variant_dir: Path) -> Dict[str, str]:
    files = {}
    for path in sorted(variant_dir.rglob("*")):
        rel = path.relative_to(variant_dir).as_posix()
        if path.is_dir() or rel in ("metadata.json", "metadata.json.sigstore") or "__pycache__" in rel \
                or rel.endswith(".pyc"):
            continue
        files[rel] = base64.b64encode(hashlib.sha256(path.read_bytes()).digest()).decode()
    return files


def make_variant(build_dir: Path, variant: str, *, name: str = "demo", ops_id: Optional[str] = None,
                 version: int = 1, backend: str = "cpu", value: str = "1", python_depends=(),
                 dirty: Optional[Dict[str, bool]] = None, legacy: bool = False, digest: bool = True,
                 extra_files: Optional[Dict[str, str]] = None, kernel_depends=(), init_extra: str = "",
                 archs: Optional[List[str]] = None, kernels_minver: Optional[str] = None) -> Path:
    """A pure-Python variant whose module has `VALUE`, `add_one(x)` and a relative import;
    `archs` declares the backend's architectures, `kernels_minver` the oldest `kernels` it needs."""
    vdir = build_dir / variant
    pkg = vdir / name.replace("-", "_") if legacy else vdir
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(
        "from ._helpers import helper\n"
        f"VALUE = {value}\n"
        f"VARIANT = {variant!r}\n"
        "def add_one(x):\n    return x + 1\n"
        + init_extra
    )
    (pkg / "_helpers.py").write_text("def helper():\n    return 'helped'\n")
    for rel, text in (extra_files or {}).items():
        (vdir / rel).parent.mkdir(parents=True, exist_ok=True)
        (vdir / rel).write_text(text)
    md = {
        "name": name,
        "id": ops_id or f"_{name.replace('-', '_')}_{backend}_{abs(hash((variant, value))) % 10**7:07d}",
        "version": version,
        "license": "Apache-2.0",
        "python-depends": list(python_depends),
        "kernel-depends": list(kernel_depends),
        "backend": {"type": backend},
    }
    if archs is not None:
        md["backend"]["archs"] = list(archs)
    if kernels_minver is not None:
        md["kernels-minver"] = kernels_minver
    if digest:
        md["digest"] = {"algorithm": "sha256", "files": digest_of(vdir)}
    if dirty is not None:
        md["provenance"] = {
            "kernel-builder": {"version": "0.1.0", "commit": "a" * 40, "dirty": dirty.get("builder", False)},
            "kernel": {"commit": "b" * 40, "dirty": dirty.get("kernel", False)},
        }
    (vdir / "metadata.json").write_text(json.dumps(md, indent=2))
    return vdir


def run_python(code: str, env: Dict[str, str], pythonpath: Optional[str] = None, timeout: int = 120):
    full = dict(os.environ)
    full.update(env)
    full["PYTHONPATH"] = pythonpath if pythonpath is not None else OUR_PYTHONPATH
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=timeout)


# Develop against the source tree when an in-tree `_core` exists (symlinked from a build dir);
# otherwise the installed package (`pip install .`) is used.
if list((PYTHON_DIR / "kernels").glob("_core*.so")):
    sys.path.insert(0, str(PYTHON_DIR))
