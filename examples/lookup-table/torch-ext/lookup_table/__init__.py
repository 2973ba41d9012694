"""A kernel that reads a data file at run time: `table.json`, shipped next to this file in every
variant (build.toml `pyext`), holds the curve that `apply(x)` interpolates with the CPU kernel."""
import json
from pathlib import Path

import torch

from ._ops import ops

TABLE = json.loads((Path(__file__).parent / "table.json").read_text())
_XS = torch.tensor(TABLE["xs"], dtype=torch.float32)
_YS = torch.tensor(TABLE["ys"], dtype=torch.float32)


def apply(x: torch.Tensor) -> torch.Tensor:
    """The table's piecewise-linear curve at every element of `x` (float32, CPU)."""
    x = x.contiguous()
    out = torch.empty_like(x)
    ops.interpolate(out, x, _XS, _YS)
    return out


__all__ = ["apply", "TABLE"]
