"""`Benchmark`: the base class of a kernel's `benchmarks/benchmark*.py` scripts (docs/benchmarks.md).

`kernels benchmark` runs every `Benchmark` subclass a script defines (discovery and the order of
calls: `kernels._benchmark.discovery` and `.runner`; docs/benchmarks.md). Beyond upstream, a
workload may declare the work it does with `bytes_<name>()` and `flops_<name>()`; the report then
places it on the device's roofline. A script written for upstream runs unchanged, and one using
the declarations still runs on upstream (it ignores those methods)."""
from __future__ import annotations

from typing import Any, Optional


class Benchmark:
    """Base class for kernel benchmarks.

    The runner creates a fresh instance per workload, sets `kernel` (the loaded kernel module) and
    `device` ("cuda", "xpu", "mps", "npu" or "cpu"), seeds `torch` and `random` with `seed` when it
    is set, calls `setup_<name>()` (or else `setup()`), then times `benchmark_<name>()`. When
    `verify_<name>()` exists it returns a reference tensor that must match `self.out` (set by the
    benchmark) within `atol=1e-2`.

    Optional, ours only: `bytes_<name>()` returns the bytes the workload reads plus writes per call
    and `flops_<name>()` the floating-point operations it does per call; both are called after setup.

    Example::

        class ReluBenchmark(Benchmark):
            seed = 42

            def setup(self):
                self.x = torch.randn(1 << 24, device=self.device)
                self.out = torch.empty_like(self.x)

            def benchmark_relu(self):
                self.kernel.relu(self.x, out=self.out)

            def verify_relu(self):
                return torch.relu(self.x)

            def bytes_relu(self):
                return 2 * self.x.numel() * self.x.element_size()

    Run with: kernels benchmark <repo_id | path>
    """

    seed: Optional[int] = None
    device: str = "cpu"

    def __init__(self) -> None:
        self.kernel: Any = None
        self.out: Any = None

    def setup(self) -> None:
        """Prepare inputs shared by every workload of the class (runs before each workload)."""
