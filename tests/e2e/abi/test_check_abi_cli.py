"""End-to-end tests of `kernel-builder check-abi` (docs/abi-check.md) on small shared objects compiled
here: their imports are chosen to hit each rule."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

VARIANT = "torch211-cxx11-cpu-x86_64-linux"


def _compile(source: str, output: Path):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    c_file = output.with_suffix(".c")
    c_file.write_text(source)
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", str(c_file), "-o", str(output)], check=True)
    c_file.unlink()


def _variant(root: Path, name: str, libraries: dict) -> Path:
    variant = root / "build" / name
    variant.mkdir(parents=True)
    (variant / "metadata.json").write_text('{"version": 1, "license": "MIT", "python-depends": []}')
    for filename, source in libraries.items():
        _compile(source, variant / filename)
    return variant


CLEAN = """
#include <string.h>
extern void *PyLong_FromLong(long);
void *f(const char *s) { return PyLong_FromLong((long)strlen(s)); }
"""
PYTHON_312 = """
extern void *PyType_FromMetaclass(void *, void *, void *, void *);
extern void *_PyObject_GetDictPtr(void *);
void *g(void *o) { _PyObject_GetDictPtr(o); return PyType_FromMetaclass(o, o, o, o); }
"""
NEW_GLIBC = """
extern char __libc_single_threaded;
int single(void) { return __libc_single_threaded; }
"""


def run(kernel_builder, *args):
    return subprocess.run([str(kernel_builder), "check-abi", *args], capture_output=True, text=True)


def test_clean_variant_passes(kernel_builder, tmp_path):
    variant = _variant(tmp_path, VARIANT, {"_ok.abi3.so": CLEAN})
    r = run(kernel_builder, str(tmp_path))
    assert r.returncode == 0, r.stderr
    path = variant / "_ok.abi3.so"
    assert r.stderr.splitlines() == [
        f"🐍 Checking for compatibility with manylinux_2_28 and Python ABI version 3.9: {path}",
        "✅ No compatibility issues found",
    ]


def test_python_abi_violations_fail_and_every_file_is_reported(kernel_builder, tmp_path):
    _variant(tmp_path, VARIANT, {"_bad.abi3.so": PYTHON_312, "_ok.abi3.so": CLEAN})
    r = run(kernel_builder, str(tmp_path))
    assert r.returncode == 1
    assert ("\n⛔ Symbols >= Python ABI 3.9 found:\n\nPyType_FromMetaclass: 3.12\n"
            "\n⛔ Non-ABI3 symbols found:\n\n_PyObject_GetDictPtr\n") in r.stderr
    assert r.stderr.count("🐍 Checking") == 2 and "✅ No compatibility issues found" in r.stderr
    assert r.stderr.rstrip().endswith("error: ABI compatibility issues found")
    # A newer Python ABI target accepts PyType_FromMetaclass; the private symbol stays an error.
    r312 = run(kernel_builder, str(tmp_path), "-p", "3.12")
    assert "PyType_FromMetaclass" not in r312.stderr and "_PyObject_GetDictPtr" in r312.stderr


def test_manylinux_violation(kernel_builder, tmp_path):
    import platform
    libc, version = platform.libc_ver()
    if libc != "glibc" or tuple(int(p) for p in version.split(".")[:2]) < (2, 32):
        pytest.skip("needs glibc >= 2.32 to link __libc_single_threaded")
    _variant(tmp_path, VARIANT, {"_new.abi3.so": NEW_GLIBC})
    r = run(kernel_builder, str(tmp_path), "--json")
    assert r.returncode == 1
    assert ("\n⛔ Symbols incompatible with `manylinux_2_28` found:\n\n__libc_single_threaded@GLIBC_2.32 (libc.so.6)\n"
            "(the oldest policy this file meets: manylinux_2_34)\n") in r.stderr
    report = json.loads(r.stdout)
    assert report["ok"] is False
    assert report["files"][0]["violations"] == [
        {"kind": "manylinux", "symbol": "__libc_single_threaded", "detail": "GLIBC_2.32", "library": "libc.so.6"}]
    assert report["files"][0]["oldest_policy"] == "manylinux_2_34"


def test_unknown_policy_and_missing_variants(kernel_builder, tmp_path):
    _variant(tmp_path, VARIANT, {"_ok.abi3.so": CLEAN})
    r = run(kernel_builder, str(tmp_path), "-m", "manylinux_9_9")
    assert r.returncode == 2 and "Unknown manylinux version: manylinux_9_9" in r.stderr  # a bad flag value
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run(kernel_builder, str(empty))
    assert r.returncode == 1 and "No build variants found" in r.stderr
