"""axpy through TVM-FFI: `out = alpha * x + y` for float32 tensors from any DLPack framework."""
import tvm_ffi

from ._ops import ops


def axpy(out, x, y, alpha: float):
    """Write `alpha * x + y` into `out` (torch tensors, numpy arrays, ... on one device); returns `out`."""
    device = tvm_ffi.from_dlpack(out).device.type
    function = getattr(ops, f"axpy_{device}", None)
    if function is None:
        raise NotImplementedError(f"axpy has no kernel for {device} tensors in this build")
    function(out, x, y, float(alpha))
    return out


__all__ = ["axpy"]
