"""Noarch variants (build-output.md §2.2) and the metadata commands `hash` / `check-builds`
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
    hashed = subprocess.run([str(kernel_builder), "hash", str(project)], capture_output=True, text=True)
    assert hashed.returncode == 0, hashed.stderr
    assert "Hashing variant `torch-cpu`...\nHashing variant `torch-cuda`...\n" == hashed.stderr
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
