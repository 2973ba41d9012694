"""The text report of a run document: a header (kernel, machine, timing, roofs) and one row per
case. Fixed-width columns written here rather than with `tabulate`: the GPU machine has no package
registry, and this is a dozen lines."""
from __future__ import annotations

from typing import List, Optional

COLUMNS = ("Benchmark", "Case", "Verified", "N", "Mean", "Std", "Min", "Q1", "Median", "Q3", "Max",
           "Outliers", "GB/s", "of BW", "GFLOP/s", "of peak")


def _ms(value: float) -> str:
    return f"{value:.4f}"


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.2f}" if value >= 1 else f"{value:.3g}"


def _rate(work: Optional[float], mean_ms: float, scale: float) -> str:
    if work is None or mean_ms <= 0:
        return "-"
    return _number(work / (mean_ms / 1e3) / scale)


def _percent(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _verified(value: Optional[bool]) -> str:
    return {True: "yes", False: "FAILED", None: "-"}[value]


def rows(document: dict) -> List[List[str]]:
    out = []
    for r in document["results"]:
        out.append([
            r["benchmark"], r["case"], _verified(r["verified"]), str(r["samples"]),
            *(_ms(r[k]) for k in ("mean", "std", "min", "q1", "median", "q3", "max")),
            str(r["outliers"]),
            _rate(r["bytes"], r["mean"], 1e9), _percent(r["bandwidth_fraction"]),
            _rate(r["flops"], r["mean"], 1e9), _percent(r["peak_fraction"]),
        ])
    return out


def render(document: dict, copy_source: Optional[str], scripts: str) -> str:
    """`scripts`: the script names and the SHA-256 over their bytes (upstream prints it too)."""
    k, m, s, d = document["kernel"], document["machine"], document["settings"], document["device"]
    bandwidth = d["copy_bandwidth_bytes_per_s"]
    peak = d["peak_flops_per_s"]
    lines = [
        f"Kernel    {k['repo_id']} @ {k['revision']}, variant {k['variant']}",
        f"Machine   CPU {m['cpu']}; GPU {m['gpu'] or '-'}; driver {m['driver'] or '-'}; "
        f"CUDA {m['cuda'] or '-'}; torch {m['torch']}; Python {m['python']}",
        f"Scripts   {scripts}",
        f"Timing    {s['timer']}, {s['iterations']} iterations after {s['warmup']} warmup; times in ms",
        "Copy      " + ("-" if bandwidth is None else f"{_number(bandwidth / 1e9)} GB/s ({copy_source})"),
        "Peak      " + ("-" if peak is None else f"{_number(peak / 1e9)} GFLOP/s ({d['peak_source']})"),
        "",
    ]
    table = [list(COLUMNS)] + rows(document)
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    left = {0, 1, 2}
    for n, row in enumerate(table):
        cells = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
