"""Variants as `get_kernel_variants` returns them (upstream's `kernels.variants` names):
`ArchVariant(framework, arch)` and `NoarchVariant(framework, arch)`, built from the fields the C++
variant parser found (`_core.parse_variant_name`). Nothing here parses or renders a name."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from kernels import _core
from kernels.backends import Backend, Version, _from_parsed, _Rendered, _Unversioned, _Versioned


@dataclass(frozen=True)
class Torch(_Rendered):
    version: Version
    cxx11_abi: Optional[bool]
    _variant_str: str = field(repr=False, compare=False)


# Same fields as the versioned/unversioned backends (`version` and the rendered part).
@dataclass(frozen=True)
class TorchStableAbi(_Versioned):
    pass


@dataclass(frozen=True)
class TvmFfi(_Versioned):
    pass


@dataclass(frozen=True)
class TorchNoarch(_Unversioned):
    pass


@dataclass(frozen=True)
class Arch(_Rendered):
    backend: Backend
    platform: str
    os: str
    _variant_str: str = field(repr=False, compare=False)


@dataclass(frozen=True)
class Noarch:
    backend_name: str

    @property
    def variant_str(self) -> str:
        return self.backend_name


@dataclass(frozen=True)
class ArchVariant(_Rendered):
    framework: Union[Torch, TorchStableAbi, TvmFfi]
    arch: Arch
    _variant_str: str = field(repr=False, compare=False)


@dataclass(frozen=True)
class NoarchVariant(_Rendered):
    framework: TorchNoarch
    arch: Noarch
    _variant_str: str = field(repr=False, compare=False)


Variant = Union[ArchVariant, NoarchVariant]


@dataclass(frozen=True)
class VariantAccepted:
    variant: Variant


@dataclass(frozen=True)
class VariantRejected:
    variant: Variant
    reason: str


Decision = Union[VariantAccepted, VariantRejected]


def _version(parsed: tuple) -> Version:
    return Version(parsed[:2], parsed[2])


def parse_variant(variant_str: str) -> Variant:
    """The variant named `variant_str` (a directory name under `build/`); `ValueError` if it is not one."""
    parsed = _core.parse_variant_name(variant_str)
    if parsed is None:
        raise ValueError(f"Invalid variant name: '{variant_str}'")
    name = parsed["variant_str"]
    if parsed["kind"] == "noarch":
        return NoarchVariant(TorchNoarch(parsed["framework_str"]), Noarch(parsed["noarch_backend"]), name)
    kind = parsed["kind"]
    framework_str = parsed["framework_str"]
    version = _version(parsed["framework_version"])
    framework: Union[Torch, TorchStableAbi, TvmFfi]
    if kind == "torch":
        framework = Torch(version, parsed["cxx11_abi"], framework_str)
    elif kind == "stable-abi":
        framework = TorchStableAbi(version, framework_str)
    else:
        framework = TvmFfi(version, framework_str)
    arch = Arch(_from_parsed(parsed), parsed["cpu"], parsed["os"], parsed["arch_str"])
    return ArchVariant(framework, arch, name)
