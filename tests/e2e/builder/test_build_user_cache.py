"""The toolchain probe cache and the CMake compiler identification seeds in the user cache
(src/builder/toolchain.h, src/builder/cmake_seed.h): a second clean build does not run the probe nor
CMake's compiler identification, and builds the same module; a changed interpreter is probed
again; a changed compiler (another CXX, or the same path with other contents) is identified
again. A build without a cached probe compiles on the probe script's guess while the probe runs
(docs/build-engine.md, "The first build on a machine"): the guess equals the probe for every
torch installed here, and a wrong guess is built again on the probe's answer. Observed through a
wrapper interpreter that counts probe runs and through the build log, never through timing."""
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, run_build  # noqa: E402

pytestmark = pytest.mark.slow

IDENTIFICATION = "The CXX compiler identification is"
SEEDED = "compiler identification seeded from"


def write_script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture()
def counting_python(tmp_path, kb_python):
    """An interpreter wrapper that appends a line to probes.txt whenever the toolchain probe runs
    (`import torch`), and to guesses.txt whenever the probe script guesses (its `guess` argument)."""
    counter = tmp_path / "probes.txt"
    wrapper = write_script(tmp_path / "bin" / "python", f"""#!/bin/sh
case "$*" in *cmake_prefix_path*" guess") echo guess >> '{tmp_path / "guesses.txt"}';;
  *cmake_prefix_path*) echo probe >> '{counter}';; esac
exec '{kb_python}' "$@"
""")
    return wrapper, counter


@pytest.fixture(scope="module")
def shared_caches(tmp_path_factory):
    """ccache's directory, shared by this module's tests, and the torch header cache of the
    default user cache, shared with the other build tests (they only make the compile step quick;
    what is tested lives beside them). The header cache is safe to share: its entries are
    keyed by torch, compiler and flags, created atomically under a lock."""
    root = tmp_path_factory.mktemp("shared-caches")
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kernel-builder" / "torch-pch"
    default.mkdir(parents=True, exist_ok=True)
    (root / "torch-pch").symlink_to(default)
    return root


@pytest.fixture()
def user_cache(tmp_path, monkeypatch, shared_caches):
    """A user cache of this test alone, but for the shared torch header cache."""
    cache = tmp_path / "xdg" / "kernel-builder"
    cache.mkdir(parents=True)
    (cache / "torch-pch").symlink_to(shared_caches / "torch-pch")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CCACHE_DIR", str(shared_caches / "ccache"))
    return cache


