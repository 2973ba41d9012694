"""Usage errors of the `kernels` command line as users see them: a misspelt command or option gets
the closest name, a command of Hugging Face's `kernels` that another program of this project runs
names that program, and `--help` points at nothing a pip install lacks. Exact text (stderr, exit 2)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from loader_testlib import OUR_PYTHONPATH

CLI = "import sys; from kernels.cli import main; sys.exit(main(sys.argv[1:]))"

CASES = {
    ("upload", "my-kernel"): "error: unknown command `upload` for `kernels`\n"
                             "hint: run `kernel-builder upload` instead (the tools wheel installs `kernel-builder`)\n",
    ("verions", "org/x"): "error: unknown command `verions` for `kernels`\nhint: did you mean `versions`?\n",
    ("frobnicate",): "error: unknown command `frobnicate` for `kernels`\nhint: run `kernels --help` for its commands\n",
    ("benchmark", "org/x", "--iteratons", "3"): "error: unknown option `--iteratons` for `kernels benchmark`\n"
                                                "hint: did you mean `--iterations`?\n",
    ("versions", "org/x", "extra"): "error: unexpected argument `extra` for `kernels versions`\n"
                                    "hint: run `kernels versions --help` for its arguments\n",
}


def kernels_cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=OUR_PYTHONPATH)
    return subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args", sorted(CASES), ids=lambda a: " ".join(a))
def test_usage_error_names_the_fix(args):
    r = kernels_cli(*args)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", CASES[args])


def test_help_cites_no_file_of_the_source_tree():
    r = kernels_cli("--help")
    assert r.returncode == 0
    assert "docs/" not in r.stdout and ".md" not in r.stdout
