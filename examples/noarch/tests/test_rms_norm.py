"""Tests of the torch-noarch rms-norm example: reference values, op registration and autograd."""
import pytest
import torch


@pytest.fixture(scope="module")
def rms_norm(kernel_variant):
    # Every noarch variant holds the same package and its `_ops.py` picks the namespace from the
    # running torch, so one process loads one of them: the one the loader would choose.
    backend = "cuda" if torch.version.cuda is not None else "cpu"
    return kernel_variant("noarch", backend, needs_gpu=False)


def reference(x, weight, eps):
    wide = x.double()
    return (wide * torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + eps) * weight.double()).to(x.dtype)


@pytest.mark.kernels_ci
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(1, 8), (33, 1000), (2, 3, 4096)])
def test_rms_norm_matches_reference(rms_norm, device, dtype, shape):
    x = torch.randn(*shape, device=device, dtype=dtype) * 3
    weight = torch.rand(shape[-1], device=device, dtype=dtype) + 0.5
    torch.testing.assert_close(rms_norm.rms_norm(x, weight, 1e-5), reference(x, weight, 1e-5))


@pytest.mark.kernels_ci
def test_rms_norm_op_is_in_the_kernel_namespace(rms_norm):
    namespace = rms_norm._ops._OPS_NAME
    assert namespace.startswith("_rms_norm_")
    assert hasattr(getattr(torch.ops, namespace), "rms_norm")
    assert rms_norm._ops.add_op_namespace_prefix("rms_norm") == f"{namespace}::rms_norm"


def test_rms_norm_passes_opcheck(rms_norm, device):
    x = torch.randn(4, 64, device=device, requires_grad=True)
    weight = torch.rand(64, device=device, requires_grad=True)
    torch.library.opcheck(rms_norm._ops.ops.rms_norm.default, (x, weight, 1e-6))


def test_rms_norm_gradients(rms_norm, device):
    x = torch.randn(3, 16, device=device, dtype=torch.float64, requires_grad=True)
    weight = torch.rand(16, device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: rms_norm.rms_norm(a, b, 1e-6), (x, weight))


@pytest.mark.kernels_ci
def test_rms_norm_on_meta_tensors(rms_norm):
    x = torch.empty(5, 32, device="meta", dtype=torch.bfloat16)
    y = rms_norm._ops.ops.rms_norm(x, torch.empty(32, device="meta", dtype=torch.bfloat16), 1e-6)
    assert y.shape == x.shape and y.dtype == x.dtype and y.device.type == "meta"


@pytest.mark.kernels_ci
def test_rms_norm_rejects_wrong_weight(rms_norm, device):
    with pytest.raises(ValueError, match=r"weight must have shape \[8\]"):
        rms_norm.rms_norm(torch.randn(2, 8, device=device), torch.ones(4, device=device))


@pytest.mark.kernels_ci
def test_rms_norm_layer_uses_module_attributes(rms_norm, device):
    layer = rms_norm.layers.RMSNorm()
    layer.weight = torch.rand(48, device=device) + 0.5
    layer.variance_epsilon = 1e-5
    x = torch.randn(6, 48, device=device)
    torch.testing.assert_close(layer(x), reference(x, layer.weight, 1e-5))
