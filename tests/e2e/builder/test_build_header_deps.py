"""Header-only build dependencies (docs/building.md): a CUDA unit with `depends = ["cutlass_4_0"]`
compiles against the headers of CUTLASS_SRC_DIR; without a source the build fails before
compiling anything, naming CUTLASS_SRC_DIR and the shared cache. (A stand-in header tree keeps the
test offline and small; the real CUTLASS is exercised by the GPU machine's examples.)"""
import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, run_build  # noqa: E402


def cutlass_project(tmp_path: Path) -> Path:
    """The cuda_anon fixture (one architecture, device code without torch headers: a quick CUDA
    build) with its CUDA unit depending on CUTLASS 4.0 and checking that the stand-in's header is
    the one it compiles against."""
    project = copy_fixture("cuda_anon", tmp_path)
    toml = (project / "build.toml").read_text()
    toml = toml.replace('[kernel.scale_cuda]\nbackend = "cuda"\ndepends = ["torch"]',
                        '[kernel.scale_cuda]\nbackend = "cuda"\ndepends = ["torch", "cutlass_4_0"]')
    assert "cutlass_4_0" in toml
    (project / "build.toml").write_text(toml)
    source = project / "scale_cuda" / "scale.cu"
    source.write_text("#include <cutlass/cutlass.h>\nstatic_assert(KB_STAND_IN_CUTLASS == 40, \"wrong headers\");\n"
                      + source.read_text())
    return project


def cuda_variant(kb_python) -> str:
    import subprocess
    code = ("import torch, platform; v = torch.__version__.split('+')[0].split('.');"
            "print(f'torch{v[0]}{v[1]}-cxx11-cu' + torch.version.cuda.replace('.', '') + f'-{platform.machine()}-linux')")
    return subprocess.run([str(kb_python), "-c", code], check=True, capture_output=True, text=True).stdout.strip()


def test_missing_cutlass_names_the_options(tmp_path, kernel_builder, kb_python):
    if not Path("/usr/local/cuda/bin/nvcc").exists() and not shutil.which("nvcc"):
        pytest.skip("nvcc not available")
    project = cutlass_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "CUTLASS_SRC_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    import subprocess
    result = subprocess.run([str(kernel_builder), "build", str(project), "--python", str(kb_python), "--variant",
                             cuda_variant(kb_python)], capture_output=True, text=True, env=env)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert "error: Kernel `scale_cuda` depends on `cutlass_4_0`, but no CUTLASS 4.0 headers were found" in lines
    assert "hint: set CUTLASS_SRC_DIR to a checkout of https://github.com/NVIDIA/cutlass at tag v4.0.x" in lines
    assert (f"hint: or unpack it into `{tmp_path}/cache/kernel-builder/deps/cutlass-4.0` (shared by all projects)"
            in lines)
    assert not (project / "build" / ".kb" / cuda_variant(kb_python) / "cmake-build").exists()


@pytest.mark.slow
def test_cutlass_src_dir_headers_are_compiled_against(tmp_path, kernel_builder, kb_python):
    if not Path("/usr/local/cuda/bin/nvcc").exists() and not shutil.which("nvcc"):
        pytest.skip("nvcc not available")
    project = cutlass_project(tmp_path)
    tree = tmp_path / "cutlass-src" / "include" / "cutlass"
    tree.mkdir(parents=True)
    (tree / "cutlass.h").write_text("#pragma once\n#define KB_STAND_IN_CUTLASS 40\n")
    (tree / "version.h").write_text("#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 0\n")
    env = dict(os.environ, CUTLASS_SRC_DIR=str(tmp_path / "cutlass-src"))
    import subprocess
    variant = cuda_variant(kb_python)
    result = subprocess.run([str(kernel_builder), "build", str(project), "--python", str(kb_python), "--variant",
                             variant, "--unique-id", "cut1"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert (project / "build" / variant / "_cuda_anon_cuda_cut1.abi3.so").is_file()
