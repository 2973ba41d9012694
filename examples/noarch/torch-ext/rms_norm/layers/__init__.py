"""`nn.Module` layer backed by the rms_norm op (used by kernel mapping)."""
import torch
from torch import nn

from .._ops import ops


class RMSNorm(nn.Module):
    """Replaces an RMSNorm module that has `weight` and `variance_epsilon` attributes."""

    weight: torch.Tensor
    variance_epsilon: float

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ops.rms_norm(x, self.weight, self.variance_epsilon)


__all__ = ["RMSNorm"]
