"""Every example's CPU variant, as built for the other example tests (one build per session),
passes `kernel-builder check-abi --manylinux manylinux_2_28`: portable output from this host
(docs/building.md; torch 2.11's wheels are manylinux_2_28)."""
import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("kb_example_build_portable", EXAMPLES / "example_build.py")
example_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example_build)
CPU_EXAMPLES = sorted(p.parent.name for p in EXAMPLES.glob("*/build.toml")
                      if 'backend = "cpu"' in p.read_text() and "torch-noarch" not in p.read_text())


@pytest.mark.kernels_ci
@pytest.mark.parametrize("name", CPU_EXAMPLES)
def test_cpu_variant_is_manylinux_2_28(kernel_variant, name, tmp_path):
    if os.environ.get("KB_EXAMPLES_BUILD", "kernel-builder") != "kernel-builder":
        pytest.skip("the cpp_extension stand-in build links against this host's glibc as it is")
    variant = Path(kernel_variant(name, "cpu").__file__).parent
    copy = tmp_path / "build" / variant.name
    shutil.copytree(variant, copy)
    r = subprocess.run([str(example_build.kernel_builder_binary()), "check-abi", str(tmp_path), "--manylinux", "manylinux_2_28"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("✅ No compatibility issues found") == len(list(copy.glob("*.so")))
