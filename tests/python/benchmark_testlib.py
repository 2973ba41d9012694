"""Helpers of the `kernels benchmark` tests: a kernel project with a pure-Python noarch variant
(so our loader and upstream's load it on any machine), a fake timer with known samples, and an
in-process run of the CLI with that timer and a fixed machine description."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

from loader_testlib import OUR_PYTHONPATH, REPO_ROOT, make_variant

UPSTREAM_SITE = REPO_ROOT / ".upstream-site"

KERNEL_CODE = """
import torch

def relu(x, out=None):
    if out is None:
        out = torch.empty_like(x)
    torch.clamp(x, min=0, out=out)
    return out

def wrong(x, out=None):
    if out is None:
        out = torch.empty_like(x)
    out.copy_(x)
    return out
"""

MACHINE = {"cpu": "Test CPU", "gpu": None, "driver": None, "cuda": None, "torch": "2.11.0",
           "python": "3.11.0", "platform": "Linux-test"}


def make_project(root: Path, scripts: Dict[str, str], name: str = "probe") -> Path:
    """A kernel project at `root` with build/torch-universal and benchmarks/<file> scripts."""
    make_variant(root / "build", "torch-universal", name=name, init_extra=KERNEL_CODE)
    (root / "benchmarks").mkdir(parents=True, exist_ok=True)
    for file, text in scripts.items():
        (root / "benchmarks" / file).write_text(text)
    return root


class FakeTimer:
    """Known samples: call c of `run` gives samples[c % len]; each sample still calls `fn` once
    so the order of calls is the real one."""

    name = "monotonic"

    def __init__(self, pattern: Optional[List[float]] = None):
        self.pattern = pattern or [1.0, 1.5, 1.25, 2.0, 1.0, 9.0, 1.5, 1.75]
        self.calls = 0

    def run(self, fn, iterations):
        samples = []
        for i in range(iterations):
            fn()
            samples.append(self.pattern[(i + self.calls) % len(self.pattern)])
        self.calls += 1
        return samples


def run_cli_in_process(argv: List[str], monkeypatch, timer: Optional[FakeTimer] = None):
    """`kernels <argv>` in this process with the fake timer and machine; returns (rc, out, err)."""
    from kernels import cli
    from kernels._benchmark import device, timers

    fake = timer or FakeTimer()
    monkeypatch.setattr(timers, "timer_for", lambda _device: fake)
    monkeypatch.setattr(device, "machine_info", lambda _device: dict(MACHINE))
    monkeypatch.setattr(device, "torch_device", lambda: "cpu")
    monkeypatch.setitem(device.COPY_BYTES, "cpu", 1 << 20)
    monkeypatch.setitem(device.MATMUL_SIZE, "cpu", 64)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


def run_kernels(argv: List[str], cwd: Path, env: Dict[str, str], upstream: bool = False, timeout: int = 600):
    """`kernels <argv>` in a subprocess: ours (the source tree) or upstream 0.17.2."""
    full = dict(os.environ)
    full.update(env)
    if upstream:
        full["PYTHONPATH"] = str(UPSTREAM_SITE)
        command = [sys.executable, str(UPSTREAM_SITE / "bin" / "kernels")] + argv
    else:
        if OUR_PYTHONPATH:  # else the installed package (PYTHONPATH as given)
            full["PYTHONPATH"] = OUR_PYTHONPATH
        command = [sys.executable, "-m", "kernels.cli"] + argv
    return subprocess.run(command, cwd=cwd, env=full, capture_output=True, text=True, timeout=timeout)
