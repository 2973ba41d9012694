"""Device-synchronised clocks. A timer runs a callable `iterations` times and returns one sample
per call in milliseconds: CUDA events recorded around each call on CUDA (the GPU's own clock,
no host round trip inside the measurement), else `time.perf_counter_ns` around each call with the
device synchronised before and after (a no-op on the CPU)."""
from __future__ import annotations

import time
from typing import Callable, List, Optional


class MonotonicTimer:
    name = "monotonic"

    def __init__(self, synchronize: Optional[Callable[[], None]] = None):
        self._synchronize = synchronize or (lambda: None)

    def run(self, fn: Callable[[], object], iterations: int) -> List[float]:
        samples = []
        for _ in range(iterations):
            self._synchronize()
            start = time.perf_counter_ns()
            fn()
            self._synchronize()
            samples.append((time.perf_counter_ns() - start) / 1e6)
        return samples


class CudaEventTimer:
    name = "cuda-events"

    def run(self, fn: Callable[[], object], iterations: int) -> List[float]:
        import torch

        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
        torch.cuda.synchronize()
        for start, end in zip(starts, ends):
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in zip(starts, ends)]


def synchronizer(device: str) -> Callable[[], None]:
    """The `torch.<device>.synchronize` of a device, or a no-op for the CPU."""
    if device == "cpu":
        return lambda: None
    import torch

    return getattr(torch, device).synchronize


def timer_for(device: str):
    if device == "cuda":
        return CudaEventTimer()
    return MonotonicTimer(synchronizer(device))
