"""The README's quickstart, run verbatim: the commands are read from the README's fenced block
under "## Quickstart" (not copied here), and run with bash in a scratch directory with the programs
and a Python first on PATH. What the README says the last line prints is checked.

Where scripts/test built the wheels (KB_REQUIRE_WHEELS=1), tests/python/test_wheels.py runs it from
a fresh environment that holds only the wheels (run_quickstart below), and this file's run, which
would build the same kernel again from the build tree, is skipped; elsewhere it runs here."""
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def readme_block(heading: str) -> str:
    text = (REPO_ROOT / "README.md").read_text()
    section = text.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    assert len(blocks) == 1, f"one bash block expected under `## {heading}`"
    return blocks[0]


def test_the_quickstart_is_one_bash_block_that_ends_in_a_load():
    commands = readme_block("Quickstart")
    assert commands.startswith("kernel-builder init ")
    assert "get_kernel(" in commands.strip().splitlines()[-1]


def run_quickstart(bin_dirs, tmp_path: Path, base_env=None) -> None:
    """Runs the quickstart block with `bin_dirs` first on PATH in `tmp_path` and checks what it prints."""
    commands = readme_block("Quickstart")
    base = dict(os.environ if base_env is None else base_env)
    env = dict(base, PATH=os.pathsep.join([*map(str, bin_dirs), base.get("PATH", os.defpath)]), HOME=str(tmp_path),
               HF_HUB_CACHE=str(tmp_path / "hf-cache"), NO_COLOR="1")
    for name in ("HF_TOKEN", "HF_ENDPOINT", "HF_HUB_OFFLINE", "LOCAL_KERNELS", "KERNELS_CACHE"):
        env.pop(name, None)
    # The new HOME shares the torch header cache of the test session's user cache (its entries
    # are keyed by torch, compiler and flags): its build does not precompile torch's headers again
    # in the background, a minute of a core that would outlive the test. (With XDG_CACHE_HOME set,
    # the quickstart uses that user cache itself.)
    if not env.get("XDG_CACHE_HOME"):
        shared = Path.home() / ".cache" / "kernel-builder" / "torch-pch"
        shared.mkdir(parents=True, exist_ok=True)
        (tmp_path / ".cache" / "kernel-builder").mkdir(parents=True, exist_ok=True)
        (tmp_path / ".cache" / "kernel-builder" / "torch-pch").symlink_to(shared)
    # The README starts `kernel-hub serve` in the background: the script's process group is
    # ended afterwards, whatever happened.
    script = "set -euo pipefail\n" + commands
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("w") as stdout, err.open("w") as stderr:
        # Files, not pipes: the server in the background keeps its output open after bash exits.
        process = subprocess.Popen(["bash", "-c", script], cwd=tmp_path, env=env, stdout=stdout, stderr=stderr,
                                   start_new_session=True)
        try:
            process.wait(timeout=1200)
        finally:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    assert process.returncode == 0, err.read_text()
    printed = out.read_text()
    assert printed.strip().splitlines()[-1] == "tensor([1., 1., 1.])", (printed, err.read_text())
    assert "prints `tensor([1., 1., 1.])`" in (REPO_ROOT / "README.md").read_text()


@pytest.mark.slow
def test_readme_quickstart_runs_verbatim(kernel_builder, kernel_hub, tmp_path):
    if os.environ.get("KB_REQUIRE_WHEELS") == "1":
        pytest.skip("run from the wheels by tests/python/test_wheels.py (test_quickstart_from_the_wheels)")
    run_quickstart([kernel_builder.parent, kernel_hub.parent, Path(sys.executable).parent], tmp_path)
