"""Tests of the colliding-kernels example: two kernel units per backend define the same internal
names with different values, and each op keeps its own unit's behaviour (kernel-builder's
per-unit symbol isolation). Without the isolation the project does not link: that is shown on a
torch-free project in tests/e2e/builder/test_kernel_units.py, which costs a fraction of a torch build."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

if os.environ.get("KB_EXAMPLES_BUILD") == "cpp_extension":
    pytest.skip("the cpp_extension stand-in build links all units into one symbol space",
                allow_module_level=True)

# The values each unit's sources define (twice_*/twice.*, thrice_*/thrice.*).
TWICE = (2.0, [0.5, 1.5, 2.5, 3.5], 0.25)
THRICE = (3.0, [10.0, 20.0, 30.0, 40.0], 0.125)


def expected(x, unit):
    factor, table, shift = unit
    bias = torch.tensor(table, dtype=torch.float32, device=x.device).repeat(x.numel() // 4 + 1)[: x.numel()]
    return x * factor + bias.view_as(x) + shift


@pytest.fixture
def kernels(kernel_variant, device):
    return kernel_variant("colliding-kernels", device)


@pytest.mark.kernels_ci
def test_each_op_keeps_its_own_units_values(kernels, device):
    x = torch.arange(-8, 9, dtype=torch.float32, device=device) / 4
    torch.testing.assert_close(kernels.twice(x), expected(x, TWICE), rtol=0, atol=0)
    torch.testing.assert_close(kernels.thrice(x), expected(x, THRICE), rtol=0, atol=0)


@pytest.mark.kernels_ci
def test_interleaved_calls_do_not_share_state(kernels, device):
    x = torch.ones(4, 3, dtype=torch.float32, device=device)
    for _ in range(2):
        torch.testing.assert_close(kernels.thrice(x), expected(x, THRICE), rtol=0, atol=0)
        torch.testing.assert_close(kernels.twice(x), expected(x, TWICE), rtol=0, atol=0)


def _module(kernels):
    variant_dir = Path(kernels.__spec__.submodule_search_locations[0])
    (library,) = variant_dir.glob("*.abi3.so")
    return library


@pytest.mark.kernels_ci
def test_unit_internals_are_not_exported(kernels):
    """The module exports the ops' entry points the binding uses, not the units' internals."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("needs binutils' nm")
    listing = subprocess.run([nm, "-D", "--defined-only", str(_module(kernels))],
                             capture_output=True, text=True, check=True).stdout
    exported = {line.split()[-1] for line in listing.splitlines() if line.strip()}
    assert "_Z5twiceRN2at6TensorERKS0_" in exported
    assert "_Z6thriceRN2at6TensorERKS0_" in exported
    assert any(name.startswith("PyInit_") for name in exported)
    for internal in ("_Z12scale_factorv", "table", "_Z5shiftv", "_ZNK6Scaler5applyEf", "_Z12scale_kernelPfPKflff"):
        assert internal not in exported
