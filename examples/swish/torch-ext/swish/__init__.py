"""swish(x) = x * sigmoid(x) with compiled forward and backward kernels.

`swish` is a `torch.library` custom op in this build's namespace (`add_op_namespace_prefix`):
the forward calls the compiled `swish_forward`, autograd calls the compiled `swish_backward`,
and the fake implementation lets `torch.compile(fullgraph=True)` trace through it.
"""
import torch

from ._ops import add_op_namespace_prefix, ops


@torch.library.custom_op(add_op_namespace_prefix("swish"), mutates_args=())
def _swish(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    ops.swish_forward(out, x.contiguous())
    return out


@_swish.register_fake
def _swish_fake(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op(add_op_namespace_prefix("swish_grad"), mutates_args=())
def _swish_grad(grad_out: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    grad_x = torch.empty_like(x, memory_format=torch.contiguous_format)
    ops.swish_backward(grad_x, grad_out.contiguous(), x.contiguous())
    return grad_x


@_swish_grad.register_fake
def _swish_grad_fake(grad_out: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def _backward(ctx, grad_out):
    (x,) = ctx.saved_tensors
    return _swish_grad(grad_out, x)


_swish.register_autograd(_backward, setup_context=_setup_context)


def swish(x: torch.Tensor) -> torch.Tensor:
    return _swish(x)


__all__ = ["swish"]
