"""`kernel-builder check-abi` on tiny shared objects compiled here with chosen symbol versions
(`.symver`), DT_NEEDED entries and run paths (docs/building.md): exactly the expected violations under
several manylinux policies, and the report text (golden)."""
import json
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
ARCH = platform.machine()
VARIANT = f"torch211-cxx11-cpu-{ARCH}-linux"

pytestmark = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                                reason="needs a glibc system (ELF symbol versions)")


def _compiler() -> str:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    return compiler


def _compile(source: str, output: Path, *flags: str) -> Path:
    c_file = output.with_suffix(".c")
    c_file.write_text(source)
    subprocess.run([_compiler(), "-shared", "-fPIC", "-O1", str(c_file), "-o", str(output), *flags], check=True)
    c_file.unlink()
    return output


def _pinned(symbol: str, version: str) -> str:
    """C source of a module whose only libc reference is `symbol@version`."""
    return (f'__asm__(".symver {symbol},{symbol}@{version}");\n'
            f"extern int {symbol}();\n"
            f"void *use(void) {{ return (void *){symbol}; }}\n")


def _variant(root: Path) -> Path:
    variant = root / "build" / VARIANT
    variant.mkdir(parents=True)
    (variant / "metadata.json").write_text('{"version": 1, "license": "MIT", "python-depends": []}')
    return variant


def check(kernel_builder, root: Path, policy: str):
    r = subprocess.run([str(kernel_builder), "check-abi", str(root), "-m", policy, "--json"],
                       capture_output=True, text=True)
    report = json.loads(r.stdout) if r.stdout.strip() else None
    return r, report


def test_pthread_create_2_34_fails_2_28_and_passes_2_34(kernel_builder, tmp_path):
    variant = _variant(tmp_path)
    _compile(_pinned("pthread_create", "GLIBC_2.34"), variant / "_threads.abi3.so")
    for policy in ("manylinux_2_28", "manylinux_2_31", "manylinux2014"):
        r, report = check(kernel_builder, tmp_path, policy)
        assert r.returncode == 1, (policy, r.stderr)
        violations = report["files"][0]["violations"]
        assert violations == [{"kind": "manylinux", "symbol": "pthread_create", "detail": "GLIBC_2.34",
                               "library": "libc.so.6"}], policy
        assert report["files"][0]["oldest_policy"] == "manylinux_2_34"
    for policy in ("manylinux_2_34", "manylinux_2_35", "manylinux_2_39"):
        r, report = check(kernel_builder, tmp_path, policy)
        assert r.returncode == 0, (policy, r.stderr)
        assert report["files"][0]["violations"] == [] and "oldest_policy" not in report["files"][0]


def test_old_symbol_version_meets_old_policies(kernel_builder, tmp_path):
    if ARCH != "x86_64":
        pytest.skip("GLIBC_2.2.5 is the x86_64 base version")
    variant = _variant(tmp_path)
    _compile(_pinned("pthread_create", "GLIBC_2.2.5"), variant / "_old.abi3.so")
    for policy in ("manylinux1", "manylinux2010", "manylinux2014", "manylinux_2_28", "manylinux_2_39"):
        r, _ = check(kernel_builder, tmp_path, policy)
        assert r.returncode == 0, (policy, r.stderr)


def test_libraries_and_run_paths(kernel_builder, tmp_path):
    libdir = tmp_path / "lib"
    libdir.mkdir()
    _compile("int foo_answer(void) { return 42; }\n", libdir / "libfoo.so.1", "-Wl,-soname,libfoo.so.1")
    (libdir / "libfoo.so").symlink_to("libfoo.so.1")
    variant = _variant(tmp_path)
    source = "extern int foo_answer(void);\nint use(void) { return foo_answer(); }\n"
    # RPATH (old tags) into the build machine plus an $ORIGIN entry that is fine.
    _compile(source, variant / "_rpath.abi3.so", f"-L{libdir}", "-lfoo", f"-Wl,-rpath,{libdir}:$ORIGIN/lib",
             "-Wl,--disable-new-dtags")
    r, report = check(kernel_builder, tmp_path, "manylinux_2_28")
    assert r.returncode == 1
    assert report["files"][0]["violations"] == [
        {"kind": "library", "symbol": "libfoo.so.1", "detail": ""},
        {"kind": "run-path", "symbol": str(libdir), "detail": "RPATH"},
    ]
    # Only $ORIGIN-relative RUNPATH entries: the library is still reported, the run path is not.
    (variant / "_rpath.abi3.so").unlink()
    _compile(source, variant / "_origin.abi3.so", f"-L{libdir}", "-lfoo", "-Wl,-rpath,$ORIGIN/../lib",
             "-Wl,--enable-new-dtags")
    r, report = check(kernel_builder, tmp_path, "manylinux_2_34")
    assert [v["kind"] for v in report["files"][0]["violations"]] == ["library"]
    # The framework's runtime libraries are allowed: a module naming libtorch_cpu.so / libcudart.so.13.
    (variant / "_origin.abi3.so").unlink()
    for name in ("libtorch_cpu.so", "libcudart.so.13"):
        _compile("int rt(void) { return 1; }\n", libdir / name, f"-Wl,-soname,{name}")
    _compile("int use(void) { return 0; }\n", variant / "_torch.abi3.so", f"-L{libdir}",
             "-Wl,--no-as-needed", "-l:libtorch_cpu.so", "-l:libcudart.so.13")
    r, report = check(kernel_builder, tmp_path, "manylinux_2_28")
    assert r.returncode == 0, r.stderr


def test_report_text(kernel_builder, tmp_path):
    """Golden: symbol@version (library), the oldest policy met, libraries, run paths."""
    libdir = tmp_path / "lib"
    libdir.mkdir()
    _compile("int foo_answer(void) { return 42; }\n", libdir / "libfoo.so.1", "-Wl,-soname,libfoo.so.1")
    variant = _variant(tmp_path)
    source = _pinned("pthread_create", "GLIBC_2.34") + "extern int foo_answer(void);\nint f(void) { return foo_answer(); }\n"
    _compile(source, variant / "_all.abi3.so", f"-L{libdir}", "-l:libfoo.so.1", "-Wl,-rpath,/opt/build-machine/lib",
             "-Wl,--enable-new-dtags")
    r = subprocess.run([str(kernel_builder), "check-abi", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1
    text = r.stderr.replace(str(tmp_path), "<KERNEL>").replace(VARIANT, "<VARIANT>")
    assert text == (GOLDEN / "portable-report.txt").read_text()
