"""Kernel locks (upstream's `kernels.locking`): `KernelLock` (one locked commit), `KernelLocks`
(locks keyed by the `KernelDependency` they lock), locking a kernel with its kernel dependencies
(`lock_kernel_tree`, `extract_dependency_locks`: what `kernels lock` writes) and finding a kernel's
lock (`get_locked_kernel_revision`, `get_caller_locked_kernel_revision`). The lock file format is
the C++ core's (`_core.parse_lockfile`, `_core.render_lockfile`)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple, Union

from kernels import _core
from kernels._metadata import KernelDependency, KernelVersion, Metadata
from kernels.lockfile import write_egg_lockfile  # noqa: F401 - upstream exposes it here
from kernels.variants import get_variants

__all__ = [
    "KernelDependency", "KernelLock", "KernelLocks", "KernelVersion", "Metadata", "extract_dependency_locks",
    "get_caller_locked_kernel_revision", "get_locked_kernel_revision", "get_variants", "lock_kernel_tree",
    "resolve_kernel_version", "write_egg_lockfile",
]

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
        import json

        return json.dumps({"commit": self._commit}, indent=2)

    @staticmethod
    def from_json(s: str) -> "KernelLock":
        """Parse a `KernelLock` from a JSON string."""
        import json

        data = json.loads(s)
        if not isinstance(data, dict) or set(data) != {"commit"}:
            raise ValueError(f"A kernel lock must be an object with exactly one key, `commit`: {s!r}")
        return KernelLock(data["commit"])


def _dependency(entry: dict) -> KernelDependency:
    if entry.get("version") is not None:
        return KernelDependency(entry["repo_id"], KernelVersion.Version(entry["version"]))
    return KernelDependency(entry["repo_id"], KernelVersion.Revision(entry["revision"]))


def _entry(dependency: KernelDependency, lock: KernelLock) -> dict:
    version = dependency.version
    entry: Dict[str, Any] = {"repo_id": dependency.repo_id, "sha": lock.commit}
    if isinstance(version, KernelVersion.Version):
        entry["version"] = version.version
    else:
        entry["revision"] = version.revision
    return entry


class KernelLocks:
    """Kernel locks keyed by the `KernelDependency` (repository and version or revision) they lock."""

    def __init__(self, locks: Dict[KernelDependency, KernelLock]):
        if not isinstance(locks, dict):
            raise TypeError(f"argument 'locks' must be a dict, not {type(locks).__name__}")
        for dependency, lock in locks.items():
            if not isinstance(dependency, KernelDependency) or not isinstance(lock, KernelLock):
                raise TypeError("KernelLocks maps KernelDependency keys to KernelLock values")
        self._locks = dict(locks)

    def __getitem__(self, dependency: KernelDependency) -> KernelLock:
        return self._locks[dependency]

    def get(self, dependency: KernelDependency, default: Optional[KernelLock] = None) -> Optional[KernelLock]:
        return self._locks.get(dependency, default)

    def keys(self) -> List[KernelDependency]:
        return list(self._locks)

    def values(self) -> List[KernelLock]:
        return list(self._locks.values())

    def items(self) -> List[Tuple[KernelDependency, KernelLock]]:
        return list(self._locks.items())

    def __iter__(self) -> Iterator[KernelDependency]:
        return iter(self._locks)

    def __len__(self) -> int:
        return len(self._locks)

    def __contains__(self, dependency: object) -> bool:
        return dependency in self._locks

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KernelLocks) and other._locks == self._locks

    def __hash__(self) -> int:
        return hash(frozenset(self._locks.items()))

    def __repr__(self) -> str:
        return f"KernelLocks({self._locks!r})"

    def to_json(self) -> str:
        """Serialize the locks to a pretty-printed JSON string (the kernels.lock format)."""
        return _core.render_lockfile([_entry(dependency, lock) for dependency, lock in self._locks.items()])

    @staticmethod
    def from_json(s: str) -> "KernelLocks":
        """Parse a `KernelLocks` collection from a JSON string (the kernels.lock format; entries of
        the older format, which lock a repository without a version, are refused)."""
        locks: Dict[KernelDependency, KernelLock] = {}
        for entry in _core.parse_lockfile(s):
            if entry.get("version") is None and entry.get("revision") is None:
                raise ValueError(f"Cannot parse KernelLocks: the entry of `{entry['repo_id']}` locks no version "
                                 "or revision (the older kernels.lock format); run `kernels lock <project>` again")
            locks[_dependency(entry)] = KernelLock(entry["sha"])
        return KernelLocks(locks)


def resolve_kernel_version(kernel: KernelDependency, local_files_only: bool) -> str:
    """The commit of `kernel`'s version branch (`v<N>`), or its revision as given."""
    if isinstance(kernel.version, KernelVersion.Version):
        from kernels._env import cache_root_arg
        from kernels._system import user_agent

        commit, _warning = _core.resolve_version(kernel.repo_id, kernel.version.version, local_files_only,
                                                 user_agent(None), cache_root_arg())
        return commit
    if isinstance(kernel.version, KernelVersion.Revision):
        return kernel.version.revision
    raise ValueError(f"Invalid version type: {kernel.version}")


