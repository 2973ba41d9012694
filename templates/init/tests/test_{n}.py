from pathlib import Path

import torch


def pick_device() -> str:
    if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        return "mps"
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return "xpu"
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


DEVICE = pick_device()

try:
    # Importable when the package is installed or on the path (e.g. upstream's test shells).
    import {{ python_name }} as kernel
except ImportError:
    # Otherwise load the variant for DEVICE from the local build/ directory: without a GPU, the
    # CPU variant, even where a GPU variant was built too (it would be chosen by default).
    from kernels import get_local_kernel

    kernel = get_local_kernel(Path(__file__).resolve().parent.parent / "build",
                              backend="cpu" if DEVICE == "cpu" else None)


def test_{{ python_name }}():
    x = torch.randn(1024, 1024, dtype=torch.float32, device=DEVICE)
    torch.testing.assert_close(kernel.{{ python_name }}(x), x + 1)


def test_{{ python_name }}_out():
    x = torch.randn(257, dtype=torch.float32, device=DEVICE)
    out = torch.empty_like(x)
    result = kernel.{{ python_name }}(x, out=out)
    assert result is out
    torch.testing.assert_close(out, x + 1)
