"""Noarch variants (docs/build-output.md) and the metadata commands `hash` / `check-builds`
on the build output. No compiler involved, so these are quick."""
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, import_check_script, run_build  # noqa: E402


def test_noarch_variants_copy_the_package(tmp_path, kernel_builder, kb_python):
    project = copy_fixture("noarch_scale", tmp_path)
    result = run_build(kernel_builder, project, kb_python, "--unique-id", "n1")
    assert "torch-cpu: done" in result.stderr and "torch-cuda: done" in result.stderr
    for backend in ["cpu", "cuda"]:
        variant = project / "build" / f"torch-{backend}"
        files = sorted(str(p.relative_to(variant)) for p in variant.rglob("*") if p.is_file())
        assert files == ["__init__.py", "_ops.py", "layers/__init__.py", "metadata.json", "settings.json"]
        metadata = json.loads((variant / "metadata.json").read_text())
        assert metadata["id"] == f"_noarch_scale_{backend}_n1"
        assert metadata["version"] == 2
        assert metadata["python-depends"] == ["einops"]
        assert "_OPS_NAME = f\"_noarch_scale_{_detect_backend()}_n1\"" in (variant / "_ops.py").read_text()
    assert json.loads((project / "build" / "torch-cuda" / "metadata.json").read_text())["backend"] == {
        "type": "cuda", "archs": ["8.0", "9.0"]}
    code = import_check_script(project / "build" / "torch-cpu", "_noarch_scale_cpu_n1") + (
        "import torch\nassert module.scale(torch.ones(2)).tolist() == [3.0, 3.0]\n"
        "assert module.add_op_namespace_prefix('x').endswith('_n1::x')\n")
    check = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True, cwd="/")
    assert check.returncode == 0, check.stderr


