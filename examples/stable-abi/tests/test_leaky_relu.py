"""Tests of the stable-ABI leaky-relu example: values vs torch, and that the native module uses
only Torch's stable C ABI (no C++ symbols of c10/ATen/torch)."""
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


@pytest.fixture
def leaky(kernel_variant, device):
    return kernel_variant("stable-abi", device)


@pytest.mark.kernels_ci
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slope", [0.01, 0.2])
def test_leaky_relu_matches_torch(leaky, device, dtype, slope):
    x = torch.randn(129, 257, dtype=dtype, device=device) * 3
    torch.testing.assert_close(leaky.leaky_relu(x, slope), F.leaky_relu(x, slope))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("numel", [0, 1, 9, 4096 * 4 + 3, 2**20 + 7])
def test_leaky_relu_sizes_and_tails(leaky, device, dtype, numel):
    x = torch.randn(numel, dtype=dtype, device=device)
    torch.testing.assert_close(leaky.leaky_relu(x, 0.1), F.leaky_relu(x, 0.1))


def test_leaky_relu_non_contiguous_and_unaligned(leaky, device):
    x = torch.randn(64, 96, device=device).t()
    torch.testing.assert_close(leaky.leaky_relu(x), F.leaky_relu(x))
    y = torch.randn(1001, dtype=torch.float16, device=device)[1:]
    torch.testing.assert_close(leaky.leaky_relu(y), F.leaky_relu(y))


@pytest.mark.kernels_ci
def test_leaky_relu_propagates_nan(leaky, device):
    y = leaky.leaky_relu(torch.tensor([float("nan"), -2.0, 3.0], device=device), 0.5)
    assert torch.isnan(y[0]) and y[1:].tolist() == [-1.0, 3.0]


@pytest.mark.kernels_ci
def test_leaky_relu_rejects_float64(leaky, device):
    with pytest.raises(RuntimeError, match="unsupported dtype Double"):
        leaky.leaky_relu(torch.randn(4, dtype=torch.float64, device=device))


@pytest.mark.kernels_ci
def test_native_module_uses_only_the_stable_abi(leaky):
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm not available")
    [library] = Path(leaky.__file__).parent.glob("*.so")
    undefined = subprocess.run([nm, "-D", "--undefined-only", str(library)], capture_output=True,
                               text=True, check=True).stdout.split()
    unstable = [s for s in undefined if s.startswith(("_ZN3c10", "_ZN2at", "_ZN5torch", "_ZNK3c10",
                                                      "_ZNK2at", "_ZNK5torch"))]
    assert unstable == []
    assert any(s.startswith(("aoti_torch_", "torch_")) for s in undefined)
