"""Helpers shared by the build-engine end-to-end tests (imported by path: pytest runs with
--import-mode=importlib, so conftest.py cannot be imported by test modules)."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def copy_fixture(name: str, destination: Path) -> Path:
    target = destination / name
    shutil.copytree(DATA / name, target)
    return target


def run_build(kernel_builder, project: Path, python: Path, *args: str, check: bool = True):
    command = [str(kernel_builder), "build", str(project), "--python", str(python), *args]
    result = subprocess.run(command, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"build failed ({result.returncode}):\n{result.stderr}")
    return result


def import_check_script(variant_dir: Path, ops_id: str, variable: str = "module") -> str:
    """Python code importing a variant directory under its ops id, from outside sys.path,
    binding it to `variable`."""
    return (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location({ops_id!r}, {str(variant_dir / '__init__.py')!r},"
        f" submodule_search_locations=[{str(variant_dir)!r}])\n"
        f"{variable} = importlib.util.module_from_spec(spec)\n"
        f"sys.modules[{ops_id!r}] = {variable}\n"
        f"spec.loader.exec_module({variable})\n"
    )


def shape_error_script(call: str) -> str:
    """Python code running `call` (the addone fixture with out of shape [3], input of shape [4]) and
    asserting that the kernel's formatted TORCH_CHECK message reaches Python whole."""
    return (
        "try:\n"
        f"    {call}\n"
        "except RuntimeError as error:\n"
        "    assert 'addone: out has shape [3], input has shape [4]' in str(error), str(error)\n"
        "else:\n"
        "    raise AssertionError('no error for mismatched shapes')\n"
    )


def nvcc() -> str:
    """The CUDA compiler, or a skip when there is none."""
    for candidate in [Path("/usr/local/cuda/bin/nvcc"), shutil.which("nvcc")]:
        if candidate and Path(candidate).exists():
            return str(candidate)
    pytest.skip("nvcc not available")


def cuda_variant(kb_python) -> str:
    """The CUDA variant the test interpreter builds with nvcc, e.g. torch211-cxx11-cu130-x86_64-linux;
    a skip when its torch is not a CUDA build."""
    release = re.search(r"release (\d+)\.(\d+)", subprocess.run([nvcc(), "--version"], capture_output=True,
                                                                 text=True).stdout)
    torch = subprocess.run([str(kb_python), "-c", "import torch; print(torch.__version__.split('+')[0]);"
                            "print(torch.version.cuda or '')"], capture_output=True, text=True).stdout.split("\n")
    if not torch[1]:
        pytest.skip("the test interpreter's torch is not a CUDA build")
    major, minor = torch[0].split(".")[:2]
    return f"torch{major}{minor}-cxx11-cu{release.group(1)}{release.group(2)}-x86_64-linux"
