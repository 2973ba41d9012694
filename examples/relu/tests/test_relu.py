"""Tests of the relu example kernel against torch.relu, on the built CPU and CUDA variants."""
import pytest
import torch

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


@pytest.fixture
def relu(kernel_variant, device):
    return kernel_variant("relu", device)


def _poisoned_like(x):
    return torch.full_like(x, float("nan"))


@pytest.mark.kernels_ci
@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_matches_torch(relu, device, dtype):
    x = torch.randn(1037, 263, dtype=dtype, device=device)
    torch.testing.assert_close(relu.relu(x), torch.relu(x), rtol=0, atol=0)


@pytest.mark.kernels_ci
def test_relu_writes_every_element_of_out(relu, device):
    x = torch.randn(4099, dtype=torch.float32, device=device)
    out = _poisoned_like(x)
    result = relu.relu(x, out=out)
    assert result.data_ptr() == out.data_ptr()
    torch.testing.assert_close(out, torch.relu(x), rtol=0, atol=0)


@pytest.mark.kernels_ci
def test_relu_propagates_nan(relu, device):
    x = torch.tensor([float("nan"), -1.0, 2.0, float("-inf"), float("inf")], device=device)
    y = relu.relu(x)
    assert torch.isnan(y[0])
    assert y[1:].tolist() == [0.0, 2.0, 0.0, float("inf")]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("numel", [0, 1, 7, 8, 9, 1023, 4096 * 4 + 3, 3 * 2**20 + 5])
def test_relu_sizes_and_tails(relu, device, dtype, numel):
    x = torch.randn(numel, dtype=dtype, device=device)
    out = _poisoned_like(x)
    relu.relu(x, out=out)
    torch.testing.assert_close(out, torch.relu(x), rtol=0, atol=0)


@pytest.mark.parametrize("offset", [1, 2, 3])
def test_relu_unaligned_views(relu, device, offset):
    """Views that start off a 16-byte boundary take the scalar path and must still be right."""
    base = torch.randn(10000 + offset, dtype=torch.float16, device=device)
    x = base[offset:]
    out = torch.empty(10000 + offset, dtype=torch.float16, device=device)[offset:]
    out.fill_(float("nan"))
    relu.relu(x, out=out)
    torch.testing.assert_close(out, torch.relu(x), rtol=0, atol=0)


def test_relu_non_contiguous_input(relu, device):
    x = torch.randn(64, 96, device=device).t()
    torch.testing.assert_close(relu.relu(x), torch.relu(x), rtol=0, atol=0)


@pytest.mark.kernels_ci
def test_relu_layer_matches_nn_relu(relu, device):
    x = torch.randn(8, 33, 17, device=device)
    layer = relu.layers.ReLU()
    assert isinstance(layer, torch.nn.Module)
    torch.testing.assert_close(layer(x), torch.nn.ReLU()(x), rtol=0, atol=0)


@pytest.mark.kernels_ci
def test_relu_rejects_mismatched_out(relu, device):
    x = torch.randn(16, device=device)
    with pytest.raises(RuntimeError, match="same shape"):
        relu.relu(x, out=torch.empty(15, device=device))
    with pytest.raises(RuntimeError, match="same dtype"):
        relu.relu(x, out=torch.empty(16, dtype=torch.float16, device=device))


@pytest.mark.kernels_ci
def test_relu_op_lives_under_the_ops_id(relu, device):
    ops_id = relu.__name__
    assert ops_id.startswith(f"_relu_{device}_")
    assert relu._ops.ops is getattr(torch.ops, ops_id)
    assert relu._ops.add_op_namespace_prefix("relu") == f"{ops_id}::relu"
