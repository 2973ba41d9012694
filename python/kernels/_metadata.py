"""`Metadata` and its parts (docs/python-api.md "Metadata"): read-only views over the dict that the
C++ core parses from metadata.json, so parsing rules live in one place (src/metadata)."""
from __future__ import annotations

import builtins
import enum
import json
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Union

from kernels import _core


class _BackendBase(enum.Enum):
    def __str__(self) -> str:
        return self.value


# The backends and their member names (CUDA, ROCm, Metal, ...) are the core's list
# (src/config/backend.h), so a backend added there appears here.
Backend = _BackendBase("Backend", _core.backends(), module=__name__)  # type: ignore[misc]


class DigestAlgorithm(enum.Enum):
    SHA256 = "sha256"
    SHA512 = "sha512"

    def __str__(self) -> str:
        return self.value


class DigestViolation:
    """One way a variant's files deviate from its recorded digest: `DigestViolation.MissingFile`,
    `.UnknownFile`, `.HashMismatch` or `.AlgorithmMismatch`; `str()` gives its text (the core's)."""

    _kind = ""
    __match_args__: tuple = ()

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __str__(self) -> str:
        fields = dict(zip(self.__match_args__, self._fields()))
        expected, got = fields.get("expected", ""), fields.get("got", "")
        if isinstance(expected, DigestAlgorithm):
            expected = _core.digest_algorithm_display_name(expected.value)
        if isinstance(got, DigestAlgorithm):
            got = _core.digest_algorithm_display_name(got.value)
        return _core.digest_violation_text(self._kind, fields.get("path", ""), expected, got)

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={value!r}" for name, value in zip(self.__match_args__, self._fields()))
        return f"DigestViolation.{self._kind}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._fields() == self._fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self._kind, self._fields()))


class _MissingFile(DigestViolation):
    """A file of the digest is missing."""

    _kind = "MissingFile"
    __match_args__ = ("path",)

    def __init__(self, path: str):
        self.path = path


class _UnknownFile(DigestViolation):
    """A file is present that the digest does not list."""

    _kind = "UnknownFile"
    __match_args__ = ("path",)

    def __init__(self, path: str):
        self.path = path


class _HashMismatch(DigestViolation):
    """A file's hash differs from the digest's."""

    _kind = "HashMismatch"
    __match_args__ = ("path", "expected", "got")

    def __init__(self, path: str, expected: str, got: str):
        self.path = path
        self.expected = expected
        self.got = got


class _AlgorithmMismatch(DigestViolation):
    """The digests were made with different algorithms."""

    _kind = "AlgorithmMismatch"
    __match_args__ = ("expected", "got")

    def __init__(self, expected: "DigestAlgorithm", got: "DigestAlgorithm"):
        self.expected = expected
        self.got = got


for _cls in (_MissingFile, _UnknownFile, _HashMismatch, _AlgorithmMismatch):
    _cls.__name__ = _cls.__qualname__ = _cls._kind
    setattr(DigestViolation, _cls._kind, _cls)


def _violation(record: tuple, expected: "Digest", actual: "Digest") -> DigestViolation:
    kind, path, want, got, _text = record
    if kind == "AlgorithmMismatch":
        return _AlgorithmMismatch(expected.algorithm, actual.algorithm)
    if kind == "HashMismatch":
        return _HashMismatch(path, want, got)
    return getattr(DigestViolation, kind)(path)


class DigestValidationError(Exception):
    """Raised by `Digest.validate`; `violations` lists each `DigestViolation`."""

    def __init__(self, violations: List[DigestViolation]):
        self.violations = violations
        super().__init__(_core.digest_mismatch_message([str(v) for v in violations]))


class Digest:
    def __init__(self, algorithm: DigestAlgorithm, files: Dict[str, str]):
        self._algorithm = algorithm
        self._files = dict(files)

    @property
    def algorithm(self) -> DigestAlgorithm:
        return self._algorithm

    @property
    def files(self) -> Dict[str, str]:
        return dict(self._files)

    @staticmethod
    def hash_variant(algorithm: DigestAlgorithm, variant_path: Union[str, "os.PathLike[str]"]) -> "Digest":
        files = _core.hash_variant(str(algorithm), os.fspath(variant_path))
        return Digest(algorithm, files)

    def validate(self, other: "Digest") -> None:
        """Raise `DigestValidationError` when `other` (the actual files) deviates from this digest."""
        records = _core.digest_violation_records(
            str(self._algorithm), self._files, str(other.algorithm), other.files
        )
        if records:
            raise DigestValidationError([_violation(record, self, other) for record in records])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Digest) and (self._algorithm, self._files) == (other._algorithm, other._files)

    def __repr__(self) -> str:
        return f"Digest(algorithm={self._algorithm}, files={len(self._files)} files)"


