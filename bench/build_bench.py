"""Build-engine benchmark: clean build of a kernel's CPU variant with `kernel-builder build` vs
`torch.utils.cpp_extension.load` of the same sources (same run, same machine), then the no-op
rebuild and a one-file-edit rebuild. Prints times and ratios.

Usage: build_bench.py [--kernel-builder PATH] [--python PATH] [--project DIR] [--cores N]
Defaults: $KB_BUILD_DIR/src/cli/kernel-builder, $KB_TEST_PYTHON or /work/venv-probe/bin/python,
examples/relu (falls back to tests/e2e/build/data/addone).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(command, **kwargs) -> float:
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"command failed: {' '.join(map(str, command))}\n{result.stderr[-4000:]}")
    return elapsed


def cpu_sources(project: Path) -> list:
    config = tomllib.loads((project / "build.toml").read_text())
    sources = list(config["torch"]["src"])
    for unit in config.get("kernel", {}).values():
        if unit["backend"] == "cpu":
            sources += unit["src"]
    return [str(project / s) for s in sources if s.endswith((".cpp", ".cc", ".cxx"))]


def cpp_extension_build(python: str, project: Path, workdir: Path, cores: int) -> float:
    """Clean build of the same sources with torch's JIT extension builder (no ccache)."""
    (workdir / "registration").mkdir(parents=True, exist_ok=True)
    kb_registration = REPO / "templates" / "project" / "registration.h"
    shutil.copy(kb_registration, workdir / "registration" / "registration.h")
    script = textwrap.dedent(f"""
        import torch.utils.cpp_extension as ext
        ext.load(name="_bench_cpu_ext", sources={cpu_sources(project)!r},
                 extra_include_paths=[{str(workdir / 'registration')!r}, {str(project)!r}, {str(project / 'torch-ext')!r}],
                 extra_cflags=["-DCPU_KERNEL", "-O3"], build_directory={str(workdir)!r}, verbose=False)
    """)
    env = dict(os.environ, MAX_JOBS=str(cores), TORCH_EXTENSIONS_DIR=str(workdir))
    return timed([python, "-c", script], env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build_dir = Path(os.environ.get("KB_BUILD_DIR", REPO / "build-release"))
    parser.add_argument("--kernel-builder", default=str(build_dir / "src" / "cli" / "kernel-builder"))
    parser.add_argument("--python", default=os.environ.get("KB_TEST_PYTHON", "/work/venv-probe/bin/python"))
    relu = REPO / "examples" / "relu"
    parser.add_argument("--project", default=str(relu if relu.exists() else REPO / "tests/e2e/build/data/addone"))
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kb-build-bench-") as tmp:
        tmp = Path(tmp)
        project = tmp / "project"
        shutil.copytree(args.project, project, ignore=shutil.ignore_patterns("build", "__pycache__"))
        variant = subprocess.run(
            [args.python, "-c", "import platform, torch; v = torch.__version__.split('+')[0].split('.');"
             "print(f'torch{v[0]}{v[1]}-cxx11-cpu-{platform.machine()}-linux')"],
            capture_output=True, text=True, check=True).stdout.strip()
        build = [args.kernel_builder, "build", str(project), "--python", args.python, "--variant", variant,
                 "--unique-id", "bench", "--cores", str(args.cores), "--no-cache"]

        reference = cpp_extension_build(args.python, project, tmp / "cpp_extension", args.cores)
        # Without ccache throughout: the comparison is compiler against compiler, and changing the
        # launcher between runs would (correctly) invalidate every object.
        clean = timed(build)
        noop = timed(build)
        unit = next(s for s in cpu_sources(project) if "torch-ext" not in s)
        Path(unit).write_text(Path(unit).read_text() + "\n// bench edit\n")
        edit = timed(build)

    print(f"project: {args.project} ({variant}, {args.cores} cores)")
    print(f"torch.utils.cpp_extension.load (clean): {reference:8.2f} s")
    print(f"kernel-builder build (clean, no ccache): {clean:8.2f} s   ratio {clean / reference:5.2f}x")
    print(f"kernel-builder build (no-op):            {noop:8.3f} s   ratio {noop / reference:7.4f}x")
    print(f"kernel-builder build (one-file edit):    {edit:8.2f} s   ratio {edit / clean:5.2f}x of clean")


if __name__ == "__main__":
    main()
