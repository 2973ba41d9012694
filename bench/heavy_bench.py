"""Heavy-kernel build benchmark: a generated CUDA kernel with the shape of real heavy kernels
(bench/heavy_kernel.py: LIGHT + 1 templated .cu sources, one far heavier than the rest, several
capabilities) built by torch.utils.cpp_extension.load (the reference, MAX_JOBS = --cores,
TORCH_CUDA_ARCH_LIST = the capabilities, the same sources and flags) and by kernel-builder, in one
run, each:

  cold                      no build directory; for kernel-builder every user cache cold (a fresh
                            XDG_CACHE_HOME and CCACHE_DIR; ccache on, as by default)
  one-file edit (light)     a comment appended to one light source, then an incremental build
  one-file edit (heavy)     the same on heavy_bwd.cu, the long pole
  shared-header edit        a declaration appended to common.cuh, which every .cu includes: every
                            source compiles again, in a directory built before (kernel-builder
                            starts the longest compiles of the last build first)
  cold, heavy source first  cold again (new directories, fresh caches) with heavy_bwd.cu listed first
                            in the kernel's `src` (and first in cpp_extension's sources): what
                            `build`'s late-start hint asks of an author (docs/build-engine.md)

Per build it prints the seconds and kernel-builder / cpp_extension; for kernel-builder also the
slowest sources and when each started (its `--json` compile times). NVCC_APPEND_FLAGS of the
environment reaches both builders' nvcc (e.g. NVCC_APPEND_FLAGS=--split-compile=0 to try nvcc's
parallel optimizer).

Usage: heavy_bench.py [--kernel-builder PATH] [--python PATH] [--cores N] [--light N]
                      [--capabilities 8.0,9.0] [--rows cold,light,heavy,header,first] [--json FILE] [--keep DIR]

--rows picks rows (default all; the edits need the cold row, which is then added).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from build_bench import REPO, compile_times, cpp_extension_build  # noqa: E402
from heavy_kernel import write_project  # noqa: E402


ROWS = ("cold", "light", "heavy", "header", "first")


def cuda_variant(python: str) -> str:
    probe = ("import platform, torch; v = torch.__version__.split('+')[0].split('.');"
             "print(f'torch{v[0]}{v[1]}-cxx11-cu' + torch.version.cuda.replace('.', '') + f'-{platform.machine()}-linux')")
    return subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()


def ours(command: list, env: dict) -> tuple:
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"kernel-builder failed:\n{result.stderr[-6000:]}")
    return elapsed, compile_times(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build_dir = os.environ.get("KB_BUILD_DIR") or str(REPO / "build-release")
    parser.add_argument("--kernel-builder", default=str(Path(build_dir) / "src" / "cli" / "kernel-builder"))
    parser.add_argument("--python", default=os.environ.get("KB_TEST_PYTHON", sys.executable))
    parser.add_argument("--cores", type=int, default=os.cpu_count())
    parser.add_argument("--light", type=int, default=16)
    parser.add_argument("--capabilities", default="8.0,9.0")
    parser.add_argument("--rows", default=",".join(ROWS), help="comma-separated: " + ", ".join(ROWS))
    parser.add_argument("--json")
    parser.add_argument("--keep", help="keep the projects and logs in this directory")
    parser.add_argument("--split-compile", help="pass `--split-compile auto|off|N` to kernel-builder (nvcc's "
                        "parallel optimiser, docs/build-engine.md; default auto: on for capabilities below 10.0)")
    args = parser.parse_args()
    wanted = set(args.rows.split(","))
    if wanted - set(ROWS):
        parser.error(f"--rows: unknown {', '.join(sorted(wanted - set(ROWS)))} (rows: {', '.join(ROWS)})")
    if wanted & {"light", "heavy", "header"}:
        wanted.add("cold")
    caps = args.capabilities.split(",")
    variant = cuda_variant(args.python)

    with tempfile.TemporaryDirectory(prefix="kb-heavy-bench-") as tmp:
        tmp = Path(args.keep) if args.keep else Path(tmp)
        shutil.rmtree(tmp / "ref", ignore_errors=True)
        shutil.rmtree(tmp / "ours", ignore_errors=True)
        reference = write_project(tmp / "ref", args.light, caps)
        project = write_project(tmp / "ours", args.light, caps)
        shutil.rmtree(tmp / "xdg", ignore_errors=True)
        shutil.rmtree(tmp / "ccache", ignore_errors=True)
        rows, slowest = {}, {}

        def measure(label: str, reference: Path, project: Path, work: Path) -> None:
            """Both builders on their copies; kernel-builder's user caches under `work`."""
            build = [args.kernel_builder, "build", str(project), "--python", args.python, "--variant", variant,
                     "--unique-id", "bench", "--cores", str(args.cores), "--json"]
            if args.split_compile:
                build += ["--split-compile", str(args.split_compile)]
            env = dict(os.environ, XDG_CACHE_HOME=str(work / "xdg"), CCACHE_DIR=str(work / "ccache"))
            ref = cpp_extension_build(args.python, reference, work / "cpp_extension", args.cores, "cuda")
            ours_seconds, times = ours(build, env)
            rows[label] = (ref, ours_seconds)
            slowest[label] = times[:4]

        def edit(root: Path, name: str, text: str) -> None:
            path = root / "attention" / name
            path.write_text(path.read_text() + text)

        comment = "\n// bench edit\n"
        # A declaration, not a comment: ccache's preprocessor mode would find the sources unchanged.
        declaration = '\nstatic_assert(sizeof(float) == 4, "bench edit");\n'
        for key, label, name, text in (("cold", "cold", None, None),
                                       ("light", "one-file edit (light)", "light_03.cu", comment),
                                       ("heavy", "one-file edit (heavy)", "heavy_bwd.cu", comment),
                                       ("header", "shared-header edit", "common.cuh", declaration)):
            if key not in wanted:
                continue
            if name:
                edit(reference, name, text)
                edit(project, name, text)
            measure(label, reference, project, tmp)
        if "first" in wanted:
            # The same cold builds with the heavy source first, in directories and caches of their own.
            first = tmp / "heavy-first"
            shutil.rmtree(first, ignore_errors=True)
            measure("cold, heavy source first", write_project(first / "ref", args.light, caps, heavy_first=True),
                    write_project(first / "ours", args.light, caps, heavy_first=True), first)

    load = os.getloadavg()
    print(f"heavy kernel: {args.light} light + 1 heavy CUDA sources, capabilities {', '.join(caps)}; {variant}, "
          f"{args.cores} cores (MAX_JOBS={args.cores}); load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    if args.split_compile:
        print(f"kernel-builder build --split-compile {args.split_compile}")
    if os.environ.get("NVCC_APPEND_FLAGS"):
        print(f"NVCC_APPEND_FLAGS={os.environ['NVCC_APPEND_FLAGS']}")
    print(f"{'':24}{'cpp_extension':>15}{'kernel-builder':>16}{'ratio':>8}")
    for label, (ref, mine) in rows.items():
        print(f"{label:24}{ref:13.1f} s{mine:14.1f} s{mine / ref:7.2f}x")
    for label, times in slowest.items():
        print(f"slowest sources, {label}: " + ", ".join(f"{t['source'].split('/')[-1]} {t['seconds']:.1f} s "
                                                         f"(from {t['started']:.1f} s)" for t in times))
    if args.json:
        Path(args.json).write_text(json.dumps({"variant": variant, "cores": args.cores, "light": args.light,
                                               "capabilities": caps, "load": load,
                                               "seconds": {k: {"cpp_extension": r, "kernel_builder": m}
                                                           for k, (r, m) in rows.items()},
                                               "ratio": {k: m / r for k, (r, m) in rows.items()},
                                               "slowest": slowest}, indent=2) + "\n")


if __name__ == "__main__":
    main()
