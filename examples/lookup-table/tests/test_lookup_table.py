"""Tests of the lookup-table example: the variant carries table.json and the kernel interpolates it."""
import json
from pathlib import Path

import numpy as np
import pytest
import torch


@pytest.fixture(scope="module")
def lookup(kernel_variant):
    return kernel_variant("lookup-table", "cpu")


@pytest.mark.kernels_ci
def test_variant_ships_the_data_file(lookup):
    variant_dir = Path(lookup.__spec__.submodule_search_locations[0])
    shipped = json.loads((variant_dir / "table.json").read_text())
    assert shipped == lookup.TABLE
    assert shipped["xs"] == [-1.0, -0.5, 0.0, 0.5, 1.0]


@pytest.mark.kernels_ci
def test_apply_interpolates_the_table(lookup):
    x = torch.linspace(-2, 2, 1001)
    expected = np.interp(x.numpy(), lookup.TABLE["xs"], lookup.TABLE["ys"])
    torch.testing.assert_close(lookup.apply(x), torch.from_numpy(expected).float())


def test_apply_refuses_other_dtypes(lookup):
    with pytest.raises(RuntimeError, match="contiguous float32 CPU tensors"):
        lookup.apply(torch.zeros(3, dtype=torch.float64))
