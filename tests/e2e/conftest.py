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


# The second toolchain (torch 2.15, outside the reference matrix) that scripts/install-deps puts in
# .venv-torch215, or skips with a note in that folder when the disk could not hold it.
def _torch215_python() -> Path:
    return Path(os.environ.get("KB_TORCH215_PYTHON", REPO_ROOT / ".venv-torch215" / "bin" / "python"))


@pytest.fixture(scope="session")
def torch215_python() -> Path:
    python = _torch215_python()
    skipped = python.parent.parent / ".kb-skipped"
    if not python.exists() and skipped.is_file():
        pytest.skip(skipped.read_text().strip())
    if not python.exists():
        pytest.fail(f"{python} not found: run scripts/install-deps (it installs requirements/torch215.txt)")
    return python


@pytest.fixture(scope="session")
def torch215_python_if_installed() -> Path | None:
    """For tests that add the second toolchain where it is installed and run without it elsewhere."""
    python = _torch215_python()
    return python if python.exists() else None
