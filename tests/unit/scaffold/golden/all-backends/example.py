# Loads the locally built kernel from build/ and checks it. Build it first with
# `kernel-builder build`.
from pathlib import Path

import torch

from kernels import get_local_kernel


def pick_device() -> str:
    if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        return "mps"
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return "xpu"
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def main():
    kernel = get_local_kernel(Path("build"))
    x = torch.randn(16, device=pick_device())
    result = kernel.my_kernel(x)
    torch.testing.assert_close(result, x + 1)
    print("myorg/my-kernel: my_kernel(x) == x + 1")


if __name__ == "__main__":
    main()
