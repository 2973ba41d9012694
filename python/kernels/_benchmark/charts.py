"""`--visual BASE`: the run drawn with matplotlib, light and dark, as BASE-light.svg and
BASE-dark.svg (and .png with `--rasterized`). Three panels: time per case (mean, quartiles and
min–max), each case's fraction of copy bandwidth and of peak, and the roofline (achieved FLOP/s
against arithmetic intensity, under min(peak, intensity × copy bandwidth)) for the cases that
declare both bytes and FLOPs. SVGs are written reproducibly (fixed hash salt, no date)."""
from __future__ import annotations

from pathlib import Path
from typing import List

THEMES = {"light": "default", "dark": "dark_background"}


def _labels(document: dict) -> List[str]:
    return [f"{r['benchmark']}.{r['case']}" for r in document["results"]]


def _time_panel(ax, document: dict) -> None:
    results = document["results"]
    labels = _labels(document)
    y = list(range(len(results)))
    means = [r["mean"] for r in results]
    ax.barh(y, means, color="C0", alpha=0.8, label="mean")
    ax.hlines(y, [r["q1"] for r in results], [r["q3"] for r in results], color="C3", linewidth=3,
              label="q1 – q3", zorder=3)
    ax.scatter([r["min"] for r in results], y, marker="|", color="C1", s=80, label="min / max", zorder=3)
    ax.scatter([r["max"] for r in results], y, marker="|", color="C1", s=80, zorder=3)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    if min(means) > 0 and max(means) / min(means) > 50:  # cases of very different cost
        ax.set_xscale("log")
    ax.set_xlabel("time per call (ms)")
    ax.set_title("Time")
    ax.legend(loc="lower right", fontsize="small")


def _fraction_panel(ax, document: dict) -> None:
    results = document["results"]
    labels = _labels(document)
    y = list(range(len(results)))
    height = 0.38
    bw = [100 * (r["bandwidth_fraction"] or 0) for r in results]
    peak = [100 * (r["peak_fraction"] or 0) for r in results]
    ax.barh([v - height / 2 for v in y], bw, height, color="C2", label="of copy bandwidth")
    ax.barh([v + height / 2 for v in y], peak, height, color="C3", label="of FP32 peak")
    ax.set_xlim(0, max([100.0] + [1.1 * v for v in bw + peak]))
    for i, r in enumerate(results):
        if r["bandwidth_fraction"] is None and r["peak_fraction"] is None:
            ax.text(2, i, "no bytes/FLOPs declared", va="center", fontsize="small")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("% of the device's roof")
    ax.set_title("Fraction of roof")
    ax.legend(loc="lower right", fontsize="small")


def _roofline_panel(ax, document: dict) -> None:
    device = document["device"]
    bandwidth, peak = device["copy_bandwidth_bytes_per_s"], device["peak_flops_per_s"]
    points = [r for r in document["results"] if r["bytes"] and r["flops"]]
    ax.set_title("Roofline")
    if not points or not bandwidth or not peak:
        ax.text(0.5, 0.5, "no case declares both bytes and FLOPs", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return
    intensities = [r["flops"] / r["bytes"] for r in points]
    ridge = peak / bandwidth
    low = min(intensities + [ridge]) / 10
    high = max(intensities + [ridge]) * 10
    xs = [low, ridge, high]
    ax.plot(xs, [min(peak, x * bandwidth) / 1e9 for x in xs], color="C7", linewidth=2,
            label=f"roof: {bandwidth / 1e9:.0f} GB/s, {peak / 1e9:.0f} GFLOP/s")
    for i, (r, x) in enumerate(zip(points, intensities)):
        achieved = r["flops"] / (r["mean"] / 1e3) / 1e9
        ax.scatter([x], [achieved], color=f"C{i % 10}", zorder=3, label=f"{r['benchmark']}.{r['case']}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    lowest = min([low * bandwidth / 1e9] + [r["flops"] / (r["mean"] / 1e3) / 1e9 for r in points])
    ax.set_ylim(lowest / 3, peak / 1e9 * 3)
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("GFLOP/s")
    ax.legend(loc="upper left", fontsize="small")


def write(document: dict, base: str, rasterized: bool) -> List[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernel = document["kernel"]
    machine = document["machine"]
    title = (f"{kernel['repo_id']} @ {kernel['revision']} ({kernel['variant']}) on "
             f"{machine['gpu'] or machine['cpu']}")
    written = []
    rows = max(1, len(document["results"]))
    for theme, style in THEMES.items():
        with plt.style.context(style), matplotlib.rc_context({"svg.hashsalt": "kernels-benchmark"}):
            fig, axes = plt.subplots(1, 3, figsize=(18, max(4.5, 2.5 + 0.45 * rows)), layout="constrained")
            _time_panel(axes[0], document)
            _fraction_panel(axes[1], document)
            _roofline_panel(axes[2], document)
            fig.suptitle(title)
            suffixes = ["svg", "png"] if rasterized else ["svg"]
            for suffix in suffixes:
                path = Path(f"{base}-{theme}.{suffix}")
                path.parent.mkdir(parents=True, exist_ok=True)
                fig.savefig(path, format=suffix, metadata={"Date": None} if suffix == "svg" else None, dpi=120)
                written.append(path)
            plt.close(fig)
    return written
