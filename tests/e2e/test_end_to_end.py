"""The main job end to end, as the README's demo runs it: build examples/relu (CPU variant) with
kernel-builder, serve it from a local kernel-hub, upload it, then load it with our `kernels`
package via get_kernel(version=1) and run the op against torch — online, then with the hub
stopped (offline).

The build is the session's build of examples/relu in place (examples/example_build.py, the one the
example's own tests and the benchmark tests import): the same `kernel-builder build --variant`
command, compiled once for all of them. What is uploaded is a copy of the example, in a git
repository of its own, with that built variant."""
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

LOAD_AND_RUN = """
import torch
from kernels import get_kernel
# torch from PyPI is a CUDA build, so without backend="cpu" the loader would look for CUDA variants.
k = get_kernel("kernels-test/relu", version=1, backend="cpu")
x = torch.randn(1 << 16)
torch.testing.assert_close(k.relu(x), torch.relu(x))
print("OK", k.__name__)
"""


def _torch_variant() -> str:
    import torch

    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return f"torch{major}{minor}-cxx11-cpu-x86_64-linux"


def _example_build():
    spec = importlib.util.spec_from_file_location("kb_example_build_e2e", REPO_ROOT / "examples" / "example_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_build_upload_and_get_kernel_from_local_hub(kernel_builder, kernel_hub, tmp_path):
    example_build = _example_build()
    variant = _torch_variant()
    # `kernel-builder build examples/relu --python <this python> --variant <variant>`, in place and
    # once per session (an up-to-date build where another test built it first).
    try:
        built = example_build.build_with_kernel_builder(REPO_ROOT / "examples" / "relu", "cpu")
    except example_build.BuildError as error:
        pytest.fail(str(error), pytrace=False)
    assert built.name == variant
    assert (built / "metadata.json").is_file()
    project = tmp_path / "relu"
    shutil.copytree(REPO_ROOT / "examples" / "relu", project,
                    ignore=shutil.ignore_patterns("build", "__pycache__"))
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "relu"],
                   cwd=project, check=True)
    # The build's output as the build left it (the variant, CARD.md, benchmarks/), without its work
    # directory (build/.kb) and the example's other variants.
    def left_out(folder, names):
        return [name for name in names if name in (".kb", "__pycache__") or (
            Path(folder) == built.parent and name != variant and Path(folder, name, "metadata.json").exists())]

    shutil.copytree(built.parent, project / "build", ignore=left_out)

    root = tmp_path / "hub"
    subprocess.run([str(kernel_hub), "org", "add", "kernels-test", "--root", str(root), "--trusted"],
                   check=True, capture_output=True)
    token = subprocess.run([str(kernel_hub), "user", "add", "demo", "--root", str(root), "--org",
                            "kernels-test"], check=True, capture_output=True, text=True).stdout.splitlines()[-1]
    server = subprocess.Popen([str(kernel_hub), "serve", "--root", str(root), "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("Listening on "), line
        endpoint = line.split()[-1]
        env = dict(os.environ, HF_ENDPOINT=endpoint, HF_TOKEN=token)
        up = subprocess.run([str(kernel_builder), "upload", str(project), "--repo-id", "kernels-test/relu"],
                            env=env, capture_output=True, text=True)
        assert up.returncode == 0, up.stderr
        assert up.stdout.strip() == f"Kernel uploaded: {endpoint}/kernels/kernels-test/relu/tree/v1"

        load_env = dict(os.environ, HF_ENDPOINT=endpoint, HF_HUB_CACHE=str(tmp_path / "cache"))
        load_env.pop("HF_TOKEN", None)
        online = subprocess.run([sys.executable, "-c", LOAD_AND_RUN], env=load_env, capture_output=True,
                                text=True, cwd=tmp_path)
        assert online.returncode == 0, online.stderr
        assert online.stdout.startswith("OK _relu_cpu_")
    finally:
        server.terminate()
        server.wait(timeout=10)

    time.sleep(0.1)
    offline = subprocess.run([sys.executable, "-c", LOAD_AND_RUN], env=dict(load_env, HF_HUB_OFFLINE="1"),
                             capture_output=True, text=True, cwd=tmp_path)
    assert offline.returncode == 0, offline.stderr
    assert offline.stdout == online.stdout
