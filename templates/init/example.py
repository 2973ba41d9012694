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
    device = pick_device()
    # Without a GPU, ask for the CPU variant: a GPU variant built here would be chosen by default.
    kernel = get_local_kernel(Path(__file__).resolve().parent / "build", backend="cpu" if device == "cpu" else None)
    x = torch.randn(16, device=device)
    result = kernel.{{ python_name }}(x)
    torch.testing.assert_close(result, x + 1)
    print("{{ repo_id }}: {{ python_name }}(x) == x + 1")


if __name__ == "__main__":
    main()
