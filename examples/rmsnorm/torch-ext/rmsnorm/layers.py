"""`nn.Module` layers backed by the rmsnorm op, for kernel mappings (`kernelize`).

`RMSNorm.forward` replaces the forward of a Llama-style RMSNorm (attributes `weight` and
`variance_epsilon`). It can be traced by torch.compile (the op has a fake implementation) but
has no backward: kernelize keeps the original forward in `Mode.TRAINING`."""
import torch
from torch import nn

from ._ops import ops


class RMSNorm(nn.Module):
    can_torch_compile: bool = True
    has_backward: bool = False

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        x = hidden_states.contiguous()
        weight = self.weight.to(x.dtype).contiguous()
        out = torch.empty_like(x)
        ops.rms_norm(out, x, weight, float(self.variance_epsilon))
        return out


__all__ = ["RMSNorm"]
