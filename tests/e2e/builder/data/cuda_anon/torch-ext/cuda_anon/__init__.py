from typing import Optional

import torch

from ._ops import ops


def scale(x: torch.Tensor, factor: float, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    ops.scale(out, x, factor)
    return out


__all__ = ["scale"]
