"""Tests of the swish example: forward and backward against torch.nn.functional.silu, and the op
under torch.compile(fullgraph=True) with gradients."""
import pytest
import torch


@pytest.fixture(scope="module")
def swish(kernel_variant):
    return kernel_variant("swish", "cpu")


@pytest.mark.kernels_ci
def test_forward_and_backward_match_silu(swish):
    x = torch.randn(4, 1000, requires_grad=True)
    reference = x.detach().clone().requires_grad_(True)
    y = swish.swish(x)
    torch.testing.assert_close(y, torch.nn.functional.silu(reference))
    grad = torch.randn_like(y)
    y.backward(grad)
    torch.nn.functional.silu(reference).backward(grad)
    torch.testing.assert_close(x.grad, reference.grad)


@pytest.mark.kernels_ci
def test_under_torch_compile_with_gradients(swish):
    def loss(a):
        return (swish.swish(a) * 2).sum()

    compiled = torch.compile(loss, fullgraph=True, backend="aot_eager")
    x = torch.randn(257, requires_grad=True)
    value = compiled(x)
    value.backward()
    expected_x = x.detach().clone().requires_grad_(True)
    (torch.nn.functional.silu(expected_x) * 2).sum().backward()
    torch.testing.assert_close(value, (torch.nn.functional.silu(x.detach()) * 2).sum())
    torch.testing.assert_close(x.grad, expected_x.grad)


def test_opcheck(swish):
    x = torch.randn(3, 8, requires_grad=True)
    torch.library.opcheck(swish._swish, (x,))
