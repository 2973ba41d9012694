"""Kernel dependencies (`kernel-depends` in metadata.json). Before a variant is imported, the
C++ core resolves, verifies and caches every kernel it declares, transitively
(`_core.resolve_dependencies`: the caller's lock, offline mode, cycles and conflicts are its
business); `prepare_dependencies` records where they are, and `get_kernel_dep`, called by the
kernel's own code, imports them from there."""
from __future__ import annotations

import json
import sys
import threading
import warnings
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Optional, Tuple, Union

from kernels import _core
from kernels._importer import RepoInfo, import_variant
from kernels._metadata import Metadata
from kernels._trust import check_trust

_OUTSIDE = "`get_kernel_dep` only works during kernel loading."

_lock = threading.RLock()
# variant path of a dependent kernel → repo id → (dependency variant path, commit)
_resolved: Dict[str, Dict[str, Tuple[Path, str]]] = {}


def prepare_dependencies(root: str, variant_path: Path, *, local_files_only: bool, system: dict,
                         detected_backend: str, user_agent: str, probe, lockfile: Optional[str],
                         cache_root: str, trust_remote_code: Union[bool, List[str]] = False) -> None:
    """Resolve and install the kernels `variant_path` depends on, and record them for
    `get_kernel_dep`. `root` names the loaded kernel in error chains (its repo id or name)."""
    result = _core.resolve_dependencies(root, str(variant_path / "metadata.json"), local_files_only, system,
                                        detected_backend, user_agent, probe, lockfile or "", cache_root)
    for text in result["warnings"]:
        warnings.warn(text, UserWarning, stacklevel=4)
    if not local_files_only:  # offline and locked loads never reach the Hub (as for their root)
        for repo_id, _commit, _path, _chain in result["kernels"]:
            check_trust(repo_id, trust_remote_code, user_agent)  # as upstream's `get_kernel_dep` does
    paths = {root: Path(variant_path).resolve()}
    with _lock:
        for repo_id, _commit, path, _chain in result["kernels"]:
            paths[repo_id] = Path(path).resolve()
        for repo_id, commit, path, chain in result["kernels"]:
            dependent = str(paths[chain[-2]])
            _resolved.setdefault(dependent, {})[repo_id] = (Path(path), commit)


def _calling_variant() -> Optional[Path]:
    """The variant directory of the kernel whose code called us: the loader imports a variant as
    a package named after its ops id, with `metadata.json` beside its `__init__.py`."""
    frame = sys._getframe(2)
    while frame is not None:
        top_name = frame.f_globals.get("__name__", "").split(".")[0]
        init = getattr(sys.modules.get(top_name), "__file__", None)
        if init is not None:
            metadata = Path(init).parent / "metadata.json"
            if metadata.is_file() and _ops_id(metadata) == top_name:
                return metadata.parent
        frame = frame.f_back
    return None


def _ops_id(metadata: Path) -> Optional[str]:
    try:
        return json.loads(metadata.read_text(encoding="utf-8")).get("id")
    except (OSError, ValueError, AttributeError):
        return None


def get_kernel_dep(repo_id: str) -> ModuleType:
    """Load `repo_id` at the version (or revision) the calling kernel declares for it."""
    variant = _calling_variant()
    if variant is None:
        raise RuntimeError(_OUTSIDE)
    with _lock:
        found = _resolved.get(str(variant.resolve()), {}).get(repo_id)
    if found is not None:
        return import_variant(found[0], RepoInfo(repo_id, found[1]))
    metadata = Metadata.read_from_file(variant / "metadata.json")
    if any(d.repo_id == repo_id for d in metadata.kernel_depends):
        raise RuntimeError(f"Kernel `{metadata.name}` was imported without resolving its kernel dependencies; "
                           "load it with `get_kernel`, `get_local_kernel`, `load_kernel` or `get_locked_kernel`.")
    declared = ", ".join(f"`{d.repo_id}`" for d in metadata.kernel_depends) or "none"
    raise ValueError(
        f"Kernel `{metadata.name}` does not declare a dependency on `{repo_id}` (declared: {declared}).\n"
        f"hint: add `{repo_id}` to `kernel-depends` in the kernel's build.toml and rebuild it."
    )
