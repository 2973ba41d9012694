"""Shared fixtures of the end-to-end tests: the built binaries and scratch directories."""
import os
import shutil
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("KB_BUILD_DIR", REPO_ROOT / "build-release"))


def _binary(name: str) -> Path:
    path = BUILD_DIR / "src" / "cli" / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            pytest.fail(f"{name} not built; run scripts/build first")
        path = Path(found)
    return path


@pytest.fixture(scope="session")
def kernel_builder() -> Path:
    return _binary("kernel-builder")


@pytest.fixture(scope="session")
def kernel_hub() -> Path:
    return _binary("kernel-hub")


# The toolchain interpreter (a Python with torch) of the build, CI-plan and simulation tests.
def _test_python() -> Path:
    explicit = os.environ.get("KB_TEST_PYTHON")
    if explicit:
        return Path(explicit)
    venv = os.environ.get("KB_VENV")
    if venv:
        return Path(venv) / "bin" / "python"
    return Path("/work/venv-probe/bin/python")


@pytest.fixture(scope="session")
def kb_python() -> Path:
    python = _test_python()
    if not python.exists():
        pytest.fail(f"toolchain interpreter {python} not found; set KB_TEST_PYTHON")
    return python
