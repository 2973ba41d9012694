"""Portable Linux modules (issue 11) on the session's CPU build of the addone project: by default
the module meets torch 2.11's manylinux_2_28 although this host's glibc is newer; `--no-portable`
links against the host glibc as it is, and the build's note then names each symbol@version, its
library and what it needs; `--manylinux` picks the policy. Relinking only: the objects are reused."""
import platform
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import run_build  # noqa: E402

pytestmark = pytest.mark.slow


def _glibc_at_least(major: int, minor: int) -> bool:
    libc, version = platform.libc_ver()
    return libc == "glibc" and tuple(int(p) for p in version.split(".")[:2]) >= (major, minor)


def _check_abi(kernel_builder, project, policy="manylinux_2_28"):
    return subprocess.run([str(kernel_builder), "check-abi", str(project), "-m", policy], capture_output=True, text=True)


def test_portable_by_default_and_native_on_request(cpu_build, cpu_variant, kernel_builder, kb_python):
    if not _glibc_at_least(2, 32):
        pytest.skip("this host's glibc is not newer than manylinux_2_28's in the way that matters here")
    project = cpu_build["project"]
    args = ("--variant", cpu_variant, "--unique-id", "e2ea")
    module = next((project / "build" / cpu_variant).glob("*.so"))
    # Default: portable. glibc 2.34 moved pthread/dl into libc; older systems need these named.
    assert _check_abi(kernel_builder, project).returncode == 0
    needed = subprocess.run(["readelf", "-d", str(module)], capture_output=True, text=True).stdout
    assert "[libpthread.so.0]" in needed and "[libdl.so.2]" in needed

    native = run_build(kernel_builder, project, kb_python, *args, "--no-portable")
    assert (f"note: {cpu_variant}: is not within manylinux_2_28 (__libc_single_threaded@GLIBC_2.32 (libc.so.6)): "
            "it loads here, but not on every manylinux_2_28 system; release builds (--bundle) fail on this") \
        in native.stderr
    check = _check_abi(kernel_builder, project)
    assert check.returncode == 1
    assert "__libc_single_threaded@GLIBC_2.32 (libc.so.6)\n(the oldest policy this file meets: manylinux_2_34)" \
        in check.stderr
    # The same native module is within manylinux_2_34, and a build for that policy says nothing.
    assert _check_abi(kernel_builder, project, "manylinux_2_34").returncode == 0
    newer = run_build(kernel_builder, project, kb_python, *args, "--no-portable", "--manylinux", "manylinux_2_34")
    assert "is not within" not in newer.stderr

    # Back to the default: portable again (and the session's project as the other tests left it).
    run_build(kernel_builder, project, kb_python, *args)
    assert _check_abi(kernel_builder, project).returncode == 0
