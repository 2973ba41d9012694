"""Benchmarks of the matmul example: square float32 products, the compute-bound case of the
examples. Each case declares its FLOPs (2·n³) and the bytes it must move at least (a, b read
once, out written once: 3·4·n²), so the report places it on the roofline: intensity n/6
FLOP/byte, far right of any device's ridge point."""
import torch

from kernels.benchmark import Benchmark


class MatmulBenchmark(Benchmark):
    seed = 42
    size = 1024

    def setup(self):
        n = self.size if self.device == "cpu" else 4 * self.size
        self.a = torch.randn(n, n, device=self.device, dtype=torch.float32)
        self.b = torch.randn(n, n, device=self.device, dtype=torch.float32)
        self.out = torch.empty(n, n, device=self.device, dtype=torch.float32)

    def benchmark_square(self):
        self.kernel.matmul(self.a, self.b, out=self.out)

    def verify_square(self):
        # float64 reference: float32 sums of n products differ from it by far less than atol.
        return (self.a.double() @ self.b.double()).float()

    def flops_square(self):
        return 2 * self.a.shape[0] * self.a.shape[1] * self.b.shape[1]

    def bytes_square(self):
        return 4 * (self.a.numel() + self.b.numel() + self.out.numel())
