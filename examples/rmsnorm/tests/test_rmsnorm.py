"""Tests of the rmsnorm example kernel against a float32 reference, on the built CPU and CUDA
variants (its kernelize integration is tested in tests/python/test_layers_rmsnorm.py)."""
import pytest
import torch

# Two units in the last place of the half types (float16 eps 9.8e-4, bfloat16 7.8e-3): the kernel sums
# the squares in its own order, torch's mean in another, so the normalized value, rounded to the
# dtype before the weight, may land one unit apart (seen: 2 of 86,016 float16 elements at 1.5e-3).
TOLERANCES = {torch.float32: (1e-5, 1e-5), torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1e-2)}


@pytest.fixture
def rmsnorm(kernel_variant, device):
    return kernel_variant("rmsnorm", device)


def _reference(x, weight, epsilon):
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + epsilon)
    return weight * h.to(x.dtype)


@pytest.mark.kernels_ci
@pytest.mark.parametrize("dtype", list(TOLERANCES))
@pytest.mark.parametrize("hidden", [1, 64, 1000, 4096])
def test_rms_norm_matches_reference(rmsnorm, device, dtype, hidden):
    x = torch.randn(7, 3, hidden, dtype=dtype, device=device)
    weight = torch.randn(hidden, dtype=dtype, device=device)
    rtol, atol = TOLERANCES[dtype]
    torch.testing.assert_close(rmsnorm.rms_norm(x, weight, 1e-5), _reference(x, weight, 1e-5), rtol=rtol, atol=atol)


@pytest.mark.kernels_ci
def test_rms_norm_writes_out(rmsnorm, device):
    x = torch.randn(5, 128, device=device)
    weight = torch.randn(128, device=device)
    out = torch.full_like(x, float("nan"))
    result = rmsnorm.rms_norm(x, weight, 1e-6, out=out)
    assert result.data_ptr() == out.data_ptr()
    torch.testing.assert_close(out, _reference(x, weight, 1e-6))


@pytest.mark.kernels_ci
def test_rms_norm_rejects_a_weight_of_the_wrong_size(rmsnorm, device):
    with pytest.raises(RuntimeError, match="weight must be 1-D with the size of the last dimension"):
        rmsnorm.rms_norm(torch.randn(2, 8, device=device), torch.randn(4, device=device))


@pytest.mark.kernels_ci
def test_layer_declares_what_it_supports(rmsnorm):
    assert rmsnorm.layers.RMSNorm.can_torch_compile is True
    assert rmsnorm.layers.RMSNorm.has_backward is False
