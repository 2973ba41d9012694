"""The run document `kernels-benchmark/1` (docs/hub-benchmarks.md owns the contract; `--json`,
`--output` and `--upload` all carry this one document), and the roofline position of a case:
achieved bytes/s over the copy bandwidth, achieved FLOP/s over the peak, both from the mean time."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional

from kernels._benchmark.device import Roofs
from kernels._benchmark.runner import CaseResult

FORMAT = "kernels-benchmark/1"
MAX_STRING = 256  # bytes
MAX_RESULTS = 1000


@dataclass(frozen=True)
class Kernel:
    repo_id: str
    revision: str
    variant: str


@dataclass(frozen=True)
class Settings:
    iterations: int
    warmup: int
    timer: str


def fraction(work: Optional[float], mean_ms: float, roof: Optional[float]) -> Optional[float]:
    if work is None or roof is None or roof <= 0 or mean_ms <= 0:
        return None
    return work / (mean_ms / 1e3) / roof


def _string(value: Optional[str]) -> Optional[str]:
    """At most MAX_STRING bytes of UTF-8 (the Hub's limit), cut at a character boundary."""
    if value is None:
        return None
    return str(value).encode("utf-8")[:MAX_STRING].decode("utf-8", errors="ignore")


def _number(value: Optional[float]) -> Optional[float]:
    if value is None:
        return None
    if not math.isfinite(value):
        raise ValueError(f"non-finite number in the benchmark results: {value}")
    return value


def result_entry(case: CaseResult, roofs: Roofs) -> dict:
    s = case.summary
    return {
        "benchmark": _string(case.benchmark),
        "case": _string(case.case),
        "verified": case.verified,
        "unit": "ms",
        "mean": _number(s.mean), "std": _number(s.std), "min": _number(s.min), "max": _number(s.max),
        "q1": _number(s.q1), "median": _number(s.median), "q3": _number(s.q3),
        "outliers": s.outliers,
        "samples": s.samples,
        "bytes": _number(case.bytes),
        "flops": _number(case.flops),
        "bandwidth_fraction": _number(fraction(case.bytes, s.mean, roofs.copy_bandwidth)),
        "peak_fraction": _number(fraction(case.flops, s.mean, roofs.peak_flops)),
    }


def build(kernel: Kernel, machine: dict, settings: Settings, roofs: Roofs, cases: List[CaseResult]) -> dict:
    if len(cases) > MAX_RESULTS:
        raise ValueError(f"{len(cases)} benchmark results; a run document holds at most {MAX_RESULTS}")
    return {
        "format": FORMAT,
        "kernel": {"repo_id": _string(kernel.repo_id), "revision": _string(kernel.revision),
                   "variant": _string(kernel.variant)},
        "machine": {key: _string(value) for key, value in machine.items()},
        "settings": {"iterations": settings.iterations, "warmup": settings.warmup, "timer": settings.timer},
        "device": {"copy_bandwidth_bytes_per_s": _number(roofs.copy_bandwidth),
                   "peak_flops_per_s": _number(roofs.peak_flops),
                   "peak_source": _string(roofs.peak_source)},
        "results": [result_entry(case, roofs) for case in cases],
    }
