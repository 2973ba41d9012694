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
