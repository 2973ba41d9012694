"""Tests of the TVM-FFI axpy example: the built library is called with torch tensors and numpy
arrays through DLPack; its argument checks raise Python exceptions through TVM-FFI."""
import numpy as np
import pytest
import torch


@pytest.fixture(scope="module")
def axpy_cpu(kernel_variant):
    return kernel_variant("tvm-ffi-axpy", "cpu")


@pytest.mark.kernels_ci
def test_axpy_torch_tensors(axpy_cpu):
    x = torch.linspace(-3, 3, 1000)
    y = torch.arange(1000, dtype=torch.float32)
    out = torch.empty_like(x)
    assert axpy_cpu.axpy(out, x, y, 2.5) is out
    torch.testing.assert_close(out, 2.5 * x + y)


@pytest.mark.kernels_ci
def test_axpy_numpy_arrays(axpy_cpu):
    x = np.linspace(0, 1, 37, dtype=np.float32).reshape(37)
    y = np.full(37, 4.0, dtype=np.float32)
    out = np.zeros(37, dtype=np.float32)
    axpy_cpu.axpy(out, x, y, -1.0)
    np.testing.assert_allclose(out, 4.0 - x, rtol=1e-6)


@pytest.mark.kernels_ci
def test_ops_is_a_tvm_ffi_module(axpy_cpu):
    import tvm_ffi

    assert isinstance(axpy_cpu.ops, tvm_ffi.Module)
    assert axpy_cpu._ops.torch_add_op_namespace_prefix("axpy") == f"{axpy_cpu.__name__}::axpy"


def test_axpy_refuses_other_dtypes(axpy_cpu):
    x = torch.zeros(4, dtype=torch.float64)
    with pytest.raises(TypeError, match="must be float32"):
        axpy_cpu.axpy(torch.empty(4), x, torch.zeros(4), 1.0)


def test_axpy_refuses_shape_mismatch(axpy_cpu):
    with pytest.raises(ValueError, match="another shape"):
        axpy_cpu.axpy(torch.empty(4), torch.zeros(5), torch.zeros(4), 1.0)


@pytest.mark.cuda
def test_axpy_cuda(kernel_variant):
    axpy = kernel_variant("tvm-ffi-axpy", "cuda")
    x = torch.randn(1 << 20, device="cuda")
    y = torch.randn(1 << 20, device="cuda")
    out = torch.empty_like(x)
    axpy.axpy(out, x, y, 0.75)
    torch.testing.assert_close(out, 0.75 * x + y)


@pytest.mark.cuda
def test_axpy_cuda_runs_on_the_current_stream(kernel_variant):
    axpy = kernel_variant("tvm-ffi-axpy", "cuda")
    stream = torch.cuda.Stream()
    x = torch.ones(1 << 16, device="cuda")
    with torch.cuda.stream(stream):
        y = torch.full_like(x, 2.0)
        out = torch.empty_like(x)
        axpy.axpy(out, x, y, 3.0)
    stream.synchronize()
    assert torch.equal(out.cpu(), torch.full((1 << 16,), 5.0))


@pytest.mark.cuda
def test_axpy_cuda_refuses_cpu_tensors(kernel_variant):
    axpy = kernel_variant("tvm-ffi-axpy", "cuda")
    with pytest.raises(ValueError, match="another device"):
        axpy.ops.axpy_cuda(torch.empty(4, device="cuda"), torch.zeros(4), torch.zeros(4, device="cuda"), 1.0)
