"""`kernelize` and the kernel mapping it reads (docs/layers.md): `register_kernel_mapping`,
`use_kernel_mapping`."""
from __future__ import annotations

import logging
from types import MethodType
from typing import Dict, Optional, Tuple, Union

from kernels.layer import globals as _globals
from kernels.layer.device import DEVICE_BACKENDS, SUPPORTED_DEVICE_TYPES, Device
from kernels.layer.layer import _Repository
from kernels.layer.mode import KernelizeFallback, Mode, fallback_policy, search_order, validate_kernelize_mode
from kernels.layer.repos import DeviceRepos, new_device_repos
from kernels.layer.validate import (
    can_torch_compile,
    check_registration,
    has_backward,
    supports_mode,
    validate_layer,
)

__all__ = ["kernelize", "register_kernel_mapping", "use_kernel_mapping"]

_logger = logging.getLogger("kernels.layer")


# ---------------------------------------------------------------------------------------------
# Mappings


def _parse_mapping(mapping: dict) -> list:
    """`mapping` as (layer name, Device, {Mode: repository}) entries; raises before anything is
    registered, so a bad mapping leaves the current one untouched."""
    entries = []
    for layer_name, devices in mapping.items():
        for key, repos in devices.items():
            device = Device(type=key) if isinstance(key, str) else key
            if not isinstance(device, Device):
                raise TypeError(
                    f"Kernel mapping for `{layer_name}`: device key must be a `str` or a `Device`, not {key!r}"
                )
            if not isinstance(repos, dict):
                repos = {Mode.FALLBACK: repos}
            for mode in repos:
                if not isinstance(mode, Mode):
                    raise TypeError(
                        f"Kernel mapping for `{layer_name}` on `{device.type}`: mode key must be a `Mode` "
                        f"(e.g. `Mode.INFERENCE`), not {mode!r}"
                    )
            new_device_repos(device.type)  # rejects unknown device types
            entries.append((layer_name, device, repos))
    return entries


def _register(current: Dict[str, Dict[str, DeviceRepos]], entries: list) -> None:
    for layer_name, device, repos in entries:
        devices = current.setdefault(layer_name, {})
        if device.type not in devices:
            devices[device.type] = new_device_repos(device.type)
        devices[device.type].insert(device, repos)


def register_kernel_mapping(mapping: dict, inherit_mapping: bool = True) -> None:
    """Add `mapping` ({layer name: {device: repository or {Mode: repository}}}) to the current
    mapping; with `inherit_mapping=False` the current mapping is cleared first."""
    entries = _parse_mapping(mapping)
    with _globals._MAPPING_LOCK:
        current = _globals._KERNEL_MAPPING.get()
        if not inherit_mapping:
            current.clear()
        _register(current, entries)


def _copy_mapping(mapping: Dict[str, Dict[str, DeviceRepos]]) -> Dict[str, Dict[str, DeviceRepos]]:
    with _globals._MAPPING_LOCK:
        return {layer: {device: repos.copy() for device, repos in devices.items()}
                for layer, devices in mapping.items()}


class _MappingContext:
    def __init__(self, mapping: dict, inherit_mapping: bool):
        self._entries = _parse_mapping(mapping)
        self._inherit = inherit_mapping
        self._tokens: list = []

    def __enter__(self) -> None:
        new = _copy_mapping(_globals._KERNEL_MAPPING.get()) if self._inherit else {}
        _register(new, self._entries)
        self._tokens.append(_globals._KERNEL_MAPPING.set(new))

    def __exit__(self, *exc) -> None:
        _globals._KERNEL_MAPPING.reset(self._tokens.pop())


def use_kernel_mapping(mapping: dict, *, inherit_mapping: bool = True) -> _MappingContext:
    """Context manager: within it, the mapping is a copy of the current one (or empty, with
    `inherit_mapping=False`) plus `mapping`; on exit the previous mapping is restored. Each
    thread and asyncio task sees its own (a `contextvars` variable)."""
    return _MappingContext(mapping, inherit_mapping)


# ---------------------------------------------------------------------------------------------
# kernelize


def _device_type(model, device) -> str:
    if device is None:
        import torch

        parameter = next(model.parameters(), None)
        if parameter is None:
            raise ValueError("Cannot determine model device, provide as `device` argument to `kernelize`.")
        name = parameter.device.type
        if name == "cuda" and getattr(torch.version, "hip", None):
            name = "rocm"
    elif isinstance(device, str):
        name = device
    else:  # torch.device or Device
        name = device.type
    if name not in DEVICE_BACKENDS:
        raise ValueError(
            f"Unsupported device type '{name}'. Supported device types are: {', '.join(SUPPORTED_DEVICE_TYPES)}"
        )
    return name


def _load_layer(repo, backend: str) -> type:
    if isinstance(repo, _Repository):
        return repo._load(backend)
    return repo.load()  # any object with a `load()` (upstream's repository protocol)


class _Fallback(Exception):
    """Internal: keep the original forward (the case is allowed by the fallback policy)."""


