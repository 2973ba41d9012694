"""Finding the caller's kernels.lock (loader.md §8.3) and reading lock files."""
from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Optional

from kernels import _core


def _entry(locks: list, repo_id: str) -> Optional[dict]:
    for lock in locks:
        if lock["repo_id"] == repo_id:
            return lock
    return None


def lock_from_file(path: Path, repo_id: str) -> Optional[dict]:
    return _entry(_core.parse_lockfile(Path(path).read_text(encoding="utf-8")), repo_id)


def caller_lock(repo_id: str) -> Optional[dict]:
    """The lock entry from the first calling distribution outside `kernels` that has one."""
    if sys.version_info >= (3, 10):
        from importlib.metadata import packages_distributions
    else:  # pragma: no cover - Python 3.9
        packages_distributions = None
    from importlib.metadata import distribution

    for frame_info in inspect.stack()[1:]:
        module_name = frame_info.frame.f_globals.get("__name__", "")
        top = module_name.split(".")[0]
        if not top or top == "kernels":
            continue
        names = packages_distributions().get(top, []) if packages_distributions else [top]
        for name in names:
            try:
                text = distribution(name).read_text("kernels.lock")
            except Exception:  # noqa: BLE001 - not installed / no metadata
                continue
            if text:
                return _entry(_core.parse_lockfile(text), repo_id)
        return None
    return None
