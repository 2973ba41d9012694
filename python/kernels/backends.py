"""The compute backends of an arch variant (`ArchVariant.arch.backend`), upstream's
`kernels.backends` names. They only hold what the C++ variant parser found (`kernels._core`);
nothing here parses or renders a name."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import total_ordering
from typing import Tuple, Union


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


class _Rendered:
    """A part of a variant name: `variant_str` is the text the core rendered for it."""

    _variant_str: str

    @property
    def variant_str(self) -> str:
        return self._variant_str


@dataclass(frozen=True)
class _Versioned(_Rendered):
    version: Version
    _variant_str: str = field(repr=False, compare=False)


@dataclass(frozen=True)
class _Unversioned(_Rendered):
    _variant_str: str = field(repr=False, compare=False)


@dataclass(frozen=True)
class CUDA(_Versioned):
    name = "cuda"


@dataclass(frozen=True)
class ROCm(_Versioned):
    name = "rocm"


@dataclass(frozen=True)
class XPU(_Versioned):
    name = "xpu"


@dataclass(frozen=True)
class CANN(_Versioned):
    name = "cann"


@dataclass(frozen=True)
class CPU(_Unversioned):
    name = "cpu"


@dataclass(frozen=True)
class Metal(_Unversioned):
    name = "metal"


@dataclass(frozen=True)
class Neuron(_Unversioned):
    name = "neuron"


@dataclass(frozen=True)
class TPU(_Unversioned):
    name = "tpu"


Backend = Union[CUDA, ROCm, XPU, CANN, CPU, Metal, Neuron, TPU]

_BY_NAME = {cls.name: cls for cls in (CUDA, ROCm, XPU, CANN, CPU, Metal, Neuron, TPU)}


def _from_parsed(parsed: dict) -> Backend:
    """The backend of a `_core.parse_variant_name` result of an arch variant."""
    cls = _BY_NAME[parsed["backend"]]
    version = parsed["backend_version"]
    if issubclass(cls, _Versioned):
        return cls(Version(version[:2], version[2]), parsed["backend_str"])
    return cls(parsed["backend_str"])