class Version:
    """A dotted numeric version (`0.18.0`); versions that differ only in trailing zeros are equal
    (the core's rule, `_core.version_components`)."""

    __slots__ = ("_text", "_key")

    def __init__(self, text: str):
        self._key = tuple(_core.version_components(text))
        self._text = text

    @staticmethod
    def from_str(s: str) -> "Version":
        return Version(s)

    def _other(self, other: object) -> tuple:
        if isinstance(other, Version):
            return other._key
        if isinstance(other, str):
            return Version(other)._key
        return NotImplemented  # type: ignore[return-value]

    def __eq__(self, other: object) -> bool:
        key = self._other(other)
        return NotImplemented if key is NotImplemented else self._key == key

    def __lt__(self, other: "Version") -> bool:
        return self._key < self._other(other)

    def __le__(self, other: "Version") -> bool:
        return self._key <= self._other(other)

    def __gt__(self, other: "Version") -> bool:
        return self._key > self._other(other)

    def __ge__(self, other: "Version") -> bool:
        return self._key >= self._other(other)

    def __hash__(self) -> int:
        return hash(self._key)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Version({self._text!r})"


class KernelName(str):
    """The kernel name; `str()` gives it, `.python_name` the module name."""

    @property
    def python_name(self) -> str:
        return self.replace("-", "_")


class KernelVersion:
    @dataclass(frozen=True)
    class Version:
        version: int

    @dataclass(frozen=True, repr=False)
    class Revision:
        revision: str

        def __repr__(self) -> str:
            return f"KernelVersion.Revision(revision={json.dumps(self.revision)})"


@dataclass(frozen=True, repr=False)
class KernelDependency:
    repo_id: str
    version: Union[KernelVersion.Version, KernelVersion.Revision]

    def __repr__(self) -> str:  # strings in double quotes, as upstream's
        return f"KernelDependency(repo_id={json.dumps(self.repo_id)}, version={self.version!r})"


@dataclass(frozen=True)
class GitStatus:
    commit: str
    dirty: bool


@dataclass(frozen=True)
class BackendInfo:
    backend_type: Backend
    archs: Optional[List[str]]


class KernelBuilderProvenance:
    def __init__(self, version: str, git: Optional[GitStatus]):
        self.version = version
        self.git = git


class Provenance:
    def __init__(self, kernel_builder: Optional[KernelBuilderProvenance], kernel: Optional[GitStatus]):
        self.kernel_builder = kernel_builder
        self.kernel = kernel

    @property
    def dirty(self) -> bool:
        return bool((self.kernel and self.kernel.dirty) or
                    (self.kernel_builder and self.kernel_builder.git and self.kernel_builder.git.dirty))


def _git(d: Optional[dict]) -> Optional[GitStatus]:
    return GitStatus(d["commit"], d["dirty"]) if d else None


class Metadata:
    """Parsed metadata.json of one variant (docs/build-output.md)."""

    def __init__(self, data: dict):
        self._d = data

    @staticmethod
    def read_from_file(metadata_path: Union[str, "os.PathLike[str]"]) -> "Metadata":
        return Metadata(_core.read_metadata(os.fspath(metadata_path)))

    @staticmethod
    def from_bytes(bytes: bytes) -> "Metadata":  # noqa: A002 - upstream's parameter name
        return Metadata(_core.parse_metadata(builtins.bytes(bytes)))

    @property
    def id(self) -> str:
        return self._d["id"]

    @property
    def name(self) -> KernelName:
        return KernelName(self._d["name"])

    @property
    def version(self) -> int:
        return self._d["version"]

    @property
    def kernels_minver(self) -> Optional[Version]:
        """The oldest `kernels` that can load this variant (metadata.json `kernels-minver`);
        None for metadata without the key."""
        text = self._d.get("kernels_minver")
        return None if text is None else Version(text)

    @property
    def license(self) -> str:
        return self._d["license"]

    @property
    def upstream(self) -> Optional[str]:
        return self._d["upstream"]

    @property
    def source(self) -> Optional[str]:
        return self._d["source"]

    @property
    def python_depends(self) -> List[str]:
        return list(self._d["python_depends"])

    @property
    def kernel_depends(self) -> List[KernelDependency]:
        out = []
        for dep in self._d["kernel_depends"]:
            if dep["version"] is not None:
                version: Union[KernelVersion.Version, KernelVersion.Revision] = KernelVersion.Version(dep["version"])
            else:
                version = KernelVersion.Revision(dep["revision"])
            out.append(KernelDependency(dep["repo_id"], version))
        return out

    @property
    def backend(self) -> BackendInfo:
        archs = self._d["archs"]
        return BackendInfo(Backend(self._d["backend"]), list(archs) if archs is not None else None)

    @property
    def digest(self) -> Optional[Digest]:
        d = self._d["digest"]
        if d is None:
            return None
        return Digest(DigestAlgorithm(d["algorithm"]), d["files"])

    @property
    def provenance(self) -> Optional[Provenance]:
        p = self._d["provenance"]
        if p is None:
            return None
        kb = p["kernel_builder"]
        builder = KernelBuilderProvenance(kb["version"], _git(kb["git"])) if kb else None
        return Provenance(builder, _git(p["kernel"]))

    def __repr__(self) -> str:
        return f"Metadata(name={self._d['name']!r}, id={self._d['id']!r}, version={self._d['version']})"
