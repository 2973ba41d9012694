"""scale_add as a torch-noarch Hub kernel with an autotuned Triton implementation.

`scale_add(x, y, alpha)` returns `x + alpha * y`. On CUDA tensors it runs `_scale_add_kernel`,
whose BLOCK_SIZE/num_warps are picked by `triton.autotune` (keyed on the element count, so each
size is tuned once per process); elsewhere it is computed with torch. The op is a
`torch.library` custom op in this build's namespace, with a fake implementation.
"""
import torch

from ._ops import add_op_namespace_prefix, ops

try:
    import triton
    import triton.language as tl
except ImportError:  # CPU-only environments without Triton: the torch path still works
    triton = None

__all__ = ["scale_add", "ops", "AUTOTUNE_CONFIGS"]

AUTOTUNE_CONFIGS = [(256, 2), (1024, 4), (4096, 8)]  # (BLOCK_SIZE, num_warps)

if triton is not None:

    @triton.autotune(
        configs=[triton.Config({"BLOCK_SIZE": block}, num_warps=warps) for block, warps in AUTOTUNE_CONFIGS],
        key=["n"],
    )
    @triton.jit
    def _scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK_SIZE: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + alpha * y, mask=mask)
else:
    _scale_add_kernel = None


@torch.library.custom_op(add_op_namespace_prefix("scale_add"), mutates_args=())
def _scale_add(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    torch._check(x.shape == y.shape and x.dtype == y.dtype, lambda: "scale_add: x and y must match")
    if x.is_cuda and _scale_add_kernel is not None:
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        _scale_add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, alpha, n)
        return out
    return x + alpha * y


@torch.library.register_fake(add_op_namespace_prefix("scale_add"))
def _scale_add_fake(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    return torch.empty_like(x)


def scale_add(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    return ops.scale_add(x, y, alpha)
