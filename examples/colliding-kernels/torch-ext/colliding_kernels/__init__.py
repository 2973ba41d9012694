"""Two kernels whose units define the same internal names with different values: `twice(x)` is
`x * 2 + TWICE_TABLE[i % 4] + 0.25`, `thrice(x)` is `x * 3 + THRICE_TABLE[i % 4] + 0.125`
(float32, on the variant's device)."""
import torch

from ._ops import ops

TWICE = {"factor": 2.0, "table": [0.5, 1.5, 2.5, 3.5], "shift": 0.25}
THRICE = {"factor": 3.0, "table": [10.0, 20.0, 30.0, 40.0], "shift": 0.125}


def twice(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    ops.twice(out, x)
    return out


def thrice(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    ops.thrice(out, x)
    return out


__all__ = ["twice", "thrice", "TWICE", "THRICE"]
