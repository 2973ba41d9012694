"""A builder that survives real use (docs/building.md): a copied/moved kernel directory, a branch
switch, a new torch in the same venv, a full disk, Ctrl-C mid-build and a second build in the
same directory each rebuild correctly or stop with a clear message, and no variant directory is
ever left looking complete when it is not.

Builds are shared where possible: the copy starts from the session's `cpu_build` (its CMake cache
names the original directory), the interrupt and branch tests reuse that copy."""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, import_check_script, run_build  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


def variant_dirs(project: Path) -> list:
    build = project / "build"
    return sorted(p.name for p in build.iterdir() if (p / "metadata.json").is_file()) if build.exists() else []


def leftovers(project: Path) -> list:
    return sorted(p.name for p in (project / "build").iterdir() if p.name.startswith((".staging-", ".old-")))


def addone_result(python: Path, variant: Path) -> list:
    ops_id = json.loads((variant / "metadata.json").read_text())["id"]
    code = import_check_script(variant, ops_id) + "import torch\nprint(module.addone(torch.zeros(2)).tolist())\n"
    run = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def copied(tmp_path_factory, kernel_builder, kb_python, cpu_build, cpu_variant):
    """The session's built project copied elsewhere (with build/.kb) and built there."""
    project = tmp_path_factory.mktemp("copied") / "addone"
    shutil.copytree(cpu_build["project"], project, symlinks=True)
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "e2ea")
    return project, result


def test_copied_directory_resets_the_cmake_cache(copied, kb_python, cpu_build, cpu_variant):
    project, result = copied
    old_cache = cpu_build["project"] / "build" / ".kb" / cpu_variant / "cmake-build"
    assert (f"note: {cpu_variant}: the CMake cache was made in `{old_cache}` (the kernel directory was moved or "
            "copied); resetting it") in result.stderr.splitlines()
    assert addone_result(kb_python, project / "build" / cpu_variant) == [1.0, 1.0]


def test_second_build_in_the_same_directory_is_refused(copied, kernel_builder, kb_python):
    project, _ = copied
    with open(project / "build" / ".kb" / "lock", "r+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.truncate(0)
        lock.write("4242\n")
        lock.flush()
        result = run_build(kernel_builder, project, kb_python, check=False)
    assert result.returncode == 1
    assert result.stderr.splitlines()[:3] == [
        f"error: Another `kernel-builder build` is running in `{project}` (pid 4242)",
        f"Caused by: `{project}/build/.kb/lock` is locked",
        "hint: wait for it to finish: two builds in one directory would overwrite each other's variants",
    ]


def test_ctrl_c_mid_build_keeps_the_previous_variant_whole(copied, kernel_builder, kb_python, cpu_variant):
    project, _ = copied
    source = project / "addone_cpu" / "addone_cpu.cpp"
    source.write_text(source.read_text() + "\n// edited: forces a recompile\n")
    before = (project / "build" / cpu_variant / "metadata.json").read_bytes()
    build = subprocess.Popen([str(kernel_builder), "build", str(project), "--python", str(kb_python), "--variant",
                              cpu_variant, "--unique-id", "e2ea"], stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    seen = []
    for line in build.stderr:
        seen.append(line)
        if line.startswith(f"{cpu_variant}: compile "):
            break
    # While it compiles, a second build in the same directory is refused, naming the first.
    second = run_build(kernel_builder, project, kb_python, check=False)
    assert second.returncode == 1
    assert f"(pid {build.pid})" in second.stderr.splitlines()[0]
    os.killpg(build.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
    rest = build.stderr.read()
    assert build.wait(timeout=120) == 1, "".join(seen) + rest
    assert "error: Build interrupted" in rest.splitlines()
    assert "hint: run `kernel-builder build` again: it continues incrementally" in rest.splitlines()
    # The previous variant is untouched (and still passes its digest check); nothing half-built.
    assert (project / "build" / cpu_variant / "metadata.json").read_bytes() == before
    assert leftovers(project) == []
    check = subprocess.run([str(kernel_builder), "check-builds", str(project)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    again = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "e2ea")
    assert any(line.startswith(f"{cpu_variant}: done (") for line in again.stderr.splitlines())


def test_branch_switch_rebuilds_each_branch(copied, kernel_builder, kb_python, cpu_variant):
    project, _ = copied

    def git(*args):
        subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "one")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", "--allow-empty")
    git("add", "addone_cpu", "torch-ext", "build.toml")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    git("checkout", "-q", "-b", "two")
    source = project / "addone_cpu" / "addone_cpu.cpp"
    text = source.read_text()
    assert "add(1)" in text, text
    source.write_text(text.replace("add(1)", "add(2)"))
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two")
    variant = project / "build" / cpu_variant
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "e2ea")
    assert addone_result(kb_python, variant) == [2.0, 2.0]
    git("checkout", "-q", "one")
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "e2ea")
    assert addone_result(kb_python, variant) == [1.0, 1.0]


def test_new_torch_in_the_same_venv_is_probed_again(tmp_path, kernel_builder, torch215_python):
    """A venv whose torch changes (as after `pip install torch==...`) is not served from the probe
    cache: the variants it can build follow the torch it has now."""
    pinned = REPO / ".venv" / "bin" / "python"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))

    def site_of(python):
        return subprocess.run([str(python), "-c", "import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))"],
                              capture_output=True, text=True, check=True).stdout.strip()

    def install(python):  # a .pth file written by rename, as pip replaces files
        (site / "torch.pth.tmp").write_text(site_of(python) + "\n")
        os.replace(site / "torch.pth.tmp", site / "torch.pth")

    project = copy_fixture("addone", tmp_path)
    install(pinned)
    first = run_build(kernel_builder, project, venv / "bin" / "python", "--variant", "none", check=False)
    assert "torch211-cxx11-cpu-x86_64-linux" in first.stderr, first.stderr
    install(torch215_python)
    second = run_build(kernel_builder, project, venv / "bin" / "python", "--variant", "none", check=False)
    assert "torch215-cxx11-cpu-x86_64-linux" in second.stderr, second.stderr
    assert "torch211-cxx11-cpu-x86_64-linux" not in second.stderr.split("Valid variants are:")[1]


def test_full_disk_stops_with_a_hint_and_no_variant(tmp_path, kernel_builder, kb_python, cpu_variant):
    """The project on a 1.2 MiB tmpfs (mounted in a user namespace): the build fails, says the
    disk is full, and leaves no variant directory."""
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("unprivileged user namespaces are not available here")
    mount = tmp_path / "disk"
    mount.mkdir()
    script = (
        f"mount -t tmpfs -o size=1200K tmpfs {mount} && cp -r {copy_fixture('addone', tmp_path)} {mount}/ && "
        f"{kernel_builder} build {mount}/addone --python {kb_python} --variant {cpu_variant} --unique-id d1 --no-cache; "
        f"echo rc=$?; ls -a {mount}/addone/build"
    )
    run = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
                         capture_output=True, text=True)
    out = run.stdout + run.stderr
    assert "rc=1" in out, out
    assert any(line.startswith(f"hint: the disk holding `{mount}/addone/build/.kb/{cpu_variant}` is (nearly) full: ")
               for line in out.splitlines()), out
    listed = run.stdout.split("rc=1")[1].split()
    assert cpu_variant not in listed and not any(n.startswith(".staging-") for n in listed), listed
