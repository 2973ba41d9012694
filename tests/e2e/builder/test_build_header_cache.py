"""The shared torch header cache (src/builder/torch_pch.h) on a CPU kernel: its entry is built once
in $XDG_CACHE_HOME and shared by a second project, the sources are really compiled with it (GCC
reports a precompiled header it cannot use under -Winvalid-pch), ccache accepts it, and the module
exports exactly the symbols of one built without it. Only sources whose first include is
<torch/torch.h> (the precompiled header) use it: the addone fixture as it is starts with lighter
torch headers, and the cache would add the rest of torch in front of them (other symbols)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, run_build  # noqa: E402

pytestmark = pytest.mark.slow


def exported_symbols(module: Path) -> list:
    out = subprocess.run(["nm", "-D", "--defined-only", str(module)], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def entries(cache_home: Path) -> list:
    return sorted((cache_home / "kernel-builder" / "torch-pch").glob("*/torch_pch.h.gch"))


@pytest.fixture()
def cache_env(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "ccache"))
    return tmp_path / "xdg"


def torch_h_project(root: Path) -> Path:
    """The addone fixture with both C++ sources starting with <torch/torch.h>."""
    project = copy_fixture("addone", root)
    kernel = project / "addone_cpu" / "addone_cpu.cpp"
    kernel.write_text(kernel.read_text().replace("#include <ATen/core/Tensor.h>", "#include <torch/torch.h>"))
    binding = project / "torch-ext" / "torch_binding.cpp"
    binding.write_text("#include <torch/torch.h>\n" + binding.read_text())
    return project


def test_header_cache_is_shared_used_and_symbol_identical(tmp_path, cache_env, kernel_builder, kb_python, cpu_variant):
    if shutil.which("ccache") is None:
        pytest.skip("ccache not installed")
    one = torch_h_project(tmp_path / "one")
    result = run_build(kernel_builder, one, kb_python, "--variant", cpu_variant, "--unique-id", "pch1")
    assert "precompiling the torch headers into the header cache" in result.stderr
    assert len(entries(cache_env)) == 1

    work = one / "build" / ".kb" / cpu_variant
    commands = subprocess.run(["ninja", "-C", str(work / "cmake-build"), "-t", "commands"],
                              capture_output=True, text=True, check=True).stdout.splitlines()
    pch = str(work / "torch-pch" / "torch_pch.h")
    users = [c for c in commands if f"-include {pch}" in c]
    # Both sources start with a torch include: both compile with the precompiled header.
    assert len(users) == 2 and any("addone_cpu.cpp" in c for c in users), commands
    assert os.path.realpath(pch + ".gch") == str(entries(cache_env)[0])
    log = (work / "build.log").read_text()
    assert "not used because" not in log and "invalid-pch" not in log, log
    # ccache compiled them with the precompiled header (sloppiness set by the builder).
    stats = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True, check=True).stdout
    counters = dict(line.split("\t")[:2] for line in stats.splitlines() if "\t" in line)
    assert int(counters.get("could_not_use_precompiled_header", "0")) == 0, stats
    assert int(counters.get("cache_miss", "0")) >= 2, stats

    # A second project with the same toolchain and flags reuses the entry.
    two = torch_h_project(tmp_path / "two")
    result = run_build(kernel_builder, two, kb_python, "--variant", cpu_variant, "--unique-id", "pch1", "--no-cache")
    assert "precompiling the torch headers" not in result.stderr
    assert len(entries(cache_env)) == 1
    with_cache = exported_symbols(two / "build" / cpu_variant / "_addone_cpu_pch1.abi3.so")

    # The same project without the header cache: same exported symbols.
    shutil.rmtree(two / "build")
    result = run_build(kernel_builder, two, kb_python, "--variant", cpu_variant, "--unique-id", "pch1", "--no-cache",
                       "--no-header-cache")
    commands = subprocess.run(["ninja", "-C", str(two / "build" / ".kb" / cpu_variant / "cmake-build"), "-t", "commands"],
                              capture_output=True, text=True, check=True).stdout
    assert "torch_pch.h" not in commands
    without_cache = exported_symbols(two / "build" / cpu_variant / "_addone_cpu_pch1.abi3.so")
    assert with_cache == without_cache
    assert "addone" in " ".join(with_cache) or "PyInit__addone_cpu_pch1" in with_cache


def test_sources_with_lighter_torch_headers_compile_without_it(tmp_path, cache_env, kernel_builder, kb_python,
                                                               cpu_variant):
    project = copy_fixture("addone", tmp_path / "light")
    assert (project / "addone_cpu" / "addone_cpu.cpp").read_text().startswith("#include <ATen/core/Tensor.h>")
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "pch2", "--no-cache")
    work = project / "build" / ".kb" / cpu_variant
    commands = subprocess.run(["ninja", "-C", str(work / "cmake-build"), "-t", "commands"],
                              capture_output=True, text=True, check=True).stdout
    assert f"-include {work / 'torch-pch' / 'torch_pch.h'}" not in commands, commands
    with_cache = exported_symbols(project / "build" / cpu_variant / "_addone_cpu_pch2.abi3.so")
    shutil.rmtree(project / "build")
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "pch2", "--no-cache",
              "--no-header-cache")
    assert exported_symbols(project / "build" / cpu_variant / "_addone_cpu_pch2.abi3.so") == with_cache