def probes(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def guesses(counter: Path) -> int:
    return probes(counter.with_name("guesses.txt"))


PROBE_SCRIPT = Path(__file__).resolve().parents[3] / "src" / "builder" / "scripts" / "probe_toolchain.py"


def cache_entries(cmake_build: Path) -> list:
    """CMakeCache.txt entries without comments and the build directory's own paths."""
    lines = (cmake_build / "CMakeCache.txt").read_text().splitlines()
    return sorted(line for line in lines if line and not line.startswith(("#", "//")))


def clean_build(kernel_builder, project: Path, python: Path, variant: str, *args: str) -> Path:
    shutil.rmtree(project / "build", ignore_errors=True)
    run_build(kernel_builder, project, python, "--variant", variant, "--unique-id", "uc1", *args)
    return project / "build" / ".kb" / variant


def configure_only_project(tmp_path: Path) -> Path:
    """The addone fixture with sources that stop the compiler at once: its builds configure, then
    fail in the compile step (enough to see the configure, without compiling torch code)."""
    project = copy_fixture("addone", tmp_path)
    for source in list(project.rglob("*.cpp")) + list(project.rglob("*.cu")):
        source.write_text("#error configure-only test\n")
    return project


def configure(kernel_builder, project: Path, python: Path, variant: str) -> str:
    """A clean build of a configure_only_project; the configure log."""
    shutil.rmtree(project / "build", ignore_errors=True)
    result = run_build(kernel_builder, project, python, "--variant", variant, "--unique-id", "uc1", check=False)
    assert result.returncode != 0 and "configure-only test" in result.stderr, result.stderr
    return (project / "build" / ".kb" / variant / "build.log").read_text()


def module_digest(project: Path, variant: str) -> str:
    module = next((project / "build" / variant).glob("*.abi3.so"))
    return hashlib.sha256(module.read_bytes()).hexdigest()


def test_second_clean_build_reuses_probe_and_identification(tmp_path, user_cache, counting_python, kernel_builder,
                                                            cpu_variant, monkeypatch):
    python, counter = counting_python
    project = copy_fixture("addone", tmp_path)
    # The import check keeps its bytecode in the user cache (torch's too), never in the variant.
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    work = clean_build(kernel_builder, project, python, cpu_variant)
    assert probes(counter) == 1 and guesses(counter) == 1
    assert any((user_cache / "pycache").rglob("torch/__init__.*.pyc"))
    assert not [p for p in (project / "build" / cpu_variant).rglob("*") if p.name == "__pycache__" or p.suffix == ".pyc"]
    log = (work / "build.log").read_text()
    assert IDENTIFICATION in log and SEEDED not in log, log
    # Nothing was cached: the build compiled on the guess, which the probe confirmed.
    assert ("toolchain: compiled on what the interpreters' files say while their probes (`import torch`) ran; "
            f"{python}'s probe agreed (") in log, log
    assert len(list((user_cache / "toolchains").glob("*.json"))) == 1
    assert len(list((user_cache / "cmake-seeds").glob("*.json"))) == 1
    first_entries, first_module = cache_entries(work / "cmake-build"), module_digest(project, cpu_variant)

    ccache = shutil.which("ccache")
    if ccache:
        subprocess.run([ccache, "--zero-stats"], check=True, capture_output=True)
    work = clean_build(kernel_builder, project, python, cpu_variant)
    assert probes(counter) == 1, "the second clean build ran the toolchain probe again"
    assert guesses(counter) == 1, "the second clean build guessed although the probe was cached"
    if ccache:
        # The seeded configure gives the same compile commands: every compile is a ccache hit.
        stats = subprocess.run([ccache, "--print-stats"], capture_output=True, text=True, check=True).stdout
        counters = {k: int(v) for k, v in (line.split("\t")[:2] for line in stats.splitlines() if "\t" in line)
                    if v.isdigit()}
        hits = counters.get("direct_cache_hit", 0) + counters.get("preprocessed_cache_hit", 0)
        assert counters.get("cache_miss", 0) == 0 and hits >= 2, stats
    log = (work / "build.log").read_text()
    assert SEEDED in log and IDENTIFICATION not in log and "toolchain:" not in log, log
    # What CMake knows after a seeded configure is what it found itself, and the module is the same.
    assert cache_entries(work / "cmake-build") == first_entries
    assert module_digest(project, cpu_variant) == first_module

    # A changed interpreter (here: its wrapper) is probed again, then cached again.
    python.write_text(python.read_text() + "# changed\n")
    clean_build(kernel_builder, project, python, cpu_variant)
    assert probes(counter) == 2
    clean_build(kernel_builder, project, python, cpu_variant)
    assert probes(counter) == 2


def test_probe_guess_equals_the_probe(kb_python, torch215_python_if_installed):
    """The probe script's guess (torch's files, no import) reports what its probe reports, for each
    torch installed here (2.11, with tvm_ffi; 2.15): the first build on a machine compiles on it."""
    script = PROBE_SCRIPT.read_text()
    pythons = [kb_python] + ([torch215_python_if_installed] if torch215_python_if_installed else [])
    for python in pythons:
        def run(*args):
            return json.loads(subprocess.run([str(python), "-c", script, *args], capture_output=True, text=True,
                                             check=True, cwd="/").stdout)
        guess, probe = run("guess"), run()
        assert "no_guess" not in guess and "torch_version" in guess, guess
        assert guess == probe, (python, {k: (guess.get(k), probe.get(k)) for k in set(guess) | set(probe)
                                         if guess.get(k) != probe.get(k)})


SITE_FLAG = """import importlib.abc, importlib.util, sys


class _AddFlag(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "torch.utils.cpp_extension":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            module.COMMON_NVCC_FLAGS = module.COMMON_NVCC_FLAGS + ["-DSITE_FLAG"]

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _AddFlag())
"""


def test_wrong_guess_is_built_again_on_the_probe(tmp_path, user_cache, counting_python, kernel_builder, cpu_variant,
                                                  monkeypatch):
    """What torch reports once imported is what counts: here a site customization (sitecustomize on
    PYTHONPATH) adds an nvcc flag at import time, which torch's files do not show. The build
    compiles on the guess, stops once the probe disagrees, and builds again on the probe's answer;
    the next build uses the cached probe."""
    python, counter = counting_python
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SITE_FLAG)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    project = copy_fixture("addone", tmp_path)
    # Without ccache and the header cache the binding (<torch/torch.h>) compiles for many seconds,
    # the probe for a few: the first compile stops before the binding is done.
    result = run_build(kernel_builder, project, python, "--variant", cpu_variant, "--unique-id", "uc1",
                       "--no-cache", "--no-header-cache", "--json")
    assert probes(counter) == 1 and guesses(counter) == 1
    # The nvcc flag does not reach a CPU variant's commands: had the first compile finished, the
    # second would have compiled nothing.
    compiled = [t["source"] for t in json.loads(result.stdout)["compile_times"][cpu_variant]]
    assert "torch-ext/torch_binding.cpp" in compiled, compiled
    assert ("note: toolchain: compiled on what the interpreters' files say while their probes (`import torch`) "
            f"ran; {python}'s probe disagreed: nvcc_flags (") in result.stderr, result.stderr
    assert "; building again with the probes' results" in result.stderr, result.stderr
    assert (project / "build" / cpu_variant / "metadata.json").is_file()
    assert "Built 1 variant(s)" in result.stderr
    [entry] = (user_cache / "toolchains").glob("*.json")
    assert "-DSITE_FLAG" in entry.read_text()
    result = run_build(kernel_builder, project, python, "--variant", cpu_variant, "--unique-id", "uc1",
                       "--no-cache", "--no-header-cache")
    assert probes(counter) == 1 and guesses(counter) == 1 and "toolchain:" not in result.stderr, result.stderr
    assert "1 up to date" in result.stderr, result.stderr


