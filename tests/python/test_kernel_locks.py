"""kernels.lock with kernel dependencies: `kernels lock` records every kernel each locked kernel
depends on (every variant's `kernel-depends`, transitively) in upstream 0.17.2's format, keyed by
what was required; `load_kernel` resolves the dependencies through those entries without a
request; upstream loads from our lock and we from upstream's; a cycle is an error. The functions
of `kernels.locking` are compared with upstream's on the same Hub."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from loader_testlib import REPO_ROOT, make_variant, run_python

UPSTREAM_SITE = REPO_ROOT / ".upstream-site"
USES_BASE = "from kernels import get_kernel_dep\nBASE = get_kernel_dep('trusted-org/kl-base')\n"
CLI = "import sys; from kernels.cli import main; sys.argv = ['kernels'] + {args!r}; sys.exit(main())"


def _dep(repo_id: str, version: int) -> dict:
    return {"repo-id": repo_id, "version": version}


@pytest.fixture(scope="module")
def repos(hub, tmp_path_factory):
    if not (UPSTREAM_SITE / "kernels").is_dir():
        pytest.skip("upstream kernels not installed: pip install --target .upstream-site kernels==0.17.2")
    tmp = tmp_path_factory.mktemp("kernel-locks")

    def publish(repo_id, variants):
        name = repo_id.split("/")[1]
        for variant, (backend, value, depends, extra) in variants.items():
            make_variant(tmp / name / "v1" / "build", variant, name=name, backend=backend, value=str(value),
                         kernel_depends=depends, init_extra=extra)
        return hub.publish(repo_id, tmp / name, {"v1": tmp / name / "v1"})["v1"]

    def leaf(value):
        return {"torch-cpu": ("cpu", value, [], ""), "torch-cuda": ("cuda", value, [], "")}

    out = {"base": publish("trusted-org/kl-base", leaf(7)), "extra": publish("trusted-org/kl-extra", leaf(9))}
    # kl-extra is a dependency of the CUDA variant only: it is locked whatever the machine.
    out["top"] = publish("trusted-org/kl-top", {
        "torch-cpu": ("cpu", 1, [_dep("trusted-org/kl-base", 1)], USES_BASE),
        "torch-cuda": ("cuda", 2, [_dep("trusted-org/kl-base", 1), _dep("trusted-org/kl-extra", 1)], USES_BASE),
    })
    out["a"] = publish("trusted-org/kl-a", {"torch-cpu": ("cpu", 4, [_dep("trusted-org/kl-b", 1)], "")})
    out["b"] = publish("trusted-org/kl-b", {"torch-cpu": ("cpu", 5, [_dep("trusted-org/kl-a", 1)], "")})
    return out


def _env(hub, cache, **extra):
    env = {"HF_HUB_CACHE": str(cache), "HF_ENDPOINT": hub.endpoint, "HF_TOKEN": hub.token, "HF_HUB_DISABLE_XET": "1"}
    env.update(extra)
    return env


def _cli(who: str, args: list, env: dict):
    """`kernels <args>` of ours or of upstream."""
    return run_python(CLI.format(args=args), env, pythonpath=_path(who))


def _path(who: str):
    return str(UPSTREAM_SITE) if who == "upstream" else None


def _project(tmp_path: Path, name: str, kernel: str = "trusted-org/kl-top") -> Path:
    project = tmp_path / name
    project.mkdir()
    (project / "pyproject.toml").write_text(f'[project]\nname = "p"\n\n[tool.kernels.dependencies]\n"{kernel}" = 1\n')
    return project


def _entry(repo_id: str, commit: str) -> dict:
    return {"dependency": {"repo-id": repo_id, "version": 1}, "lock": {"commit": commit}}


def _load(function: str, lock: Path) -> str:
    return (f"import kernels; m = kernels.{function}('trusted-org/kl-top', lockfile={str(lock)!r}); "
            "print(m.VALUE, m.BASE.VALUE)")


@pytest.fixture(scope="module")
def locks(hub, repos, tmp_path_factory):
    """The kernels.lock that each `kernels lock` writes for a project that needs kl-top."""
    tmp = tmp_path_factory.mktemp("locks")
    out = {}
    for who in ("ours", "upstream"):
        project = _project(tmp, who)
        r = _cli(who, ["lock", str(project)], _env(hub, tmp / "cache"))
        assert r.returncode == 0, r.stderr[-2000:]
        out[who] = project / "kernels.lock"
    return out


def test_lock_records_every_kernel_dependency(repos, locks):
    entries = json.loads(locks["ours"].read_text())
    expected = [_entry("trusted-org/kl-base", repos["base"]), _entry("trusted-org/kl-extra", repos["extra"]),
                _entry("trusted-org/kl-top", repos["top"])]
    assert sorted(entries, key=lambda e: e["dependency"]["repo-id"]) == expected
    assert sorted(json.loads(locks["upstream"].read_text()), key=lambda e: e["dependency"]["repo-id"]) == expected


@pytest.mark.parametrize("writer", ["ours", "upstream"])
def test_load_kernel_resolves_dependencies_from_the_lock(hub, repos, locks, tmp_path, writer):
    cache = tmp_path / "cache"
    lock = locks[writer]
    r = _cli("ours", ["download", str(lock.parent)], _env(hub, cache))
    assert r.returncode == 0, r.stderr[-2000:]
    dead = _env(hub, cache, HF_ENDPOINT="http://127.0.0.1:9", HF_HUB_OFFLINE="1")
    mark = hub.mark()
    r = run_python(_load("load_kernel", lock), dead)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split()[1] == "7"
    assert hub.since(mark) == []
    # Without its entry the dependency has no commit offline: the lock is what resolves it.
    pruned = [e for e in json.loads(lock.read_text()) if e["dependency"]["repo-id"] != "trusted-org/kl-base"]
    (tmp_path / "pruned.lock").write_text(json.dumps(pruned))
    r = run_python(_load("load_kernel", tmp_path / "pruned.lock"), dead)
    assert r.returncode != 0 and "Cannot load kernel dependency `trusted-org/kl-base`" in r.stderr, r.stderr


def test_upstream_loads_from_our_lock(hub, repos, locks, tmp_path):
    # Upstream resolves kl-top and its dependency through our lock's entries (its LockedHubResolver):
    # with kl-base's entry gone, it refuses the dependency as not locked.
    for lock, expected in ((locks["ours"], "7"), (tmp_path / "pruned.lock", "not locked")):
        if expected == "not locked":
            pruned = [e for e in json.loads(locks["ours"].read_text())
                      if e["dependency"]["repo-id"] != "trusted-org/kl-base"]
            lock.write_text(json.dumps(pruned))
        r = run_python(_load("get_locked_kernel", lock), _env(hub, tmp_path / "cache"), pythonpath=_path("upstream"))
        if expected == "7":
            assert r.returncode == 0, r.stderr[-2000:]
            assert r.stdout.split()[1] == "7"
        else:
            assert r.returncode != 0 and "Kernel `trusted-org/kl-base` is not locked" in r.stderr, r.stderr[-2000:]


def test_cycle_is_an_error(hub, repos, tmp_path):
    for who in ("ours", "upstream"):
        project = _project(tmp_path, who, "trusted-org/kl-a")
        r = _cli(who, ["lock", str(project)], _env(hub, tmp_path / "cache"))
        assert r.returncode != 0
        assert "Cyclic kernel dependency detected: trusted-org/kl-a" in r.stderr, r.stderr[-2000:]
        assert not (project / "kernels.lock").exists()


def _locking_script(lockfile: Path) -> str:
    return f"""
