"""Benchmarks of the activation example: the gated SiLU of an MLP (silu_and_mul) in float32 at
a transformer's shape, bandwidth-bound like every elementwise op. Bytes per call: x ([tokens, 2d])
read once and out ([tokens, d]) written once; no FLOPs are declared (exp and division dominate,
and counting them as FLOPs would say little about this kernel). float32 so that the reference
matches within the runner's fixed atol (bfloat16 rounding alone can exceed it)."""
import torch
import torch.nn.functional as F

from kernels.benchmark import Benchmark


class SiluAndMulBenchmark(Benchmark):
    seed = 0

    def setup(self):
        tokens, width = (4096, 4096) if self.device == "cpu" else (16384, 14336)  # past any cache
        self.x = torch.randn(tokens, 2 * width, device=self.device, dtype=torch.float32)
        self.out = torch.empty(tokens, width, device=self.device, dtype=torch.float32)

    def benchmark_float32(self):
        self.kernel.silu_and_mul(self.x, out=self.out)

    def verify_float32(self):
        d = self.x.shape[-1] // 2
        return F.silu(self.x[..., :d]) * self.x[..., d:]

    def bytes_float32(self):
        return (self.x.numel() + self.out.numel()) * self.x.element_size()
