"""The kernel-builder binary's top-level behaviour: --version, --help, usage errors."""
import re
import subprocess


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True)


def test_version_names_program_and_commit(kernel_builder):
    r = run(kernel_builder, "--version")
    assert r.returncode == 0
    assert re.fullmatch(r"kernel-builder \d+\.\d+\.\d+( \([0-9a-f]{40}(-dirty)?\))?\n", r.stdout)


def test_unknown_command_is_a_usage_error(kernel_builder):
    r = run(kernel_builder, "frobnicate")
    assert r.returncode == 2
