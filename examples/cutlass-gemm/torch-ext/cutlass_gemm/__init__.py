"""C = A @ B on CUDA with a CUTLASS 3.x / CuTe GEMM (float16 and bfloat16, float32 accumulation)."""
import torch

from ._ops import ops


def mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Return `a @ b` for 2-D float16/bfloat16 CUDA tensors of one dtype (like `torch.mm`)."""
    return ops.mm(a, b)


__all__ = ["mm"]
