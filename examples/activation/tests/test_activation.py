"""Tests of the activation example kernel against torch references, on CPU and CUDA variants."""
import pytest
import torch
import torch.nn.functional as F

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def _gelu_fast_reference(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * x * (1.0 + 0.044715 * x * x)))


# name -> (is gated, reference computed in float32 on the upcast input)
REFERENCES = {
    "silu_and_mul": (True, lambda g, u: F.silu(g) * u),
    "gelu_and_mul": (True, lambda g, u: F.gelu(g) * u),
    "gelu_tanh_and_mul": (True, lambda g, u: F.gelu(g, approximate="tanh") * u),
    "gelu_fast": (False, _gelu_fast_reference),
    "gelu_tanh": (False, lambda x: F.gelu(x, approximate="tanh")),
}
GATED = [name for name, (gated, _) in REFERENCES.items() if gated]
ELEMENTWISE = [name for name, (gated, _) in REFERENCES.items() if not gated]


@pytest.fixture
def activation(kernel_variant, device):
    return kernel_variant("activation", device)


def reference(name, x):
    gated, fn = REFERENCES[name]
    wide = x.float()
    if gated:
        d = x.shape[-1] // 2
        return fn(wide[..., :d], wide[..., d:]).to(x.dtype)
    return fn(wide).to(x.dtype)


def check(activation, name, x, out=None):
    expected = reference(name, x)
    if out is not None:
        out.fill_(float("nan"))  # every element must be written
    result = getattr(activation, name)(x, out=out)
    if out is not None:
        assert result.data_ptr() == out.data_ptr()
    assert result.shape == expected.shape
    torch.testing.assert_close(result, expected)


@pytest.mark.kernels_ci
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(REFERENCES))
def test_activation_matches_torch(activation, device, name, dtype):
    x = torch.randn(67, 2 * 384, dtype=dtype, device=device) * 3
    check(activation, name, x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", GATED)
@pytest.mark.parametrize("shape", [(1, 2), (3, 14), (5, 16), (2, 3, 1000), (4099, 2 * 24),
                                   (7, 2 * 4096 + 2)])
def test_gated_shapes_and_tails(activation, device, name, dtype, shape):
    x = torch.randn(*shape, dtype=dtype, device=device)
    out = torch.empty(shape[:-1] + (shape[-1] // 2,), dtype=dtype, device=device)
    check(activation, name, x, out)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("numel", [1, 7, 8, 9, 1023, 4096 * 4 + 3, 2**20 + 5])
def test_elementwise_sizes_and_tails(activation, device, name, dtype, numel):
    x = torch.randn(numel, dtype=dtype, device=device) * 4
    check(activation, name, x, torch.empty_like(x))


@pytest.mark.parametrize("name", list(REFERENCES))
def test_unaligned_views_use_the_scalar_path(activation, device, name):
    base = torch.randn(33 * 130 + 1, dtype=torch.bfloat16, device=device)
    x = base[1:].view(33, 130)
    check(activation, name, x)


@pytest.mark.kernels_ci
@pytest.mark.parametrize("name", GATED)
def test_gated_empty_rows(activation, device, name):
    x = torch.randn(0, 64, device=device)
    assert getattr(activation, name)(x).shape == (0, 32)


@pytest.mark.kernels_ci
def test_gated_rejects_odd_last_dimension(activation, device):
    with pytest.raises(RuntimeError, match="must be even"):
        activation.silu_and_mul(torch.randn(4, 7, device=device))


@pytest.mark.kernels_ci
def test_gated_rejects_wrong_out_shape(activation, device):
    x = torch.randn(4, 8, device=device)
    with pytest.raises(RuntimeError, match=r"out must have shape \[4, 4\]"):
        activation.gelu_and_mul(x, out=torch.empty(4, 8, device=device))


@pytest.mark.kernels_ci
def test_rejects_float64(activation, device):
    with pytest.raises(RuntimeError, match="unsupported dtype Double; expected float32, float16 or bfloat16"):
        activation.gelu_fast(torch.randn(8, dtype=torch.float64, device=device))


@pytest.mark.kernels_ci
@pytest.mark.parametrize(
    "layer, name",
    [("SiluAndMul", "silu_and_mul"), ("GeluAndMul", "gelu_and_mul"),
     ("GeluTanhAndMul", "gelu_tanh_and_mul"), ("FastGELU", "gelu_fast"),
     ("GeluTanh", "gelu_tanh")])
def test_layers_match_functions(activation, device, layer, name):
    x = torch.randn(3, 5, 64, device=device)
    module = getattr(activation.layers, layer)()
    assert isinstance(module, torch.nn.Module)
    torch.testing.assert_close(module(x), reference(name, x))
