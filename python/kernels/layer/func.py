"""Functions as layers (docs/layers.md): the `nn.Module` wrapper of a function, and the
deprecated function repositories and `use_kernel_func_from_hub`."""
from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Callable, List, Optional, Union

from kernels.layer._sources import HubSource, LocalSource, LockedSource
from kernels.layer.layer import _Repository, use_kernel_forward_from_hub

__all__ = ["FuncRepository", "LocalFuncRepository", "LockedFuncRepository", "use_kernel_func_from_hub"]


def create_func_module(fn: Callable) -> type:
    """An `nn.Module` subclass whose forward calls `fn` (with `fn`'s signature after `self`),
    carrying `fn`'s `can_torch_compile` (default False) and `has_backward` (default True)."""
    from torch import nn

    class Func(nn.Module):
        def forward(self, *args, **kwargs):
            return fn(*args, **kwargs)

    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature
        signature = inspect.Signature([
            inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
            inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
        ])
    self_parameter = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    Func.forward.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[self_parameter, *signature.parameters.values()])
    Func.can_torch_compile = getattr(fn, "can_torch_compile", False)
    Func.has_backward = getattr(fn, "has_backward", True)
    return Func


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated and will be removed in kernels 0.17. Use {new} instead.",
                  DeprecationWarning, stacklevel=3)


class _FuncRepositoryBase(_Repository):
    _member_kind = "function"

    @property
    def func_name(self) -> str:
        return self._member_name

    def _member(self, kernel) -> type:
        fn = getattr(kernel, self._member_name, None)
        if fn is None:
            raise ValueError(f"Function `{self._member_name}` not found in {self}")
        return create_func_module(fn)


class FuncRepository(_FuncRepositoryBase):
    """Deprecated: a function of a Hub kernel (use `LayerRepository`)."""

    def __init__(self, repo_id: str, *, func_name: str, revision: Optional[str] = None,
                 version: Optional[int] = None, trust_remote_code: Union[bool, List[str]] = False):
        _deprecated("FuncRepository", "LayerRepository")
        super().__init__(HubSource(repo_id, revision, version, trust_remote_code, None), func_name)


class LocalFuncRepository(_FuncRepositoryBase):
    """Deprecated: a function of a local kernel (use `LocalLayerRepository`)."""

    def __init__(self, repo_path: Path, *, func_name: str):
        _deprecated("LocalFuncRepository", "LocalLayerRepository")
        super().__init__(LocalSource(repo_path), func_name)


class LockedFuncRepository(_FuncRepositoryBase):
    """Deprecated: a function of a locked Hub kernel (use `LockedLayerRepository`)."""

    def __init__(self, repo_id: str, *, lockfile: Optional[Path] = None, func_name: str,
                 trust_remote_code: Union[bool, List[str]] = False):
        _deprecated("LockedFuncRepository", "LockedLayerRepository")
        super().__init__(LockedSource(repo_id, lockfile, trust_remote_code), func_name)


def use_kernel_func_from_hub(func_name: str):
    """Deprecated alias of `use_kernel_forward_from_hub`."""
    _deprecated("use_kernel_func_from_hub", "`use_kernel_forward_from_hub`")
    return use_kernel_forward_from_hub(func_name)
