"""Benchmarks of the relu example: large contiguous tensors, the bandwidth-bound case of the
examples. Each case declares the bytes it moves per call (the input read once, the output written
once) and its FLOPs (one max per element), so the report gives the achieved fraction of the
device's copy bandwidth; at 1/8 FLOP per byte (float32) it sits far left of the ridge point."""
import torch

from kernels.benchmark import Benchmark


class ReluBenchmark(Benchmark):
    seed = 42

    def _prepare(self, dtype):
        numel = 1 << 24 if self.device == "cpu" else 1 << 26  # past any last-level cache
        self.x = torch.randn(numel, device=self.device, dtype=dtype)
        self.out = torch.empty_like(self.x)

    def setup_float32(self):
        self._prepare(torch.float32)

    def setup_bfloat16(self):
        self._prepare(torch.bfloat16)

    def benchmark_float32(self):
        self.kernel.relu(self.x, out=self.out)

    def benchmark_bfloat16(self):
        self.kernel.relu(self.x, out=self.out)

    def verify_float32(self):
        return torch.relu(self.x)

    def verify_bfloat16(self):
        return torch.relu(self.x)

    def bytes_float32(self):
        return 2 * self.x.numel() * self.x.element_size()

    bytes_bfloat16 = bytes_float32

    def flops_float32(self):
        return self.x.numel()

    flops_bfloat16 = flops_float32
