"""A caller without any `kernels.lock` (a script, or a package whose metadata has none) gets
upstream 0.17.2's "Could not find a `kernels.lock` file…" message from every locked entry point,
not the "not locked" one that a lock file lacking the repository gives."""
from __future__ import annotations

import json

import pytest

from loader_testlib import REPO_ROOT, run_python

UPSTREAM_SITE = REPO_ROOT / ".upstream-site"

# Each entry point, called from a script (`__main__`, no distribution, so no kernels.lock).
CALLS = {
    "load_kernel": "kernels.load_kernel('trusted-org/x'{extra})",
    "get_locked_kernel": "kernels.get_locked_kernel('trusted-org/x'{extra})",
    "LockedLayerRepository": "kernels.LockedLayerRepository(repo_id='trusted-org/x', layer_name='L')",
    "LockedFuncRepository": "kernels.LockedFuncRepository(repo_id='trusted-org/x', func_name='f')",
}


def _messages(pythonpath=None, extra="") -> dict:
    code = "import json, kernels\nout = {}\n"
    for name, call in CALLS.items():
        code += (f"try:\n    {call.format(extra=extra)}\n    out[{name!r}] = 'no error'\n"
                 f"except Exception as e:\n    out[{name!r}] = type(e).__name__ + ': ' + str(e)\n")
    code += "print(json.dumps(out))\n"
    r = run_python(code, {}, pythonpath=pythonpath)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.splitlines()[-1])


def test_no_lockfile_message():
    expected = ("ValueError: Could not find a `kernels.lock` file in the caller's package metadata. Please lock "
                "kernels with `kernels lock <project>` and then reinstall the project.")
    assert _messages(extra=", lockfile=None") == {name: expected for name in CALLS}


def test_no_lockfile_message_matches_upstream():
    if not (UPSTREAM_SITE / "kernels").is_dir():
        pytest.skip("upstream kernels not installed: pip install --target .upstream-site kernels==0.17.2")
    # load_kernel and get_locked_kernel take a keyword-only `lockfile` without default (upstream's
    # signature): both packages refuse a call without it alike.
    assert _messages(extra=", lockfile=None") == _messages(str(UPSTREAM_SITE), extra=", lockfile=None")
    assert _messages()["load_kernel"] == _messages(str(UPSTREAM_SITE))["load_kernel"] == (
        "TypeError: load_kernel() missing 1 required keyword-only argument: 'lockfile'")
