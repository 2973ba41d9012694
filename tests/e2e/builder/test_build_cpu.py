"""`kernel-builder build` of a tiny CPU kernel: layout, import under the ops id, incremental
rebuilds, and two builds of one kernel loaded side by side."""
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, import_check_script, run_build, shape_error_script  # noqa: E402

pytestmark = pytest.mark.slow


def test_cpu_variant_layout_and_metadata(cpu_build, cpu_variant):
    variant = cpu_build["project"] / "build" / cpu_variant
    names = sorted(p.name for p in variant.iterdir())
    assert names == ["__init__.py", "_addone_cpu_e2ea.abi3.so", "_ops.py", "metadata.json"]
    text = (variant / "metadata.json").read_text()
    assert not text.endswith("\n")
    metadata = json.loads(text)
    assert metadata["id"] == "_addone_cpu_e2ea"
    assert metadata["backend"] == {"type": "cpu"}
    assert sorted(metadata["digest"]["files"]) == ["__init__.py", "_addone_cpu_e2ea.abi3.so", "_ops.py"]
    assert "kernel-builder" in metadata["provenance"]
    assert not any(p.name.startswith(".staging") for p in (cpu_build["project"] / "build").iterdir())
    dynamic = subprocess.run(["readelf", "-d", str(variant / "_addone_cpu_e2ea.abi3.so")],
                             capture_output=True, text=True).stdout
    assert "RPATH" not in dynamic and "RUNPATH" not in dynamic
    assert "libpython" not in dynamic


def test_cpu_variant_imports_under_ops_id(cpu_build, cpu_variant, kb_python):
    variant = cpu_build["project"] / "build" / cpu_variant
    code = import_check_script(variant, "_addone_cpu_e2ea") + (
        "import torch\n"
        "x = torch.randn(64)\n"
        "torch.testing.assert_close(module.addone(x), x + 1)\n"
        "assert '_addone_cpu_e2ea' in sys.modules and 'addone' not in sys.modules\n"
    ) + shape_error_script("module.addone(torch.randn(4), out=torch.empty(3))") + (
        "print('ok')\n"
    )
    result = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_noop_rebuild_compiles_nothing(cpu_build, cpu_variant, kernel_builder, kb_python):
    start = time.monotonic()
    result = run_build(kernel_builder, cpu_build["project"], kb_python, "--variant", cpu_variant, "--unique-id", "e2ea")
    elapsed = time.monotonic() - start
    assert f"{cpu_variant}: up to date" in result.stderr
    assert "compile" not in result.stderr
    assert elapsed < 1.0, f"no-op rebuild took {elapsed:.2f}s"


def test_one_file_edit_recompiles_one_unit(cpu_build, cpu_variant, kernel_builder, kb_python):
    project = cpu_build["project"]
    source = project / "addone_cpu" / "addone_cpu.cpp"
    source.write_text(source.read_text() + "\n// edited\n")
    # A 1.5 GiB memory budget fits one torch-including compile job: two cores give one job.
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "e2ea",
                       "--no-cache", "--cores", "2", "--memory-budget", "1.5")
    log = (project / "build" / ".kb" / cpu_variant / "build.log").read_text()
    compiled = [line for line in log.splitlines() if "Building CXX object" in line]
    assert len(compiled) == 1 and "addone_cpu.cpp" in compiled[0], compiled
    assert f"{cpu_variant}: 1 compile job(s) instead of 2: memory budget 1.5 GiB" in result.stderr
    # The build runs check-abi on the module (docs/building.md) against torch 2.11's
    # policy; the module is portable (linked against C-library stubs of manylinux_2_28: docs/building.md)
    # although this host's glibc is newer: no manylinux note, and check-abi agrees.
    check = subprocess.run([str(kernel_builder), "check-abi", str(project)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert "Symbols incompatible with `manylinux_2_28`" not in check.stderr
    assert f"{cpu_variant}: is not within manylinux_2_28" not in result.stderr
    assert "Non-ABI3 symbols" not in check.stderr and "Python ABI 3.9 found" not in check.stderr
    assert "$ ninja -C " in log and log.split("$ ninja -C ")[1].split("\n")[0].endswith(" -j 1")


def test_two_builds_load_side_by_side(cpu_build, cpu_variant, kernel_builder, kb_python, tmp_path):
    project = cpu_build["project"]
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "e2eb")
    variant_b = tmp_path / "variant-b"
    shutil.copytree(project / "build" / cpu_variant, variant_b)
    variant_a = cpu_build["variant_a"]
    code = (
        import_check_script(variant_a, "_addone_cpu_e2ea", "kernel_a")
        + import_check_script(variant_b, "_addone_cpu_e2eb", "kernel_b")
        + "import torch\n"
        "x = torch.arange(4.0)\n"
        "torch.testing.assert_close(kernel_a.addone(x), x + 1)\n"
        "torch.testing.assert_close(kernel_b.addone(x), x + 1)\n"
        "assert kernel_a.ops is not kernel_b.ops\n"
        "assert hasattr(torch.ops._addone_cpu_e2ea, 'addone') and hasattr(torch.ops._addone_cpu_e2eb, 'addone')\n"
        "print('ok')\n"
    )
    result = subprocess.run([str(kb_python), "-c", code], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0, result.stderr


def test_a_build_of_some_variants_writes_the_card(cpu_variant, kernel_builder, kb_python, tmp_path):
    """`build --variant V` writes build/CARD.md and the benchmarks too, so that its upload carries
    the card (the Hub page of such an upload said it had no README.md or CARD.md)."""
    project = copy_fixture("addone", tmp_path)
    (project / "build.toml").write_text((project / "build.toml").read_text() + '\n[general.hub]\nrepo-id = "acme/addone"\n')
    (project / "CARD.md").write_text("---\nlicense: apache-2.0\n---\n# {{ repo_id }}\n")
    (project / "benchmarks").mkdir()
    (project / "benchmarks" / "benchmark_addone.py").write_text("")
    run_build(kernel_builder, project, kb_python, "--variant", cpu_variant)
    assert (project / "build" / "CARD.md").read_text().endswith("# acme/addone\n")
    assert (project / "build" / "benchmarks" / "benchmark_addone.py").is_file()
