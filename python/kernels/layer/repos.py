"""Per-device storage of a layer's repositories (docs/layers.md): one `{Mode: repository}` dict
for most device types; for CUDA and ROCm, one per capability range, the narrowest range that
contains the device's capability winning."""
from __future__ import annotations

import sys
from typing import Dict, List, Optional, Tuple

from kernels.layer.device import CUDAProperties, Device, ROCMProperties, device_capability
from kernels.layer.mode import Mode

ModeRepos = Dict[Mode, object]


class DeviceRepos:
    """The repositories registered for one layer and one device type."""

    def insert(self, device: Device, repos: ModeRepos) -> None:
        raise NotImplementedError

    def select(self, device: Device) -> Optional[ModeRepos]:
        """The `{Mode: repository}` dict that serves `device`, or None."""
        raise NotImplementedError

    def copy(self) -> "DeviceRepos":
        raise NotImplementedError

    def describe(self, device: Device) -> str:
        """For error hints: what was looked up and what is registered."""
        return ""


class SingleDeviceRepos(DeviceRepos):
    """cpu, mps, xpu, npu, neuron, tpu: registering again replaces the modes dict."""

    def __init__(self) -> None:
        self.repos: Optional[ModeRepos] = None

    def insert(self, device: Device, repos: ModeRepos) -> None:
        self.repos = dict(repos)

    def select(self, device: Device) -> Optional[ModeRepos]:
        return self.repos

    def copy(self) -> "SingleDeviceRepos":
        other = SingleDeviceRepos()
        other.repos = None if self.repos is None else dict(self.repos)
        return other


class CapabilityRepos(DeviceRepos):
    """cuda, rocm: modes dicts keyed by inclusive capability ranges."""

    def __init__(self, properties_type: type) -> None:
        self.properties_type = properties_type
        self.ranges: List[Tuple[int, int, ModeRepos]] = []

    def insert(self, device: Device, repos: ModeRepos) -> None:
        low, high = 0, sys.maxsize
        if device.properties is not None:
            low, high = device.properties.min_capability, device.properties.max_capability
        # Ours: the same range registered again replaces the earlier entry (upstream keeps both).
        self.ranges = [r for r in self.ranges if (r[0], r[1]) != (low, high)]
        self.ranges.append((low, high, dict(repos)))

    def select(self, device: Device) -> Optional[ModeRepos]:
        capability = self.capability(device)
        best: Optional[Tuple[int, int, ModeRepos]] = None
        for entry in self.ranges:
            low, high, _ = entry
            if low <= capability <= high and (best is None or high - low < best[1] - best[0]):
                best = entry
        return None if best is None else best[2]

    def describe(self, device: Device) -> str:
        ranges = ", ".join(f"{low}-{high}" for low, high, _ in self.ranges)
        return f"capability {self.capability(device)} (mapped ranges: {ranges})"

    def capability(self, device: Device) -> int:
        """The running device's capability (looked up only when a range must be chosen)."""
        return device_capability(device.type)

    def copy(self) -> "CapabilityRepos":
        other = CapabilityRepos(self.properties_type)
        other.ranges = [(low, high, dict(repos)) for low, high, repos in self.ranges]
        return other


def new_device_repos(device_type: str) -> DeviceRepos:
    if device_type == "cuda":
        return CapabilityRepos(CUDAProperties)
    if device_type == "rocm":
        return CapabilityRepos(ROCMProperties)
    if device_type in ("cpu", "mps", "xpu", "npu", "neuron", "tpu"):
        return SingleDeviceRepos()
    raise ValueError(f"Unknown device type: {device_type}")
