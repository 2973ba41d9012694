"""End-to-end tests of `kernel-builder list-variants` and `completions`."""
import json
import platform
import subprocess
import sys

import pytest


def run(binary, *args, cwd=None):
    return subprocess.run([str(binary), *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def scaffold(kernel_builder, tmp_path):
    r = run(kernel_builder, "init", "--name", "org/addone", "--backends", "cuda", "cpu", "metal", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return tmp_path / "addone"


def host_system():
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine())
    return f"{machine}-{platform.system().lower()}"


@pytest.mark.skipif(host_system() != "x86_64-linux", reason="expected names are for x86_64-linux")
def test_list_variants_of_scaffold(kernel_builder, scaffold):
    r = run(kernel_builder, "list-variants", str(scaffold))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "torch211-cxx11-cpu-x86_64-linux",
        "torch213-cxx11-cpu-x86_64-linux",
        "torch213-cxx11-cu126-x86_64-linux",
        "torch213-cxx11-cu130-x86_64-linux",
        "torch213-cxx11-cu132-x86_64-linux",
        "torch214-cxx11-cpu-x86_64-linux",
        "torch214-cxx11-cu126-x86_64-linux",
        "torch214-cxx11-cu130-x86_64-linux",
        "torch214-cxx11-cu132-x86_64-linux",
        "torch215-cxx11-cu134-x86_64-linux",
    ]


def _running_torch():
    """(major, minor) of the torch in this interpreter (the test toolchain)."""
    import torch
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return major, minor


def test_list_variants_json(kernel_builder, scaffold):
    # A toolchain that is not in the matrix builds nothing here: only the matrix variants, none buildable.
    r = run(kernel_builder, "list-variants", "--json", "--python", "/nonexistent/python3", cwd=scaffold)
    assert r.returncode == 0, r.stderr
    assert "warning: toolchain not usable: /nonexistent/python3" in r.stderr
    variants = json.loads(r.stdout)
    names = [v["name"] for v in variants]
    assert len(names) == len(set(names))
    for v in variants:
        assert set(v) >= {"name", "backend", "kind", "torch", "toolkit", "cpu", "os", "bundle", "buildable",
                          "toolchain", "in_matrix"}
        assert isinstance(v["bundle"], bool)
        assert v["buildable"] is False and v["toolchain"] is None and v["in_matrix"] is True
    if host_system() == "x86_64-linux":
        cuda = [v for v in variants if v["backend"] == "cuda"]
        cpu = [v for v in variants if v["backend"] == "cpu"]
        assert [v["toolkit"] for v in cuda] == ["12.6", "13.0", "13.2"] * 2 + ["13.4"]
        assert cuda[0] == {
            "name": "torch213-cxx11-cu126-x86_64-linux", "backend": "cuda", "kind": "torch", "torch": "2.13",
            "toolkit": "12.6", "cpu": "x86_64", "os": "linux", "bundle": True, "buildable": False,
            "toolchain": None, "in_matrix": True,
        }
        # Torch 2.15 with CUDA 13.4: in the matrix, not in the bundle.
        assert (cuda[-1]["name"], cuda[-1]["torch"], cuda[-1]["bundle"]) == ("torch215-cxx11-cu134-x86_64-linux", "2.15", False)
        assert [v["torch"] for v in cpu] == ["2.11", "2.13", "2.14"]
        assert [v["bundle"] for v in cpu] == [False, True, True]


def test_list_variants_backend_without_kernel(kernel_builder, scaffold):
    # Drop the metal kernel unit of this [torch] project: metal gets no variant at all (a noarch
    # torch-metal would import ops that were never compiled for metal), and a warning says so.
    toml = (scaffold / "build.toml").read_text()
    head, _, _ = toml.partition("[kernel.addone_metal]")
    (scaffold / "build.toml").write_text(head.rstrip() + "\n")
    r = run(kernel_builder, "list-variants", str(scaffold))
    assert r.returncode == 0, r.stderr
    assert not any(n.startswith("torch-") for n in r.stdout.splitlines())
    assert ("warning: backend `metal` has no [kernel.*] unit; skipped (a [torch] project builds only backends "
            "with kernels)") in r.stderr.splitlines()
    arch = run(kernel_builder, "list-variants", "--arch", str(scaffold))
    assert arch.returncode == 0
    assert "torch-metal" not in arch.stdout.splitlines()


def test_list_variants_arch_form(kernel_builder, scaffold):
    r = run(kernel_builder, "list-variants", "--arch", str(scaffold))
    assert r.returncode == 0, r.stderr
    names = r.stdout.splitlines()
    assert names and all(not n.startswith("torch-") for n in names)


def test_list_variants_errors(kernel_builder, tmp_path):
    r = run(kernel_builder, "list-variants", str(tmp_path / "missing"))
    assert r.returncode == 2  # usage error, as in every command (tests/e2e/test_exit_status.py)
    assert f"`{tmp_path / 'missing'}` is not a directory" in r.stderr
    r = run(kernel_builder, "list-variants", str(tmp_path))
    assert r.returncode == 1
    assert r.stdout == ""


def test_completions_bash_is_sourceable(kernel_builder):
    script = f"source <({kernel_builder} completions bash); complete -p kernel-builder"
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "-F _kernel_builder" in r.stdout and r.stdout.strip().endswith("kernel-builder")


def test_completions_bash_completes_commands_and_options(kernel_builder):
    script = (
        f"source <({kernel_builder} completions bash)\n"
        "COMP_WORDS=(kernel-builder list-v); COMP_CWORD=1; _kernel_builder; echo \"${COMPREPLY[*]}\"\n"
        "COMP_WORDS=(kernel-builder init --ov); COMP_CWORD=2; _kernel_builder; echo \"${COMPREPLY[*]}\"\n"
    )
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["list-variants", "--overwrite"]


@pytest.mark.parametrize("shell", ["zsh", "fish", "elvish", "powershell"])
def test_completions_other_shells(kernel_builder, shell):
    r = run(kernel_builder, "completions", shell)
    assert r.returncode == 0, r.stderr
    assert "kernel-builder" in r.stdout
    assert "list-variants" in r.stdout and "overwrite" in r.stdout


def test_completions_rejects_unknown_shell(kernel_builder):
    r = run(kernel_builder, "completions", "tcsh")
    assert r.returncode == 2


@pytest.mark.skipif(host_system() != "x86_64-linux", reason="expected names are for x86_64-linux")
def test_list_variants_marks_what_the_toolchains_build(kernel_builder, scaffold):
    major, minor = _running_torch()
    cpu_variant = f"torch{major}{minor}-cxx11-cpu-x86_64-linux"
    r = run(kernel_builder, "list-variants", "--mark", "--python", sys.executable, cwd=scaffold)
    assert r.returncode == 0, r.stderr
    lines = {line.split()[0]: line for line in r.stdout.splitlines()}
    assert f"\u2713  {sys.executable} (torch {major}.{minor}" in lines[cpu_variant]
    assert lines["torch213-cxx11-cu126-x86_64-linux"].endswith("-  no toolchain here")
    buildable = [name for name, line in lines.items() if "\u2713" in line]
    assert f"{len(buildable)} of {len(lines)} variant(s) buildable here" in r.stderr
    # JSON agrees with the marks; variants outside the matrix (e.g. this torch's CUDA build) say so.
    variants = json.loads(run(kernel_builder, "list-variants", "--json", "--python", sys.executable,
                              cwd=scaffold).stdout)
    assert sorted(v["name"] for v in variants if v["buildable"]) == sorted(buildable)
    for v in variants:
        if v["name"] in buildable:
            assert v["toolchain"].startswith(f"{sys.executable} (torch {major}.{minor}")
        if not v["in_matrix"]:
            assert v["buildable"] and "[not in the reference matrix]" in lines[v["name"]]
    # Piped without --mark: the bare names, as upstream prints them.
    bare = run(kernel_builder, "list-variants", "--python", sys.executable, cwd=scaffold)
    assert all(" " not in line for line in bare.stdout.splitlines())


def test_repeatable_options_take_one_value_each(kernel_builder, scaffold, tmp_path):
    """`--python PATH KERNEL_DIR`: the directory after a repeatable option is the positional, not a
    second interpreter. Checked on list-variants (--python) and build (--python, --variant);
    devshell/testshell, `ci plan` and `kernel-hub user add --org` set their options the same way."""
    r = run(kernel_builder, "list-variants", "--python", sys.executable, str(scaffold), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == run(kernel_builder, "list-variants", "--python", sys.executable, cwd=scaffold).stdout
    r = run(kernel_builder, "build", "--python", "/nonexistent/python3", "--variant", "torch-cpu", str(scaffold / "nope"),
            cwd=tmp_path)
    assert r.returncode == 2 and "nope" in r.stderr, r.stderr
