"""Layer repositories and the decorators that make code extensible (docs/layers.md):
`LayerRepository`, `LocalLayerRepository`, `LockedLayerRepository`,
`use_kernel_forward_from_hub`, `replace_kernel_forward_from_hub`, `use_kernelized_func`."""
from __future__ import annotations

import functools
import inspect
import threading
from pathlib import Path
from typing import Callable, Dict, List, Optional, Union

from kernels.layer._sources import HubSource, LocalSource, LockedSource
from kernels.layer.mode import KernelizeFallback  # noqa: F401 - public here, as upstream

__all__ = [
    "KernelizeFallback",
    "LayerRepository",
    "LocalLayerRepository",
    "LockedLayerRepository",
    "replace_kernel_forward_from_hub",
    "use_kernel_forward_from_hub",
    "use_kernelized_func",
]


class _Repository:
    """A member (layer class or function) of a kernel, found in some source. Equal and hashable
    by its fields; `load()` returns an `nn.Module` subclass."""

    _member_kind = "layer"

    def __init__(self, source, member_name: str):
        self._source = source
        self._member_name = member_name
        self._loaded: Dict[Optional[str], type] = {}
        self._load_lock = threading.Lock()

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def _key(self) -> tuple:
        return self._source.key() + (self._member_name,)

    def __str__(self) -> str:
        if isinstance(self._source, LocalSource):
            return f"{self._source.describe()} ({self._member_kind} `{self._member_name}`)"
        return f"{self._source.describe()}, {self._member_kind} `{self._member_name}`"

    def load(self) -> type:
        """Load the kernel for the running system and return the layer class."""
        return self._load(None)

    def _load(self, backend: Optional[str]) -> type:
        with self._load_lock:
            layer = self._loaded.get(backend)
            if layer is None:
                layer = self._member(self._source.load_kernel(backend))
                self._loaded[backend] = layer
            return layer

    def _member(self, kernel) -> type:
        raise NotImplementedError


class _LayerRepositoryBase(_Repository):
    @property
    def layer_name(self) -> str:
        return self._member_name

    def _member(self, kernel) -> type:
        layers = getattr(kernel, "layers", None)
        if layers is None:
            raise ValueError(f"Kernel repo {self} does not define any layers.")
        layer = getattr(layers, self._member_name, None)
        if layer is None:
            raise ValueError(f"Layer `{self._member_name}` not found in kernel repo {self}.")
        if not isinstance(layer, type) and inspect.isroutine(layer):
            # Ours: a function in `layers` is wrapped like a function repository's.
            from kernels.layer.func import create_func_module

            return create_func_module(layer)
        return layer


class LayerRepository(_LayerRepositoryBase):
    """A layer of a Hub kernel: `kernel.layers.<layer_name>` at a revision or major version."""

    def __init__(self, repo_id: str, *, layer_name: str, revision: Optional[str] = None,
                 version: Optional[int] = None, trust_remote_code: Union[bool, List[str]] = False,
                 user_agent: Union[str, dict, None] = None):
        super().__init__(HubSource(repo_id, revision, version, trust_remote_code, user_agent), layer_name)


class LocalLayerRepository(_LayerRepositoryBase):
    """A layer of a kernel in a local directory (loaded with `get_local_kernel`)."""

    def __init__(self, repo_path: Path, *, layer_name: str):
        super().__init__(LocalSource(repo_path), layer_name)


class LockedLayerRepository(_LayerRepositoryBase):
    """A layer of a Hub kernel at the revision locked in `lockfile` (a `kernels.lock`) or, when
    None, in the calling distribution's metadata."""

    def __init__(self, repo_id: str, *, lockfile: Optional[Path] = None, layer_name: str,
                 trust_remote_code: Union[bool, List[str]] = False):
        super().__init__(LockedSource(repo_id, lockfile, trust_remote_code), layer_name)


def _always(module) -> bool:
    return True


def replace_kernel_forward_from_hub(cls, layer_name: str, condition: Optional[Callable] = None) -> None:
    """Make `cls` extensible: `kernelize` may replace its forward with the kernel layer mapped
    to `layer_name`, for the modules on which `condition(module)` (default: all) is true."""
    cls.kernel_layer_name = layer_name
    cls.kernel_condition = staticmethod(condition if condition is not None else _always)


def _is_function(obj: object) -> bool:
    return inspect.isroutine(obj) or isinstance(obj, functools.partial)


def use_kernel_forward_from_hub(layer_name: str, condition: Optional[Callable] = None):
    """Decorator: on a class, mark it extensible under `layer_name`; on a function, return an
    instance of an `nn.Module` whose forward calls the function, marked the same way."""

    def decorator(obj):
        if isinstance(obj, type):
            replace_kernel_forward_from_hub(obj, layer_name, condition)
            return obj
        if _is_function(obj):
            from kernels.layer.func import create_func_module

            module_class = create_func_module(obj)
            replace_kernel_forward_from_hub(module_class, layer_name, condition)
            return module_class()
        raise TypeError("@use_kernel_forward_from_hub can only be applied to classes or functions")

    return decorator


def _function_name(fn: object) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def use_kernelized_func(*args: Callable):
    """Class decorator: every instance keeps the functions `args` (each from
    `@use_kernel_forward_from_hub`) in `self._kernel_funcs`, keyed by layer name, so that
    `kernelize` visits them too."""
    fns = args

    def decorator(cls):
        for fn in fns:
            if not hasattr(fn, "kernel_layer_name"):
                raise ValueError(
                    f"Function `{_function_name(fn)}` is not decorated with @use_kernel_forward_from_hub "
                    "and cannot be used with @use_kernelized_func"
                )
        original_init = cls.__init__

        @functools.wraps(original_init)
        def __init__(self, *args, **kwargs):
            original_init(self, *args, **kwargs)
            # In the instance dict, not as attributes: `nn.Module.__setattr__` would register the
            # function modules as submodules (and in the state dict).
            funcs = self.__dict__.setdefault("_kernel_funcs", {})
            for fn in fns:
                funcs[fn.kernel_layer_name] = fn

        cls.__init__ = __init__
        return cls

    return decorator
