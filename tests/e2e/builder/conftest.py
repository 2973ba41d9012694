"""Fixtures of the build-engine end-to-end tests: the toolchain interpreter, a copy of the
`addone` fixture project, and CPU builds shared across tests (a torch TU takes 30-45 s)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, run_build  # noqa: E402


@pytest.fixture(scope="session")
def cpu_variant(kb_python) -> str:
    """Name of the CPU variant the test interpreter builds, e.g. torch211-cxx11-cpu-x86_64-linux."""
    code = (
        "import platform, torch; v = torch.__version__.split('+')[0].split('.');"
        "print(f'torch{v[0]}{v[1]}-cxx11-cpu-{platform.machine()}-linux')"
    )
    return subprocess.run([str(kb_python), "-c", code], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="session")
def cpu_build(tmp_path_factory, kernel_builder, kb_python, cpu_variant):
    """The addone project built once for the CPU variant with unique id `e2ea`."""
    root = tmp_path_factory.mktemp("cpu-build")
    project = copy_fixture("addone", root)
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "e2ea")
    kept = root / "variant-a"
    shutil.copytree(project / "build" / cpu_variant, kept)
    return {"project": project, "variant_a": kept}
