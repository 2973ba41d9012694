"""Kernel dependencies at load time (beyond upstream): a variant's `kernel-depends` are resolved,
verified, cached and importable before it is imported — online, offline from the cache, through
the caller's lockfile — and cycles, conflicts and missing dependencies are errors naming the
chain (golden: golden/kernel_dependencies.txt, refresh with KB_REFRESH_GOLDEN=1)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from loader_testlib import make_variant, run_python

import kernels
from kernels import get_kernel

GOLDEN = Path(__file__).resolve().parent / "golden" / "kernel_dependencies.txt"
USES_BASE = "from kernels import get_kernel_dep\nBASE = get_kernel_dep('trusted-org/kd-base')\n"


def _dep(repo_id: str, version: int) -> dict:
    return {"repo-id": repo_id, "version": version}


def _publish(hub, tmp, repo_id: str, versions: dict) -> dict:
    """versions: branch → (value, kernel_depends, init_extra)."""
    branches = {}
    for branch, (value, depends, extra) in versions.items():
        name = repo_id.split("/")[1]
        make_variant(tmp / repo_id / branch / "build", "torch-cpu", name=name, value=str(value),
                     kernel_depends=depends, init_extra=extra)
        branches[branch] = tmp / repo_id / branch
    return hub.publish(repo_id, tmp / repo_id, branches)


@pytest.fixture(scope="module")
def repos(hub, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kernel-deps")
    out = {}
    out["base"] = _publish(hub, tmp, "trusted-org/kd-base", {"v1": (7, [], ""), "v2": (8, [], "")})
    out["top"] = _publish(hub, tmp, "trusted-org/kd-top",
                          {"v1": (1, [_dep("trusted-org/kd-base", 1)], USES_BASE)})
    # kd-mid needs kd-base v2; kd-both needs kd-top (→ kd-base v1) and kd-mid (→ kd-base v2).
    out["mid"] = _publish(hub, tmp, "trusted-org/kd-mid", {"v1": (2, [_dep("trusted-org/kd-base", 2)], "")})
    out["both"] = _publish(hub, tmp, "trusted-org/kd-both",
                           {"v1": (3, [_dep("trusted-org/kd-top", 1), _dep("trusted-org/kd-mid", 1)], "")})
    out["a"] = _publish(hub, tmp, "trusted-org/kd-a", {"v1": (4, [_dep("trusted-org/kd-b", 1)], "")})
    out["b"] = _publish(hub, tmp, "trusted-org/kd-b", {"v1": (5, [_dep("trusted-org/kd-a", 1)], "")})
    out["missing"] = _publish(hub, tmp, "trusted-org/kd-missing",
                              {"v1": (6, [_dep("trusted-org/kd-nowhere", 1)], "")})
    return out


def _env(hub, cache, **extra):
    env = {"HF_HUB_CACHE": str(cache), "HF_ENDPOINT": hub.endpoint, "HF_TOKEN": hub.token}
    env.update(extra)
    return env


LOAD_TOP = ("import kernels; m = kernels.get_kernel('trusted-org/kd-top', version=1, backend='cpu'); "
            "print(m.VALUE, m.BASE.VALUE)")


def test_dependency_loads_online_then_offline(hub, repos, tmp_path):
    cache = tmp_path / "cache"
    online = run_python(LOAD_TOP, _env(hub, cache))
    assert online.returncode == 0, online.stderr[-2000:]
    assert online.stdout.split() == ["1", "7"]
    snapshot = cache / "kernels--trusted-org--kd-base" / "snapshots" / repos["base"]["v1"] / "build" / "torch-cpu"
    assert (snapshot / "__init__.py").is_file()
    # Offline, with no Hub at all: both come from the cache (refs/v1 and the snapshots).
    mark = hub.mark()
    offline = run_python(LOAD_TOP, _env(hub, cache, HF_HUB_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9"))
    assert offline.returncode == 0, offline.stderr[-2000:]
    assert offline.stdout.split() == ["1", "7"]
    assert hub.since(mark) == []


def test_dependency_offline_not_cached_is_an_error(hub, repos, tmp_path):
    cache = tmp_path / "cache"
    r = run_python("import kernels; kernels.install_kernel('trusted-org/kd-top', revision="
                   f"'{repos['top']['v1']}', backend='cpu')", _env(hub, cache))
    assert r.returncode == 0, r.stderr[-2000:]
    r = run_python(LOAD_TOP.replace("version=1", f"revision='{repos['top']['v1']}'"),
                   _env(hub, cache, HF_HUB_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9"))
    assert r.returncode != 0
    assert ("Cannot load kernel dependency `trusted-org/kd-base` (version 1, required by "
            "`trusted-org/kd-top`)") in r.stderr


def test_caller_lockfile_pins_the_dependency(hub, repos, tmp_path):
    cache = tmp_path / "cache"
    lock = tmp_path / "kernels.lock"
    lock.write_text(kernels._core.render_lockfile([
        {"repo_id": "trusted-org/kd-top", "sha": repos["top"]["v1"], "variants": {}},
        {"repo_id": "trusted-org/kd-base", "sha": repos["base"]["v2"], "variants": {}},
    ]))
    fill = run_python("import kernels\n"
                      f"kernels.install_kernel('trusted-org/kd-top', revision='{repos['top']['v1']}', backend='cpu')\n"
                      f"kernels.install_kernel('trusted-org/kd-base', revision='{repos['base']['v2']}', backend='cpu')",
                      _env(hub, cache))
    assert fill.returncode == 0, fill.stderr[-2000:]
    # kd-top declares kd-base version 1; the lock says v2's commit, and load_kernel never goes online.
    r = run_python(f"import kernels; m = kernels.load_kernel('trusted-org/kd-top', lockfile={str(lock)!r}, "
                   "backend='cpu'); print(m.VALUE, m.BASE.VALUE)",
                   _env(hub, cache, HF_ENDPOINT="http://127.0.0.1:9"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["1", "8"]


def _error(repo_id: str) -> str:
    with pytest.raises(Exception) as info:
        get_kernel(repo_id, version=1, backend="cpu")
    return f"{type(info.value).__name__}: {info.value}"


def test_errors_name_the_chain(env_hub, cache, repos):
    texts = {
        "cycle": _error("trusted-org/kd-a"),
        "conflict": _error("trusted-org/kd-both"),
        "missing": _error("trusted-org/kd-missing"),
    }
    text = "".join(f"== {name}\n{body}\n" for name, body in texts.items()).replace(env_hub.endpoint, "<ENDPOINT>")
    if os.environ.get("KB_REFRESH_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
    assert "`trusted-org/kd-a` → `trusted-org/kd-b` → `trusted-org/kd-a`" in texts["cycle"]
    assert "`trusted-org/kd-nowhere`" in texts["missing"]
    assert "version 1" in texts["conflict"] and "version 2" in texts["conflict"]


def test_dependencies_are_cached_before_import(hub, repos, tmp_path):
    # kd-mid's code never calls get_kernel_dep: its dependency is fetched and verified anyway.
    cache = tmp_path / "cache"
    r = run_python("import kernels; print(kernels.get_kernel('trusted-org/kd-mid', version=1, backend='cpu').VALUE)",
                   _env(hub, cache))
    assert r.returncode == 0, r.stderr[-2000:]
    snapshot = cache / "kernels--trusted-org--kd-base" / "snapshots" / repos["base"]["v2"] / "build" / "torch-cpu"
    assert (snapshot / "__init__.py").is_file()
