"""The C++ runtime of a built module: it must be the process's shared libstdc++, since torch
catches the exceptions that TORCH_CHECK throws inside the module. A compiler set-up that links
libstdc++.a into shared objects (seen on a GPU machine: a gcc driver whose -B directory holds only
the archive, plus -Bsymbolic) made every raising op crash the process there, and truncates error
messages here."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, import_check_script, shape_error_script  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[3]
IMPORT_CHECK = REPO_ROOT / "src" / "builder" / "scripts" / "import_check.py"
THROWING_SOURCE = """
#include <sstream>
#include <stdexcept>
extern "C" int kb_throw(int value) {
  std::ostringstream text;
  text << value;
  if (value) throw std::runtime_error(text.str());
  return 0;
}
"""


def _compiler() -> str:
    found = shutil.which("g++")
    if found is None:
        pytest.skip("g++ not available")
    return found


def _static_runtime_wrapper(directory: Path) -> Path:
    """A C++ compiler that, like the GPU machine's, links libstdc++ statically and binds symbols
    inside the shared object."""
    wrapper = directory / "g++-static-runtime"
    wrapper.write_text(f'#!/bin/sh\nexec {_compiler()} "$@" -static-libstdc++ -Wl,-Bsymbolic\n')
    wrapper.chmod(0o755)
    return wrapper


@pytest.mark.slow
def test_static_runtime_compiler_still_gives_shared_libstdcxx(tmp_path, kernel_builder, kb_python, cpu_variant):
    project = copy_fixture("addone", tmp_path)
    env = {**os.environ, "CXX": str(_static_runtime_wrapper(tmp_path))}
    # Without the header cache: this compiler (a wrapper in tmp_path) would need a header cache
    # entry of its own, which takes longer to build than the fixture's two sources.
    command = [str(kernel_builder), "build", str(project), "--python", str(kb_python), "--variant", cpu_variant,
               "--unique-id", "srt", "--no-header-cache"]
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    variant = project / "build" / cpu_variant
    library = variant / "_addone_cpu_srt.abi3.so"
    log = (project / "build" / ".kb" / cpu_variant / "build.log").read_text()
    assert "g++-static-runtime" in log  # the wrapper really compiled and linked the module
    dynamic = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True).stdout
    assert "libstdc++.so.6" in dynamic
    code = import_check_script(variant, "_addone_cpu_srt") + (
        "import torch\n"
    ) + shape_error_script("module.addone(torch.randn(4), out=torch.empty(3))") + (
        "print('ok')\n"
    )
    run = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True, cwd="/")
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def _variant_dir_with(tmp_path: Path, *link_flags: str) -> Path:
    variant = tmp_path / "variant"
    variant.mkdir()
    (variant / "__init__.py").write_text("")
    source = tmp_path / "throw.cpp"
    source.write_text(THROWING_SOURCE)
    subprocess.run([_compiler(), "-shared", "-fPIC", str(source), "-o", str(variant / "_throw.abi3.so"),
                    *link_flags], check=True)
    return variant


def test_import_check_rejects_a_private_cxx_runtime(tmp_path, kb_python):
    variant = _variant_dir_with(tmp_path, "-static-libstdc++")
    result = subprocess.run([str(kb_python), str(IMPORT_CHECK), str(variant), "_throw_x"],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "_throw.abi3.so contains its own copy of libstdc++" in result.stderr
    assert "-static-libstdc++" in result.stderr


def test_import_check_accepts_the_shared_cxx_runtime(tmp_path, kb_python):
    variant = _variant_dir_with(tmp_path)
    result = subprocess.run([str(kb_python), str(IMPORT_CHECK), str(variant), "_throw_x"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
