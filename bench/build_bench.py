"""Build-engine benchmark, all rows measured in one run on the same sources:

  torch.utils.cpp_extension.load, clean                      = 1.00 (the reference)
  kernel-builder build, first build                          (every user cache cold: no header cache
                                                             entry, no toolchain probe cache, no CMake
                                                             seeds, an empty ccache directory; the
                                                             header cache entry is precompiled in the
                                                             background and not waited for)
  kernel-builder build, clean, header cache warm, toolchain and CMake caches cold
                                                             (the probe of the interpreter and CMake's
                                                             compiler identification run again: the
                                                             clean build before these caches existed)
  kernel-builder build, clean, header cache warm             (every user cache warm: the common case)
  kernel-builder build, clean, --no-header-cache             (every source parses the torch headers)
  kernel-builder build, no-op
  kernel-builder build, one-file edit                        (header cache warm)

ccache is off throughout (--no-cache): the comparison is compiler against compiler (CCACHE_DIR is a
fresh directory all the same). The header cache lives in a fresh XDG_CACHE_HOME of this run; after
the first build the bench waits for the background precompile of its entry (the seconds it took
after the first build returned are printed) before the warm rows. The modules built with and
without the header cache are compared symbol by symbol (nm -D --defined-only); a difference fails the run, and so
does a module built with the toolchain and CMake caches that differs byte for byte from one built
without them. For the two warm clean builds the time of each stage is printed (from the
build's stage lines on stderr): detect = toolchain probe + project checks, generate, configure
(+ linking the header cache entry), compile (+ link), stage, check (import check + ABI check +
metadata), finish.

--backend cpu (default) builds the CPU variant; --backend cuda the CUDA variant with the
project's cuda-capabilities (cpp_extension gets the same list through TORCH_CUDA_ARCH_LIST).

--repeat N measures the rows that vary most from run to run N times each: cpp_extension's clean
build (in a new directory each time), the warm clean build and the one-file edit (another edit each
time); a cpp_extension build and a warm clean build take turns, so that a slower spell of the machine
weighs on both. Each of those rows then gives the median and every sample, and the ratios are of
medians. Stages and compiles are those of the first sample.

Usage: build_bench.py [--kernel-builder PATH] [--python PATH] [--project DIR] [--cores N]
                      [--backend cpu|cuda] [--repeat N] [--json FILE]
Defaults: $KB_BUILD_DIR (else build-release, else build-demo)/src/cli/kernel-builder, the
interpreter running this ($KB_TEST_PYTHON overrides), examples/relu, all cores.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CXX = (".cpp", ".cc", ".cxx")


def run(command, env=None) -> float:
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"command failed: {' '.join(map(str, command))}\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}")
    return elapsed


STAGES = ["generate", "configure", "compile", "stage", "check", "done"]
STEP_LINE = re.compile(r"^\S+: ([a-z][a-z ]*?)(?: \[\d+/\d+\])? \(\d+:\d\d(?::\d\d)?\)")


def run_staged(command, env) -> tuple:
    """Runs a kernel-builder build; returns its time, the seconds of each stage, from the
    `<variant>: <stage> (<elapsed>)` lines it prints on stderr (not a TTY: one line per stage change),
    and its compile times (`--json`: source, seconds, started), slowest first."""
    start = time.monotonic()
    # --json's summary (a few KB) is written at exit: the pipe holds it while stderr is read.
    process = subprocess.Popen(command + ["--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    marks, lines = {}, []
    for line in process.stderr:
        lines.append(line)
        # "<variant>: <stage>[ [done/total]] (<elapsed>)[, slowest running: ...]" (build_progress.h)
        match = STEP_LINE.match(line)
        stage = match.group(1) if match else None
        if stage in STAGES + ["link"] and stage not in marks:
            marks[stage] = time.monotonic() - start
    summary = process.stdout.read()
    process.wait()
    elapsed = time.monotonic() - start
    if process.returncode != 0:
        sys.exit(f"command failed: {' '.join(map(str, command))}\n{''.join(lines)[-4000:]}")
    points = [("detect", 0.0)] + [(name, marks[name]) for name in STAGES if name in marks] + [("exit", elapsed)]
    names = {"detect": "detect", "generate": "generate", "configure": "configure", "compile": "compile",
             "stage": "stage", "check": "check", "done": "finish"}
    stages = {names[a]: round(tb - ta, 3) for (a, ta), (_, tb) in zip(points, points[1:])}
    return elapsed, stages, compile_times(summary)


def compile_times(summary: str) -> list:
    """Every variant's compiled sources from `build --json`'s summary (source, seconds, started),
    slowest first."""
    times = [t for variant in json.loads(summary).get("compile_times", {}).values() for t in variant]
    return sorted(times, key=lambda t: -t["seconds"])


def sources(project: Path, backend: str) -> list:
    config = tomllib.loads((project / "build.toml").read_text())
    files = list(config["torch"]["src"])
    for unit in config.get("kernel", {}).values():
        if unit["backend"] == backend:
            files += unit["src"]
    wanted = CXX + ((".cu",) if backend == "cuda" else ())
    return [str(project / s) for s in files if s.endswith(wanted)]


def capabilities(project: Path) -> list:
    config = tomllib.loads((project / "build.toml").read_text())
    caps = []
    for unit in config.get("kernel", {}).values():
        if unit["backend"] == "cuda":
            caps += [c for c in unit.get("cuda-capabilities", []) if c not in caps]
    return caps


def cpp_extension_build(python: str, project: Path, workdir: Path, cores: int, backend: str) -> float:
    """Clean build of the same sources with torch's JIT extension builder (no ccache)."""
    (workdir / "registration").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "templates" / "project" / "registration.h", workdir / "registration" / "registration.h")
    define = "-DCUDA_KERNEL" if backend == "cuda" else "-DCPU_KERNEL"
    script = textwrap.dedent(f"""
        import torch.utils.cpp_extension as ext
        ext.load(name="_bench_ext", sources={sources(project, backend)!r},
                 extra_include_paths=[{str(workdir / 'registration')!r}, {str(project)!r}, {str(project / 'torch-ext')!r}],
                 extra_cflags=[{define!r}, "-O3"], extra_cuda_cflags=[{define!r}, "-O3"],
                 build_directory={str(workdir)!r}, verbose=False)
    """)
    env = dict(os.environ, MAX_JOBS=str(cores), TORCH_EXTENSIONS_DIR=str(workdir))
    if backend == "cuda":
        env["TORCH_CUDA_ARCH_LIST"] = ";".join(capabilities(project))
    return run([python, "-c", script], env=env)


