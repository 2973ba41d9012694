"""Fixtures of the example kernels' tests: build an example and import one of its variants.

`kernel_variant(name, backend)` builds `examples/<name>` for `backend` (once per session) with
`kernel-builder build --variant ...` and imports `build/<variant>` under its ops id, the way the
loader does. `KB_EXAMPLES_BUILD=cpp_extension` switches to the stand-in build of
`example_build.py`. CUDA tests skip before building when no GPU is present (`needs_gpu=False` builds and imports a
CUDA variant anyway, e.g. the torch-cuda noarch variant on a CPU-only machine).
"""
import importlib.util
from pathlib import Path

import pytest
import torch

_spec = importlib.util.spec_from_file_location(
    "kb_example_build", Path(__file__).resolve().parent / "example_build.py")
example_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example_build)


@pytest.fixture(scope="session")
def kernel_variant():
    cache = {}

    def load(name: str, backend: str, needs_gpu: bool = True):
        if backend == "cuda" and needs_gpu and not torch.cuda.is_available():
            pytest.skip("needs a CUDA GPU")
        key = (name, backend)
        if key not in cache:
            try:
                cache[key] = example_build.load_example(name, backend)
            except example_build.BuildError as error:
                cache[key] = error
        if isinstance(cache[key], Exception):
            pytest.fail(str(cache[key]), pytrace=False)
        return cache[key]

    return load


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def device(request):
    """Run a test on the CPU variant and, where a GPU exists, on the CUDA variant."""
    if request.param == "cuda" and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    return request.param
