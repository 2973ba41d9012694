"""The public names of upstream `kernels==0.17.2` (installed into `.upstream-site`): `from kernels
import *` gives all of them (`Benchmark` included), and the layer API has upstream's signatures."""
from __future__ import annotations

import json

import pytest

from loader_testlib import REPO_ROOT, run_python

UPSTREAM_SITE = REPO_ROOT / ".upstream-site"
# Names whose signatures must match upstream's parameter for parameter (name, kind, default).
LAYER_API = [
    "CUDAProperties", "Device", "ROCMProperties", "FuncRepository", "LayerRepository", "LocalFuncRepository",
    "LocalLayerRepository", "LockedFuncRepository", "LockedLayerRepository", "kernelize", "register_kernel_mapping",
    "replace_kernel_forward_from_hub", "use_kernel_forward_from_hub", "use_kernel_func_from_hub",
    "use_kernel_mapping", "use_kernelized_func", "get_kernel_dep",
]
DESCRIBE = """
import inspect, json, kernels
out = {"all": kernels.__all__, "signatures": {}}
for name in %r:
    parameters = inspect.signature(getattr(kernels, name)).parameters.values()
    out["signatures"][name] = [[p.name, p.kind.name, repr(p.default)] for p in parameters]
print(json.dumps(out))
""" % (LAYER_API,)


def describe(pythonpath=None):
    proc = run_python(DESCRIBE, {}, pythonpath=pythonpath)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def upstream():
    if not (UPSTREAM_SITE / "kernels").is_dir():
        pytest.skip("upstream kernels not installed: pip install --target .upstream-site kernels==0.17.2")
    return describe(str(UPSTREAM_SITE))


def test_star_import_provides_upstream_names(upstream):
    namespace: dict = {}
    exec("from kernels import *", namespace)
    missing = sorted(set(upstream["all"]) - set(namespace))
    assert missing == []


def test_layer_api_signatures_match_upstream(upstream):
    ours = describe()
    for name in LAYER_API:
        assert ours["signatures"][name] == upstream["signatures"][name], name