def _allow(policy: KernelizeFallback, case: KernelizeFallback, error: str, hint: str) -> None:
    """Fall back if `policy` allows `case`, else raise `error` (upstream's text) with a hint that
    names the layer, the device and the mode."""
    if case in policy:
        raise _Fallback()
    raise ValueError(f"{error}\nhint: {hint}; or pass `use_fallback=True` to keep the layer's own forward.")


def _modes(repos: dict) -> str:
    return ", ".join(str(m) for m in repos)


def _choose(layer_name: str, device: Device, mode: Mode, policy: KernelizeFallback) -> Tuple[Mode, object]:
    wanted = f"kernelize(device=`{device.type}`, mode={mode})"
    devices = _globals._KERNEL_MAPPING.get().get(layer_name)
    if devices is None:
        if KernelizeFallback.NO_LAYER in policy:
            _logger.warning(
                f"\nNo kernel mapping found for layer `{layer_name}`. Check if the layer name matches one of "
                "the kernels in the mapping or add the kernel you want to use to the mapping. Defaulting to "
                "original forward implementation."
            )
        _allow(policy, KernelizeFallback.NO_LAYER, f"No layer mapping for `{layer_name}`",
               f"{wanted} found no mapping for layer `{layer_name}`; add it with `register_kernel_mapping` "
               "or `use_kernel_mapping`")
    device_repos = devices.get(device.type)
    if device_repos is None:
        _allow(policy, KernelizeFallback.NO_DEVICE,
               f"No layer mapping for `{layer_name}` with device type `{device}`",
               f"{wanted}: layer `{layer_name}` is mapped for {', '.join(f'`{d}`' for d in devices)} only; "
               f"add a `{device.type}` entry")
    repos = device_repos.select(device)
    if repos is None:
        _allow(policy, KernelizeFallback.NO_COMPATIBLE_PROPERTIES,
               f"No layer mapping for `{layer_name}` device `{device}` with the right properties",
               f"{wanted}: no capability range mapped for layer `{layer_name}` contains this device's "
               f"{device_repos.describe(device)}; add a range that does")
    for candidate in search_order(mode):
        repo = repos.get(candidate)
        if repo is not None:
            return candidate, repo
    _allow(policy, KernelizeFallback.NO_COMPATIBLE_MODE,
           f"No repository for `{layer_name}` for configuration mode={mode}",
           f"{wanted}: layer `{layer_name}` on `{device.type}` has repositories for {_modes(repos)} only; "
           f"register one for {mode} or Mode.FALLBACK")
    raise AssertionError("unreachable")


def _kernelize_module(module, device: Device, mode: Mode, policy: KernelizeFallback) -> None:
    cls = type(module)
    layer_name = cls.kernel_layer_name
    original = cls.forward
    try:
        if _globals._DISABLE_KERNEL_MAPPING:
            raise _Fallback()
        condition = getattr(cls, "kernel_condition", None)
        if condition is not None and not condition(module):
            return  # as upstream: the module is left as it is
        registered_mode, repo = _choose(layer_name, device, mode, policy)
        try:
            layer = _load_layer(repo, DEVICE_BACKENDS[device.type])
        except OSError as error:
            if KernelizeFallback.CANNOT_LOAD not in policy:
                raise
            _logger.warning(f"Cannot load {repo} for layer `{layer_name}`, using its original forward: {error}")
            raise _Fallback() from None
        validate_layer(layer, cls, repo)
        check_registration(layer, registered_mode, layer_name, repo)
        if not supports_mode(layer, mode):
            _allow(policy, KernelizeFallback.NO_COMPATIBLE_MODE, f"Available kernel does not support mode: {mode}",
                   f"kernelize(device=`{device.type}`, mode={mode}): layer `{layer_name}` maps to {repo}, whose "
                   f"layer declares can_torch_compile={can_torch_compile(layer)}, "
                   f"has_backward={has_backward(layer)}")
    except _Fallback:
        module.forward = MethodType(original, module)
        return
    module.forward = MethodType(layer.forward, module)


def kernelize(model, *, mode: Mode, device: Optional[Union[str, "object"]] = None,
              use_fallback: Union[bool, KernelizeFallback] = True):
    """Replace the forward of every extensible layer of `model` (and of the functions kept by
    `@use_kernelized_func`) with the kernel layer the current mapping gives for the device and
    mode. `use_fallback` says when to keep the original forward instead of raising (`True`:
    `KernelizeFallback.DEFAULT`, `False`: `KernelizeFallback.NONE`). Returns `model`."""
    validate_kernelize_mode(mode)
    policy = fallback_policy(use_fallback)
    target = Device(type=_device_type(model, device))
    for _, module in model.named_modules():
        for fn in list(module.__dict__.get("_kernel_funcs", {}).values()):
            _kernelize_module(fn, target, mode, policy)
        if getattr(type(module), "kernel_layer_name", None) is not None:
            _kernelize_module(module, target, mode, policy)
    return model
