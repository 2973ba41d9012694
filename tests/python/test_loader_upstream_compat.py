"""Two-way compatibility with upstream `kernels==0.17.2` (installed into `.upstream-site`): both
load the same kernel from the same kernel-hub, and each reuses the other's cache."""
from __future__ import annotations

import pytest

from loader_testlib import PYTHON_DIR, REPO_ROOT, make_variant, run_python

UPSTREAM_SITE = REPO_ROOT / ".upstream-site"
LOAD = ("import kernels; m = kernels.get_kernel('trusted-org/compat', version=1); "
        "print(kernels.__file__); print(m.VALUE, m.__name__, m.helper())")


@pytest.fixture(scope="module")
def compat(hub, tmp_path_factory):
    if not (UPSTREAM_SITE / "kernels").is_dir():
        pytest.skip("upstream kernels not installed: pip install --target .upstream-site kernels==0.17.2")
    tmp = tmp_path_factory.mktemp("compat")
    for variant, backend in (("torch-cpu", "cpu"), ("torch-cuda", "cuda")):
        make_variant(tmp / "v1" / "build", variant, name="compat", backend=backend, value="3",
                     extra_files={"layers/__init__.py": "X = 1\n"})
    return hub.publish("trusted-org/compat", tmp, {"v1": tmp / "v1"})


def _env(hub, cache, **extra):
    env = {"HF_HUB_CACHE": str(cache), "HF_ENDPOINT": hub.endpoint, "HF_HUB_DISABLE_XET": "1"}
    env.update(extra)
    return env


def test_upstream_then_ours_shares_cache(hub, compat, tmp_path):
    cache = tmp_path / "cache"
    up = run_python(LOAD, _env(hub, cache), pythonpath=str(UPSTREAM_SITE))
    assert up.returncode == 0, up.stderr[-2000:]
    assert ".upstream-site" in up.stdout
    ours = run_python(LOAD, _env(hub, cache))
    assert ours.returncode == 0, ours.stderr[-2000:]
    assert str(PYTHON_DIR) in ours.stdout or "site-packages" in ours.stdout
    # Same variant, same module name, same snapshot.
    assert up.stdout.splitlines()[1] == ours.stdout.splitlines()[1]
    mark = hub.mark()
    r = run_python(f"import kernels; print(kernels.get_kernel('trusted-org/compat', revision='{compat['v1']}').VALUE)",
                   _env(hub, cache))
    assert r.returncode == 0 and hub.since(mark) == []


def test_ours_then_upstream_offline(hub, compat, tmp_path):
    cache = tmp_path / "cache"
    ours = run_python(LOAD, _env(hub, cache))
    assert ours.returncode == 0, ours.stderr[-2000:]
    # Upstream reads refs/v1 (written by us) and the snapshot we populated, without a Hub.
    up = run_python(LOAD, _env(hub, cache, HF_HUB_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9"),
                    pythonpath=str(UPSTREAM_SITE))
    assert up.returncode == 0, up.stderr[-2000:]
    assert up.stdout.splitlines()[1] == ours.stdout.splitlines()[1]
