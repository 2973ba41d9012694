from typing import Optional

import torch

from ._ops import ops


def addone(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    ops.addone(out, x)
    return out


__all__ = ["addone"]
