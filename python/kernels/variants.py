"""Variants as upstream's `kernels.variants` names them: `ArchVariant(framework, arch)` and
`NoarchVariant(framework, arch)` with their parts (`Torch`, `TorchStableAbi`, `TvmFfi`,
`TorchNoarch`, `Arch`, `Noarch`, the backends), the listing (`get_variants`,
`get_variants_local`), the choice (`resolve_variant(s)`, `get_kernel_variants`) and its trace
(`variants_trace_str`). The variant-name format and the selection rules belong to the C++ core:
names are parsed by `_core.parse_variant_name`, rendered by `_core.render_variant_name`, and
chosen by `_core.select`."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple, Union

from kernels import _core
from kernels.backends import (  # noqa: F401 - upstream exposes the backends here too
    CANN,
    CPU,
    CUDA,
    TPU,
    XPU,
    Backend,
    Metal,
    Neuron,
    ROCm,
    _from_parsed,
    _major_minor,
    _version,
    parse_backend,
    strict,
    typed,
)


def _render(**fields: Any) -> dict:
    return _core.render_variant_name(fields)


def _parse_framework(kind: str, s: str, what: str) -> dict:
    """The parsed fields of framework string `s` of `kind`, read by completing it to a full name."""
    parsed = _core.parse_variant_name(f"{s}-cpu-x86_64-linux")
    if parsed is None or parsed["kind"] != kind or parsed["framework_str"] != s:
        raise ValueError(f"Invalid {what} variant string: {s!r}")
    return parsed


@dataclass(unsafe_hash=True)
class Torch:
    """Versioned Torch framework of arch variants (`torch211-cxx11`)."""

    version: Any
    cxx11_abi: Optional[bool]

    @property
    def variant_str(self) -> str:
        return _render(kind="torch", framework_version=_major_minor(self.version),
                       cxx11_abi=self.cxx11_abi)["framework_str"]

    @staticmethod
    def parse(s: str) -> "Torch":
        parsed = _parse_framework("torch", s, "Torch")
        return Torch(_version(parsed["framework_version"]), parsed["cxx11_abi"])


@dataclass(unsafe_hash=True)
class TorchStableAbi:
    """Torch stable-ABI framework of arch variants (`torch-stable-abi211`)."""

    version: Any

    @property
    def variant_str(self) -> str:
        return _render(kind="stable-abi", framework_version=_major_minor(self.version))["framework_str"]

    @staticmethod
    def parse(s: str) -> "TorchStableAbi":
        return TorchStableAbi(_version(_parse_framework("stable-abi", s, "Torch stable ABI")["framework_version"]))


@dataclass(unsafe_hash=True)
class TvmFfi:
    """TVM-FFI framework of arch variants (`tvm-ffi01`)."""

    version: Any

    @property
    def variant_str(self) -> str:
        return _render(kind="tvm-ffi", framework_version=_major_minor(self.version))["framework_str"]

    @staticmethod
    def parse(s: str) -> "TvmFfi":
        return TvmFfi(_version(_parse_framework("tvm-ffi", s, "TvmFfi")["framework_version"]))


@strict
@dataclass(unsafe_hash=True)
class TorchNoarch:
    """The versionless Torch framework of noarch variants (`torch`)."""

    @property
    def variant_str(self) -> str:
        return _render(kind="noarch")["framework_str"]


_BACKEND_TYPES = (CANN, CPU, CUDA, Metal, Neuron, ROCm, TPU, XPU)


@strict
@dataclass(unsafe_hash=True)
class Arch:
    """The arch part of an arch variant: backend, CPU (`platform`) and operating system."""

    backend: Backend = typed(*_BACKEND_TYPES)
    platform: str = typed(str)
    os: str = typed(str)

    @property
    def variant_str(self) -> str:
        return _render(kind="torch", backend=self.backend.name, backend_version=_major_minor(getattr(self.backend, "version", None)),
                       cpu=self.platform, os=self.os)["arch_str"]

    @staticmethod
    def parse(parts: List[str]) -> "Arch":
        if len(parts) != 3:
            raise ValueError(f"Invalid arch variant parts: {parts!r}")
        return Arch(parse_backend(parts[0]), parts[1], parts[2])


@strict
@dataclass(unsafe_hash=True)
class Noarch:
    """The backend part of a noarch variant (`cuda` in `torch-cuda`)."""

    backend_name: str = typed(str)

    @property
    def variant_str(self) -> str:
        return _render(kind="noarch", noarch_backend=self.backend_name)["arch_str"]

    @staticmethod
    def parse(s: str) -> "Noarch":
        return Noarch(s)


@strict
@dataclass(unsafe_hash=True)
class ArchVariant:
    """A compiled (arch) build variant."""

    framework: Union[Torch, TorchStableAbi, TvmFfi] = typed(Torch, TorchStableAbi, TvmFfi)
    arch: Arch = typed(Arch)

    @property
    def variant_str(self) -> str:
        return f"{self.framework.variant_str}-{self.arch.variant_str}"


@strict
@dataclass(unsafe_hash=True)
class NoarchVariant:
    """A Python-only (noarch) build variant."""

    framework: TorchNoarch = typed(TorchNoarch)
    arch: Noarch = typed(Noarch)

    @property
    def variant_str(self) -> str:
        return f"{self.framework.variant_str}-{self.arch.variant_str}"


Variant = Union[ArchVariant, NoarchVariant]


@dataclass(unsafe_hash=True)
class VariantAccepted:
    """A variant compatible with the running system."""

    variant: Variant


@dataclass(unsafe_hash=True)
class VariantRejected:
    """A variant incompatible with the running system, and why."""

    variant: Variant
    reason: str


Decision = Union[VariantAccepted, VariantRejected]


def parse_variant(variant_str: str) -> Variant:
    """The variant named `variant_str` (a directory name under `build/`); `ValueError` if it is not one."""
    parsed = _core.parse_variant_name(variant_str)
    if parsed is None:
        raise ValueError(f"Invalid variant name: '{variant_str}'")
    if parsed["kind"] == "noarch":
        return NoarchVariant(TorchNoarch(), Noarch(parsed["noarch_backend"]))
    kind = parsed["kind"]
    version = _version(parsed["framework_version"])
    framework: Union[Torch, TorchStableAbi, TvmFfi]
    if kind == "torch":
        framework = Torch(version, parsed["cxx11_abi"])
    elif kind == "stable-abi":
        framework = TorchStableAbi(version)
    else:
        framework = TvmFfi(version)
    return ArchVariant(framework, Arch(_from_parsed(parsed), parsed["cpu"], parsed["os"]))


def _parse_all(names) -> List[Variant]:
    out = []
    for name in sorted(names):
        try:
            out.append(parse_variant(name))
        except ValueError:
            pass
    return out


def select_revision_or_version(repo_id: str, *, revision: Optional[str], version: Optional[int],
                               local_files_only: bool) -> str:
    """The revision to read: `revision` as given, or the commit of major `version` (`v<N>`,
    from the cache when `local_files_only`). Exactly one of them must be given."""
    from kernels._api import _resolve_revision
    from kernels._system import user_agent

    return _resolve_revision(repo_id, revision, version, user_agent(None), offline=local_files_only)


def get_variants(api: Any, *, repo_id: str, revision: str) -> List[Variant]:
    """Every valid build variant of a Hub kernel at `revision` (invalid names are skipped with a
    warning). `api` (a `huggingface_hub.HfApi`) is accepted for upstream's signature; the Hub is
    read through the core, at `HF_ENDPOINT` with `HF_TOKEN`, as every other loading function."""
    import logging

    from kernels._system import user_agent

    listing = _core.variants(repo_id, revision, _core_system(None), user_agent(None))
    for name in listing["invalid"]:
        logging.getLogger("kernels").warning(
            f"Repository {repo_id} (revision: {revision}) contains invalid build variant variant: {name!r}")
    return _parse_all(name for name, _accepted, _reason in listing["decisions"])


def get_variants_local(repo_path: Union[str, "os.PathLike[str]"]) -> List[Variant]:
    """Every valid build variant directory in `repo_path` (a `build/` directory); [] when it
    cannot be read."""
    try:
        names = [entry.name for entry in Path(repo_path).iterdir() if entry.is_dir()]
    except OSError:
        return []
    return _parse_all(names)


def _core_system(backend: Optional[str]) -> dict:
    """The system `_core` chooses for: the loading functions' own (`_api._system_for`)."""
    from kernels._api import _system_for

    return _system_for(backend)


