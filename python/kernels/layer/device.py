"""Devices of kernel mappings (docs/layers.md): `Device`, `CUDAProperties`, `ROCMProperties`,
the device types `kernelize` accepts, and the running device's capability."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional, Union

# Device types of `kernelize(device=...)` and of mappings, with the loader backend whose variant
# serves each (the backend names of docs/loader.md).
DEVICE_BACKENDS = {
    "cpu": "cpu",
    "cuda": "cuda",
    "mps": "metal",
    "neuron": "neuron",
    "npu": "cann",
    "rocm": "rocm",
    "tpu": "tpu",
    "xpu": "xpu",
}
SUPPORTED_DEVICE_TYPES = tuple(sorted(DEVICE_BACKENDS))


@dataclass(frozen=True)
class _CapabilityRange:
    """Capabilities `[min_capability, max_capability]` (inclusive; major * 10 + minor), checked on
    construction; the subclasses say which devices' capabilities they are."""

    min_capability: int
    max_capability: int

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check the field types and the range (run on construction)."""
        cls_name = type(self).__name__
        for name in ("min_capability", "max_capability"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{cls_name}.{name} must be an int (major * 10 + minor), not {value!r}")
        self.validate_capability_range()

    def validate_capability_range(self) -> None:
        """`ValueError` unless min_capability <= max_capability."""
        if self.min_capability > self.max_capability:
            raise ValueError(
                f"min_capability ({self.min_capability}) must be <= max_capability ({self.max_capability})"
            )


@dataclass(frozen=True)
class CUDAProperties(_CapabilityRange):
    """CUDA compute capabilities `[min_capability, max_capability]` (inclusive; 75 is 7.5)."""


@dataclass(frozen=True)
class ROCMProperties(_CapabilityRange):
    """ROCm capabilities `[min_capability, max_capability]` (inclusive; 115 is gfx1151's 11.5)."""


@dataclass(frozen=True)
class Device:
    """A device type (`"cuda"`, `"cpu"`, ...) and, for CUDA/ROCm, the capabilities a mapping covers."""

    type: str
    properties: Optional[Union[CUDAProperties, ROCMProperties]] = None

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if isinstance(self.properties, CUDAProperties) and self.type != "cuda":
            raise ValueError("CUDAProperties is only supported for 'cuda' devices.")
        if isinstance(self.properties, ROCMProperties) and self.type != "rocm":
            raise ValueError("ROCMProperties is only supported for 'rocm' devices.")


@functools.lru_cache(maxsize=None)
def device_capability(device_type: str) -> int:
    """The current CUDA/ROCm device's capability as major * 10 + minor (cached per process)."""
    import torch

    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor
