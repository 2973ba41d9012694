"""Request budget, cross-process safety and integrity of the cache (docs/python-api.md, docs/hub-api.md):
request counts from the server's access log, 16 concurrent cold loads, corrupted cache files
(repaired online, clear error offline), kill -9 during a download, locked loads without a Hub."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loader_testlib import OUR_PYTHONPATH, make_variant, run_python

# Without torch (blocked), the loader selects the CPU noarch variant: keeps 16 processes cheap.
NO_TORCH = "import sys; sys.modules['torch'] = None; "
LOAD = "import kernels; m = kernels.get_kernel('trusted-org/integ', version=1); print(m.VALUE, m.helper())"


@pytest.fixture(scope="module")
def integ(hub, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("integ")
    root = tmp / "v1"
    for variant, backend in (("torch-cpu", "cpu"), ("torch-cuda", "cuda")):
        make_variant(root / "build", variant, name="integ", backend=backend, value="5",
                     extra_files={"data/table.txt": "x" * 1000, "layers/__init__.py": "LAYER = 1\n"})
    big = tmp / "big"
    make_variant(big / "build", "torch-cuda", name="bigk", backend="cuda", value="9",
                 extra_files={"blob.bin": "".join(chr(65 + i % 26) for i in range(24 * 1024 * 1024))})
    return {"integ": hub.publish("trusted-org/integ", tmp, {"v1": root}),
            "big": hub.publish("trusted-org/bigk", tmp, {"v1": big})}


def _env(hub, cache):
    return {"HF_HUB_CACHE": str(cache), "HF_ENDPOINT": hub.endpoint, "HF_TOKEN": hub.token}


def test_request_counts(hub, integ, tmp_path):
    cache = tmp_path / "cache"
    env = _env(hub, cache)
    mark = hub.mark()
    r = run_python(LOAD, env)
    assert r.returncode == 0, r.stderr
    cold = hub.since(mark)
    assert any("/bulk/" in line for line in cold), cold  # our server advertises the bulk endpoint
    assert not any("/resolve/" in line and "table.txt" in line for line in cold)  # no per-file GETs
    mark = hub.mark()
    r = run_python(LOAD, env)
    assert r.returncode == 0, r.stderr
    warm = hub.since(mark)
    assert len(warm) <= 1, warm  # version-pinned warm load: the refs listing only
    commit = integ["integ"]["v1"]
    mark = hub.mark()
    r = run_python(f"import kernels; print(kernels.get_kernel('trusted-org/integ', revision='{commit}').VALUE)", env)
    assert r.returncode == 0, r.stderr
    assert hub.since(mark) == []  # commit-pinned warm load: no request
    mark = hub.mark()
    r = run_python(LOAD, dict(env, HF_HUB_OFFLINE="1"))
    assert r.returncode == 0, r.stderr
    assert hub.since(mark) == []
    print(f"requests: cold={len(cold)} warm={len(warm)}")


def test_sixteen_processes_cold(hub, integ, tmp_path):
    env = dict(os.environ, PYTHONPATH=OUR_PYTHONPATH, **_env(hub, tmp_path / "cache"))
    mark = hub.mark()
    procs = [subprocess.Popen([sys.executable, "-c", NO_TORCH + LOAD], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(16)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * 16, [o[1][-500:] for o in outs if o[1]]
    assert all(o[0].strip() == "5 helped" for o in outs)
    log = hub.since(mark)
    downloads = [line for line in log if line.startswith("GET") and ("/bulk/" in line or "/resolve/" in line)]
    # One download per file: one bulk request plus the metadata.json GET, never repeated.
    assert len([d for d in downloads if "/bulk/" in d]) == 1, downloads
    gets = [d.split()[1] for d in downloads]
    assert len(gets) == len(set(gets)), downloads


def _blob_of(cache: Path, commit: str, rel: str) -> Path:
    link = cache / "kernels--trusted-org--integ" / "snapshots" / commit / "build" / "torch-cuda" / rel
    return link.parent / os.readlink(link)


def test_corruption_repaired_online_and_reported_offline(hub, integ, tmp_path):
    cache = tmp_path / "cache"
    env = _env(hub, cache)
    assert run_python(LOAD, env).returncode == 0
    commit = integ["integ"]["v1"]
    blob = _blob_of(cache, commit, "_helpers.py")
    blob.write_text("def helper():\n    return 'evil'\n")
    r = run_python(LOAD, dict(env, HF_HUB_OFFLINE="1"))
    assert r.returncode != 0
    assert "are corrupted and cannot be re-downloaded because Hugging Face Hub is in offline mode" in r.stderr
    assert "_helpers.py" in r.stderr
    r = run_python(LOAD, env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "5 helped"
    # The same with the receipt intact but the file replaced in place (stat data changes).
    blob = _blob_of(cache, commit, "data/table.txt")
    blob.write_text("y" * 1000)
    r = run_python(LOAD, env)
    assert r.returncode == 0, r.stderr
    assert blob.read_text() == "x" * 1000 or _blob_of(cache, commit, "data/table.txt").read_text() == "x" * 1000


def test_kill_during_download_never_trusted(hub, integ, tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=OUR_PYTHONPATH, **_env(hub, cache))
    code = "import kernels; m = kernels.get_kernel('trusted-org/bigk', version=1); print(m.VALUE)"
    for delay in (0.6, 0.9, 1.2, 1.5):
        p = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        # Offline, a half-finished download must never be taken for a complete one.
        r = run_python(code, dict(_env(hub, cache), HF_HUB_OFFLINE="1"))
        if r.returncode == 0:
            assert r.stdout.strip() == "9"
            big = next(cache.glob("kernels--trusted-org--bigk/snapshots/*/build/torch-cuda/blob.bin"))
            assert big.stat().st_size == 24 * 1024 * 1024
    r = run_python(code, _env(hub, cache))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "9"


def test_lock_download_and_load_kernel_without_hub(hub, integ, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\n\n[tool.kernels.dependencies]\n'
                                            '"trusted-org/integ" = 1\n')
    cache = tmp_path / "cache"
    env = _env(hub, cache)
    cli = "import sys; from kernels.cli import main; sys.exit(main(sys.argv[1:]))"
    r = subprocess.run([sys.executable, "-c", cli, "lock", str(project)],
                       env=dict(os.environ, PYTHONPATH=OUR_PYTHONPATH, **env), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lock = json.loads((project / "kernels.lock").read_text())
    assert lock == [{"dependency": {"repo-id": "trusted-org/integ", "version": 1},
                     "lock": {"commit": integ["integ"]["v1"]}}]
    r = subprocess.run([sys.executable, "-c", cli, "download", str(project)],
                       env=dict(os.environ, PYTHONPATH=OUR_PYTHONPATH, **env), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"Downloading `trusted-org/integ` with SHA: {integ['integ']['v1']}" in r.stderr
    r = subprocess.run([sys.executable, "-c", cli, "download", "--all-variants", str(project)],
                       env=dict(os.environ, PYTHONPATH=OUR_PYTHONPATH, **env), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    snapshot = cache / "kernels--trusted-org--integ" / "snapshots" / integ["integ"]["v1"] / "build"
    assert sorted(p.name for p in snapshot.iterdir()) == ["torch-cpu", "torch-cuda"]
    assert (snapshot / "torch-cpu" / "data" / "table.txt").read_text() == "x" * 1000
    dead = dict(env, HF_ENDPOINT="http://127.0.0.1:9")
    mark = hub.mark()
    r = run_python(f"import kernels; m = kernels.load_kernel('trusted-org/integ', lockfile={str(project / 'kernels.lock')!r});"
                   " print(m.VALUE)", dead)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "5"
    assert hub.since(mark) == []
    # A lock of the older format whose variant hash does not match the cached files is refused.
    tampered = [{"repo_id": "trusted-org/integ", "sha": integ["integ"]["v1"],
                 "variants": {name: {"hash": "sha256-" + "0" * 64, "hash_type": "git_lfs_concat"}
                              for name in ("torch-cpu", "torch-cuda")}}]
    (tmp_path / "bad.lock").write_text(json.dumps(tampered))
    r = run_python(f"import kernels; kernels.load_kernel('trusted-org/integ', lockfile={str(tmp_path / 'bad.lock')!r})",
                   dead)
    assert r.returncode != 0 and "does not match its lock hash" in r.stderr, r.stderr[-2000:]
    r = run_python(f"import kernels; kernels.load_kernel('trusted-org/other', lockfile={str(project / 'kernels.lock')!r})",
                   dead)
    assert "Kernel `trusted-org/other` is not locked. Please lock it with `kernels lock <project>`" in r.stderr
