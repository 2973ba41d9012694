"""Golden `--help` text of every command of kernel-builder and kernel-hub (nested subcommands
included). The commands come from the programs' own help, so a new command
without a golden file fails here. Refresh: KB_REFRESH_GOLDEN=1 pytest tests/e2e/test_help_golden.py"""
import os
import re
import subprocess
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "help"


def help_text(binary: Path, words: list[str]) -> str:
    r = subprocess.run([str(binary), *words, "--help"], capture_output=True, text=True, timeout=30)
    assert (r.returncode, r.stderr) == (0, ""), (words, r.stderr)
    return r.stdout


def subcommands(text: str) -> list[str]:
    if "\nSubcommands:\n" not in text:
        return []
    section = text.split("\nSubcommands:\n", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  (\S+)", section, re.MULTILINE)]


def every_command(binary: Path, program: str) -> list[list[str]]:
    found, pending = [], [[]]
    while pending:
        words = pending.pop(0)
        found.append(words)
        pending += [words + [name] for name in subcommands(help_text(binary, words))]
    return found


def golden_name(program: str, words: list[str]) -> str:
    return "-".join([program, *words]) + ".txt"


@pytest.mark.parametrize("program", ["kernel-builder", "kernel-hub"])
def test_help_of_every_command_is_the_golden_text(request, program):
    binary = request.getfixturevalue(program.replace("-", "_"))
    commands = every_command(binary, program)
    assert len(commands) > 3
    refresh = os.environ.get("KB_REFRESH_GOLDEN") == "1"
    mismatches = []
    for words in commands:
        text, golden = help_text(binary, words), GOLDEN / golden_name(program, words)
        if refresh:
            GOLDEN.mkdir(parents=True, exist_ok=True)
            golden.write_text(text)
        elif not golden.is_file():
            mismatches.append(f"{golden.name}: missing (KB_REFRESH_GOLDEN=1 writes it)")
        elif golden.read_text() != text:
            mismatches.append(f"{golden.name}: differs from `{program} {' '.join(words)} --help`")
    stale = {p.name for p in GOLDEN.glob(f"{program}*.txt")} - {golden_name(program, w) for w in commands}
    assert not mismatches and not stale, (mismatches, sorted(stale))
