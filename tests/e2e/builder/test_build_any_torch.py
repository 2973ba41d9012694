"""Builds with any torch (docs/building.md): a torch outside the reference matrix (2.15 from PyPI,
in .venv-torch215 from scripts/install-deps) builds its own variant next to the pinned 2.11 one in
one `build --python A --python B`; [torch] bounds decide which toolchain builds; a build with
nothing buildable fails naming what the project needs and the toolchains it found."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, import_check_script  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


def cpu_only(project: Path, torch_bounds: str = "") -> Path:
    """The addone fixture reduced to its CPU kernel (no CUDA compile in this test)."""
    text = (project / "build.toml").read_text()
    text = text.replace('backends = ["cpu", "cuda"]', 'backends = ["cpu"]')
    text = text[: text.index("[kernel.addone_cuda]")]
    text = text.replace("[torch]\n", "[torch]\n" + torch_bounds)
    (project / "build.toml").write_text(text)
    return project


def build(kernel_builder, project, *args):
    return subprocess.run([str(kernel_builder), "build", str(project), *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def two_torches(tmp_path_factory, kernel_builder, kb_python, torch215_python):
    project = cpu_only(copy_fixture("addone", tmp_path_factory.mktemp("any-torch")))
    # Without the header cache: torch 2.15 would need a header cache entry of its own, which takes
    # longer to build than the fixture's two sources.
    result = build(kernel_builder, project, "--python", kb_python, "--python", torch215_python, "--unique-id", "t215",
                   "--no-header-cache")
    assert result.returncode == 0, result.stderr
    return project, result


def test_torch215_builds_next_to_the_pinned_torch(two_torches, kb_python, torch215_python):
    project, result = two_torches
    names = sorted(p.name for p in (project / "build").iterdir() if (p / "metadata.json").is_file())
    assert names == ["torch211-cxx11-cpu-x86_64-linux", "torch215-cxx11-cpu-x86_64-linux"]
    for python, name in ((kb_python, names[0]), (torch215_python, names[1])):
        variant = project / "build" / name
        metadata = json.loads((variant / "metadata.json").read_text())
        assert metadata["id"] == "_addone_cpu_t215"
        # Each variant imports and runs under its own torch.
        code = import_check_script(variant, metadata["id"]) + (
            "import torch\nx = torch.arange(4.0)\nassert torch.equal(module.addone(x), x + 1)\n"
            "print(torch.__version__)\n")
        run = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith(name[5] + "." + name[6:8])  # torch215 -> "2.15"


def test_variant_outside_the_bundle_gets_a_note(two_torches, torch215_python):
    _, result = two_torches
    assert ("note: `torch215-cxx11-cpu-x86_64-linux` (torch 2.15.0+cu132) is not part of the release bundle: the "
            "reference matrix has no bundle build set for it; it is built for use where that torch is installed"
            ) in result.stderr


def test_torch_bounds_choose_the_toolchain(tmp_path, kernel_builder, kb_python, torch215_python):
    project = cpu_only(copy_fixture("addone", tmp_path), 'minver = "2.12"\n')
    listed = subprocess.run([str(kernel_builder), "list-variants", str(project), "--json", "--python", str(kb_python),
                             "--python", str(torch215_python)], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    buildable = sorted(v["name"] for v in json.loads(listed.stdout) if v["buildable"])
    assert buildable == ["torch215-cxx11-cpu-x86_64-linux"]


def test_nothing_buildable_fails_naming_needs_and_toolchains(tmp_path, kernel_builder, kb_python, torch215_python):
    project = cpu_only(copy_fixture("addone", tmp_path), 'minver = "2.12"\nmaxver = "2.13"\n')
    result = build(kernel_builder, project, "--python", kb_python, "--python", torch215_python)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert "error: Nothing to build for `addone`: no configured toolchain can build any of its variants" in lines
    assert "Caused by: the project needs backend cpu; torch >= 2.12, <= 2.13" in lines
    found = [line for line in lines if line.startswith("Caused by: toolchains found: ")]
    assert len(found) == 1
    assert found[0].startswith(f"Caused by: toolchains found: `{kb_python}` (torch 2.11.0")
    assert f", `{torch215_python}` (torch 2.15.0" in found[0]
    assert any(line.startswith("hint: the reference matrix builds it with: Python with torch 2.13") for line in lines)
    assert not (project / "build").exists() or not any((project / "build").glob("torch*"))


def test_the_loader_picks_and_loads_the_torch215_variant(two_torches, torch215_python, tmp_path):
    """Under torch 2.15, `kernels.get_local_kernel` (this test run's package: installed, or the
    source tree with its core) chooses the torch 2.15 variant of the two and runs it: the newest
    torch is loaded, not only built."""
    import kernels

    project, _ = two_torches
    # Only the package goes on the second interpreter's path, not the first venv's torch beside it.
    site = tmp_path / "site"
    site.mkdir()
    (site / "kernels").symlink_to(Path(kernels.__file__).resolve().parent, target_is_directory=True)
    code = ("import torch, kernels\n"
            f"k = kernels.get_local_kernel({str(project / 'build')!r}, backend='cpu')\n"
            "x = torch.arange(4.0)\nassert torch.equal(k.addone(x), x + 1)\n"
            "print(torch.__version__, k.__file__)\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    run = subprocess.run([str(torch215_python), "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    version, path = run.stdout.split()
    assert version.startswith("2.15.")
    assert "/torch215-cxx11-cpu-x86_64-linux/" in path
