#!/usr/bin/env python3
"""Cost of kernel-hub's web pages (docs/hub-pages.md) against the JSON API that serves the same
benchmark records: a repository with R uploaded runs (C cases each, on three kinds of hardware),
three variants and 64 files. Prints the median and max time of the repository page, of the index
and of `GET /api/kernels/{repo}/benchmarks` (the baseline: reading and sending the same records
without rendering), their ratio, the page's size, and the mean time of one benchmark upload.

Usage: bench/hub_pages.py [--kernel-hub PATH] [--runs R] [--cases C] [--samples N]
"""
import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e" / "hub"))
from attacker import Server, file_op  # noqa: E402
from benchmark_documents import result, run_document  # noqa: E402


def timed(actor, path, samples):
    times, size = [], 0
    for _ in range(samples):
        start = time.perf_counter()
        answer = actor.get(path)
        times.append(time.perf_counter() - start)
        assert answer.status_code == 200, answer.text[:200]
        size = len(answer.content)
    return statistics.median(times), max(times), size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel-hub", default=str(ROOT / "build-release" / "src" / "cli" / "kernel-hub"))
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()

    server = Server(Path(args.kernel_hub), Path(tempfile.mkdtemp()) / "root")
    try:
        server.add_org("acme")
        alice = server.actor(server.add_user("alice", "acme"))
        alice.create_repo("acme/relu", repo_type="kernel")
        files = {"README.md": b"# Relu\n\n" + b"Some text. " * 2000}
        for variant in ("torch211-cxx11-cu126-x86_64-linux", "torch211-cxx11-cu130-x86_64-linux", "torch-cpu"):
            for i in range(20):
                files[f"build/{variant}/f{i}.py"] = b"x" * 1000
            files[f"build/{variant}/metadata.json"] = (b'{"name": "relu", "id": "_relu_x", "version": 1, "license": '
                                                       b'"MIT", "python-depends": [], "backend": {"type": "cpu"}}')
        answer = alice.commit("acme/relu", [file_op(p, d) for p, d in files.items()], repo_type="kernel")
        assert answer.status_code == 200, answer.text
        start = time.perf_counter()
        for i in range(args.runs):
            document = run_document("acme/relu", gpu=["NVIDIA H100", "NVIDIA H200", None][i % 3],
                                    results=[result("Bench", f"case{k}", 0.1 * (k + 1)) for k in range(args.cases)])
            answer = alice.post("/api/kernels/acme/relu/benchmarks", data=json.dumps(document))
            assert answer.status_code == 201, answer.text
        upload = (time.perf_counter() - start) / max(args.runs, 1)

        anonymous = server.actor()
        page = timed(anonymous, "/acme/relu", args.samples)
        index = timed(anonymous, "/", args.samples)
        api = timed(anonymous, "/api/kernels/acme/relu/benchmarks", args.samples)
        print(f"{args.runs} runs x {args.cases} cases, {len(files)} files; {args.samples} samples each")
        print(f"benchmark upload        mean {upload * 1000:8.1f} ms")
        for name, (median, worst, size) in (("repository page", page), ("index page", index),
                                            ("JSON runs (baseline)", api)):
            print(f"{name:22}  median {median * 1000:8.1f} ms  max {worst * 1000:8.1f} ms  {size:9d} bytes")
        print(f"repository page / JSON runs: {page[0] / api[0]:.2f}x the time")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
