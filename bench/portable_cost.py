"""What portable (manylinux) linking costs in kernel speed (docs/building.md): times the relu example's op
from two built variant directories, one linked portably (the default) and one with
`--no-portable`, interleaved, on CPU or CUDA. Each figure is the median of --reps timed runs of
--iters calls after a warm-up; the ratio is portable time / native time (1.00 = no cost).

Usage: python bench/portable_cost.py [PORTABLE_VARIANT_DIR NATIVE_VARIANT_DIR] [--device cpu|cuda]
         [--sizes 20,24] [--reps 15] [--json out.json]
The two variants must have different ops ids (build them with different --unique-id values).
Without the two directories, the bench builds both from examples/relu first, in a temporary
directory, with $KB_BUILD_DIR's kernel-builder and this interpreter's torch.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

REPO_ROOT = Path(__file__).resolve().parents[1]


def _load_example_build():
    spec = importlib.util.spec_from_file_location("kb_example_build", REPO_ROOT / "examples" / "example_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _time(fn, x, iters: int, device: str) -> float:
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iters):
        fn(x)
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / iters


def build_pair(build, device: str, work: Path) -> tuple[Path, Path]:
    """examples/relu built twice for `device`: portable (the default) and --no-portable."""
    variant = build.variant_name(REPO_ROOT / "examples" / "relu", device)
    dirs = []
    for mode, extra in (("portable", []), ("native", ["--no-portable"])):
        project = work / mode / "relu"
        shutil.copytree(REPO_ROOT / "examples" / "relu", project, ignore=shutil.ignore_patterns("build"))
        print(f"portable_cost: building {variant} ({mode})", file=sys.stderr)
        result = subprocess.run([str(build.kernel_builder_binary()), "build", str(project), "--variant", variant,
                                 "--python", sys.executable, "--unique-id", f"cost_{mode}", *extra],
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"portable_cost: the {mode} build failed:\n{result.stderr[-3000:]}")
        dirs.append(project / "build" / variant)
    return dirs[0], dirs[1]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("portable", type=Path, nargs="?")
    parser.add_argument("native", type=Path, nargs="?")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--sizes", default="20,24", help="log2 of the element counts")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    build = _load_example_build()
    if (args.portable is None) != (args.native is None):
        parser.error("give both variant directories, or neither (the bench then builds them)")
    work = None
    if args.portable is None:
        work = tempfile.TemporaryDirectory(prefix="portable-cost-")
        args.portable, args.native = build_pair(build, args.device, Path(work.name))
    portable = build.import_variant(args.portable.resolve())
    native = build.import_variant(args.native.resolve())
    results = []
    for log2 in (int(s) for s in args.sizes.split(",")):
        x = torch.randn(1 << log2, device=args.device)
        torch.testing.assert_close(portable.relu(x), native.relu(x), rtol=0, atol=0)
        for _ in range(3):
            portable.relu(x), native.relu(x)
        times = {"portable": [], "native": []}
        for _ in range(args.reps):
            times["portable"].append(_time(portable.relu, x, args.iters, args.device))
            times["native"].append(_time(native.relu, x, args.iters, args.device))
        row = {"elements": 1 << log2, "device": args.device,
               "portable_us": statistics.median(times["portable"]) * 1e6,
               "native_us": statistics.median(times["native"]) * 1e6}
        row["ratio"] = row["portable_us"] / row["native_us"]
        results.append(row)
        print(f"relu {args.device} 2^{log2}: portable {row['portable_us']:.1f} us, native {row['native_us']:.1f} us, "
              f"ratio {row['ratio']:.3f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
