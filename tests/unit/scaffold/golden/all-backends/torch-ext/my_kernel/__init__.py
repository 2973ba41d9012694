from typing import Optional

import torch

from ._ops import ops

__all__ = ["my_kernel"]


def my_kernel(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Return `x + 1`, computed by the kernel. Writes into `out` when it is given."""
    if out is None:
        out = torch.empty_like(x)
    ops.my_kernel(out, x)
    return out
