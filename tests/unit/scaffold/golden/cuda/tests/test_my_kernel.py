from pathlib import Path

import torch

try:
    # Importable when the package is installed or on the path (e.g. upstream's test shells).
    import my_kernel as kernel
except ImportError:
    # Otherwise load the variant of this machine from the local build/ directory.
    from kernels import get_local_kernel

    kernel = get_local_kernel(Path(__file__).resolve().parent.parent / "build")


def pick_device() -> str:
    if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        return "mps"
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return "xpu"
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def test_my_kernel():
    device = pick_device()
    x = torch.randn(1024, 1024, dtype=torch.float32, device=device)
    torch.testing.assert_close(kernel.my_kernel(x), x + 1)


def test_my_kernel_out():
    device = pick_device()
    x = torch.randn(257, dtype=torch.float32, device=device)
    out = torch.empty_like(x)
    result = kernel.my_kernel(x, out=out)
    assert result is out
    torch.testing.assert_close(out, x + 1)