def _decision(variant: Variant, accepted: bool, reason: str) -> Decision:
    return VariantAccepted(variant) if accepted else VariantRejected(variant, reason)


def resolve_variants(variants: List[Variant], backend: Optional[str] = None) -> Tuple[List[Variant], List[Decision]]:
    """The variants that can load on this system, most preferred first, and the decision for
    every variant (accepted ones first, in the same order)."""
    by_name = {variant.variant_str: variant for variant in variants}
    selection = _core.select(list(by_name), _core_system(backend))
    trace = [_decision(by_name[name], accepted, reason) for name, accepted, reason in selection["decisions"]]
    return [d.variant for d in trace if isinstance(d, VariantAccepted)], trace


def resolve_variant(variants: List[Variant], backend: Optional[str] = None) -> Tuple[Optional[Variant], List[Decision]]:
    """The most preferred variant that can load on this system (None when none can), and the
    decision for every variant."""
    accepted, trace = resolve_variants(variants, backend)
    return (accepted[0] if accepted else None), trace


def variants_trace_str(trace: List[Decision]) -> str:
    """One line per decision, the preferred variant marked (the text of the "no variant" errors)."""
    return _core.trace_text([(d.variant.variant_str, isinstance(d, VariantAccepted), getattr(d, "reason", ""))
                             for d in trace])


def get_kernel_variants(repo_id: str, *, revision: Optional[str] = None, version: Optional[int] = None,
                        backend: Optional[str] = None) -> List[Decision]:
    """The decision for every build variant of a Hub kernel on this system, compatible variants
    first, the preferred one leading."""
    from kernels._api import _resolve_revision
    from kernels._env import is_offline
    from kernels._system import user_agent

    ua = user_agent(None)
    rev = _resolve_revision(repo_id, revision, version, ua, offline=is_offline())
    listing = _core.variants(repo_id, rev, _core_system(backend), ua)
    return [_decision(parse_variant(name), accepted, reason) for name, accepted, reason in listing["decisions"]]
