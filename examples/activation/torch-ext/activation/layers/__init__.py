"""`nn.Module` layers backed by the activation ops (used by kernel mapping)."""
import torch
from torch import nn

from .._ops import ops


def _gated(op, x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty(x.shape[:-1] + (x.shape[-1] // 2,), dtype=x.dtype, device=x.device)
    op(out, x)
    return out


def _elementwise(op, x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    op(out, x)
    return out


class SiluAndMul(nn.Module):
    """[..., 2d] -> [..., d]: silu(x[..., :d]) * x[..., d:]"""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _gated(ops.silu_and_mul, x)


class GeluAndMul(nn.Module):
    """[..., 2d] -> [..., d]: gelu(x[..., :d]) * x[..., d:] (exact GELU)"""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _gated(ops.gelu_and_mul, x)


class GeluTanhAndMul(nn.Module):
    """[..., 2d] -> [..., d]: gelu_tanh(x[..., :d]) * x[..., d:]"""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _gated(ops.gelu_tanh_and_mul, x)


class FastGELU(nn.Module):
    """The "fast" tanh formulation of GELU."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _elementwise(ops.gelu_fast, x)


class GeluTanh(nn.Module):
    """Same forward as `nn.GELU(approximate="tanh")`."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _elementwise(ops.gelu_tanh, x)


__all__ = ["SiluAndMul", "GeluAndMul", "GeluTanhAndMul", "FastGELU", "GeluTanh"]
