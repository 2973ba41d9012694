"""Effective memory bandwidth of the example kernels (relu, activation) on a CUDA GPU.

For each op, dtype and size (2^24 .. 2^28 input elements) it times, with CUDA events:
  - the kernel's op (from the built CUDA variant, imported under its ops id),
  - torch's own op computing the same function,
  - a device-to-device copy (`dst.copy_(src)`) moving the same number of bytes,
and prints bytes moved (read + written) per second as a percentage of the copy, and the speed
ratio vs torch (torch time / kernel time; > 1 means the kernel is faster). Every timed run is
preceded by an L2 flush (outside the timed region) so small sizes do not measure the cache;
each figure is the median of --reps runs after --warmup runs, the three measured interleaved.

Targets (issue "Build engine"): >= 90 % of copy bandwidth and not slower than torch.

Usage: python bench/kernels_bandwidth.py [--sizes 24,25,26,27,28] [--dtypes fp32,fp16,bf16]
         [--ops relu,silu_and_mul,...] [--reps 20] [--json results.json]
Kernels are built with examples/example_build.py (KB_EXAMPLES_BUILD selects the builder).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

REPO_ROOT = Path(__file__).resolve().parents[1]
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# Width of the gated ops' input rows (2d); the output rows have d elements.
GATED_ROW = 8192


def _load_example_build():
    spec = importlib.util.spec_from_file_location(
        "kb_example_build", REPO_ROOT / "examples" / "example_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gated_reference(act):
    def run(x):
        d = x.shape[-1] // 2
        return act(x[..., :d]) * x[..., d:]
    return run


# op name -> (example kernel, gated, torch reference returning a new tensor)
OPS = {
    "relu": ("relu", False, torch.relu),
    "silu_and_mul": ("activation", True, _gated_reference(F.silu)),
    "gelu_and_mul": ("activation", True, _gated_reference(F.gelu)),
    "gelu_tanh_and_mul": ("activation", True, _gated_reference(lambda t: F.gelu(t, approximate="tanh"))),
    "gelu_fast": ("activation", False, lambda t: F.gelu(t, approximate="tanh")),
    "gelu_tanh": ("activation", False, lambda t: F.gelu(t, approximate="tanh")),
}


def op_table(names):
    """name -> (gated, kernel op writing `out`, torch reference), building only the examples the
    requested ops live in."""
    unknown = [n for n in names if n not in OPS]
    if unknown:
        raise SystemExit(f"kernels_bandwidth: unknown op(s) {', '.join(unknown)}; known: {', '.join(OPS)}")
    build = _load_example_build()
    kernels = {example: build.load_example(example, "cuda") for example in sorted({OPS[n][0] for n in names})}
    return {n: (OPS[n][1], getattr(kernels[OPS[n][0]]._ops.ops, n), OPS[n][2]) for n in names}


class Timer:
    """Median CUDA-event times of several functions, measured interleaved (rep by rep) so that
    clock or thermal drift affects them alike."""

    def __init__(self, warmup: int, reps: int):
        self.warmup = warmup
        self.reps = reps
        # Larger than the L2 of any current GPU. It is *read* before each timed run: that evicts
        # the operands without leaving dirty lines whose write-back would be charged to the run.
        self.flush = torch.ones(64 * 2**20, dtype=torch.float32, device="cuda")

    def median_ms(self, *fns) -> list[float]:
        for fn in fns:
            for _ in range(self.warmup):
                fn()
        times: list[list[float]] = [[] for _ in fns]
        for _ in range(self.reps):
            for fn, samples in zip(fns, times):
                self.flush.sum()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                samples.append(start.elapsed_time(end))
        return [statistics.median(samples) for samples in times]


def bench_case(timer, name, gated, kernel_op, torch_op, dtype, numel):
    if gated:
        x = torch.randn(numel // GATED_ROW, GATED_ROW, dtype=dtype, device="cuda")
        out = torch.empty(x.shape[0], GATED_ROW // 2, dtype=dtype, device="cuda")
    else:
        x = torch.randn(numel, dtype=dtype, device="cuda")
        out = torch.empty_like(x)
    out.fill_(float("nan"))
    kernel_op(out, x)
    expected = torch_op(x.float()).to(dtype) if dtype != torch.float32 else torch_op(x)
    torch.testing.assert_close(out, expected)

    moved = (x.numel() + out.numel()) * x.element_size()
    # A copy that reads and writes the same total number of bytes.
    src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)

    kernel_ms, torch_ms, copy_ms = timer.median_ms(
        lambda: kernel_op(out, x), lambda: torch_op(x), lambda: dst.copy_(src))
    del x, out, src, dst
    return {
        "op": name, "dtype": str(dtype).removeprefix("torch."), "numel": numel,
        "bytes": moved, "kernel_ms": kernel_ms, "torch_ms": torch_ms, "copy_ms": copy_ms,
        "kernel_gbps": moved / kernel_ms / 1e6, "copy_gbps": moved / copy_ms / 1e6,
        "pct_of_copy": 100.0 * copy_ms / kernel_ms, "speedup_vs_torch": torch_ms / kernel_ms,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="24,25,26,27,28", help="log2 of input elements")
    parser.add_argument("--dtypes", default="fp32,fp16,bf16")
    parser.add_argument("--ops", default="relu,silu_and_mul,gelu_and_mul,gelu_tanh_and_mul,"
                                         "gelu_fast,gelu_tanh")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--json", type=Path, help="write all results here")
    args = parser.parse_args(argv)

    if not torch.cuda.is_available():
        print("kernels_bandwidth: needs a CUDA GPU", file=sys.stderr)
        return 2
    ops = op_table(args.ops.split(","))
    timer = Timer(args.warmup, args.reps)
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}")

    results = []
    header = (f"{'op':<18}{'dtype':<9}{'elems':>6}{'MB moved':>10}{'kernel GB/s':>13}"
              f"{'copy GB/s':>11}{'% of copy':>11}{'torch ms':>10}{'kernel ms':>11}{'vs torch':>10}")
    print(header)
    for name in args.ops.split(","):
        gated, kernel_op, torch_op = ops[name]
        for dtype_name in args.dtypes.split(","):
            for log2 in (int(s) for s in args.sizes.split(",")):
                r = bench_case(timer, name, gated, kernel_op, torch_op, DTYPES[dtype_name],
                               2**log2)
                results.append(r)
                print(f"{name:<18}{dtype_name:<9}{'2^' + str(log2):>6}{r['bytes'] / 1e6:>10.0f}"
                      f"{r['kernel_gbps']:>13.0f}{r['copy_gbps']:>11.0f}{r['pct_of_copy']:>10.1f}%"
                      f"{r['torch_ms']:>10.3f}{r['kernel_ms']:>11.3f}"
                      f"{r['speedup_vs_torch']:>9.2f}x", flush=True)
                torch.cuda.empty_cache()

    worst_pct = min(results, key=lambda r: r["pct_of_copy"])
    worst_ratio = min(results, key=lambda r: r["speedup_vs_torch"])
    print(f"\nsummary: median {statistics.median(r['pct_of_copy'] for r in results):.1f}% of copy; "
          f"lowest {worst_pct['pct_of_copy']:.1f}% ({worst_pct['op']} {worst_pct['dtype']} "
          f"{worst_pct['numel']}); lowest speedup vs torch {worst_ratio['speedup_vs_torch']:.2f}x "
          f"({worst_ratio['op']} {worst_ratio['dtype']} {worst_ratio['numel']})")
    below = [r for r in results if r["pct_of_copy"] < 90.0 or r["speedup_vs_torch"] < 1.0]
    print(f"cases below target (<90% of copy or slower than torch): {len(below)} of {len(results)}")
    if args.json:
        args.json.write_text(json.dumps({"device": props.name, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
