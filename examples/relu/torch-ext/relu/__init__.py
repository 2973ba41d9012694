"""ReLU as a Hub kernel: `relu(x, out=None)` and the `layers.ReLU` module."""
from typing import Optional

import torch

from ._ops import ops
from . import layers


def relu(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Return max(x, 0) elementwise, written into `out` when given (it must match `x`)."""
    if out is None:
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
    ops.relu(out, x.contiguous())
    return out


__all__ = ["relu", "layers"]
