"""`get_kernel_dep` (upstream 0.17.2 public name): a kernel's own code loads a kernel that its
metadata declares in `kernel-depends`, at the declared version, from a local kernel-hub."""
from __future__ import annotations

import json

import pytest

from layer_kernels import dependent_kernel, layer_zoo_kernel

from kernels import get_kernel_dep, get_local_kernel


@pytest.fixture(scope="module")
def zoo_v1(hub, tmp_path_factory):
    return hub.publish("trusted-org/dep-zoo", tmp_path_factory.mktemp("dep-zoo"), {"v1": layer_zoo_kernel()})["v1"]


def test_kernel_loads_its_declared_dependency(env_hub, cache, zoo_v1):
    kernel_dir = dependent_kernel("trusted-org/dep-zoo")
    metadata = json.loads(next(kernel_dir.glob("build/*/metadata.json")).read_text())
    assert metadata["kernel-depends"] == [{"repo-id": "trusted-org/dep-zoo", "version": 1}]
    module = get_local_kernel(kernel_dir, backend="cpu")
    assert module.dependency_module.add_hundred(1) == 101
    assert hasattr(module.dependency_module.layers, "Double")


def test_outside_a_kernel():
    with pytest.raises(RuntimeError, match=r"^`get_kernel_dep` only works during kernel loading.$"):
        get_kernel_dep("trusted-org/dep-zoo")
