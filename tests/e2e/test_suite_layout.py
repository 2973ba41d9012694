"""The README's test command runs every test file of the repository: pytest's default collection
(testpaths and norecursedirs of pytest.ini) reaches each test_*.py under tests/e2e, tests/python and
examples/*/tests. A directory pattern that also matches a test folder (`build` once hid all of
tests/e2e/build from CI) fails here."""
import os
import re
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


# A pytest plugin that keeps only the tests asking for the second torch (their fixture closure).
ONLY_SECOND_TORCH = """
def pytest_collection_modifyitems(config, items):
    keep = [item for item in items if "torch215_python" in getattr(item, "fixturenames", ())]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep
"""


def test_tests_of_the_second_torch_skip_where_install_deps_skipped_it(tmp_path):
    """scripts/install-deps leaves .venv-torch215/.kb-skipped instead of a second torch when the
    disk is short (as on a CI machine): every test that needs that torch is then skipped with the
    note, none fails. They reach it only through conftest's fixture, which reads the note."""
    tracked = subprocess.run(["git", "-C", str(REPO), "ls-files", "tests/*.py"],
                             capture_output=True, text=True, check=True).stdout.split()
    readers = [path for path in tracked if path not in ("tests/e2e/conftest.py", "tests/e2e/test_suite_layout.py")
               and any(name in (REPO / path).read_text() for name in ('".venv-torch215"', "KB_TORCH215_PYTHON"))]
    assert readers == [], f"use the torch215_python fixture of tests/e2e/conftest.py in {readers}"
    venv = tmp_path / "venv-torch215"
    venv.mkdir()
    (venv / ".kb-skipped").write_text("install-deps skipped requirements/torch215.txt: a test note\n")
    (tmp_path / "only_second_torch.py").write_text(ONLY_SECOND_TORCH)
    env = {**os.environ, "KB_TORCH215_PYTHON": str(venv / "bin" / "python"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    # Only the files that name the second torch are collected (a whole collection of tests/e2e
    # costs about a minute of CPU); the plugin then keeps the tests whose fixtures reach it.
    users = [path for path in tracked if path.startswith("tests/e2e/") and path != "tests/e2e/test_suite_layout.py"
             and Path(path).name.startswith("test_") and "torch215" in (REPO / path).read_text()]
    assert len(users) >= 3, users
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                             "-p", "only_second_torch", "-rs", *users], cwd=REPO, capture_output=True, text=True, env=env)
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-4000:]
    assert re.fullmatch(r"(\d+) skipped, \d+ deselected in .*", summary), summary
    assert int(summary.split()[0]) >= 3, summary
    assert result.stdout.count("a test note") == int(summary.split()[0]), result.stdout[-4000:]
