"""Finding the caller's kernels.lock (docs/loader.md) and reading lock files."""
from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Optional

from kernels import _core

NO_LOCKFILE = (
    "Could not find a `kernels.lock` file in the caller's package metadata. Please lock kernels with "
    "`kernels lock <project>` and then reinstall the project."
)


def not_locked(repo_id: str) -> str:
    """The error text for a kernel that a kernels.lock does not lock."""
    return (f"Kernel `{repo_id}` is not locked. Please lock it with `kernels lock <project>` and then reinstall "
            "the project.")


def _entry(locks: list, repo_id: str) -> Optional[dict]:
    for lock in locks:
        if lock["repo_id"] == repo_id:
            return lock
    return None


def lock_entry(text: str, repo_id: str) -> Optional[dict]:
    """The entry of `repo_id` in the kernels.lock `text` (the first one, docs/loader.md)."""
    return _entry(_core.parse_lockfile(text), repo_id)


def lock_from_file(path: Path, repo_id: str) -> Optional[dict]:
    return lock_entry(Path(path).read_text(encoding="utf-8"), repo_id)


def caller_lockfile() -> Optional[str]:
    """The text of `kernels.lock` in the metadata of the first calling distribution outside
    `kernels`; None when that caller has none (or is no installed distribution)."""
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
                return text
        return None
    return None


def caller_lock(repo_id: str) -> Optional[dict]:
    """The lock entry from the first calling distribution outside `kernels` that has one;
    `ValueError(NO_LOCKFILE)` when the caller has no `kernels.lock` at all."""
    text = caller_lockfile()
    if text is None:
        raise ValueError(NO_LOCKFILE)
    return lock_entry(text, repo_id)
