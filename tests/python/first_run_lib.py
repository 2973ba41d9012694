"""Helpers of the first-run tests (docs/loader.md): a system pinned to CUDA 12.8 / Torch 2.11 /
x86_64-linux with or without a visible device, so the golden messages do not depend on the
machine, and golden files (refresh: KB_REFRESH_GOLDEN=1 pytest tests/python/test_first_run*.py)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict

import kernels._api
import kernels._system

GOLDEN_DIR = Path(__file__).resolve().parent / "golden" / "first_run"

CPU = "torch211-cxx11-cpu-x86_64-linux"
CU128 = "torch211-cxx11-cu128-x86_64-linux"
ROCM = "torch211-cxx11-rocm70-x86_64-linux"


def pin_system(monkeypatch, *, device_available: bool) -> None:
    """The facade's view of the system, as detection would give it on a CUDA 12.8 machine."""
    real = kernels._system.system_info
    detected = {"name": "cuda", "version": "12.8"}

    def pinned(backend=None, **options) -> Dict[str, object]:
        info = real(backend, **options)
        info.update(cpu="x86_64", os="linux", torch_version="2.11", cxx11=True, tvm_ffi_version="",
                    macos_version="", free_threaded=False, detected_backend="cuda",
                    detected_backend_version="12.8", device_available=device_available)
        info["backend_version"] = "12.8" if info["backend"] == "cuda" else ""
        return info

    monkeypatch.setattr(kernels._system, "detect_backend", lambda: dict(detected))
    monkeypatch.setattr(kernels._api, "detect_backend", lambda: dict(detected))
    monkeypatch.setattr(kernels._system, "system_info", pinned)
    monkeypatch.setattr(kernels._api, "system_info", pinned)


def check_golden(name: str, text: str, **placeholders: str) -> None:
    """Compares `text`, with each placeholder's value replaced by `<NAME>`, to golden/<name>.txt."""
    for key, value in placeholders.items():
        text = text.replace(value, f"<{key.upper()}>")
    path = GOLDEN_DIR / f"{name}.txt"
    if os.environ.get("KB_REFRESH_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with KB_REFRESH_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), f"{path} differs; run with KB_REFRESH_GOLDEN=1 if intended"
