"""What a rebuild compiles (docs/build-engine.md): the compile identity of a variant does not
depend on the build's parallelism (--cores, --memory-budget, nvcc's threads), and a new ops id (a
commit that leaves the sources alone) compiles only the generated kb_ops_id.cpp. Without ccache,
so that every object Ninja builds is a real compile."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, cuda_variant, import_check_script, run_build  # noqa: E402

pytestmark = pytest.mark.slow


def compiled_objects(project: Path, variant: str) -> list[str]:
    """The objects the last build of `variant` compiled, from its build.log (Ninja's lines)."""
    log = (project / "build" / ".kb" / variant / "build.log").read_text()
    return [line.split(" object ", 1)[1] for line in log.splitlines() if "Building CXX object" in line
            or "Building CUDA object" in line]


@pytest.fixture(scope="module")
def built(tmp_path_factory, kernel_builder, kb_python, cpu_variant):
    project = copy_fixture("addone", tmp_path_factory.mktemp("identity"))
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "id1", "--no-cache",
              "--cores", "1")
    return project


def test_parallelism_is_not_part_of_the_compile_identity(built, kernel_builder, kb_python, cpu_variant):
    build = ["--variant", cpu_variant, "--unique-id", "id1", "--no-cache"]
    result = run_build(kernel_builder, built, kb_python, *build, "--cores", "2", "--memory-budget", "64")
    assert f"{cpu_variant}: up to date" in result.stderr
    # Without the up-to-date stamp, Ninja runs: it must find every object current and CMake's
    # configure unchanged.
    (built / "build" / ".kb" / cpu_variant / "stamp").unlink()
    result = run_build(kernel_builder, built, kb_python, *build, "--cores", "2", "--memory-budget", "64")
    assert f"{cpu_variant}: done" in result.stderr or "Built 1 variant(s)" in result.stderr
    assert compiled_objects(built, cpu_variant) == []
    log = (built / "build" / ".kb" / cpu_variant / "build.log").read_text()
    assert "$ cmake " not in log and "Re-running CMake" not in log


def test_cuda_compile_identity_does_not_depend_on_nvcc_threads(tmp_path, kernel_builder, kb_python):
    """--cores 1 compiles each .cu for its two capabilities one after the other; --cores 8 gives
    nvcc two threads (jobs.h). The second build must find every object current."""
    cuda = cuda_variant(kb_python)
    project = copy_fixture("cuda_anon", tmp_path)
    toml = (project / "build.toml").read_text()
    (project / "build.toml").write_text(toml.replace('cuda-capabilities = ["9.0"]', 'cuda-capabilities = ["8.0", "9.0"]'))
    build = ["--variant", cuda, "--unique-id", "cu1", "--no-cache", "--skip-checks"]
    run_build(kernel_builder, project, kb_python, *build, "--cores", "1")
    assert len(compiled_objects(project, cuda)) >= 2
    # Capabilities below 10.0 with CUDA 13: nvcc's --split-compile stays reproducible there, so it is
    # on by default (--split-compile auto), with a count that does not depend on the cores.
    ninja_file = project / "build" / ".kb" / cuda / "cmake-build" / "build.ninja"
    cuda_objects = [o for o in compiled_objects(project, cuda) if o.endswith(".cu.o")]
    automatic = ninja_file.read_text().count("--split-compile=4")
    assert automatic == (len(cuda_objects) if cuda.split("-")[2] >= "cu130" else 0), cuda_objects
    (project / "build" / ".kb" / cuda / "stamp").unlink()
    run_build(kernel_builder, project, kb_python, *build, "--cores", "8", "--memory-budget", "64")
    assert compiled_objects(project, cuda) == []
    log = (project / "build" / ".kb" / cuda / "build.log").read_text()
    assert "$ cmake " not in log and "Re-running CMake" not in log
    # --split-compile N changes what nvcc produces (docs/build-engine.md): it is in the compile
    # commands, so asking for it recompiles the CUDA sources; --check-reproducible refuses it.
    (project / "build" / ".kb" / cuda / "stamp").unlink()
    run_build(kernel_builder, project, kb_python, *build, "--cores", "2", "--split-compile", "2")
    recompiled = compiled_objects(project, cuda)
    assert recompiled and all(o.endswith(".cu.o") for o in recompiled), recompiled
    ninja = (project / "build" / ".kb" / cuda / "cmake-build" / "build.ninja").read_text()
    assert ninja.count("--split-compile=2") == len(recompiled), recompiled
    refused = run_build(kernel_builder, project, kb_python, *build, "--split-compile", "2", "--check-reproducible",
                        check=False)
    assert refused.returncode == 2, refused.stderr
    assert "error: --check-reproducible cannot be combined with --split-compile N" in refused.stderr
    assert "hint: nvcc's output varies from build to build with --split-compile N" in refused.stderr
    # --split-compile off: none, and the CUDA sources compile again.
    (project / "build" / ".kb" / cuda / "stamp").unlink()
    run_build(kernel_builder, project, kb_python, *build, "--cores", "2", "--split-compile", "off")
    assert sorted(compiled_objects(project, cuda)) == sorted(recompiled)
    assert "split-compile" not in ninja_file.read_text()


