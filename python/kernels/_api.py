"""The loading functions of docs/python-api.md. Each inspects the running system (Python side), then
lets the C++ core resolve, select, download and verify, and finally imports the variant."""
from __future__ import annotations

import importlib.util
import logging
import os
import warnings
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Optional, Tuple, Union

from kernels import _core
from kernels._env import cache_root_arg, is_offline, local_kernels
from kernels._importer import RepoInfo, import_variant
from kernels._locking import NO_LOCKFILE, caller_lockfile, lock_entry, not_locked
from kernels._system import detect_backend, system_info, user_agent as _user_agent, validate_backend
from kernels._trust import check_trust
from kernels._verify_on_load import verify_on_load
from kernels.deps import prepare_dependencies

_versions_logger = logging.getLogger("kernels._versions")
_logger = logging.getLogger("kernels")


_fallback_warned: set = set()


def _warn_fallback(text: str, stacklevel: int) -> None:
    """The CPU-fallback warning (its text comes from the core), once per kernel and process;
    `stacklevel` as seen from the caller."""
    if text and text not in _fallback_warned:
        _fallback_warned.add(text)
        warnings.warn(text, UserWarning, stacklevel=stacklevel + 1)


def _probe(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _resolve_revision(repo_id: str, revision: Optional[str], version: Optional[int], ua: str = "", *,
                      offline: Optional[bool] = None) -> str:
    if revision is not None and version is not None:
        raise ValueError("Only one of `revision` or `version` must be specified.")
    if revision is None and version is None:
        raise ValueError(
            "A kernel version or revision must be specified. Use `version=<major>` for a stable kernel API "
            "version or `revision=<branch/tag/commit>` for an explicit Hub revision. See: "
            "https://huggingface.co/docs/kernels/migration"
        )
    if revision is not None:
        return revision
    offline = is_offline() if offline is None else offline
    commit, warning = _core.resolve_version(repo_id, int(version), offline, ua, cache_root_arg())
    if warning:
        _versions_logger.warning(warning)
    return commit


def _system_for(backend: Optional[str], check_arch: bool = True) -> dict:
    """The system description `_core` selects variants for; without the device's architecture
    when the caller turned the architecture check off (`check_arch=False`)."""
    info = system_info(validate_backend(backend))
    if check_arch:
        return info
    from kernels import _system

    return _system.without_arch_check(info)


def _install(repo_id: str, revision: str, local_files_only: bool, backend: Optional[str], ua: str,
             validate_dependencies: bool, lock_hashes: Optional[Dict[str, str]] = None,
             check_arch: bool = True, verify_signature: bool = True) -> Path:
    """Install the chosen variant; its signature is checked once per download (warning only)
    unless `verify_signature` is False (`kernels verify-signature` checks it itself)."""
    backend = validate_backend(backend)
    result = _core.install(
        repo_id, revision, local_files_only, _system_for(backend, check_arch), validate_dependencies,
        detect_backend()["name"], ua, _probe, lock_hashes or {}, cache_root_arg(),
    )
    for text in result["warnings"]:
        warnings.warn(text, UserWarning, stacklevel=3)
    _warn_fallback(result["fallback_warning"], stacklevel=3)
    for name in result["invalid_variants"]:
        _logger.warning(f"Repository {repo_id} (revision: {revision}) contains invalid build variant variant: '{name}'")
    if verify_signature:
        verify_on_load(Path(result["variant_path"]), repo_id)
    return Path(result["variant_path"])


def _load(root: str, path: Path, repo_info: Optional[RepoInfo], *, local_files_only: bool, backend: Optional[str],
          ua: str, lockfile: Optional[str] = None, trust_remote_code: Union[bool, List[str]] = False,
          check_arch: bool = True) -> ModuleType:
    """Make the variant's kernel dependencies importable (resolved through `lockfile`, else the
    caller's lock if it has one; their architectures checked as the root's), then import the variant."""
    if _core.read_metadata(str(path / "metadata.json"))["kernel_depends"]:
        if lockfile is None:
            lockfile = caller_lockfile()
        prepare_dependencies(root, path, local_files_only=local_files_only,
                             system=_system_for(backend, check_arch), detected_backend=detect_backend()["name"],
                             user_agent=ua, probe=_probe, lockfile=lockfile, cache_root=cache_root_arg(),
                             trust_remote_code=trust_remote_code)
    return import_variant(path, repo_info)


def install_kernel(repo_id: str, *, revision: Optional[str] = None, version: Optional[int] = None,
                   backend: Optional[str] = None, local_files_only: bool = False,
                   user_agent: Union[str, dict, None] = None,
                   trust_remote_code: Union[bool, List[str]] = False) -> Path:
    """Download (or find offline) the best variant of `repo_id` at `revision` or major `version`;
    returns its directory. The publisher must be trusted, as for `get_kernel`. With HF_HUB_OFFLINE
    set, only the cache is read, as with `local_files_only=True` (as upstream, whose Hub client
    reads that variable for every call)."""
    offline = local_files_only or is_offline()
    ua = _user_agent(user_agent)
    check_trust(repo_id, trust_remote_code, ua, offline=offline)
    rev = _resolve_revision(repo_id, revision, version, ua, offline=offline)
    # Installing is not loading: as upstream, the device's architecture is not checked here.
    return _install(repo_id, rev, offline, backend, ua, validate_dependencies=False, check_arch=False)


def _validate_local_dependencies(variant_path: Path) -> None:
    metadata = variant_path / "metadata.json"
    for pkg, module in _core.required_modules(str(metadata), detect_backend()["name"]):
        if not _probe(module):
            raise ImportError(_core.missing_python_dependency(_core.read_metadata(str(metadata))["name"], pkg))


def get_local_kernel(repo_path: Union[str, "os.PathLike[str]"], *, backend: Optional[str] = None,
                     trust_remote_code: Union[bool, List[str]] = False,
                     user_agent: Union[str, dict, None] = None) -> ModuleType:
    """Import a kernel from a local directory (project, build dir, or variant dir). Its kernel
    dependencies come from the Hub: `trust_remote_code` and `user_agent` apply to those. As
    upstream's, it does not check the variants' architectures against the device (a kernel being
    developed is loaded as built); `get_kernel` does, also for a `LOCAL_KERNELS` override."""
    return _get_local(repo_path, backend, trust_remote_code, user_agent, check_arch=False)


def _get_local(repo_path: Union[str, "os.PathLike[str]"], backend: Optional[str],
               trust_remote_code: Union[bool, List[str]], user_agent: Union[str, dict, None], *,
               check_arch: bool) -> ModuleType:
    choice = _core.find_local_variant(os.fspath(repo_path), _system_for(backend, check_arch))
    _warn_fallback(choice["fallback_warning"], stacklevel=3)
    variant = Path(choice["variant_path"])
    _validate_local_dependencies(variant)
    name = _core.read_metadata(str(variant / "metadata.json"))["name"]
    return _load(name, variant, None, local_files_only=is_offline(), backend=backend, ua=_user_agent(user_agent),
                 trust_remote_code=trust_remote_code, check_arch=check_arch)


def get_kernel(repo_id: str, *, revision: Optional[str] = None, version: Optional[int] = None,
               backend: Optional[str] = None, user_agent: Union[str, dict, None] = None,
               trust_remote_code: Union[bool, List[str]] = False, check_arch: bool = True) -> ModuleType:
    """Load the best variant of a Hub kernel for this system and import it. `check_arch=False`
    also accepts variants whose declared architectures do not cover the device (a kernel with a
    fallback for others)."""
    local = local_kernels().get(repo_id)
    if local is not None:
        return _get_local(local, backend, trust_remote_code, user_agent, check_arch=check_arch)
    ua = _user_agent(user_agent)
    check_trust(repo_id, trust_remote_code, ua)
    rev = _resolve_revision(repo_id, revision, version, ua)
    path = _install(repo_id, rev, is_offline(), backend, ua, validate_dependencies=True, check_arch=check_arch)
    return _load(repo_id, path, RepoInfo(repo_id, rev), local_files_only=is_offline(), backend=backend, ua=ua,
                 trust_remote_code=trust_remote_code, check_arch=check_arch)


def has_kernel(repo_id: str, *, revision: Optional[str] = None, version: Optional[int] = None,
               backend: Optional[str] = None, trust_remote_code: Union[bool, List[str]] = False,
               check_arch: bool = True) -> bool:
    """Whether `repo_id` has a variant for this system at the revision/version (one whose declared
    architectures cover the device, unless `check_arch=False`). The publisher must be trusted."""
    ua = _user_agent(None)
    check_trust(repo_id, trust_remote_code, ua)
    rev = _resolve_revision(repo_id, revision, version, ua)
    info = _system_for(backend, check_arch)
    try:
        best = _core.variants(repo_id, rev, info, ua)["best"]
    except FileNotFoundError:  # no build/ at that revision
        return False
    if best is None:
        return False
    return _core.file_exists(repo_id, rev, f"build/{best}/metadata.json", ua)


def _locked(repo_id: str, lockfile: Optional[Union[str, "os.PathLike[str]"]]) -> Tuple[str, dict]:
    """The text of `lockfile` (None: the calling distribution's kernels.lock) and its entry for
    `repo_id`; `ValueError` when there is no lock file or it does not lock `repo_id`."""
    if lockfile is not None:
        text = Path(lockfile).read_text(encoding="utf-8")
    else:
        text = caller_lockfile()
        if text is None:
            raise ValueError(NO_LOCKFILE)
    lock = lock_entry(text, repo_id)
    if lock is None:
        raise ValueError(not_locked(repo_id))
    return text, lock


def load_kernel(repo_id: str, *, lockfile: Optional[Union[str, "os.PathLike[str]"]],
                backend: Optional[str] = None) -> ModuleType:
    """Load the revision of a kernel locked in `lockfile` (None: the calling distribution's
    kernels.lock) from the cache; never touches the network."""
    text, lock = _locked(repo_id, lockfile)
    try:
        # As upstream, locked loads do not check the device's architecture.
        path = _install(repo_id, lock["sha"], True, backend, "", False,
                        {k: v["hash"] for k, v in lock.get("variants", {}).items()}, check_arch=False)
    except FileNotFoundError as e:
        # The spec's message, then why (the snapshot missing, or every variant and its rejection).
        raise FileNotFoundError(
            f"Locked kernel `{repo_id}` was not downloaded or does not have an applicable variant. Make sure "
            f"it's downloaded locally via `kernels download <project>`.\nCaused by: {e}"
        ) from e
    return _load(repo_id, path, None, local_files_only=True, backend=backend, ua="", lockfile=text, check_arch=False)


def get_locked_kernel(repo_id: str, *, lockfile: Optional[Union[str, "os.PathLike[str]"]],
                      trust_remote_code: Union[bool, List[str]] = False,
                      user_agent: Union[str, dict, None] = None) -> ModuleType:
    """Load the revision of a kernel locked in `lockfile` (None: the calling distribution's
    kernels.lock), downloading it when it is not cached. The publisher must be trusted."""
    text, lock = _locked(repo_id, lockfile)
    ua = _user_agent(user_agent)
    check_trust(repo_id, trust_remote_code, ua)
    path = _install(repo_id, lock["sha"], is_offline(), None, ua, True,
                    {k: v["hash"] for k, v in lock.get("variants", {}).items()}, check_arch=False)
    return _load(repo_id, path, None, local_files_only=is_offline(), backend=None, ua=ua,
                 lockfile=text, trust_remote_code=trust_remote_code, check_arch=False)
