"""RMSNorm as a Hub kernel: `rms_norm(x, weight, epsilon, out=None)` and `layers.RMSNorm`."""
from typing import Optional

import torch

from ._ops import add_op_namespace_prefix, ops
from . import layers


def rms_norm(x: torch.Tensor, weight: torch.Tensor, epsilon: float = 1e-6,
             out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """x / sqrt(mean(x**2, -1) + epsilon) * weight, written into `out` when given."""
    x = x.contiguous()
    if out is None:
        out = torch.empty_like(x)
    ops.rms_norm(out, x, weight.contiguous(), epsilon)
    return out


# torch.compile traces the op through this shape-only implementation (the op writes `out`).
# allow_override: the same build imported again from another path (a second copy or cache)
# registers the same implementation again.
@torch.library.register_fake(add_op_namespace_prefix("rms_norm"), allow_override=True)
def _rms_norm_fake(out: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    return None


__all__ = ["rms_norm", "layers"]
