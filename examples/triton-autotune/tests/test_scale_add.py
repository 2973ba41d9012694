"""Tests of the torch-noarch Triton autotune example: the op in its namespace, values on CPU (torch
path) and, on a GPU, the autotuned Triton kernel's values and the configuration it chose."""
import pytest
import torch


@pytest.fixture(scope="module")
def scale_add(kernel_variant):
    backend = "cuda" if torch.version.cuda is not None else "cpu"
    return kernel_variant("triton-autotune", backend, needs_gpu=False)


@pytest.mark.kernels_ci
def test_scale_add_matches_torch(scale_add, device):
    x = torch.randn(1000, device=device)
    y = torch.randn(1000, device=device)
    torch.testing.assert_close(scale_add.scale_add(x, y, 0.5), x + 0.5 * y)


@pytest.mark.kernels_ci
def test_scale_add_is_in_the_kernel_namespace(scale_add):
    namespace = scale_add._ops._OPS_NAME
    assert namespace.startswith("_scale_add_")
    assert hasattr(getattr(torch.ops, namespace), "scale_add")


@pytest.mark.kernels_ci
def test_autotune_declares_its_configs(scale_add):
    pytest.importorskip("triton")
    configs = scale_add._scale_add_kernel.configs
    assert [(c.kwargs["BLOCK_SIZE"], c.num_warps) for c in configs] == scale_add.AUTOTUNE_CONFIGS


@pytest.mark.cuda
@pytest.mark.parametrize("n", [1, 4097, 1 << 20])
def test_autotuned_kernel_on_gpu(scale_add, n):
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    torch.testing.assert_close(scale_add.scale_add(x, y, -2.0), x - 2.0 * y)
    best = scale_add._scale_add_kernel.best_config
    assert (best.kwargs["BLOCK_SIZE"], best.num_warps) in scale_add.AUTOTUNE_CONFIGS
