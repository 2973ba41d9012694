"""`Mode` (what a kernel is used for) and `KernelizeFallback` (when `kernelize` keeps the
original forward), docs/layers.md."""
from __future__ import annotations

from enum import Flag


class Mode(Flag):
    """Kernelize mode.

    `kernelize` selects the kernels registered for its mode; a mapping may register different
    repositories per mode. `INFERENCE` and `TRAINING` exclude each other, `TORCH_COMPILE` combines
    with either (`Mode.INFERENCE | Mode.TORCH_COMPILE`), and `FALLBACK` (mappings only) is used
    when no other registered mode matches.
    """

    _NONE = 0
    FALLBACK = 1
    TRAINING = 2
    INFERENCE = 4
    TORCH_COMPILE = 8

    def __or__(self, other: "Mode") -> "Mode":
        union = super().__or__(other)
        if Mode.INFERENCE in union and Mode.TRAINING in union:
            raise ValueError("Mode.INFERENCE and Mode.TRAINING are mutually exclusive.")
        if Mode.FALLBACK in union and union != Mode.FALLBACK:
            raise ValueError("Mode.FALLBACK cannot be combined with other modes.")
        return union


class KernelizeFallback(Flag):
    """The cases in which `kernelize` keeps a layer's original forward instead of raising.

    - `NONE`: never fall back (raise).
    - `NO_LAYER`: the layer has no kernel mapping.
    - `NO_DEVICE`: the layer's mapping has no entry for the device type.
    - `NO_COMPATIBLE_PROPERTIES`: no entry matches the device's properties (capability).
    - `NO_COMPATIBLE_MODE`: no repository, or no loaded layer, supports the requested mode.
    - `CANNOT_LOAD`: the kernel cannot be loaded (missing files, no variant for this system).
    - `DEFAULT` (`use_fallback=True`): every case above except `CANNOT_LOAD`.
    - `ALL`: every case above.
    """

    NONE = 0
    NO_LAYER = 1
    NO_DEVICE = 2
    NO_COMPATIBLE_PROPERTIES = 4
    NO_COMPATIBLE_MODE = 8
    CANNOT_LOAD = 16
    DEFAULT = 15
    ALL = 31


def fallback_policy(use_fallback: "bool | KernelizeFallback") -> KernelizeFallback:
    """`use_fallback` as flags: `True` is `DEFAULT`, `False` is `NONE`."""
    if isinstance(use_fallback, KernelizeFallback):
        return use_fallback
    if isinstance(use_fallback, bool):
        return KernelizeFallback.DEFAULT if use_fallback else KernelizeFallback.NONE
    raise TypeError(
        f"`use_fallback` must be a bool or a `KernelizeFallback`, not {type(use_fallback).__name__}"
    )


# The modes tried, in order, for each kernelize mode (docs/layers.md).
_SEARCH_ORDER = {
    Mode.INFERENCE: (Mode.INFERENCE, Mode.INFERENCE | Mode.TORCH_COMPILE, Mode.TRAINING,
                     Mode.TRAINING | Mode.TORCH_COMPILE, Mode.FALLBACK),
    Mode.TRAINING: (Mode.TRAINING, Mode.TRAINING | Mode.TORCH_COMPILE, Mode.FALLBACK),
    Mode.INFERENCE | Mode.TORCH_COMPILE: (Mode.INFERENCE | Mode.TORCH_COMPILE,
                                          Mode.TRAINING | Mode.TORCH_COMPILE, Mode.FALLBACK),
    Mode.TRAINING | Mode.TORCH_COMPILE: (Mode.TRAINING | Mode.TORCH_COMPILE, Mode.FALLBACK),
}


def search_order(mode: Mode) -> tuple:
    """The registered modes that can serve `mode`, best first."""
    return _SEARCH_ORDER[mode]


def validate_kernelize_mode(mode: Mode) -> None:
    if mode == Mode.FALLBACK:
        raise ValueError("Mode.FALLBACK can only be used to register kernel mappings.")
    if not isinstance(mode, Mode) or (Mode.INFERENCE not in mode and Mode.TRAINING not in mode):
        raise ValueError("kernelize mode must contain Mode.INFERENCE or Mode.TRAINING.")