import json
from huggingface_hub import HfApi
import kernels.locking as L
try:
    from kernels._rust import KernelVersion
except ImportError:
    from kernels._metadata import KernelVersion
top = L.KernelDependency('trusted-org/kl-top', KernelVersion.Version(1))
tree = L.lock_kernel_tree(top, api=HfApi())
print(type(tree).__name__, sorted((d.repo_id, d.version.version, l.commit) for d, l in tree.items()))
locks = L.extract_dependency_locks([top], api=HfApi())
print(type(locks).__name__, len(locks), locks.get(top).commit, top in locks)
print(sorted(json.loads(locks.to_json()), key=lambda e: e['dependency']['repo-id']))
print(L.KernelLocks.from_json(locks.to_json()) == locks)
got, dep = L.get_locked_kernel_revision('trusted-org/kl-top', {str(lockfile)!r})
print(type(got).__name__, type(dep).__name__, dep.repo_id, dep.version == KernelVersion.Version(1), got[dep].commit)
print(repr(dep), repr(L.KernelDependency('o/k', KernelVersion.Revision('main'))))
for call in (lambda: L.get_locked_kernel_revision('trusted-org/nope', {str(lockfile)!r}),
             lambda: L.extract_dependency_locks([], api=HfApi()),
             lambda: L.lock_kernel_tree(L.KernelDependency('trusted-org/kl-a', KernelVersion.Version(1)), api=HfApi()),
             lambda: L.KernelLocks.from_json('[{{"repo_id": "trusted-org/kl-top", "sha": "{'0' * 40}"}}]')):
    try:
        call()
    except ValueError as e:
        print('ValueError', str(e).split(':')[0])
import kernels
for call in (lambda: L.get_locked_kernel_revision('trusted-org/nope', {str(lockfile)!r}),
             lambda: kernels.get_locked_kernel('trusted-org/nope', lockfile={str(lockfile)!r})):
    try:
        call()
    except ValueError as e:
        print('ValueError', e)
"""


def test_locking_functions_behave_as_upstreams(hub, repos, locks, tmp_path):
    outputs = {}
    for who in ("ours", "upstream"):
        r = run_python(_locking_script(locks["ours"]), _env(hub, tmp_path / who),
                       pythonpath=_path(who))
        assert r.returncode == 0, r.stderr[-2000:]
        outputs[who] = r.stdout
    assert outputs["ours"] == outputs["upstream"]
    assert f"dict [('trusted-org/kl-base', 1, '{repos['base']}')" in outputs["ours"]
