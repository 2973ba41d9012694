"""The compute backends of an arch variant (`ArchVariant.arch.backend`), upstream's
`kernels.backends` names: `CUDA(version)`, `CPU()`, ... with `name`, `variant_str` and `parse`.
The variant-name format belongs to the C++ core: `variant_str` is rendered by
`_core.render_variant_name` and `parse` reads through `_core.parse_compute`."""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from functools import total_ordering
from typing import Any, Optional, Tuple, Union

from kernels import _core

try:  # Python 3.8+: typing.Protocol
    from typing import Protocol
except ImportError:  # pragma: no cover
    Protocol = object  # type: ignore[assignment,misc]


@total_ordering
class Version:
    """A `major.minor` version of a variant name (`2.12`, `12.6`, `2025.3`); compares with other
    versions, with `packaging.version.Version` (through `release`) and with `(major, minor)` tuples."""

    __slots__ = ("_release", "_text")

    def __init__(self, release: Tuple[int, int], text: str) -> None:
        self._release = (int(release[0]), int(release[1]))
        self._text = text

    @property
    def release(self) -> Tuple[int, int]:
        return self._release

    @property
    def major(self) -> int:
        return self._release[0]

    @property
    def minor(self) -> int:
        return self._release[1]

    def _other(self, other: object) -> Union[Tuple[int, ...], None]:
        if isinstance(other, tuple):
            return other
        release = getattr(other, "release", None)
        return tuple(release) if isinstance(release, tuple) else None

    def __eq__(self, other: object) -> bool:
        release = self._other(other)
        return NotImplemented if release is None else self._release == release

    def __lt__(self, other: object) -> bool:
        release = self._other(other)
        return NotImplemented if release is None else self._release < release

    def __hash__(self) -> int:
        return hash(self._release)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"<Version('{self._text}')>"


def _version(parsed: Optional[tuple]) -> Optional[Version]:
    """A `Version` of the core's (major, minor, "major.minor") tuple."""
    return None if parsed is None else Version(parsed[:2], parsed[2])


def _major_minor(version: Any) -> Optional[Tuple[int, int]]:
    """(major, minor) of a version object (ours, `packaging`'s, or anything with those fields)."""
    return None if version is None else (int(version.major), int(version.minor))


def strict(cls):
    """Class decorator for the dataclasses upstream declares strict: `validate()` checks that each
    field holds a value of its declared class(es), and runs after `__init__`."""
    hints = {f.name: f for f in dataclasses.fields(cls)}

    def validate(self) -> None:
        for name, f in hints.items():
            expected = f.metadata.get("types")
            if expected and not isinstance(getattr(self, name), expected):
                raise TypeError(f"{type(self).__name__}.{name} must be of type "
                                f"{' | '.join(t.__name__ for t in expected)}, not {type(getattr(self, name)).__name__}")

    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs) -> None:
        init(self, *args, **kwargs)
        self.validate()

    cls.validate = validate
    cls.__init__ = __init__
    return cls


def typed(*types: type) -> Any:
    """A dataclass field whose value `strict`'s `validate` checks against `types`."""
    return dataclasses.field(metadata={"types": types})


class Backend(Protocol):
    """What every backend has: its loader `name` and its part of a variant name."""

    @property
    def name(self) -> str: ...

    @property
    def variant_str(self) -> str: ...


class _Named:
    _name = ""

    @property
    def name(self) -> str:
        return self._name

    @property
    def variant_str(self) -> str:
        return _core.render_variant_name({"kind": "torch", "backend": self._name,
                                          "backend_version": _major_minor(getattr(self, "version", None))})["backend_str"]

    @classmethod
    def parse(cls, s: str):
        """The backend of its part of a variant name (`cu126` for `CUDA`); `ValueError` otherwise."""
        parsed = _core.parse_compute(s)
        if parsed is None or parsed[0] != cls._name:
            raise ValueError(f"Invalid {cls.__name__} variant string: {s!r}")
        return cls(_version(parsed[1])) if parsed[1] is not None else cls()


@dataclass(unsafe_hash=True)
class CANN(_Named):
    _name = "cann"
    version: Any


@strict
@dataclass(unsafe_hash=True)
class CPU(_Named):
    _name = "cpu"


@dataclass(unsafe_hash=True)
class CUDA(_Named):
    _name = "cuda"
    version: Any


@strict
@dataclass(unsafe_hash=True)
class Metal(_Named):
    _name = "metal"


@strict
@dataclass(unsafe_hash=True)
class Neuron(_Named):
    _name = "neuron"


@dataclass(unsafe_hash=True)
class ROCm(_Named):
    _name = "rocm"
    version: Any


@strict
@dataclass(unsafe_hash=True)
class TPU(_Named):
    _name = "tpu"


@dataclass(unsafe_hash=True)
class XPU(_Named):
    _name = "xpu"
    version: Any


_BY_NAME = {cls._name: cls for cls in (CUDA, ROCm, XPU, CANN, CPU, Metal, Neuron, TPU)}


def parse_backend(s: str) -> Backend:
    """The backend of a variant name's compute part (`cu126`, `rocm71`, `cpu`, ...)."""
    parsed = _core.parse_compute(s)
    if parsed is None:
        raise ValueError(f"Invalid backend variant string: {s!r}")
    return _BY_NAME[parsed[0]].parse(s)


def _from_parsed(parsed: dict) -> Backend:
    """The backend of a `_core.parse_variant_name` result of an arch variant."""
    cls = _BY_NAME[parsed["backend"]]
    version = parsed["backend_version"]
    return cls(_version(version)) if version is not None else cls()