def test_new_ops_id_recompiles_only_the_ops_id_source(built, kernel_builder, kb_python, cpu_variant):
    """A commit that leaves the sources alone changes only the ops id: the generated kb_ops_id.cpp
    compiles, the kernel's own sources do not; the module registers its ops under the new id (the
    build's import check). Then a one-source edit compiles that source alone."""
    build = ["--variant", cpu_variant, "--no-cache"]
    run_build(kernel_builder, built, kb_python, *build, "--unique-id", "id2")
    objects = compiled_objects(built, cpu_variant)
    assert len(objects) == 1 and objects[0].endswith("kb_ops_id.cpp.o"), objects
    module = built / "build" / cpu_variant / "_addone_cpu_id2.abi3.so"
    assert module.exists()
    source = built / "addone_cpu" / "addone_cpu.cpp"
    source.write_text(source.read_text() + "\n// edited\n")
    result = run_build(kernel_builder, built, kb_python, *build, "--unique-id", "id2", "--json")
    objects = compiled_objects(built, cpu_variant)
    assert len(objects) == 1 and objects[0].endswith("addone_cpu.cpp.o"), objects
    # The build names what it compiled and how long it took (compile_times.h): stderr, --json, build.log.
    summary = json.loads(result.stdout)
    assert summary["built"] == [cpu_variant]
    times = summary["compile_times"][cpu_variant]
    assert [t["source"] for t in times] == ["addone_cpu/addone_cpu.cpp"] and times[0]["seconds"] > 0.5, times
    lines = result.stderr.splitlines()
    at = lines.index(f"{cpu_variant}: slowest sources")
    assert re.fullmatch(r" +\d+\.\d s  addone_cpu/addone_cpu\.cpp", lines[at + 1]), lines[at + 1]
    log = (built / "build" / ".kb" / cpu_variant / "build.log").read_text()
    assert "kernel-builder: compile times (seconds, slowest first; from .ninja_log):\n" in log
    assert re.search(r"\n +\d+\.\d  addone_cpu/addone_cpu\.cpp\n", log)


def test_ops_registered_from_kernel_sources_under_the_ops_id(tmp_path, kernel_builder, kb_python, cpu_variant):
    """registration.h's TORCH_LIBRARY_IMPL_EXPAND in a kernel source registers under the ops id read
    from kb_ops_id.cpp: the binding only defines the op, the kernel source implements it."""
    project = copy_fixture("addone", tmp_path)
    binding = project / "torch-ext" / "torch_binding.cpp"
    binding.write_text(
        "#include <torch/library.h>\n\n#include \"registration.h\"\n#include \"torch_binding.h\"\n\n"
        "TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {\n"
        "  ops.def(\"addone(Tensor! out, Tensor input) -> ()\");\n}\n\n"
        "REGISTER_EXTENSION(TORCH_EXTENSION_NAME)\n")
    kernel = project / "addone_cpu" / "addone_cpu.cpp"
    kernel.write_text(
        "#include <torch/library.h>\n\n#include \"registration.h\"\n" + kernel.read_text()
        + "\nTORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CPU, ops) { ops.impl(\"addone\", &addone); }\n")
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "impl1")
    generated = (project / "build" / ".kb" / cpu_variant / "project" / "CMakeLists.txt").read_text()
    assert "KB_OPS_ID_UNIT" in generated and "TORCH_EXTENSION_NAME=" not in generated
    variant = project / "build" / cpu_variant
    code = import_check_script(variant, "_addone_cpu_impl1") + (
        "import torch\n"
        "x = torch.arange(4.0)\n"
        "torch.testing.assert_close(module.addone(x), x + 1)\n"
        "assert torch.ops._addone_cpu_impl1.addone.default is not None\n"
        "print('ok')\n")
    result = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