def test_hash_and_check_builds(tmp_path, kernel_builder, kb_python):
    project = copy_fixture("noarch_scale", tmp_path)
    run_build(kernel_builder, project, kb_python, "--unique-id", "n2")
    check = subprocess.run([str(kernel_builder), "check-builds", str(project)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    (project / "build" / "torch-cpu" / "extra.py").write_text("x = 1\n")
    check = subprocess.run([str(kernel_builder), "check-builds", str(project)], capture_output=True, text=True)
    assert check.returncode == 1
    assert "kernel does not match the expected digest:\nUnknown file: extra.py" in check.stderr
    # Both variants signed (the bundle's content is not read by hash): the unchanged one keeps its
    # metadata.json byte for byte, and so its signature; the changed one is rewritten, with a warning.
    for variant in ("torch-cpu", "torch-cuda"):
        (project / "build" / variant / "metadata.json.sigstore").write_text("{}")
    unchanged = (project / "build" / "torch-cuda" / "metadata.json").stat().st_mtime_ns
    hashed = subprocess.run([str(kernel_builder), "hash", str(project)], capture_output=True, text=True)
    assert hashed.returncode == 0, hashed.stderr
    assert hashed.stderr == (
        "Hashing variant `torch-cpu`...\n"
        "warning: `torch-cpu`: metadata.json changed, so its signature (metadata.json.sigstore) no longer matches it; "
        "sign metadata.json again, e.g. with `python -m sigstore sign --overwrite --bundle metadata.json.sigstore "
        "metadata.json` in the variant\n"
        "Hashing variant `torch-cuda`...\n")
    assert (project / "build" / "torch-cuda" / "metadata.json").stat().st_mtime_ns == unchanged
    metadata = json.loads((project / "build" / "torch-cpu" / "metadata.json").read_text())
    assert "extra.py" in metadata["digest"]["files"]
    check = subprocess.run([str(kernel_builder), "check-builds", str(project)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_create_and_clean_pyproject(tmp_path, kernel_builder):
    project = copy_fixture("addone", tmp_path)
    create = [str(kernel_builder), "create-pyproject", str(project), "--unique-id", "p1",
              "--kernel-sha", "a" * 40]
    assert subprocess.run(create, capture_output=True, text=True).returncode == 0
    assert (project / "CMakeLists.txt").exists() and (project / "torch-ext" / "registration.h").exists()
    metadata = json.loads((project / "metadata-cuda.json").read_text())
    assert metadata["id"] == "_addone_cuda_p1"
    assert metadata["provenance"]["kernel"] == {"commit": "a" * 40, "dirty": False}
    again = subprocess.run(create, capture_output=True, text=True)
    assert again.returncode == 1
    assert "File(s) already exists in target directory: CMakeLists.txt, " in again.stderr
    assert "\nUse `--force` to overwrite." in again.stderr
    clean = subprocess.run([str(kernel_builder), "clean-pyproject", str(project), "--force"],
                           capture_output=True, text=True)
    assert clean.returncode == 0, clean.stderr
    assert clean.stdout == ""  # progress goes to stderr; stdout carries data only
    assert clean.stderr.endswith("Cleaned 14 generated artifacts.\n")
    assert f"Removed empty directory: {project / 'cmake'}" in clean.stderr
    assert not (project / "CMakeLists.txt").exists() and (project / "build.toml").exists()
    nothing = subprocess.run([str(kernel_builder), "clean-pyproject", str(project)], capture_output=True, text=True)
    assert nothing.stderr == "No generated artifacts found to clean.\n"


def cpu_noarch(tmp_path: Path, python_depends: str, init_prefix: str = "") -> Path:
    project = copy_fixture("noarch_scale", tmp_path)
    build_toml = project / "build.toml"
    build_toml.write_text(build_toml.read_text().replace('backends = ["cpu", "cuda"]', 'backends = ["cpu"]')
                          .replace('python-depends = ["einops"]', f"python-depends = {python_depends}"))
    init = project / "torch-ext" / "noarch_scale" / "__init__.py"
    init.write_text(init_prefix + init.read_text())
    return project


def build_in(cwd: Path, kernel_builder, project: Path, python: Path, *args: str):
    return subprocess.run([str(kernel_builder), "build", str(project), "--python", str(python), *args],
                          capture_output=True, text=True, cwd=cwd)


def test_python_depends_not_installed_for_the_toolchain(tmp_path, kernel_builder, kb_python):
    """The import check names the python-depends packages the toolchain lacks and the pip command
    that installs them, instead of a traceback (kernels-community/fla, flash-attn4). A folder of the
    working directory named like the package (a checkout of a kernel of that name beside the
    project) is not taken for it."""
    project = cpu_noarch(tmp_path / "p", '["helion"]', "import helion\n")
    (tmp_path / "helion").mkdir()
    result = build_in(tmp_path, kernel_builder, project, kb_python, "--unique-id", "n3")
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines()[-4:] == [
        "error: Variant `torch-cpu` cannot be import-checked: the Python packages of its python-depends are not "
        f"installed for {kb_python}",
        "Caused by: `helion` (module `helion`) is not installed",
        f"hint: install them for that interpreter: {kb_python} -m pip install helion",
        "hint: or build without the import check: --no-import-check",
    ]
    assert not (project / "build" / "torch-cpu").exists()
    skipped = build_in(tmp_path, kernel_builder, project, kb_python, "--unique-id", "n3", "--no-import-check")
    assert "torch-cpu: done" in skipped.stderr


def test_undeclared_module_that_is_not_installed(tmp_path, kernel_builder, kb_python):
    project = cpu_noarch(tmp_path, "[]", "import kb_no_such_module.sub\n")
    result = run_build(kernel_builder, project, kb_python, "--unique-id", "n4", check=False)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert "error: Variant `torch-cpu` fails to import" in lines
    assert "Caused by: ModuleNotFoundError: No module named 'kb_no_such_module'" in lines
    assert (f"hint: the variant imports `kb_no_such_module`, which is not installed for {kb_python}: install the "
            "package that provides it there, and declare it in build.toml's `python-depends` so that loaders check "
            "for it before importing the kernel") in lines
    assert not any("GPU" in line for line in lines)  # not the generic hint


def test_import_check_ignores_the_working_directory(tmp_path, kernel_builder, kb_python):
    """A package of the working directory does not shadow an installed one in the import check."""
    project = cpu_noarch(tmp_path / "p", "[]")
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('the torch folder of the working directory')\n")
    result = build_in(tmp_path, kernel_builder, project, kb_python, "--unique-id", "n5")
    assert result.returncode == 0, result.stderr


def test_kernels_minver_written_per_backend(tmp_path, kernel_builder, kb_python):
    """metadata.json's `kernels-minver`: 0.17.0 for the backend with kernel-depends (the first
    `kernels` that loads them), none for the other; build.toml's value raises both."""
    project = copy_fixture("noarch_scale", tmp_path)
    toml = (project / "build.toml").read_text()
    toml = toml.replace("[torch-noarch]", '[general.cuda]\nkernel-depends = [{ repo-id = "org/common", version = 1 }]\n\n'
                        "[torch-noarch]")
    (project / "build.toml").write_text(toml)
    run_build(kernel_builder, project, kb_python, "--unique-id", "m1")

    def minver(backend):
        return json.loads((project / "build" / f"torch-{backend}" / "metadata.json").read_text()).get("kernels-minver")

    assert (minver("cuda"), minver("cpu")) == ("0.17.0", None)
    (project / "build.toml").write_text(toml.replace('python-depends = ["einops"]',
                                                     'python-depends = ["einops"]\nkernels-minver = "0.18.2"'))
    run_build(kernel_builder, project, kb_python, "--unique-id", "m1")
    assert (minver("cuda"), minver("cpu")) == ("0.18.2", "0.18.2")
