"""`kernel-builder build` failures: unknown variants, layout and op-registration checks, compile
errors (which must leave no variant directory behind)."""
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, run_build  # noqa: E402


def test_unknown_variant_lists_valid_ones(tmp_path, kernel_builder, kb_python, cpu_variant):
    project = copy_fixture("addone", tmp_path)
    result = run_build(kernel_builder, project, kb_python, "--variant", "torch-nope", check=False)
    assert result.returncode != 0
    assert "Unknown variant `torch-nope`.\nValid variants are: " in result.stderr
    valid = re.search(r"Valid variants are: (.*)", result.stderr).group(1).split(", ")
    assert cpu_variant in valid


def test_missing_init_fails_layout_check(tmp_path, kernel_builder, kb_python, cpu_variant):
    project = copy_fixture("addone", tmp_path)
    (project / "torch-ext" / "addone" / "__init__.py").unlink()
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, check=False)
    assert result.returncode == 1
    assert "Python module at torch-ext/addone must contain __init__.py" in result.stderr
    assert not (project / "build" / cpu_variant).exists()


def test_unprefixed_registration_fails_lint(tmp_path, kernel_builder, kb_python, cpu_variant):
    project = copy_fixture("addone", tmp_path)
    init = project / "torch-ext" / "addone" / "__init__.py"
    init.write_text(
        init.read_text()
        + "\n\n@torch.library.register_fake(\"addone::addone\")\n"
        "def _fake(out, x):\n    return None\n\n\n"
        "@torch.library.register_fake(add_op_namespace_prefix(\"addone\"))\n"
        "def _fine(out, x):\n    return None\n"
    )
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, check=False)
    assert result.returncode == 1
    assert "Found Torch library registrations that do not use `add_op_namespace_prefix`:" in result.stderr
    assert "torch-ext/addone/__init__.py:19 function _fake" in result.stderr
    assert "_fine" not in result.stderr


def test_missing_source_file_is_named_before_cmake_runs(tmp_path, kernel_builder, kb_python, cpu_variant):
    project = copy_fixture("addone", tmp_path)
    (project / "addone_cpu" / "addone_cpu.cpp").unlink()
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, check=False)
    assert result.returncode == 1
    assert result.stderr.endswith(
        "error: 1 source file listed in build.toml does not exist\n"
        f"Caused by: {project}/build.toml:14:8: source file `addone_cpu/addone_cpu.cpp` does not exist\n"
        'src = ["addone_cpu/addone_cpu.cpp"]\n'
        "       ^~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "hint: create it, or remove it from this `src` list\n")
    assert "CMake" not in result.stderr


@pytest.mark.slow
def test_failed_compile_leaves_no_variant_dir(tmp_path, kernel_builder, kb_python, cpu_variant):
    project = copy_fixture("addone", tmp_path)
    # Nothing but the error: the compiler would otherwise go on through the torch headers after it.
    for source in [project / "addone_cpu" / "addone_cpu.cpp", project / "torch-ext" / "torch_binding.cpp"]:
        source.write_text("this is not C++;\n")
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--cores", "1", check=False)
    assert result.returncode == 1
    assert f"error: Cannot build variant `{cpu_variant}`" in result.stderr
    assert "hint: full log: " in result.stderr
    assert "this is not C++" in result.stderr or "error:" in result.stderr.split("Caused by:", 1)[1]
    build = project / "build"
    assert not (build / cpu_variant).exists()
    assert not any(p.name.startswith(".staging") for p in build.iterdir())
