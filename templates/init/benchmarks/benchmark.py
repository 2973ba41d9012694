import torch

from kernels.benchmark import Benchmark


class {{ class_name }}Benchmark(Benchmark):
    seed: int = 42

    def setup(self):
        self.input = torch.randn(1024, 1024, device=self.device, dtype=torch.float32)
        self.out = torch.empty_like(self.input)

    def benchmark_base(self):
        self.kernel.{{ python_name }}(self.input, self.out)

    def verify_base(self) -> torch.Tensor:
        return self.input + 1
