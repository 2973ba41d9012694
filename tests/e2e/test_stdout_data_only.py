"""stdout carries data only: prompts, progress and confirmations of every command go to stderr, so
`$(...)` and pipes get just the data (a dry run's file list, a token, a card, JSON)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import MINIMAL_BUILD_TOML, run  # noqa: E402


def project_with_pyproject(kernel_builder, tmp_path):
    (tmp_path / "build.toml").write_text(MINIMAL_BUILD_TOML)
    assert run(kernel_builder, "create-pyproject", tmp_path).returncode == 0
    return tmp_path


def test_clean_pyproject_prompts_and_reports_on_stderr(kernel_builder, tmp_path):
    project = project_with_pyproject(kernel_builder, tmp_path)
    declined = run(kernel_builder, "clean-pyproject", project, input="n\n")
    assert declined.returncode == 1 and declined.stdout == ""
    assert declined.stderr.startswith(f"Files to be deleted:\n  {project / 'CMakeLists.txt'}\n")
    assert declined.stderr.endswith("Continue? [y/N] Aborted.\n")
    accepted = run(kernel_builder, "clean-pyproject", project, input="y\n")
    assert accepted.returncode == 0 and accepted.stdout == ""
    assert f"Deleted: {project / 'CMakeLists.txt'}\n" in accepted.stderr
    assert accepted.stderr.endswith(f"Removed empty directory: {project / 'cmake'}\nCleaned 14 generated artifacts.\n")
    assert not (project / "CMakeLists.txt").exists()


def test_clean_pyproject_dry_run_lists_the_files_on_stdout(kernel_builder, tmp_path):
    project = project_with_pyproject(kernel_builder, tmp_path)
    dry = run(kernel_builder, "clean-pyproject", project, "--dry-run")
    assert dry.returncode == 0 and dry.stderr == ""
    assert dry.stdout.startswith(f"Files that would be deleted:\n  {project / 'CMakeLists.txt'}\n")
    assert (project / "CMakeLists.txt").exists()


def test_kernel_hub_user_add_prints_only_the_token_on_stdout(kernel_hub, tmp_path):
    root = tmp_path / "root"
    org = run(kernel_hub, "org", "add", "my-org", "--root", root, "--trusted")
    assert (org.returncode, org.stdout, org.stderr) == (0, "", "Organization `my-org` saved (trusted)\n")
    user = run(kernel_hub, "user", "add", "alice", "--root", root, "--org", "my-org")
    assert user.returncode == 0
    assert user.stderr == "User `alice` saved. New token (shown once):\n"
    token = user.stdout.removesuffix("\n")
    assert token and "\n" not in token and " " not in token


def test_no_command_is_a_usage_error_with_the_help_on_stderr(kernel_builder, kernel_hub):
    for binary, usage in ((kernel_builder, "Usage: kernel-builder"), (kernel_hub, "Usage: kernel-hub")):
        r = run(binary)
        assert r.returncode == 2 and r.stdout == ""
        assert usage in r.stderr
    # --help asked for is the command's data: stdout, status 0.
    asked = run(kernel_builder, "--help")
    assert asked.returncode == 0 and asked.stderr == "" and "Usage: kernel-builder" in asked.stdout
