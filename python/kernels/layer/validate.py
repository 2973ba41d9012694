"""Checks that a kernel's layer can stand in for an extensible class (docs/layers.md) and
supports the mode it is used in (steps 6 and 7)."""
from __future__ import annotations

import inspect

from kernels.layer.mode import Mode

# Class attributes a kernel layer may declare beyond the layer it replaces.
_ALLOWED_MEMBERS = {"can_torch_compile", "has_backward"}


def can_torch_compile(layer: type) -> bool:
    return getattr(layer, "can_torch_compile", False)


def has_backward(layer: type) -> bool:
    return getattr(layer, "has_backward", True)


def validate_layer(layer: object, original: type, repo: object) -> None:
    """Raise TypeError unless `layer` is an `nn.Module` subclass without its own constructor,
    without members that `original` lacks, and with a forward of the same shape."""
    from torch import nn

    if not isinstance(layer, type) or not issubclass(layer, nn.Module):
        name = getattr(layer, "__name__", repr(layer))
        raise TypeError(f"Layer `{name}` is not a Torch layer.")
    if layer.__init__ is not nn.Module.__init__:
        raise TypeError(f"{repo} must not override nn.Module constructor.")
    extra = set(dir(layer)) - set(dir(original)) - _ALLOWED_MEMBERS
    if extra:
        raise TypeError(f"{repo} must not contain additional members compared to `{original.__name__}`.")
    ours = list(inspect.signature(layer.forward).parameters.values())
    theirs = list(inspect.signature(original.forward).parameters.values())
    if len(ours) != len(theirs):
        raise TypeError(
            f"Forward signature of {repo} does not match `{original.__name__}`: different number of arguments."
        )
    for p, q in zip(ours, theirs):
        if p.kind != q.kind:
            raise TypeError(
                f"Forward signature of {repo} does not match `{original.__name__}`: different kind of "
                f"arguments ({p.name} ({p.kind.name}) and {q.name} ({q.kind.name})"
            )


def check_registration(layer: type, registered_mode: Mode, layer_name: str, repo: object) -> None:
    """A repository registered for TRAINING or TORCH_COMPILE must provide what it promises."""
    if Mode.TRAINING in registered_mode and not has_backward(layer):
        raise ValueError(
            f"Function/layer from repo {repo} does not support backward.\n"
            f"Was registered for `{layer_name}` with mode `{registered_mode}`"
        )
    if Mode.TORCH_COMPILE in registered_mode and not can_torch_compile(layer):
        raise ValueError(
            f"Function/layer from repo {repo} does not support torch.compile.\n"
            f"Was registered for `{layer_name}` with mode `{registered_mode}`"
        )


def supports_mode(layer: type, mode: Mode) -> bool:
    if Mode.TORCH_COMPILE in mode and not can_torch_compile(layer):
        return False
    if Mode.TRAINING in mode and not has_backward(layer):
        return False
    return True
