"""TFLOP/s of the CUTLASS/CuTe GEMM example against torch.mm (cuBLAS) on square and uneven
products, float16 and bfloat16, timed with CUDA events (median of 20 runs after 5 warm-ups).

`python examples/cutlass-gemm/benchmarks/tflops.py OUT_DIR` builds/loads the example through
examples/example_build.py, prints one line per case and writes OUT_DIR/cutlass-gemm-tflops.csv
(and a .png when matplotlib is installed). The example's mm includes the copy of B into the
K-major layout it reads (a transposed copy, once per call); torch.mm does not need one."""
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # examples/
import example_build  # noqa: E402

SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4000, 3000, 1000),
          (8192, 1024, 4096)]


def median_ms(fn) -> float:
    for _ in range(5):
        fn()
    times = []
    for _ in range(20):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    gemm = example_build.load_example("cutlass-gemm", "cuda")
    rows = ["dtype,m,n,k,cutlass_ms,torch_ms,cutlass_tflops,torch_tflops,ratio"]
    print(f"device: {torch.cuda.get_device_name()}")
    for dtype in (torch.float16, torch.bfloat16):
        for m, n, k in SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            ours = median_ms(lambda: gemm.mm(a, b))
            theirs = median_ms(lambda: torch.mm(a, b))
            flop = 2.0 * m * n * k
            tf_ours, tf_theirs = flop / ours / 1e9, flop / theirs / 1e9
            name = str(dtype).replace("torch.", "")
            rows.append(f"{name},{m},{n},{k},{ours:.4f},{theirs:.4f},{tf_ours:.1f},{tf_theirs:.1f},{tf_ours / tf_theirs:.2f}")
            print(f"{name} {m}x{n}x{k}: cutlass {tf_ours:.1f} TFLOP/s, torch.mm {tf_theirs:.1f} TFLOP/s "
                  f"({tf_ours / tf_theirs:.2f}x)", flush=True)
    (out_dir / "cutlass-gemm-tflops.csv").write_text("\n".join(rows) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no figure")
        return 0
    records = [r.split(",") for r in rows[1:]]
    labels = [f"{r[0][:4]} {r[1]}x{r[2]}x{r[3]}" for r in records]
    x = range(len(records))
    fig, ax = plt.subplots(figsize=(12, 4.5))
    ax.bar([i - 0.2 for i in x], [float(r[6]) for r in records], 0.4, label="CUTLASS/CuTe example")
    ax.bar([i + 0.2 for i in x], [float(r[7]) for r in records], 0.4, label="torch.mm (cuBLAS)")
    ax.set_xticks(list(x), labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"C = A @ B on {torch.cuda.get_device_name()}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "cutlass-gemm-tflops.png", dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
