"""The builder's own commit and dirty flag (`--version`, metadata provenance) are read at every
build of the CLIs, not only when CMake configures (cmake/GitVersion.cmake): an incremental build
after a commit or an edit records the tree it was built from, and an unchanged tree rewrites
nothing."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("KB_BUILD_DIR", REPO_ROOT / "build-release"))
SCRIPT = REPO_ROOT / "cmake" / "GitVersionHeader.cmake"


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env).stdout.strip()


def write_header(repo: Path, header: Path) -> str:
    subprocess.run(["cmake", f"-DSOURCE_DIR={repo}", f"-DOUTPUT={header}", "-P", str(SCRIPT)], check=True)
    return header.read_text()


def test_header_follows_commits_and_edits_and_is_left_alone_when_unchanged(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    repo = tmp_path / "tree"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "one")
    header = tmp_path / "out" / "kb_git_version.h"
    first = git(repo, "rev-parse", "HEAD")
    assert f'#define KB_GIT_COMMIT "{first}"\n#define KB_GIT_DIRTY false\n' in write_header(repo, header)

    # Unchanged: the header keeps its modification time (nothing that includes it recompiles).
    before = header.stat().st_mtime_ns
    os.utime(header, ns=(before - 10**9, before - 10**9))
    write_header(repo, header)
    assert header.stat().st_mtime_ns == before - 10**9

    (repo / "a.txt").write_text("two\n")
    assert "#define KB_GIT_DIRTY true" in write_header(repo, header)
    git(repo, "commit", "-q", "-am", "two")
    second = git(repo, "rev-parse", "HEAD")
    assert f'#define KB_GIT_COMMIT "{second}"\n#define KB_GIT_DIRTY false\n' in write_header(repo, header)

    # Outside a git checkout (a source archive): no commit, not dirty.
    plain = tmp_path / "plain"
    plain.mkdir()
    assert '#define KB_GIT_COMMIT ""\n#define KB_GIT_DIRTY false\n' in write_header(plain, header)


def test_every_build_of_the_cli_runs_it():
    if not (BUILD_DIR / "build.ninja").exists():
        pytest.skip(f"no Ninja build in {BUILD_DIR}")
    commands = subprocess.run(["ninja", "-C", str(BUILD_DIR), "-t", "commands", "src/cli/kernel-builder"],
                              capture_output=True, text=True, check=True).stdout
    # The step has no output Ninja could find up to date: it runs at every build.
    assert str(SCRIPT) in commands
