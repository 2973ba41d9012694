"""The shared torch header cache (src/builder/torch_pch.h) on a CPU kernel: its entry is built once
in $XDG_CACHE_HOME, in the background while the first build compiles without it, and shared by a
second project, the sources are really compiled with it (GCC
reports a precompiled header it cannot use under -Winvalid-pch), ccache accepts it, and the module
exports exactly the symbols of one built without it. Only sources that reach <torch/torch.h> (the
precompiled header) through a prologue of torch headers use it: a source whose torch headers never
reach it would get the rest of torch in front of it (other symbols), so the first project mixes
both kinds."""
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, run_build  # noqa: E402

pytestmark = pytest.mark.slow


def exported_symbols(module: Path) -> list:
    out = subprocess.run(["nm", "-D", "--defined-only", str(module)], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def precompiler_pids(temporary: Path) -> list:
    """The processes compiling the header cache entry being built in `temporary` (their command
    line names its output there)."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"c++-header" in words and any(str(temporary).encode() in word for word in words):
            pids.append(int(cmdline.parent.name))
    return pids


def entries(cache_home: Path) -> list:
    return sorted((cache_home / "kernel-builder" / "torch-pch").glob("*/torch_pch.h.gch"))


def wait_for_background_precompile(cache_home: Path, timeout: float = 900) -> None:
    """Waits until no background precompile holds an entry's lock (it runs in the idle scheduling
    class: on a machine busy with other builds it waits for idle cores)."""
    deadline = time.monotonic() + timeout
    for lock in (cache_home / "kernel-builder" / "torch-pch").glob("*.lock"):
        with open(lock, "a") as f:
            while True:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    assert time.monotonic() < deadline, f"the background precompile still holds {lock}"
                    time.sleep(0.5)


@pytest.fixture()
def cache_env(tmp_path, monkeypatch):
    """A user cache of the test's own, and its own per-user precompile lock: the test waits for its
    entry alone, never behind another test's background precompile."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "run").mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "ccache"))
    return tmp_path / "xdg"


def mixed_project(root: Path) -> Path:
    """The addone fixture with <torch/torch.h> after its kernel source's first include (a prologue
    of torch headers that reaches it); the binding starts with <torch/library.h>, the builder's
    registration.h and a header that declares with ATen's Tensor only (it never reaches it)."""
    project = copy_fixture("addone", root)
    kernel = project / "addone_cpu" / "addone_cpu.cpp"
    assert kernel.read_text().startswith("#include <ATen/core/Tensor.h>\n")
    kernel.write_text(kernel.read_text().replace("#include <ATen/core/Tensor.h>\n",
                                                 "#include <ATen/core/Tensor.h>\n#include <torch/torch.h>\n", 1))
    assert (project / "torch-ext" / "torch_binding.cpp").read_text().startswith("#include <torch/library.h>")
    return project


def served_project(root: Path) -> Path:
    """The mixed project whose binding header includes <torch/torch.h>: both sources reach it."""
    project = mixed_project(root)
    header = project / "torch-ext" / "torch_binding.h"
    header.write_text(header.read_text().replace("#include <ATen/core/Tensor.h>", "#include <torch/torch.h>", 1))
    return project


def compile_commands(project: Path, variant: str) -> list:
    work = project / "build" / ".kb" / variant
    return subprocess.run(["ninja", "-C", str(work / "cmake-build"), "-t", "commands"],
                          capture_output=True, text=True, check=True).stdout.splitlines()


