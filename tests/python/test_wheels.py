"""The wheels of scripts/build-wheels (docs/install.md): each is tagged and checked for its manylinux
policy, and both install into a fresh virtual environment that has neither the repository nor its
build tree on any path, where the programs and the loader run the quickstart end to end: init, a
CPU build, a local Hub, upload, get_kernel.

scripts/test builds the wheels (from the very build directory the other tests use) before pytest.
A run without them (a developer's `pytest`) skips this file unless KB_REQUIRE_WHEELS=1, which
scripts/test sets, so that CI cannot pass without the wheels."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("KB_WHEELS_DIR", REPO_ROOT / "dist"))
POLICY = "manylinux_2_28"
# The shared libraries a manylinux binary may name (the policy's own list holds a few more that
# nothing here needs).
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libgcc_s.so.1",
                    "ld-linux-x86-64.so.2"}
PYTHON_TAG = f"cp{sys.version_info[0]}{sys.version_info[1]}"


def _wheel(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    if not found:
        if os.environ.get("KB_REQUIRE_WHEELS") == "1":
            pytest.fail(f"no {pattern} in {DIST}: scripts/build-wheels did not run or failed")
        pytest.skip(f"no {pattern} in {DIST} (run scripts/build-wheels)")
    return found[-1]


@pytest.fixture(scope="module")
def loader_wheel() -> Path:
    return _wheel(f"kernels-*-{PYTHON_TAG}-{PYTHON_TAG}-*.whl")


@pytest.fixture(scope="module")
def tools_wheel() -> Path:
    return _wheel("kernel_builder-*-py3-none-*.whl")


def _auditwheel() -> str:
    tool = Path(sys.executable).with_name("auditwheel")
    assert tool.exists(), "auditwheel is in requirements/dev.txt"
    return str(tool)


@pytest.mark.parametrize("which", ["loader", "tools"])
def test_wheel_is_tagged_and_consistent_with_the_policy(which, loader_wheel, tools_wheel):
    wheel = loader_wheel if which == "loader" else tools_wheel
    assert wheel.name.endswith(f"-{POLICY}_x86_64.whl"), wheel.name
    shown = subprocess.run([_auditwheel(), "show", str(wheel)], capture_output=True, text=True, check=True).stdout
    flat = " ".join(shown.split())
    assert f'consistent with the following platform tag: "{POLICY}_x86_64"' in flat or \
        re.search(r'consistent with the following platform tag: "manylinux_2_(1\d|2[0-7])_x86_64"', flat), flat
    assert "external shared libraries" not in flat or "following external shared libraries are required by the wheel: {}" in flat, flat
    # Every ELF file: only system libraries, and no glibc/libstdc++ symbol version above the policy.
    with zipfile.ZipFile(wheel) as archive:
        elves = [name for name in archive.namelist() if archive.read(name)[:4] == b"\x7fELF"]
    assert elves, "the wheel carries its binaries"
    unpacked = Path(wheel.parent / f".check-{wheel.stem}")
    shutil.rmtree(unpacked, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked, members=elves)
    try:
        for name in elves:
            dynamic = subprocess.run(["readelf", "-dW", str(unpacked / name)], capture_output=True, text=True,
                                     check=True).stdout
            needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
            assert needed <= SYSTEM_LIBRARIES, (name, needed - SYSTEM_LIBRARIES)
            symbols = subprocess.run(["objdump", "-T", str(unpacked / name)], capture_output=True, text=True,
                                     check=True).stdout
            too_new = sorted({v for v in re.findall(r"\(GLIBC_(2\.\d+)\)", symbols) if int(v.split(".")[1]) > 28})
            assert not too_new, (name, too_new)
            assert not re.search(r"\((GLIBCXX|CXXABI)_", symbols), (name, "libstdc++ is linked in, not shared")
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory, loader_wheel, tools_wheel):
    """A new environment with only the two wheels installed (pip, no index). torch, which a kernel
    build and a kernel need, comes from the test environment through a .pth line appended after
    the environment's own site-packages, so the wheels' `kernels` wins over any other."""
    root = tmp_path_factory.mktemp("fresh")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--disable-pip-version-check", "--no-index", str(loader_wheel), str(tools_wheel)],
                   check=True, cwd=root)
    install_seconds = time.monotonic() - started
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "zz_test_torch.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {key: value for key, value in os.environ.items()
           if key not in {"PYTHONPATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "KERNELS_CACHE", "LOCAL_KERNELS"}}
    env["PATH"] = f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin"
    env["HF_HUB_CACHE"] = str(root / "cache")
    print(f"pip install of the two wheels: {install_seconds:.1f} s")
    return {"venv": venv, "root": root, "env": env, "install_seconds": install_seconds}


def _run(args, env, cwd, timeout=300):
    result = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{args}: {result.stdout}\n{result.stderr}"
    return result


def test_programs_and_core_run_from_the_fresh_environment(fresh_venv):
    venv, env, cwd = fresh_venv["venv"], fresh_venv["env"], fresh_venv["root"]
    assert shutil.which("kernel-builder", path=env["PATH"]) == str(venv / "bin" / "kernel-builder")
    version = _run(["kernel-builder", "--version"], env, cwd).stdout
    assert version.startswith("kernel-builder "), version
    assert "Usage: kernel-hub" in _run(["kernel-hub", "--help"], env, cwd).stdout
    where = _run([str(venv / "bin" / "python"), "-c",
                  "import kernels, kernels._core; print(kernels.__file__); print(kernels._core.__file__)"], env, cwd).stdout
    for line in where.splitlines():
        assert line.startswith(str(venv)), where
    # The programs need no library of the build machine: ldd finds everything on the system.
    ldd = _run(["ldd", str(venv / "bin" / "kernel-builder")], env, cwd).stdout
    assert "not found" not in ldd and "libcurl" not in ldd and "libstdc++" not in ldd, ldd
    assert fresh_venv["install_seconds"] < 60, fresh_venv["install_seconds"]


def test_uv_tool_install_puts_the_programs_on_path(tmp_path, tools_wheel):
    uv = Path(sys.executable).with_name("uv")
    if not uv.exists():
        pytest.skip("uv is not in the test environment (scripts/install-deps installs it when it can)")
    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env.update(UV_TOOL_DIR=str(tmp_path / "tools"), UV_TOOL_BIN_DIR=str(tmp_path / "bin"), UV_NO_CACHE="1")
    _run([str(uv), "tool", "install", "--no-index", "--python", sys.executable, str(tools_wheel)], env, tmp_path)
    for program, expected in (("kernel-builder", "kernel-builder "), ("kernel-hub", "kernel-hub ")):
        assert (tmp_path / "bin" / program).exists(), sorted(p.name for p in (tmp_path / "bin").iterdir())
        assert _run([str(tmp_path / "bin" / program), "--version"], env, tmp_path).stdout.startswith(expected)


@pytest.mark.slow
def test_quickstart_from_the_wheels(fresh_venv):
    """The README's quickstart, verbatim, with only the fresh environment's programs and Python
    first on PATH (tests/e2e/test_readme_quickstart.py runs it from the build tree elsewhere)."""
    sys.path.insert(0, str(REPO_ROOT / "tests" / "e2e"))
    try:
        from test_readme_quickstart import run_quickstart
    finally:
        sys.path.pop(0)
    venv, root = fresh_venv["venv"], fresh_venv["root"]
    work = root / "quickstart"
    work.mkdir()
    started = time.monotonic()
    run_quickstart([venv / "bin"], work, fresh_venv["env"])
    # The programs and `python` come from the fresh environment: its env's PATH is that
    # environment's bin folder and the system's, nothing of the build tree (fresh_venv).
    assert (work / "my-kernel" / "build").is_dir()
    print(f"quickstart from the wheels: {time.monotonic() - started:.1f} s "
          f"(after a {fresh_venv['install_seconds']:.1f} s install)")
