"""RMSNorm as a torch-noarch Hub kernel: no compiled code, ops registered from Python.

`rms_norm(x, weight, eps)` normalises the last dimension: x / sqrt(mean(x^2) + eps) * weight,
computed in float32 and returned in x's dtype. The op is a `torch.library` custom op in this
build's namespace (`add_op_namespace_prefix`), with a fake implementation (torch.compile,
meta tensors), an autograd formula, and a Triton implementation on CUDA when Triton is present.
"""
import torch

from ._ops import add_op_namespace_prefix, ops
from . import _triton, layers


def _wide(t: torch.Tensor) -> torch.Tensor:
    """At least float32 (float64 stays float64, so gradcheck can run in double)."""
    return t.to(torch.promote_types(t.dtype, torch.float32))


@torch.library.custom_op(add_op_namespace_prefix("rms_norm"), mutates_args=())
def _rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    wide = _wide(x)
    rstd = torch.rsqrt(wide.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (wide * rstd * _wide(weight)).to(x.dtype)


@torch.library.register_fake(add_op_namespace_prefix("rms_norm"))
def _rms_norm_fake(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    torch._check(weight.shape == x.shape[-1:], lambda: "rms_norm: weight must have shape [d]")
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _backward(ctx, grad):
    x, weight = ctx.saved_tensors
    wide = _wide(x)
    rstd = torch.rsqrt(wide.pow(2).mean(dim=-1, keepdim=True) + ctx.eps)
    normed = wide * rstd
    grad_wide = _wide(grad)
    grad_weight = (grad_wide * normed).reshape(-1, x.shape[-1]).sum(0).to(weight.dtype)
    g = grad_wide * _wide(weight)
    # d/dx of x * rstd(x): rstd * (g - normed * mean(g * normed))
    grad_x = rstd * (g - normed * (g * normed).mean(dim=-1, keepdim=True))
    return grad_x.to(x.dtype), grad_weight, None


torch.library.register_autograd(
    add_op_namespace_prefix("rms_norm"), _backward, setup_context=_setup_context)

_triton.register()


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """x / sqrt(mean(x^2, -1) + eps) * weight"""
    if weight.shape != x.shape[-1:]:
        raise ValueError(f"rms_norm: weight must have shape [{x.shape[-1]}], got {list(weight.shape)}")
    return ops.rms_norm(x, weight, eps)


__all__ = ["rms_norm", "layers"]
