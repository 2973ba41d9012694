"""Portable Linux modules (docs/building.md) on the session's CPU build of the addone project: by default
the module meets torch 2.11's manylinux_2_28 although this host's glibc is newer; `--no-portable`
links against the host glibc as it is, and the build's note then names each symbol@version, its
library and what it needs; `--manylinux` picks the policy. Relinking only: the objects are reused."""
import platform
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, import_check_script, run_build  # noqa: E402

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
    # The module's own copies of what older systems lack are hidden: it exports none of libstdc++'s
    # names, and the builder's generated source compiles without a warning.
    exported = subprocess.run(["nm", "-D", "--defined-only", str(module)], capture_output=True, text=True).stdout
    assert "_ZSt28__throw_bad_array_new_lengthv" not in exported and " __libc_single_threaded" not in exported
    log = (project / "build" / ".kb" / cpu_variant / "build.log").read_text()
    assert "kb_portable.cpp" in log and "warning:" not in log, log

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


def test_gcc13_iostream_reference_stays_within_the_policy(tmp_path, kernel_builder, kb_python, cpu_variant):
    """GCC >= 13's <iostream> makes every unit reference std::ios_base_library_init (only
    libstdc++ >= GLIBCXX_3.4.32 has it) instead of constructing a static ios_base::Init. The
    portable build defines it in the module (and initializes the streams itself), so the module
    stays within manylinux_2_28 and needs nothing newer from libstdc++. The unit below makes the
    same reference as GCC 13's header, so this host's GCC shows what a GCC 13 host would do."""
    project = copy_fixture("addone", tmp_path)
    source = project / "addone_cpu" / "addone_cpu.cpp"
    source.write_text(source.read_text() + '\n__asm__(".globl _ZSt21ios_base_library_initv");\n'
                      "#include <iostream>\n"
                      'void addone_say_hello() { std::cout << "hello from addone" << std::endl; }\n')
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "e2eios")
    module = next((project / "build" / cpu_variant).glob("*.so"))
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(module)], capture_output=True, text=True).stdout
    assert "ios_base_library_init" not in undefined, undefined
    assert _check_abi(kernel_builder, project).returncode == 0
    # The module loads and runs with the streams initialized.
    code = import_check_script(project / "build" / cpu_variant, "_addone_cpu_e2eios") + (
        "import torch\n"
        "out = module.addone(torch.zeros(3))\n"
        "assert out.tolist() == [1.0, 1.0, 1.0]\n"
    )
    result = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
