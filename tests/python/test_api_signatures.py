"""Every public callable of upstream `kernels` 0.17.2 (installed into `.upstream-site`) exists in
ours with the same parameters: names, order, kinds (keyword-only, ...) and defaults, for classes
also every public method. The list is read from upstream's package at test time
(tests/python/api_surface.py), not kept by hand."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from loader_testlib import OUR_PYTHONPATH, REPO_ROOT

UPSTREAM_SITE = REPO_ROOT / ".upstream-site"
SURFACE = REPO_ROOT / "tests" / "python" / "api_surface.py"


def _surface(pythonpath: str) -> dict:
    env = {"PYTHONPATH": pythonpath, "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    r = subprocess.run([sys.executable, str(SURFACE)], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def surfaces():
    if not (UPSTREAM_SITE / "kernels").is_dir():
        pytest.skip("upstream kernels not installed: pip install --target .upstream-site kernels==0.17.2")
    return _surface(str(UPSTREAM_SITE)), _surface(OUR_PYTHONPATH)


def _differences(upstream: dict, ours: dict) -> list:
    out = []
    for name, theirs in sorted(upstream.items()):
        mine = ours.get(name)
        if mine is None:
            out.append(f"{name}: missing")
            continue
        if theirs["kind"] != mine["kind"]:
            out.append(f"{name}: a {mine['kind']}, upstream's is a {theirs['kind']}")
        # None: upstream's object has no introspectable signature (a compiled class); it must exist.
        if theirs["parameters"] is not None and theirs["parameters"] != mine["parameters"]:
            out.append(f"{name}: parameters {mine['parameters']}, upstream's {theirs['parameters']}")
        for method, params in sorted((theirs.get("methods") or {}).items()):
            my_methods = mine.get("methods") or {}
            if method not in my_methods:
                out.append(f"{name}.{method}: missing")
            elif params is not None and params != my_methods[method]:
                out.append(f"{name}.{method}: parameters {my_methods[method]}, upstream's {params}")
    return out


def test_every_public_callable_of_upstream_has_the_same_parameters(surfaces):
    upstream, ours = surfaces
    # The comparison covers the whole public API, not a sample: top level, layers, variants,
    # locking, verification and benchmarks (upstream 0.17.2 has 94 such callables).
    assert len(upstream) >= 90
    assert {name.rsplit(".", 1)[0] for name in upstream} >= {
        "kernels", "kernels.layer", "kernels.variants", "kernels.locking", "kernels.verify", "kernels.benchmark"}
    differences = _differences(upstream, ours)
    assert not differences, "\n".join(differences)


def test_the_comparison_sees_a_changed_parameter():
    """The comparison fails on each kind of difference it is there to catch."""
    upstream = {"kernels.f": {"kind": "function", "parameters": [["a", "POSITIONAL_OR_KEYWORD", None],
                                                                  ["b", "KEYWORD_ONLY", "None"]]},
                "kernels.C": {"kind": "class", "parameters": None, "methods": {"m": [["x", "POSITIONAL_OR_KEYWORD", None]]}}}
    assert _differences(upstream, upstream) == []
    positional = json.loads(json.dumps(upstream))
    positional["kernels.f"]["parameters"][1][1] = "POSITIONAL_OR_KEYWORD"
    default = json.loads(json.dumps(upstream))
    default["kernels.f"]["parameters"][1][2] = "1"
    renamed = json.loads(json.dumps(upstream))
    renamed["kernels.C"]["methods"]["m"][0][0] = "y"
    no_method = json.loads(json.dumps(upstream))
    del no_method["kernels.C"]["methods"]["m"]
    missing = {"kernels.f": upstream["kernels.f"]}
    for ours in (positional, default, renamed, no_method, missing):
        assert len(_differences(upstream, ours)) == 1
