"""`get_kernel_dep`: a kernel's own code loads a kernel it declares in `kernel-depends`
(metadata.json) without naming a version; the declaration in its metadata says which."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Optional

from kernels._metadata import KernelVersion, Metadata

_OUTSIDE = "`get_kernel_dep` only works during kernel loading."


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
    metadata = Metadata.read_from_file(variant / "metadata.json")
    for dependency in metadata.kernel_depends:
        if dependency.repo_id != repo_id:
            continue
        from kernels._api import get_kernel

        if isinstance(dependency.version, KernelVersion.Version):
            return get_kernel(repo_id, version=dependency.version.version)
        return get_kernel(repo_id, revision=dependency.version.revision)
    declared = ", ".join(f"`{d.repo_id}`" for d in metadata.kernel_depends) or "none"
    raise ValueError(
        f"Kernel `{metadata.name}` does not declare a dependency on `{repo_id}` (declared: {declared}).\n"
        f"hint: add `{repo_id}` to `kernel-depends` in the kernel's build.toml and rebuild it."
    )