def test_header_cache_is_shared_used_only_by_torch_h_sources_and_symbol_identical(tmp_path, cache_env, kernel_builder,
                                                                                   kb_python, cpu_variant):
    if shutil.which("ccache") is None:
        pytest.skip("ccache not installed")
    one = mixed_project(tmp_path / "one")
    work = one / "build" / ".kb" / cpu_variant
    # The first build, with the cache cold and a typo in the binding: it does not wait for the
    # entry (the in-tree header stays empty, nothing is linked to it), compiles every source
    # without it while the entry is precompiled in the background, and reports the failure.
    binding = one / "torch-ext" / "torch_binding.cpp"
    good_binding = binding.read_text()
    binding.write_text(good_binding + "\nint broken_on_purpose = ;\n")
    result = run_build(kernel_builder, one, kb_python, "--variant", cpu_variant, "--unique-id", "pch1",
                       "--cores", "2", check=False)
    assert result.returncode == 1, result.stderr
    assert "precompiling the torch headers into the header cache in the background" in result.stderr
    assert "compilation failed" in result.stderr and "torch_binding.cpp:" in result.stderr, result.stderr
    pch = str(work / "torch-pch" / "torch_pch.h")
    assert Path(pch).read_text() == "// kernel-builder's torch header cache is not used.\n"
    assert not os.path.lexists(pch + ".gch")
    log = (work / "build.log").read_text()
    assert "compiling without it while it is precompiled in the background" in log
    assert len([line for line in log.splitlines() if line.startswith("$ ninja ")]) == 1
    wait_for_background_precompile(cache_env)
    assert len(entries(cache_env)) == 1
    assert (entries(cache_env)[0].parent / "command").read_text().count("c++-header") == 1

    # The next build finds the entry, but recompiles only the binding, which does not use it: the
    # build directory stays without the cache (switching would recompile the source that uses it).
    # Its new ops id renames the module: CMake runs again first, before the builder asks Ninja which
    # objects the build recompiles (a dry run stops after a pending re-run of CMake).
    binding.write_text(good_binding)
    result = run_build(kernel_builder, one, kb_python, "--variant", cpu_variant, "--unique-id", "pch2")
    assert "precompiling the torch headers" not in result.stderr
    assert Path(pch).read_text() == "// kernel-builder's torch header cache is not used.\n"
    assert not os.path.lexists(pch + ".gch")
    # An edit of the source that uses it: that source fits in one wave of compile jobs, so the
    # build directory switches to the cache.
    kernel = one / "addone_cpu" / "addone_cpu.cpp"
    kernel.write_text(kernel.read_text() + "\n// edited\n")
    result = run_build(kernel_builder, one, kb_python, "--variant", cpu_variant, "--unique-id", "pch1")
    assert len(entries(cache_env)) == 1

    commands = compile_commands(one, cpu_variant)
    users = [c for c in commands if f"-include {pch}" in c]
    # The source that reaches <torch/torch.h> compiles with the precompiled header; the one whose
    # torch headers never reach it does not (it would get all of torch in front of it).
    assert len(users) == 1 and "addone_cpu.cpp" in users[0], commands
    assert any("torch_binding.cpp" in c for c in commands) and not any("torch_binding.cpp" in c for c in users)
    assert os.path.realpath(pch + ".gch") == str(entries(cache_env)[0])
    log = (work / "build.log").read_text()
    assert "not used because" not in log and "invalid-pch" not in log, log
    # ccache compiled them, the one with the precompiled header too (sloppiness set by the builder).
    stats = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True, check=True).stdout
    counters = dict(line.split("\t")[:2] for line in stats.splitlines() if "\t" in line)
    assert int(counters.get("could_not_use_precompiled_header", "0")) == 0, stats
    assert int(counters.get("cache_miss", "0")) >= 2, stats

    # A second project with the same toolchain and flags reuses the entry; its binding reaches
    # <torch/torch.h> through the builder's registration.h and its own header, so both use it.
    two = served_project(tmp_path / "two")
    result = run_build(kernel_builder, two, kb_python, "--variant", cpu_variant, "--unique-id", "pch1", "--no-cache")
    assert "precompiling the torch headers" not in result.stderr
    assert len(entries(cache_env)) == 1
    pch_two = str(two / "build" / ".kb" / cpu_variant / "torch-pch" / "torch_pch.h")
    assert len([c for c in compile_commands(two, cpu_variant) if f"-include {pch_two}" in c]) == 2
    with_cache = exported_symbols(two / "build" / cpu_variant / "_addone_cpu_pch1.abi3.so")

    # The same project without the header cache: same exported symbols.
    shutil.rmtree(two / "build")
    run_build(kernel_builder, two, kb_python, "--variant", cpu_variant, "--unique-id", "pch1", "--no-cache",
              "--no-header-cache")
    assert not any("torch_pch.h" in c for c in compile_commands(two, cpu_variant))
    without_cache = exported_symbols(two / "build" / cpu_variant / "_addone_cpu_pch1.abi3.so")
    assert with_cache == without_cache
    assert "addone" in " ".join(with_cache) or "PyInit__addone_cpu_pch1" in with_cache


def test_background_precompile_waits_its_turn_per_user_and_runs_in_the_normal_class_after_the_build(
        tmp_path, cache_env, monkeypatch, kernel_builder, kb_python, cpu_variant):
    """At most one background precompile per user compiles at a time: with the per-user lock held
    elsewhere, the fill waits in a sleeping shell (no compiler started, the entry's lock held) and
    starts its compiler once it is released. The build that started it has ended by then, so the
    compiler runs in the normal class at nice 0, not the idle class nor nice 19 (which a busy
    machine starves)."""
    runtime = tmp_path / "run"
    machine_lock = runtime / "kernel-builder" / "precompile.lock"
    machine_lock.parent.mkdir()
    project = mixed_project(tmp_path / "one")
    with open(machine_lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "pch2",
                           "--no-cache")
        assert "precompiling the torch headers into the header cache in the background" in result.stderr
        root = cache_env / "kernel-builder" / "torch-pch"
        (temporary,) = root.glob("*.tmp-*")
        deadline = time.monotonic() + 60
        while "waiting for the per-user precompile lock" not in (temporary / "schedule").read_text() if (
                temporary / "schedule").exists() else True:
            assert time.monotonic() < deadline, "the background precompile did not start"
            time.sleep(0.2)
        assert not (temporary / "precompile.log").exists(), "a compiler started without the per-user lock"
        (lock,) = root.glob("*.lock")
        with open(lock, "a") as f, pytest.raises(BlockingIOError):
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert entries(cache_env) == []
    # Released, the fill starts its compiler: in the normal class at nice 0, the build having ended.
    deadline = time.monotonic() + 60
    while True:
        schedule = (temporary / "schedule").read_text().splitlines()
        compilers = precompiler_pids(temporary)
        if len(schedule) == 2 and compilers:
            break
        assert time.monotonic() < deadline, ("the precompile did not start its compiler", schedule)
        time.sleep(0.2)
    assert schedule[0] == "waiting for the per-user precompile lock", schedule
    assert re.fullmatch(r"normal class, nice 0: build \d+ has ended", schedule[1]), schedule
    for pid in compilers:
        assert os.sched_getscheduler(pid) == os.SCHED_OTHER and os.getpriority(os.PRIO_PROCESS, pid) == 0, pid
    # That the entry then completes is the first test's; this one stops the compile (a minute of a
    # core) and waits for the lock to be released.
    os.killpg(os.getpgid(compilers[0]), signal.SIGKILL)
    wait_for_background_precompile(cache_env, timeout=60)
