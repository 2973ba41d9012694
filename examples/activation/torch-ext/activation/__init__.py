"""Activation functions as a Hub kernel.

Gated ops take `x` of shape [..., 2d] and return [..., d] = act(x[..., :d]) * x[..., d:];
elementwise ops return the shape of `x`. Every function accepts an `out` tensor to write into.
"""
from typing import Optional

import torch

from ._ops import ops
from . import layers


def _gated(op, x: torch.Tensor, out: Optional[torch.Tensor]) -> torch.Tensor:
    x = x.contiguous()
    if out is None:
        out = torch.empty(x.shape[:-1] + (x.shape[-1] // 2,), dtype=x.dtype, device=x.device)
    op(out, x)
    return out


def _elementwise(op, x: torch.Tensor, out: Optional[torch.Tensor]) -> torch.Tensor:
    x = x.contiguous()
    if out is None:
        out = torch.empty_like(x)
    op(out, x)
    return out


def silu_and_mul(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """silu(x[..., :d]) * x[..., d:]"""
    return _gated(ops.silu_and_mul, x, out)


def gelu_and_mul(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """gelu(x[..., :d]) * x[..., d:] with the exact (erf) GELU."""
    return _gated(ops.gelu_and_mul, x, out)


def gelu_tanh_and_mul(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """gelu(x[..., :d], approximate="tanh") * x[..., d:]"""
    return _gated(ops.gelu_tanh_and_mul, x, out)


def gelu_fast(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """0.5 * x * (1 + tanh(0.7978845608 * x * (1 + 0.044715 * x * x)))"""
    return _elementwise(ops.gelu_fast, x, out)


def gelu_tanh(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """gelu(x, approximate="tanh")"""
    return _elementwise(ops.gelu_tanh, x, out)


__all__ = ["silu_and_mul", "gelu_and_mul", "gelu_tanh_and_mul", "gelu_fast", "gelu_tanh",
           "layers"]
