"""Reproducible builds (docs/building.md): `build --check-reproducible` builds the addone project twice in
two temporary directories (no compiler cache) and finds the variant byte-identical; its
metadata.json (which carries the digest of every file) is also identical to the one of the
session's CPU build, made in a third directory."""
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture  # noqa: E402

pytestmark = pytest.mark.slow

# Explicit instantiations only, and a variable of internal linkage in the device code: nvcc's
# front end then names the source's internal entities after its own process id unless the build
# gives it a seed (--frandom-seed, docs/build-engine.md).
MANY_KERNELS = """#include <cuda_runtime.h>

namespace {
__device__ float offset = 0.5f;
}

template <int N, bool Square>
__global__ void many_kernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = data[i] + offset;
#pragma unroll
  for (int k = 0; k < N; ++k) x = Square ? x * x + 0.5f * k : __sinf(x) + k;
  data[i] = x;
}

template <int N, bool Square>
void launch_many(float* data, int n) {
  many_kernel<N, Square><<<(n + 255) / 256, 256>>>(data, n);
}

"""


def test_two_builds_in_two_directories_are_identical(cpu_build, cpu_variant, kernel_builder, kb_python, tmp_path):
    project = copy_fixture("addone", tmp_path)
    result = subprocess.run([str(kernel_builder), "build", str(project), "--check-reproducible", "--variant", cpu_variant,
                             "--python", str(kb_python), "--unique-id", "e2ea"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    first = hashlib.sha256((cpu_build["variant_a"] / "metadata.json").read_bytes()).hexdigest()
    assert result.stdout == f"{cpu_variant}\tidentical\t{first}\n"
    assert "reproducibility check: build 2 of 2" in result.stderr
    assert not (project / "build").exists()  # the project itself is not built into


def test_cuda_module_does_not_depend_on_the_project_directory(kernel_builder, kb_python, tmp_path):
    """nvcc names anonymous namespaces after a hash of the source's path: the builder hands it the
    path inside the project, so two CUDA builds in two directories stay identical."""
    if not Path("/usr/local/cuda/bin/nvcc").exists():
        pytest.skip("nvcc not available")
    probe = subprocess.run([str(kb_python), "-c", "import torch; print(torch.__version__); print(torch.version.cuda or '')"],
                           capture_output=True, text=True).stdout.split("\n")
    if not probe[1]:
        pytest.skip("the test interpreter's torch is not a CUDA build")
    nvcc = subprocess.run(["/usr/local/cuda/bin/nvcc", "--version"], capture_output=True, text=True).stdout
    release = nvcc.split("release ")[1].split(",")[0].replace(".", "")
    major, minor = probe[0].split(".")[:2]
    variant = f"torch{major}{minor}-cxx11-cu{release}-x86_64-linux"
    project = copy_fixture("cuda_anon", tmp_path)
    # Sixteen kernels for two capabilities below 10.0: with CUDA 13 the build splits nvcc's optimiser
    # (--split-compile auto, docs/build-engine.md), which must leave the module the same; the source
    # defines no function outside a template.
    kernels = "\n".join(f"template void launch_many<{n}, {b}>(float*, int);" for n in (1, 2, 4, 8, 16, 32, 64, 128)
                         for b in ("false", "true"))
    (project / "scale_cuda" / "many.cu").write_text(MANY_KERNELS + kernels + "\n")
    toml = (project / "build.toml").read_text()
    (project / "build.toml").write_text(toml.replace('cuda-capabilities = ["9.0"]', 'cuda-capabilities = ["8.0", "9.0"]')
                                        .replace('src = ["scale_cuda/scale.cu"]',
                                                 'src = ["scale_cuda/scale.cu", "scale_cuda/many.cu"]'))
    result = subprocess.run([str(kernel_builder), "build", str(project), "--check-reproducible", "--variant", variant,
                             "--python", str(kb_python), "--unique-id", "r1"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{variant}\tidentical\t"), result.stdout + result.stderr
