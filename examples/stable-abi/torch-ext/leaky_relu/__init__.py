"""Leaky ReLU as a stable-ABI Hub kernel: one build serves every Torch >= 2.11."""
import torch

from ._ops import ops


def leaky_relu(x: torch.Tensor, negative_slope: float = 0.01) -> torch.Tensor:
    """x where x >= 0, negative_slope * x elsewhere (as torch.nn.functional.leaky_relu)."""
    return ops.leaky_relu(x, negative_slope)


__all__ = ["leaky_relu"]
