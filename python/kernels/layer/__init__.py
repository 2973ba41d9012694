"""Layers and `kernelize` (docs/layers.md): mark extensible layers, map them to kernel layers per
device, capability and mode, and swap the kernels in with a safe fallback."""
from kernels.layer.device import CUDAProperties, Device, ROCMProperties
from kernels.layer.func import FuncRepository, LocalFuncRepository, LockedFuncRepository, use_kernel_func_from_hub
from kernels.layer.kernelize import kernelize, register_kernel_mapping, use_kernel_mapping
from kernels.layer.layer import (
    LayerRepository,
    LocalLayerRepository,
    LockedLayerRepository,
    replace_kernel_forward_from_hub,
    use_kernel_forward_from_hub,
    use_kernelized_func,
)
from kernels.layer.mode import KernelizeFallback, Mode

__all__ = [
    "CUDAProperties",
    "Device",
    "FuncRepository",
    "KernelizeFallback",
    "LayerRepository",
    "LocalFuncRepository",
    "LocalLayerRepository",
    "LockedFuncRepository",
    "LockedLayerRepository",
    "Mode",
    "ROCMProperties",
    "kernelize",
    "register_kernel_mapping",
    "replace_kernel_forward_from_hub",
    "use_kernel_forward_from_hub",
    "use_kernel_func_from_hub",
    "use_kernel_mapping",
    "use_kernelized_func",
]