def lock_kernel_tree(kernel: KernelDependency, *, api: Any, seen: Optional[Set[KernelDependency]] = None,
                     kernel_locks: Optional[Dict[KernelDependency, KernelLock]] = None
                     ) -> Dict[KernelDependency, KernelLock]:
    """Lock `kernel` and, transitively, the kernel dependencies of every one of its variants
    (not only the variant this system would load) into `kernel_locks` (returned). A kernel that
    depends on itself, directly or not, is a `ValueError`. `api` (a `huggingface_hub.HfApi`) is
    accepted for upstream's signature; the Hub is read through the core."""
    from kernels._system import user_agent
    from kernels._trust import check_trust

    if kernel_locks is None:
        kernel_locks = {}
    if kernel in kernel_locks:
        return kernel_locks
    if seen is None:
        seen = set()
    if kernel in seen:
        raise ValueError(f"Cyclic kernel dependency detected: {kernel.repo_id}")
    seen.add(kernel)
    ua = user_agent(None)
    check_trust(kernel.repo_id, False, ua, offline=False)
    revision = resolve_kernel_version(kernel, local_files_only=False)
    for variant in get_variants(api, repo_id=kernel.repo_id, revision=revision):
        metadata = Metadata.from_bytes(
            _core.download_bytes(kernel.repo_id, revision, f"build/{variant.variant_str}/metadata.json", ua))
        for dependency in metadata.kernel_depends:
            lock_kernel_tree(dependency, api=api, seen=seen, kernel_locks=kernel_locks)
    seen.remove(kernel)
    kernel_locks[kernel] = KernelLock(commit=revision)
    return kernel_locks


def extract_dependency_locks(kernels: List[KernelDependency], *, api: Any) -> KernelLocks:
    """The locks of `kernels` and of all their kernel dependencies (`lock_kernel_tree`)."""
    kernel_locks: Optional[Dict[KernelDependency, KernelLock]] = None
    for kernel in kernels:
        kernel_locks = lock_kernel_tree(kernel, api=api, kernel_locks=kernel_locks)
    if kernel_locks is None:
        raise ValueError("No kernels found to lock.")
    return KernelLocks(locks=kernel_locks)


def _locked_kernel_revision(repo_id: str, text: str) -> Tuple[KernelLocks, KernelDependency]:
    kernel_locks = KernelLocks.from_json(text)
    # The project locks one version of a kernel it loads: the first entry of the repository.
    dependency = next((dep for dep in kernel_locks if dep.repo_id == repo_id), None)
    if dependency is None:
        from kernels._locking import not_locked

        raise ValueError(not_locked(repo_id))
    return kernel_locks, dependency


def get_locked_kernel_revision(repo_id: str, lockfile: Union[str, "Path"]) -> Tuple[KernelLocks, KernelDependency]:
    """The locks of `lockfile` and the locked dependency of `repo_id` in it."""
    return _locked_kernel_revision(repo_id, Path(lockfile).read_text(encoding="utf-8"))


def get_caller_locked_kernel_revision(repo_id: str) -> Tuple[KernelLocks, KernelDependency]:
    """As `get_locked_kernel_revision`, with the kernels.lock of the calling distribution."""
    from kernels._locking import NO_LOCKFILE, caller_lockfile

    text = caller_lockfile()
    if text is None:
        raise ValueError(NO_LOCKFILE)
    return _locked_kernel_revision(repo_id, text)
