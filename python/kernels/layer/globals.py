"""Process-wide layer state (docs/layers.md): the current kernel mapping and the
`DISABLE_KERNEL_MAPPING` switch."""
from __future__ import annotations

import os
import threading
from contextvars import ContextVar
from typing import Dict

from kernels.layer.repos import DeviceRepos

# Mapping used by `kernelize`: {layer name: {device type: DeviceRepos}}. `register_kernel_mapping`
# mutates the current value in place (so a registration outside any `use_kernel_mapping` is seen
# by every thread); `use_kernel_mapping` sets a copy for its own context.
_KERNEL_MAPPING: ContextVar[Dict[str, Dict[str, DeviceRepos]]] = ContextVar("_KERNEL_MAPPING", default={})
# Serialises in-place registrations from several threads.
_MAPPING_LOCK = threading.RLock()


def _parse_disable(value: str) -> bool:
    text = value.strip().lower()
    if text in ("", "0", "false", "no", "off"):
        return False
    if text in ("true", "yes", "on"):
        return True
    try:
        return bool(int(text))
    except ValueError:
        raise ValueError(
            f"DISABLE_KERNEL_MAPPING must be an integer (0 or 1), not {value!r}"
        ) from None


# Read once at import, as upstream does: `DISABLE_KERNEL_MAPPING=1` makes `kernelize` restore
# every layer's original forward.
_DISABLE_KERNEL_MAPPING: bool = _parse_disable(os.environ.get("DISABLE_KERNEL_MAPPING", "0"))
