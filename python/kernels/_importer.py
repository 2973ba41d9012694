"""Importing a variant directory as a package named after its ops id (docs/python-api.md), and the
registry of loaded kernels (`get_loaded_kernels`)."""
from __future__ import annotations

import importlib.util
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Optional

from kernels._metadata import Metadata


@dataclass(frozen=True)
class RepoInfo:
    repo_id: str
    revision: str


@dataclass(frozen=True)
class LoadedKernel:
    metadata: Metadata
    module: ModuleType
    repo_info: Optional[RepoInfo]


_lock = threading.RLock()
_by_path: Dict[str, LoadedKernel] = {}
_by_id: Dict[str, str] = {}  # ops id -> resolved variant path


def get_loaded_kernels() -> List[LoadedKernel]:
    """A new list of every kernel imported in this process (one per variant path)."""
    with _lock:
        return list(_by_path.values())


def exec_file_module(name: str, path: Path, no_spec_message: str, package: bool = False) -> ModuleType:
    """Executes the file `path` as the module `name` (a package whose submodules live beside it
    when `package`), registered in `sys.modules` first as an import does. If executing it fails,
    the half-initialised module and any submodule it imported are removed again (upstream leaves
    them behind); `ImportError(no_spec_message)` when Python cannot make a module of the file."""
    if package:
        spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=[str(path.parent)])
    else:
        spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(no_spec_message)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        for loaded in [n for n in sys.modules if n == name or n.startswith(name + ".")]:
            del sys.modules[loaded]
        raise
    return module


def _dirty_warning(metadata: Metadata, variant_path: Path) -> None:
    provenance = metadata.provenance
    if provenance is None or not provenance.dirty:
        return
    parts = []
    if provenance.kernel is not None and provenance.kernel.dirty:
        parts.append("kernel source")
    builder = provenance.kernel_builder
    if builder is not None and builder.git is not None and builder.git.dirty:
        parts.append("kernel-builder")
    warnings.warn(
        f"Kernel '{metadata.name}' variant '{variant_path.name}' was built from a dirty git tree "
        f"({', '.join(parts)} had uncommitted changes). Its recorded git revision does not fully "
        "identify the sources it was built from, so the build may not be reproducible.",
        UserWarning,
        stacklevel=4,
    )


def _same_build(a: Metadata, b: Metadata) -> bool:
    da, db = a.digest, b.digest
    if da is None or db is None:
        return False
    return da == db


def import_variant(variant_path: Path, repo_info: Optional[RepoInfo] = None) -> ModuleType:
    variant_path = Path(variant_path)
    key = str(variant_path.resolve())
    with _lock:
        loaded = _by_path.get(key)
        if loaded is not None:
            return loaded.module
        metadata = Metadata.read_from_file(variant_path / "metadata.json")
        _dirty_warning(metadata, variant_path)
        init = variant_path / "__init__.py"
        if not init.exists():
            init = variant_path / metadata.name.python_name / "__init__.py"
            if not init.exists():
                raise FileNotFoundError(f"No kernel module found at: `{variant_path}`")
        module_name = metadata.id
        other = _by_id.get(module_name)
        if other is not None and other != key:
            # The same build found at another path (e.g. a second cache): reuse the loaded module
            # rather than executing it again; a *different* build under the same id is refused.
            previous = _by_path[other]
            if _same_build(previous.metadata, metadata):
                _by_path[key] = LoadedKernel(metadata=metadata, module=previous.module, repo_info=repo_info)
                return previous.module
            raise ImportError(
                f"A kernel with ops id `{module_name}` is already loaded from `{other}`; "
                f"refusing to load it again from `{variant_path}` (its Torch ops would be registered twice)."
            )
        module = exec_file_module(module_name, init, f"Cannot create a module spec for `{init}`", package=True)
        _by_path[key] = LoadedKernel(metadata=metadata, module=module, repo_info=repo_info)
        _by_id[module_name] = key
        return module
