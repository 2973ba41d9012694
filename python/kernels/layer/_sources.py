"""Where a layer/function repository takes its kernel from (docs/layers.md): a Hub repository at
a revision or version, a local directory, or the revision locked in a `kernels.lock`.

`load_kernel(backend)` imports the kernel; `backend` (a loader backend name, or None for the
running system's) lets `kernelize(device="cpu")` pick the CPU variant on a CUDA build of torch."""
from __future__ import annotations

import threading
from pathlib import Path
from types import ModuleType
from typing import List, Optional, Union

TrustRemoteCode = Union[bool, List[str]]


def _hashable(value: object) -> object:
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), str(v)) for k, v in value.items()))
    return value


class HubSource:
    """A Hub repository; a `version` is resolved to a revision once, on first use."""

    def __init__(self, repo_id: str, revision: Optional[str], version: Optional[int],
                 trust_remote_code: TrustRemoteCode, user_agent: Union[str, dict, None]):
        if revision is not None and version is not None:
            raise ValueError("Either a revision or a version must be specified, not both.")
        if revision is None and version is None:
            raise ValueError("Either a revision or a version must be specified.")
        self.repo_id = repo_id
        self.revision = revision
        self.version = version
        self.trust_remote_code = trust_remote_code
        self.user_agent = user_agent
        self._resolved: Optional[str] = revision
        self._lock = threading.Lock()

    def key(self) -> tuple:
        return (self.repo_id, self.revision, self.version, _hashable(self.trust_remote_code),
                _hashable(self.user_agent))

    def resolved_revision(self) -> str:
        with self._lock:
            if self._resolved is None:
                from kernels._api import _resolve_revision

                self._resolved = _resolve_revision(self.repo_id, None, self.version)
            return self._resolved

    def describe(self) -> str:
        # Ours does not resolve a version over the network just to describe the repository.
        where = f"revision: {self._resolved}" if self._resolved is not None else f"version: {self.version}"
        return f"`{self.repo_id}` ({where})"

    def load_kernel(self, backend: Optional[str]) -> ModuleType:
        from kernels._api import get_kernel

        return get_kernel(self.repo_id, revision=self.resolved_revision(), backend=backend,
                          user_agent=self.user_agent, trust_remote_code=self.trust_remote_code)


class LocalSource:
    """A kernel directory on disk (project, `build/` or variant directory)."""

    def __init__(self, repo_path: Union[str, Path]):
        self.repo_path = Path(repo_path)

    def key(self) -> tuple:
        return (str(self.repo_path),)

    def describe(self) -> str:
        return f"`{self.repo_path}`"

    def load_kernel(self, backend: Optional[str]) -> ModuleType:
        from kernels._api import get_local_kernel

        return get_local_kernel(self.repo_path, backend=backend)


def locked_revision(repo_id: str, lockfile: Optional[Union[str, Path]]) -> str:
    """The commit `repo_id` is locked to, in `lockfile` or in the caller's distribution."""
    from kernels._locking import caller_lock, lock_from_file

    lock = lock_from_file(Path(lockfile), repo_id) if lockfile is not None else caller_lock(repo_id)
    if lock is None:
        raise ValueError(
            f"Kernel `{repo_id}` is not locked. Please lock it with `kernels lock <project>` and then "
            "reinstall the project."
        )
    return lock["sha"]


class LockedSource(HubSource):
    """The revision locked for a Hub repository, read when the repository is constructed."""

    def __init__(self, repo_id: str, lockfile: Optional[Union[str, Path]], trust_remote_code: TrustRemoteCode):
        super().__init__(repo_id, locked_revision(repo_id, lockfile), None, trust_remote_code, None)
        self.lockfile = lockfile

    def key(self) -> tuple:
        return super().key() + (None if self.lockfile is None else str(self.lockfile),)
