"""Tests of the matmul example kernel against torch.mm (float32), on the CPU and CUDA variants."""
import pytest
import torch


@pytest.fixture
def matmul(kernel_variant, device):
    return kernel_variant("matmul", device)


def _reference(a, b):
    return (a.double() @ b.double()).float()


@pytest.mark.kernels_ci
@pytest.mark.parametrize("shape", [(64, 64, 64), (1, 1, 1), (67, 129, 33), (130, 17, 200), (5, 0, 7)])
def test_matmul_matches_torch(matmul, device, shape):
    m, k, n = shape
    a = torch.randn(m, k, device=device)
    b = torch.randn(k, n, device=device)
    torch.testing.assert_close(matmul.matmul(a, b), _reference(a, b), rtol=1e-4, atol=1e-4)


@pytest.mark.kernels_ci
def test_matmul_writes_every_element_of_out(matmul, device):
    a = torch.randn(100, 70, device=device)
    b = torch.randn(70, 90, device=device)
    out = torch.full((100, 90), float("nan"), device=device)
    result = matmul.matmul(a, b, out=out)
    assert result.data_ptr() == out.data_ptr()
    torch.testing.assert_close(out, _reference(a, b), rtol=1e-4, atol=1e-4)


@pytest.mark.kernels_ci
def test_matmul_refuses_mismatched_shapes(matmul, device):
    with pytest.raises(RuntimeError, match="matmul: a is"):
        matmul.matmul(torch.randn(4, 5, device=device), torch.randn(6, 4, device=device))
