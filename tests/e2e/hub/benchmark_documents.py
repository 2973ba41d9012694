"""Benchmark run documents (docs/hub-benchmarks.md, "kernels-benchmark/1") as `kernels benchmark
--upload` posts them, written here from the format's description so that the server's parser is
checked against the documentation rather than against itself."""
import copy


def result(benchmark: str, case: str, mean: float, **extra) -> dict:
    out = {
        "benchmark": benchmark, "case": case, "verified": True, "unit": "ms",
        "mean": mean, "std": mean / 10, "min": mean * 0.9, "max": mean * 1.2,
        "q1": mean * 0.95, "median": mean, "q3": mean * 1.05,
        "outliers": 1, "samples": 100, "bytes": None, "flops": None,
        "bandwidth_fraction": None, "peak_fraction": None,
    }
    out.update(extra)
    return out


def run_document(repo_id: str, revision: str = "main", gpu="NVIDIA H100 80GB HBM3", results=None) -> dict:
    return {
        "format": "kernels-benchmark/1",
        "kernel": {"repo_id": repo_id, "revision": revision, "variant": "torch211-cxx11-cu130-x86_64-linux"},
        "machine": {"cpu": "AMD EPYC 9654", "gpu": gpu, "driver": "580.65" if gpu else None,
                    "cuda": "13.0" if gpu else None, "torch": "2.11.0", "python": "3.12.3",
                    "platform": "Linux-6.8-x86_64"},
        "settings": {"iterations": 100, "warmup": 10, "timer": "cuda-events" if gpu else "monotonic"},
        "device": {"copy_bandwidth_bytes_per_s": 2.9e12 if gpu else None,
                   "peak_flops_per_s": 9.89e14 if gpu else None, "peak_source": "table" if gpu else None},
        "results": results if results is not None else [
            result("ReluBenchmark", "small", 0.021, bytes=8388608, bandwidth_fraction=0.14),
            result("ReluBenchmark", "large", 0.412, bytes=268435456, bandwidth_fraction=0.22),
        ],
    }


def changed(document: dict, path: str, value) -> dict:
    """A copy of `document` with the member at dotted `path` ("results.0.mean") set to `value`,
    or deleted when `value` is DELETE."""
    out = copy.deepcopy(document)
    *parents, last = path.split(".")
    node = out
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key = int(last) if isinstance(node, list) else last
    if value is DELETE:
        del node[key]
    else:
        node[key] = value
    return out


DELETE = object()
