"""One workload, in upstream's order of calls: a fresh instance with `kernel` and `device` set;
`torch.manual_seed` and `random.seed` with the class's `seed` when set; `setup_<name>()` or else
`setup()`; when `verify_<name>` exists, the benchmark once and `self.out` compared with the
reference (`torch.allclose`, atol=1e-2); then `warmup` untimed and `iterations` timed calls.
Ours: a failed comparison is a result (`verified` False with the reason), not an abort, and
`bytes_<name>`/`flops_<name>` (method or number) declare the work per call."""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Optional

from kernels._benchmark.discovery import Workload
from kernels._benchmark.stats import Summary, summarize

ATOL = 1e-2


@dataclass(frozen=True)
class CaseResult:
    benchmark: str
    case: str
    verified: Optional[bool]
    verify_failure: Optional[str]
    summary: Summary
    bytes: Optional[float]
    flops: Optional[float]

    @property
    def label(self) -> str:
        return f"{self.benchmark}.{self.case}"


def _declared(instance: Any, kind: str, name: str) -> Optional[float]:
    attr = f"{kind}_{name}"
    value = getattr(instance, attr, None)
    if value is None:
        return None
    if callable(value):
        value = value()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise TypeError(f"`{type(instance).__name__}.{attr}` must give a finite number >= 0, got {value!r}")
    return float(value)


def _compare(out: Any, reference: Any, name: str):
    import torch

    if not isinstance(out, torch.Tensor):
        return False, f"`benchmark_{name}` left `self.out` as {type(out).__name__}, not a tensor to compare"
    if not isinstance(reference, torch.Tensor):
        return False, f"`verify_{name}` returned {type(reference).__name__}, not a tensor"
    if out.shape != reference.shape:
        return False, f"shape {tuple(out.shape)} differs from the reference's {tuple(reference.shape)}"
    if torch.allclose(out, reference.to(out.dtype), atol=ATOL):
        return True, None
    worst = (out.double() - reference.double()).abs().max().item()
    return False, f"max |out - reference| = {worst:.6g} (atol {ATOL})"


def run_workload(workload: Workload, kernel: Any, device: str, iterations: int, warmup: int,
                 timer, synchronize: Callable[[], None]) -> CaseResult:
    import torch

    name = workload.name
    instance = workload.cls()
    instance.kernel = kernel
    instance.device = device
    if workload.cls.seed is not None:
        torch.manual_seed(workload.cls.seed)
        random.seed(workload.cls.seed)
    setup = getattr(instance, f"setup_{name}", None)
    (setup if callable(setup) else instance.setup)()
    bench = getattr(instance, f"benchmark_{name}")
    verify = getattr(instance, f"verify_{name}", None)
    verified, failure = None, None
    if callable(verify):
        bench()
        synchronize()
        verified, failure = _compare(instance.out, verify(), name)
    bytes_moved = _declared(instance, "bytes", name)
    flops = _declared(instance, "flops", name)
    for _ in range(warmup):
        bench()
    synchronize()
    samples = timer.run(bench, iterations)
    return CaseResult(workload.cls.__name__, name, verified, failure, summarize(samples), bytes_moved, flops)
