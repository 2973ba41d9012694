"""Environment handling (docs/python-api.md): offline mode, LOCAL_KERNELS, the cache root."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict

# Read once at import, as upstream does.
KERNELS_CACHE = os.environ.get("KERNELS_CACHE") or ""
# A private sigstore instance's trusted_root.json for signature verification (read per call).
SIGSTORE_TRUSTED_ROOT_ENV = "KERNELS_SIGSTORE_TRUSTED_ROOT"


def is_offline() -> bool:
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(name, "").strip().upper() in ("1", "ON", "YES", "TRUE"):
            return True
    return False


def local_kernels() -> Dict[str, Path]:
    value = os.environ.get("LOCAL_KERNELS", "")
    if not value:
        return {}
    raw = value.split(":")
    entries = []
    for part in raw:
        # Re-join a Windows drive letter split off by ':' ("repo=C" + "\\path").
        if entries and len(entries[-1]) >= 2 and entries[-1][-2] == "=" and entries[-1][-1].isalpha() \
                and part[:1] in ("\\", "/"):
            entries[-1] = entries[-1] + ":" + part
            continue
        entries.append(part)
    out: Dict[str, Path] = {}
    for entry in entries:
        if "=" not in entry:
            raise ValueError(
                f"Invalid LOCAL_KERNELS entry: {entry}. Expected format: repo_id_1=path_1:repo_id_2=path_2"
            )
        repo_id, path = entry.split("=", 1)
        out[repo_id] = Path(path)
    return out


def cache_root_arg() -> str:
    """Explicit cache root for the core ("" → the core's huggingface_hub default)."""
    return KERNELS_CACHE