def wait_for_header_cache(xdg: Path) -> float:
    """Waits until no background precompile holds a header cache entry's lock; returns the seconds."""
    import fcntl
    start = time.monotonic()
    for lock in sorted((xdg / "kernel-builder" / "torch-pch").glob("*.lock")):
        with open(lock, "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            fcntl.flock(f, fcntl.LOCK_UN)
    return time.monotonic() - start


def exported_symbols(module: Path) -> list:
    out = subprocess.run(["nm", "-D", "--defined-only", str(module)], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build_dir = os.environ.get("KB_BUILD_DIR")
    if not build_dir:
        build_dir = next((d for d in (REPO / "build-release", REPO / "build-demo") if d.exists()), REPO / "build-release")
    parser.add_argument("--kernel-builder", default=str(Path(build_dir) / "src" / "cli" / "kernel-builder"))
    parser.add_argument("--python", default=os.environ.get("KB_TEST_PYTHON", sys.executable))
    parser.add_argument("--project", default=str(REPO / "examples" / "relu"))
    parser.add_argument("--cores", type=int, default=os.cpu_count())
    parser.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--repeat", type=int, default=1, help="samples of the rows that vary most (default 1)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    probe = ("import platform, torch; v = torch.__version__.split('+')[0].split('.');"
             "c = 'cu' + torch.version.cuda.replace('.', '') if torch.version.cuda else None;"
             f"print(f'torch{{v[0]}}{{v[1]}}-cxx11-' + ({args.backend!r} if {args.backend!r} == 'cpu' else c) + "
             "f'-{platform.machine()}-linux')")
    variant = subprocess.run([args.python, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()

    with tempfile.TemporaryDirectory(prefix="kb-build-bench-") as tmp:
        tmp = Path(tmp)
        project = tmp / "project"
        shutil.copytree(args.project, project, ignore=shutil.ignore_patterns("build", "__pycache__"))
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp / "xdg"), CCACHE_DIR=str(tmp / "ccache"))
        build = [args.kernel_builder, "build", str(project), "--python", args.python, "--variant", variant,
                 "--unique-id", "bench", "--cores", str(args.cores), "--no-cache"]

        def clean(*extra):
            shutil.rmtree(project / "build", ignore_errors=True)
            return run(build + list(extra), env)

        stages, compiles = {}, {}

        def staged(label):
            seconds, stage_times, compile_list = run_staged(build, env)
            stages.setdefault(label, stage_times)
            compiles.setdefault(label, compile_list)
            return seconds

        def clean_staged(label):
            shutil.rmtree(project / "build", ignore_errors=True)
            return staged(label)

        def forget_toolchains():
            for cache in ("toolchains", "cmake-seeds"):
                shutil.rmtree(tmp / "xdg" / "kernel-builder" / cache, ignore_errors=True)

        def built_module() -> Path:
            return next((project / "build" / variant).glob("*.abi3.so"))

        samples = {}

        def sample(name, seconds):
            samples.setdefault(name, []).append(seconds)

        reference_row, warm_row = "cpp_extension.load, clean", "ours, clean, header cache warm"
        edit_row = "ours, one-file edit (header cache warm)"

        def reference_build(index):
            return cpp_extension_build(args.python, project, tmp / f"cpp_extension-{index}", args.cores, args.backend)

        sample(reference_row, reference_build(0))
        shutil.rmtree(project / "build", ignore_errors=True)
        sample("ours, first build (every user cache cold)", staged("first build (every cache cold)"))
        fill_seconds = wait_for_header_cache(tmp / "xdg")
        forget_toolchains()
        sample("ours, clean, header cache warm, toolchain/CMake cache cold", clean_staged("toolchain/CMake cache cold"))
        uncached_module = built_module().read_bytes()
        sample(warm_row, clean_staged("all user caches warm"))
        with_cache = exported_symbols(built_module())
        cached_identical = built_module().read_bytes() == uncached_module
        for index in range(1, args.repeat):
            sample(reference_row, reference_build(index))
            sample(warm_row, clean_staged("all user caches warm"))
        sample("ours, clean, --no-header-cache", clean("--no-header-cache"))
        without_cache = exported_symbols(built_module())
        clean()  # back to a tree built with the header cache
        sample("ours, no-op", run(build, env))
        unit = next(s for s in sources(project, args.backend) if "torch-ext" not in s)
        for index in range(args.repeat):
            Path(unit).write_text(Path(unit).read_text() + f"\n// bench edit {index}\n")
            sample(edit_row, run(build, env))
        entries = list((tmp / "xdg" / "kernel-builder" / "torch-pch").glob("*/torch_pch.h.gch"))

    rows = {name: statistics.median(seconds) for name, seconds in samples.items()}
    reference = rows["cpp_extension.load, clean"]
    load = os.getloadavg()
    print(f"project: {args.project} ({variant}, {args.cores} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
    if args.backend == "cuda":
        print(f"capabilities: {', '.join(capabilities(Path(args.project)))}")
    for name, seconds in rows.items():
        spread = "" if len(samples[name]) < 2 else (
            f"   median of {len(samples[name])}: " + ", ".join(f"{s:.2f}" for s in samples[name]))
        print(f"{name:58} {seconds:9.2f} s   {seconds / reference:6.2f}x{spread}")
    print("stages of the clean builds (s):")
    print(f"  {'':28}" + "".join(f"{name:>10}" for name in stages["all user caches warm"]))
    for label, times in stages.items():
        print(f"  {label:28}" + "".join(f"{times.get(name, 0.0):10.2f}" for name in stages["all user caches warm"]))
    print("compiles of the clean builds (seconds, from when in the compile stage):")
    for label, times in compiles.items():
        print(f"  {label}: " + ", ".join(f"{Path(t['source']).name} {t['seconds']:.1f} (from {t['started']:.1f})"
                                         for t in times))
    print(f"the header cache entry was ready {fill_seconds:.1f} s after the first build returned (built in the background)")
    print(f"header cache entries: {len(entries)}; exported symbols with/without the header cache: "
          f"{'identical' if with_cache == without_cache else 'DIFFERENT'} ({len(with_cache)} symbols); "
          f"module with/without the toolchain and CMake caches: {'identical' if cached_identical else 'DIFFERENT'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"variant": variant, "cores": args.cores, "load": load,
                                               "seconds": rows, "ratio": {k: v / reference for k, v in rows.items()},
                                               "samples": samples,
                                               "stages": stages, "compiles": compiles,
                                               "header_cache_ready_after_first_build_s": fill_seconds,
                                               "symbols_identical": with_cache == without_cache,
                                               "toolchain_cache_identical": cached_identical}, indent=2) + "\n")
    if with_cache != without_cache:
        sys.exit("the module built with the header cache exports different symbols")
    if not cached_identical:
        sys.exit("the module built with the toolchain and CMake caches differs from the one built without them")


if __name__ == "__main__":
    main()
