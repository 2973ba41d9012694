"""Packaging support for kernels.lock (docs/loader.md): the `egg_info.writers` entry point that
copies the project's kernels.lock into the distribution metadata."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

logger = logging.getLogger(__name__)


def _declares_dependencies(pyproject: Path) -> bool:
    if not pyproject.exists():
        return False
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib  # type: ignore
    with pyproject.open("rb") as f:
        data = tomllib.load(f)
    return "dependencies" in data.get("tool", {}).get("kernels", {})


def write_egg_lockfile(cmd, basename, filename):
    """setuptools egg_info writer: copy kernels.lock when [tool.kernels.dependencies] exists."""
    if not _declares_dependencies(Path("pyproject.toml")):
        return
    lock_path = Path("kernels.lock")
    if not lock_path.exists():
        logger.warning(f"Lock file {lock_path} does not exist")
        cmd.delete_file(filename)
        return
    cmd.write_or_delete_file(basename, filename, lock_path.read_text(encoding="utf-8"))
