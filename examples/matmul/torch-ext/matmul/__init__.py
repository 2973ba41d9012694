"""Float32 matrix multiply as a Hub kernel: `matmul(a, b, out=None)` (the example's compute-bound
workload; the benchmark in benchmarks/ declares its FLOPs and bytes)."""
from typing import Optional

import torch

from ._ops import ops


def matmul(a: torch.Tensor, b: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Return a @ b for 2-D float32 tensors, written into `out` when given (M×N, contiguous)."""
    if out is None:
        out = torch.empty(a.shape[0], b.shape[1], device=a.device, dtype=a.dtype)
    ops.matmul(out, a.contiguous(), b.contiguous())
    return out


__all__ = ["matmul"]
