"""Warm and cold `get_kernel` timing and Hub request counts: ours vs upstream `kernels`
(PYTHONPATH=.upstream-site) against the same local kernel-hub, in the same run.

Usage: [KB_BUILD_DIR=build-release] .venv/bin/python bench/loader_bench.py [--runs 5] [--files 40] [--so-mib 32]
Ours is the `kernels` package installed in the interpreter running this (scripts/test runs
`pip install .`), or the source tree when a built `_core` is linked into python/kernels/.
Each measurement is a fresh subprocess; the time reported is that of the get_kernel call itself
(interpreter start-up and `import torch` excluded), median over the runs."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests" / "python"))
os.environ.setdefault("HF_HUB_DISABLE_XET", "1")

from loader_testlib import OUR_PYTHONPATH, Hub, make_variant  # noqa: E402

CODE = """
import time, json, torch
t0 = time.perf_counter()
import kernels
m = kernels.get_kernel('trusted-org/benchk', version=1)
t1 = time.perf_counter()
print(json.dumps({"seconds": t1 - t0, "value": m.VALUE}))
"""


def run_once(pythonpath: str, env: dict) -> float:
    full = dict(os.environ, PYTHONPATH=pythonpath, **env)
    r = subprocess.run([sys.executable, "-c", CODE], env=full, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1])["seconds"]


def measure(name: str, pythonpath: str, hub: Hub, runs: int, tmp: Path) -> dict:
    cold, warm, cold_req, warm_req = [], [], [], []
    for i in range(runs):
        cache = tmp / f"cache-{name}-{i}"
        env = {"HF_HUB_CACHE": str(cache), "HF_ENDPOINT": hub.endpoint, "HF_HUB_DISABLE_XET": "1"}
        mark = hub.mark()
        cold.append(run_once(pythonpath, env))
        cold_req.append(len(hub.since(mark)))
        mark = hub.mark()
        warm.append(run_once(pythonpath, env))
        warm_req.append(len(hub.since(mark)))
        shutil.rmtree(cache, ignore_errors=True)
    return {"cold_s": statistics.median(cold), "warm_s": statistics.median(warm),
            "cold_requests": max(cold_req), "warm_requests": max(warm_req)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=40, help="Python files in the variant")
    parser.add_argument("--so-mib", type=int, default=32, help="size of the fake shared object (MiB)")
    args = parser.parse_args()
    upstream = REPO_ROOT / ".upstream-site"
    if not (upstream / "kernels").is_dir():
        print("upstream kernels missing: pip install --target .upstream-site kernels==0.17.2", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="loader-bench-"))
    hub = Hub(tmp / "hub")
    try:
        extra = {f"ops/mod_{i}.py": f"X = {i}\n" * 50 for i in range(args.files)}
        payload = os.urandom(args.so_mib * 1024 * 1024)
        for variant, backend in (("torch-cpu", "cpu"), ("torch-cuda", "cuda")):
            vdir = tmp / "v1" / "build" / variant
            vdir.mkdir(parents=True)
            (vdir / "_benchk_native.abi3.so").write_bytes(payload)
            make_variant(tmp / "v1" / "build", variant, name="benchk", backend=backend, value="1", extra_files=extra)
        hub.publish("trusted-org/benchk", tmp, {"v1": tmp / "v1"})
        # Ours as the tests import it: the installed package (`pip install .`), or the source tree
        # when a built `_core` is linked into it (loader_testlib.OUR_PYTHONPATH).
        ours = measure("ours", OUR_PYTHONPATH, hub, args.runs, tmp)
        theirs = measure("upstream", str(upstream), hub, args.runs, tmp)
    finally:
        hub.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    files = args.files + 4
    print(f"variant: {files} files incl. a {args.so_mib} MiB shared object; median of {args.runs} runs")
    print(f"{'':10} {'cold (s)':>10} {'warm (s)':>10} {'cold req':>9} {'warm req':>9}")
    for label, r in (("ours", ours), ("upstream", theirs)):
        print(f"{label:10} {r['cold_s']:10.3f} {r['warm_s']:10.3f} {r['cold_requests']:9d} {r['warm_requests']:9d}")
    print(f"speed-up (upstream / ours): cold {theirs['cold_s'] / ours['cold_s']:.2f}x, "
          f"warm {theirs['warm_s'] / ours['warm_s']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
