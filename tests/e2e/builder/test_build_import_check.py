"""The import check of a torch variant, whose interpreter starts (and imports torch) while the
variant compiles (src/builder/variant_build.cpp, EarlyImportCheck): a package that fails to import
fails the build with its error; an interpreter that exits before the variant is staged fails it
too (no crash of the builder on the closed pipe); a compile error ends the build without waiting
on the check."""
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, run_build  # noqa: E402

pytestmark = pytest.mark.slow


def test_package_that_fails_to_import_fails_the_build(tmp_path, kernel_builder, kb_python, cpu_variant):
    project = copy_fixture("addone", tmp_path)
    init = project / "torch-ext" / "addone" / "__init__.py"
    init.write_text(init.read_text() + "\nraise RuntimeError('addone refuses to import')\n")
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "ic1", check=False)
    assert result.returncode == 1, result.stderr
    assert f"Variant `{cpu_variant}` fails to import" in result.stderr
    assert "addone refuses to import" in result.stderr
    log = (project / "build" / ".kb" / cpu_variant / "build.log").read_text()
    assert "--wait (started with the compile)" in log and "addone refuses to import" in log
    assert not (project / "build" / cpu_variant).exists()


def test_interpreter_gone_before_staging_fails_the_check(tmp_path, kernel_builder, kb_python, cpu_variant):
    wrapper = tmp_path / "bin" / "python"
    wrapper.parent.mkdir()
    wrapper.write_text(f"""#!/bin/sh
case "$*" in *--wait*) echo "the check's interpreter went away"; exit 3;; esac
exec '{kb_python}' "$@"
""")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    project = copy_fixture("addone", tmp_path)
    result = run_build(kernel_builder, project, wrapper, "--variant", cpu_variant, "--unique-id", "ic2", check=False)
    assert result.returncode == 1, result.stderr
    assert f"Variant `{cpu_variant}` fails to import" in result.stderr
    assert "the check's interpreter went away" in result.stderr
