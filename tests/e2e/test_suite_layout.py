"""The README's test command runs every test file of the repository: pytest's default collection
(testpaths and norecursedirs of pytest.ini) reaches each test_*.py under tests/e2e, tests/python and
examples/*/tests. A directory pattern that also matches a test folder (`build` once hid all of
tests/e2e/build from CI) fails here."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def repository_test_files() -> set:
    tracked = subprocess.run(["git", "-C", str(REPO), "ls-files", "tests/e2e", "tests/python", "examples"],
                             capture_output=True, text=True, check=True).stdout.split()
    return {path for path in tracked
            if Path(path).name.startswith("test_") and path.endswith(".py")
            and "/golden/" not in path and "/data/" not in path}


def collected_test_files() -> set:
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q"],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return {line.split("::")[0] for line in result.stdout.splitlines() if "::" in line}


def test_every_test_file_is_collected():
    missing = sorted(repository_test_files() - collected_test_files())
    assert not missing, f"pytest.ini's default run does not collect: {missing}"