BROKEN_TORCH = """import importlib.abc, importlib.util, sys


class _Broken(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "torch" or "guess" in sys.argv:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)

        def exec_module(module):
            raise ImportError("libtorch_cuda.so: cannot open shared object file")

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _Broken())
"""


def test_failed_probe_stops_the_build_with_its_error(tmp_path, user_cache, kb_python, kernel_builder, cpu_variant,
                                                      monkeypatch):
    """torch's files are there (so the guess is made) but `import torch` fails: the build stops and
    reports the probe's error, and writes no variant."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(BROKEN_TORCH)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    project = copy_fixture("addone", tmp_path)
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "uc1",
                       "--no-cache", "--no-header-cache", check=False)
    assert result.returncode != 0
    assert f"Python interpreter `{kb_python}` cannot import torch" in result.stderr, result.stderr
    assert "libtorch_cuda.so: cannot open shared object file" in result.stderr, result.stderr
    assert not (project / "build" / cpu_variant).exists()
    assert not list((user_cache / "toolchains").glob("*.json"))


def test_changed_compiler_is_identified_again(tmp_path, user_cache, kb_python, kernel_builder, cpu_variant,
                                              monkeypatch):
    project = configure_only_project(tmp_path)
    real = shutil.which("g++") or pytest.skip("g++ not on PATH")
    compiler = write_script(tmp_path / "cc" / "c++", f'#!/bin/sh\nexec {real} "$@"\n')
    monkeypatch.setenv("CXX", str(compiler))
    assert IDENTIFICATION in configure(kernel_builder, project, kb_python, cpu_variant)
    assert SEEDED in configure(kernel_builder, project, kb_python, cpu_variant)

    # Same CXX path, other contents (an upgraded compiler): identified again, and the seed renewed.
    compiler.write_text(f'#!/bin/sh\n# upgraded\nexec {real} "$@"\n')
    log = configure(kernel_builder, project, kb_python, cpu_variant)
    assert IDENTIFICATION in log and SEEDED not in log, log
    assert SEEDED in configure(kernel_builder, project, kb_python, cpu_variant)

    # Another compiler (CXX) has its own identification.
    monkeypatch.setenv("CXX", real)
    log = configure(kernel_builder, project, kb_python, cpu_variant)
    assert IDENTIFICATION in log and SEEDED not in log, log
    work = project / "build" / ".kb" / cpu_variant
    assert f"CMAKE_CXX_COMPILER:FILEPATH={real}" in cache_entries(work / "cmake-build")


def test_corrupt_user_cache_entries_fall_back(tmp_path, user_cache, counting_python, kernel_builder, cpu_variant):
    python, counter = counting_python
    project = configure_only_project(tmp_path)
    configure(kernel_builder, project, python, cpu_variant)
    assert probes(counter) == 1
    for entry in list((user_cache / "toolchains").glob("*.json")) + list((user_cache / "cmake-seeds").glob("*.json")):
        entry.write_text(entry.read_text()[:100])
    log = configure(kernel_builder, project, python, cpu_variant)
    assert probes(counter) == 2
    assert IDENTIFICATION in log and SEEDED not in log, log
    # Both entries were rewritten whole.
    assert SEEDED in configure(kernel_builder, project, python, cpu_variant)
    assert probes(counter) == 2


def test_cuda_second_clean_build_skips_nvcc_identification(tmp_path, user_cache, kb_python, kernel_builder):
    nvcc = Path("/usr/local/cuda/bin/nvcc")
    if not nvcc.exists() and not shutil.which("nvcc"):
        pytest.skip("nvcc not available")
    facts = subprocess.run([str(kb_python), "-c", "import platform, torch; v = torch.__version__.split('+')[0].split('.');"
                            "print(f'torch{v[0]}{v[1]}', torch.version.cuda or '', platform.machine())"],
                           capture_output=True, text=True, check=True).stdout.split()
    if len(facts) < 3:
        pytest.skip("the test interpreter's torch is not a CUDA build")
    nvcc_text = subprocess.run([str(nvcc if nvcc.exists() else shutil.which("nvcc")), "--version"],
                               capture_output=True, text=True).stdout
    release = nvcc_text.split("release ")[1].split(",")[0].replace(".", "")
    variant = f"{facts[0]}-cxx11-cu{release}-{facts[2]}-linux"
    project = copy_fixture("cuda_anon", tmp_path)
    work = clean_build(kernel_builder, project, kb_python, variant)
    assert "The CUDA compiler identification is" in (work / "build.log").read_text()
    first_entries, first_module = cache_entries(work / "cmake-build"), module_digest(project, variant)
    work = clean_build(kernel_builder, project, kb_python, variant)
    log = (work / "build.log").read_text()
    assert SEEDED in log and "The CUDA compiler identification is" not in log, log
    # CMAKE_CUDA_COMPILER keeps its value; CMake types it STRING when it identifies nvcc itself.
    normalize = [line.replace("CMAKE_CUDA_COMPILER:UNINITIALIZED=", "CMAKE_CUDA_COMPILER:STRING=") for line in
                 cache_entries(work / "cmake-build")]
    assert sorted(normalize) == first_entries
    assert module_digest(project, variant) == first_module
