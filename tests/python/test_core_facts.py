"""Facts the Python facade asks the C++ core for instead of keeping a copy (one owner
per fact): the backend list, version prefixes and the compute string of variant names, the `v<N>`
branch and its "not found" text, the digest mismatch text. Each test picks an input where a
Python copy of the rule would answer differently, or proves the facade follows the core."""
from __future__ import annotations

import importlib.util
import sys

import pytest

import kernels._metadata
import kernels._system
from kernels import _core


def _info(backend: str, version: str) -> dict:
    return {"backend": backend, "backend_version": version, "cpu": "x86_64", "os": "linux"}


def test_compute_string_is_the_variant_name_rule():
    # The variant-name rule reads "12.08" as CUDA 12.8 (`cu128`); dropping the dot would give cu1208.
    assert kernels._system.compute_string(_info("cuda", "12.08")) == "cu128"
    assert kernels._system.compute_string(_info("rocm", "7.1")) == "rocm71"
    assert kernels._system.compute_string(_info("xpu", "2025.3")) == "xpu20253"
    assert kernels._system.compute_string(_info("cann", "8.0")) == "cann80"
    assert kernels._system.compute_string(_info("cuda", "")) == "cuda"
    assert kernels._system.compute_string(_info("metal", "")) == "metal"
    parsed = _core.parse_variant_name("torch211-cxx11-cu128-x86_64-linux")
    assert parsed["backend_str"] == kernels._system.compute_string(_info("cuda", "12.8"))


def test_major_minor_is_the_core_prefix_rule():
    assert kernels._system._major_minor("2.11.0+cu130") == "2.11"
    assert kernels._system._major_minor("7.1.25424-1a2b") == "7.1"
    assert kernels._system._major_minor("12") == "12.0"
    assert kernels._system._major_minor("007.01") == "7.1"  # as the core reads it back, not "007.01"
    assert kernels._system._major_minor("") == ""
    assert kernels._system._major_minor("rc1") == ""


def test_backend_enum_is_the_core_list():
    Backend = kernels._metadata.Backend
    assert [(member.name, member.value) for member in Backend] == [tuple(pair) for pair in _core.backends()]
    assert [member.name for member in Backend] == ["CANN", "CPU", "CUDA", "Metal", "Neuron", "ROCm", "TPU", "XPU"]
    assert Backend("rocm") is Backend.ROCm and str(Backend.CUDA) == "cuda"
    import kernels_data
    assert kernels_data.Backend is Backend


def test_backend_enum_follows_a_new_core_backend(monkeypatch):
    # A fresh copy of the module, built while the core lists one more backend: it appears.
    monkeypatch.setattr(_core, "backends", lambda: [("CPU", "cpu"), ("Example", "example")])
    spec = importlib.util.spec_from_file_location("kernels._metadata_probe", kernels._metadata.__file__)
    probe = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, probe)  # dataclasses look their module up
    spec.loader.exec_module(probe)
    assert [member.value for member in probe.Backend] == ["cpu", "example"]
    assert str(probe.Backend.Example) == "example"


def test_version_branch_and_not_found_text():
    assert _core.version_branch(3) == "v3"
    assert _core.version_not_found(3, [(1, "a" * 40), (2, "b" * 40)]) == \
        "Version 3 not found, available versions: 1, 2"
    assert _core.version_not_found(1, []) == "Version 1 not found, available versions: "


def test_digest_validation_error_text():
    from kernels.verify import DigestViolation

    violations = [DigestViolation.MissingFile("a.py"), DigestViolation.UnknownFile("b.py")]
    error = kernels._metadata.DigestValidationError(violations)
    assert str(error) == "kernel does not match the expected digest:\nMissing file: a.py\nUnknown file: b.py"
    assert str(error) == _core.digest_mismatch_message([str(v) for v in error.violations])
    assert error.violations == violations


def test_digest_violations_are_upstreams_classes_with_the_cores_texts():
    from kernels._metadata import Digest, DigestAlgorithm
    from kernels.verify import DigestValidationError, DigestViolation

    expected = Digest(DigestAlgorithm.SHA256, {"a.py": "h1", "b.py": "h2"})
    with pytest.raises(DigestValidationError) as e:
        expected.validate(Digest(DigestAlgorithm.SHA512, {"a.py": "h9", "c.py": "h3"}))
    assert e.value.violations == [
        DigestViolation.AlgorithmMismatch(DigestAlgorithm.SHA256, DigestAlgorithm.SHA512),
        DigestViolation.HashMismatch("a.py", "h1", "h9"),
        DigestViolation.MissingFile("b.py"),
        DigestViolation.UnknownFile("c.py"),
    ]
    assert [str(v) for v in e.value.violations] == [
        "Algorithm mismatch: expected: SHA256, got: SHA512",
        "File hash mismatch for a.py: expected: h1, got: h9",
        "Missing file: b.py",
        "Unknown file: c.py",
    ]
    match e.value.violations[1]:
        case DigestViolation.HashMismatch(path, want, got):
            assert (path, want, got) == ("a.py", "h1", "h9")
        case _:
            pytest.fail("HashMismatch does not match its pattern")
    assert isinstance(e.value.violations[2], DigestViolation)



class _FakeCudart:
    """libcudart as ctypes sees it: each function writes its int and returns 0 (cudaSuccess)."""

    def __init__(self, values: dict):
        self._values = values

    def __getattr__(self, function: str):
        def call(pointer):
            pointer._obj.value = self._values[function]
            return 0
        return call


def test_cuda_runtime_without_torch(monkeypatch):
    # Without torch the CUDA version and device count come from libcudart (docs/loader.md).
    loaded = []

    def cdll(name):
        loaded.append(name)
        if name != "libcudart.so.12":
            raise OSError(name)
        return _FakeCudart({"cudaRuntimeGetVersion": 12080, "cudaGetDeviceCount": 2})

    monkeypatch.setattr(kernels._system, "_torch", lambda: None)
    monkeypatch.setattr(kernels._system.ctypes, "CDLL", cdll)
    assert kernels._system.detect_backend() == {"name": "cuda", "version": "12.8"}
    assert loaded == ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]
    assert kernels._system.device_available("cuda") is True
    monkeypatch.setattr(kernels._system.ctypes, "CDLL", lambda name: (_ for _ in ()).throw(OSError(name)))
    assert kernels._system.detect_backend() == {"name": "cpu", "version": ""}
    assert kernels._system.device_available("cuda") is False
