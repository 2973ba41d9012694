"""`kernel-builder devshell` / `testshell` (docs/cli.md): a command after `--` runs in the kernel
directory with the chosen build set's toolchain first on PATH; testshell also makes the built
variant importable by its package name, puts its directory before the inherited PYTHONPATH and
clears LD_LIBRARY_PATH; by default it takes a variant that was built."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
SHOW_ENV = ("import json, os, sys; print(json.dumps({'python': sys.executable, 'cwd': os.getcwd(), "
            "'variant': os.environ.get('KERNEL_BUILDER_VARIANT'), 'venv': os.environ.get('VIRTUAL_ENV'), "
            "'pythonpath': os.environ.get('PYTHONPATH'), 'ld': os.environ.get('LD_LIBRARY_PATH')}))")


def shell(kernel_builder, which, project, *args, env=None):
    return subprocess.run([str(kernel_builder), which, str(project), *map(str, args)], capture_output=True, text=True,
                          env=env)


def cpu_only(project: Path) -> Path:
    text = (project / "build.toml").read_text().replace('backends = ["cpu", "cuda"]', 'backends = ["cpu"]')
    (project / "build.toml").write_text(text[: text.index("[kernel.addone_cuda]")])
    return project


def test_devshell_runs_the_command_with_the_chosen_toolchain(tmp_path, kernel_builder, kb_python, torch215_python):
    project = cpu_only(copy_fixture("addone", tmp_path))
    common = ["--python", kb_python, "--python", torch215_python]
    default = shell(kernel_builder, "devshell", project, *common, "--", "python", "-c", SHOW_ENV)
    assert default.returncode == 0, default.stderr
    seen = json.loads(default.stdout)
    # Default: the newest torch; `python` on PATH is that toolchain's interpreter.
    assert seen["variant"] == "torch215-cxx11-cpu-x86_64-linux"
    assert Path(seen["python"]).parent == torch215_python.parent
    assert seen["venv"] == str(torch215_python.parent.parent)
    assert seen["cwd"] == str(project)
    chosen = shell(kernel_builder, "devshell", project, *common, "--variant", "torch211-cxx11-cpu-x86_64-linux",
                   "--", "python", "-c", SHOW_ENV)
    assert chosen.returncode == 0, chosen.stderr
    assert Path(json.loads(chosen.stdout)["python"]).parent == kb_python.parent


def test_devshell_unknown_variant(tmp_path, kernel_builder, kb_python):
    project = cpu_only(copy_fixture("addone", tmp_path))
    result = shell(kernel_builder, "devshell", project, "--python", kb_python, "--variant", "torch299-cxx11-cpu-x86_64-linux")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: Unknown variant `torch299-cxx11-cpu-x86_64-linux`.",
        "Valid variants for this architecture are: torch211-cxx11-cpu-x86_64-linux",
    ]


def test_testshell_puts_the_built_variant_on_pythonpath(cpu_build, cpu_variant, kernel_builder, kb_python):
    project = cpu_build["project"]
    variant = project / "build" / cpu_variant
    ops_id = json.loads((variant / "metadata.json").read_text())["id"]
    # A `kernels` installed through PYTHONPATH must stay importable inside the shell.
    env = dict(os.environ, LD_LIBRARY_PATH="/nonexistent", PYTHONPATH=str(project / "user-site"))
    # The variant by its package name (`import addone`, as upstream kernels' tests do), and its
    # directory on the path as well.
    code = SHOW_ENV + (
        "\nimport importlib.util\nroot = os.environ['PYTHONPATH'].split(':')[1]\n"
        f"spec = importlib.util.spec_from_file_location({ops_id!r}, os.path.join(root, '__init__.py'), "
        "submodule_search_locations=[root])\n"
        f"module = importlib.util.module_from_spec(spec)\nsys.modules[{ops_id!r}] = module\n"
        "spec.loader.exec_module(module)\n"
        "import torch\nassert module.addone(torch.zeros(2)).tolist() == [1.0, 1.0]\n"
        "import addone\nassert addone.addone(torch.zeros(3)).tolist() == [1.0, 1.0, 1.0]\n"
        "print(os.path.realpath(addone.__file__))\n")
    for _ in range(2):  # the second run finds the link of the first
        result = shell(kernel_builder, "testshell", project, "--python", kb_python, "--variant", cpu_variant, "--",
                       "python", "-c", code, env=env)
        assert result.returncode == 0, result.stderr
        seen = json.loads(result.stdout.splitlines()[0])
        assert seen["pythonpath"].split(":") == [str(project / "build" / ".kb" / "testshell" / cpu_variant), str(variant),
                                                 str(project / "user-site")]
        assert seen["ld"] is None
        assert result.stdout.splitlines()[1] == str(variant / "__init__.py")


def test_testshell_defaults_to_the_variant_that_was_built(torch215_python, cpu_build, cpu_variant, kernel_builder,
                                                          kb_python):
    # torch215_python first: where install-deps skipped it, the test skips before the shared build.
    # torch 2.15 ranks first (the newest torch), but only the torch 2.11 variant was built.
    project = cpu_build["project"]
    assert not (project / "build" / cpu_variant.replace("torch211", "torch215")).exists()
    result = shell(kernel_builder, "testshell", project, "--python", kb_python, "--python", torch215_python, "--",
                   "python", "-c", SHOW_ENV)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["variant"] == cpu_variant


def test_testshell_needs_a_built_variant(tmp_path, kernel_builder, kb_python):
    project = cpu_only(copy_fixture("addone", tmp_path))
    result = shell(kernel_builder, "testshell", project, "--python", kb_python, "--", "true")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"error: Variant `torch211-cxx11-cpu-x86_64-linux` is not built in `{project}/build`",
        "hint: run `kernel-builder build --variant torch211-cxx11-cpu-x86_64-linux` first",
    ]
