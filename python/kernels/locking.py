"""Public locking types (upstream's `kernels.locking`): `KernelLock` (one locked commit),
`KernelLocks` (locks keyed by repository) and `get_kernel_locks` (the locks of a `kernels.lock`
file or of the calling distribution). The lock file format itself is read by the C++ core."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, Iterator, Optional, Union

from kernels.lockfile import write_egg_lockfile  # noqa: F401 - upstream exposes it here too

_OID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


class KernelLock:
    """A locked kernel revision."""

    __slots__ = ("_commit",)

    def __init__(self, commit: str):
        if not isinstance(commit, str) or not _OID.match(commit):
            raise ValueError(f"Invalid git object id, expected 40 or 64 hexadecimal digits: {commit}")
        self._commit = commit

    @property
    def commit(self) -> str:
        return self._commit

    def __repr__(self) -> str:
        return f'KernelLock(commit="{self._commit}")'

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KernelLock) and other._commit == self._commit

    def __hash__(self) -> int:
        return hash(self._commit)

    def to_json(self) -> str:
        """Serialize the lock to a pretty-printed JSON string."""
        return json.dumps({"commit": self._commit}, indent=2)

    @staticmethod
    def from_json(text: str) -> "KernelLock":
        """Parse a `KernelLock` from a JSON string."""
        data = json.loads(text)
        if not isinstance(data, dict) or set(data) != {"commit"}:
            raise ValueError(f"A kernel lock must be an object with exactly one key, `commit`: {text!r}")
        return KernelLock(data["commit"])


class KernelLocks:
    """Kernel locks keyed by repository id."""

    def __init__(self, locks: Dict[str, KernelLock]):
        if not isinstance(locks, dict):
            raise TypeError(f"argument 'locks' must be a dict, not {type(locks).__name__}")
        self._locks = dict(locks)

    def get(self, repo_id: str, default: Optional[KernelLock] = None) -> Optional[KernelLock]:
        return self._locks.get(repo_id, default)

    def keys(self):
        return self._locks.keys()

    def values(self):
        return self._locks.values()

    def items(self):
        return self._locks.items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._locks)

    def __len__(self) -> int:
        return len(self._locks)

    def __contains__(self, repo_id: object) -> bool:
        return repo_id in self._locks

    def __repr__(self) -> str:
        return f"KernelLocks({self._locks!r})"

    def to_json(self) -> str:
        """Serialize the locks to a pretty-printed JSON string."""
        return json.dumps({k: {"commit": v.commit} for k, v in self._locks.items()}, indent=2)

    @staticmethod
    def from_json(text: str) -> "KernelLocks":
        """Parse a `KernelLocks` collection from a JSON string."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("Kernel locks must be a JSON object keyed by repository id")
        return KernelLocks({k: KernelLock.from_json(json.dumps(v)) for k, v in data.items()})


def get_kernel_locks(lockfile: Optional[Union[str, Path]] = None) -> KernelLocks:
    """The locks of `lockfile` (a `kernels.lock`), or of the calling distribution's metadata."""
    from kernels import _core

    if lockfile is not None:
        entries = _core.parse_lockfile(Path(lockfile).read_text(encoding="utf-8"))
    else:
        entries = _caller_entries()
    return KernelLocks({entry["repo_id"]: KernelLock(entry["sha"]) for entry in entries})


def _caller_entries() -> list:
    """Every entry of the first calling distribution (outside `kernels`) that ships a lock."""
    import inspect
    from importlib.metadata import distribution, packages_distributions

    from kernels import _core

    for frame_info in inspect.stack()[2:]:
        top = frame_info.frame.f_globals.get("__name__", "").split(".")[0]
        if not top or top == "kernels":
            continue
        for name in packages_distributions().get(top, []):
            try:
                text = distribution(name).read_text("kernels.lock")
            except Exception:  # noqa: BLE001 - not installed / no metadata
                continue
            if text:
                return _core.parse_lockfile(text)
        return []
    return []
