from typing import Optional

import torch

from ._ops import ops

__all__ = ["{{ python_name }}"]


def {{ python_name }}(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Return `x + 1`, computed by the kernel. Writes into `out` when it is given."""
    if out is None:
        out = torch.empty_like(x)
    ops.{{ python_name }}(out, x)
    return out
