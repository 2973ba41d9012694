"""The exit-status table of src/util/exit_code.h, end to end: every command that takes a
directory argument answers a missing one with the same usage error (2), a command that runs and
fails exits 1, success 0, and both programs print that one table in their --help."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import MINIMAL_BUILD_TOML, run, write_minimal_project  # noqa: E402

# Every kernel-builder command with a KERNEL_DIR (or PATH) positional, and the arguments it needs
# before that positional would be checked.
DIRECTORY_COMMANDS = [
    ["build"], ["build-and-copy"], ["build-and-upload"], ["upload"], ["devshell"], ["testshell"],
    ["check-abi"], ["check-builds"], ["check-config"], ["clean-pyproject"], ["create-pyproject"],
    ["hash"], ["list-variants"], ["update-build"], ["fill-card"],
]

# What exit status 1 means differs per program: kernel-hub builds nothing.
FAILURES = {
    "kernel_builder": "a failed build, check, request or file operation, a declined prompt",
    "kernel_hub": "a server that cannot start, an organization or user that cannot be added, a failed file operation",
}


def table(program: str) -> str:
    return ("Exit status:\n"
            "  0  success\n"
            f"  1  error ({FAILURES[program]})\n"
            "  2  usage error (unknown command or option, bad option value, a path argument that is not a directory)\n")


@pytest.mark.parametrize("command", DIRECTORY_COMMANDS, ids=lambda c: c[0])
def test_a_missing_directory_is_a_usage_error_in_every_command(kernel_builder, tmp_path, command):
    missing = tmp_path / "missing"
    r = run(kernel_builder, *command, missing, cwd=tmp_path)
    assert (r.returncode, r.stderr, r.stdout) == (2, f"error: `{missing}` is not a directory\n", "")


def test_a_target_dir_that_is_a_file_is_a_usage_error(kernel_builder, tmp_path):
    (tmp_path / "build.toml").write_text(MINIMAL_BUILD_TOML)
    (tmp_path / "file").write_text("")
    for command in ("create-pyproject", "clean-pyproject"):
        r = run(kernel_builder, command, tmp_path, tmp_path / "file")
        assert (r.returncode, r.stderr) == (2, f"error: `{tmp_path / 'file'}` is not a directory\n"), command


def test_success_failure_and_usage_statuses(kernel_builder, tmp_path):
    write_minimal_project(tmp_path)
    assert run(kernel_builder, "check-config", tmp_path).returncode == 0
    (tmp_path / "build.toml").write_text(MINIMAL_BUILD_TOML.replace("edition = 5", 'edition = 5\nbackend = "cpu"'))
    failed = run(kernel_builder, "check-config", tmp_path)
    assert failed.returncode == 1 and "error:" in failed.stderr
    assert run(kernel_builder, "check-config", "--no-such-option", tmp_path).returncode == 2
    assert run(kernel_builder, "no-such-command").returncode == 2
    # A declined prompt is a failure (1), not a usage error.
    (tmp_path / "build.toml").write_text(MINIMAL_BUILD_TOML)
    assert run(kernel_builder, "create-pyproject", tmp_path).returncode == 0
    declined = run(kernel_builder, "clean-pyproject", tmp_path, input="n\n")
    assert declined.returncode == 1 and declined.stderr.endswith("Aborted.\n")


def test_kernel_hub_statuses(kernel_hub, tmp_path):
    assert run(kernel_hub, "org", "add", "my-org", "--root", tmp_path / "root").returncode == 0
    bad_name = run(kernel_hub, "org", "add", "bad/name", "--root", tmp_path / "root")
    assert (bad_name.returncode, bad_name.stderr) == (2, "error: Invalid organization name `bad/name`\n")
    unknown_org = run(kernel_hub, "user", "add", "alice", "--root", tmp_path / "root", "--org", "nope")
    assert unknown_org.returncode == 2 and "Unknown organization `nope`" in unknown_org.stderr
    assert run(kernel_hub, "org", "add", "x").returncode == 2  # --root is required


@pytest.mark.parametrize("program", ["kernel_builder", "kernel_hub"])
def test_help_of_every_program_and_command_ends_with_the_one_table(request, program):
    binary = request.getfixturevalue(program)
    top = run(binary, "--help")
    assert top.returncode == 0 and top.stdout.endswith("\n\n" + table(program))
    assert run(binary, "serve" if program == "kernel_hub" else "build", "--help").stdout.endswith("\n\n" + table(program))
