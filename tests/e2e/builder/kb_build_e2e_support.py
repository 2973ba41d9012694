"""Helpers shared by the build-engine end-to-end tests (imported by path: pytest runs with
--import-mode=importlib, so conftest.py cannot be imported by test modules)."""
import shutil
import subprocess
from pathlib import Path

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
