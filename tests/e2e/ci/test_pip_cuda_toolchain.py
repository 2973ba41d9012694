"""The CUDA toolchain the generated workflow installs with pip (docs/release-ci.md): nvcc, nvvm and crt from
`nvidia-cuda-nvcc`/`nvidia-nvvm`/`nvidia-cuda-crt` 13.0 (requirements/dev.txt, as the plan's
`install.nvcc` names them) beside torch's CUDA runtime packages, merged into one CUDA_HOME by the
workflow's own "Assemble CUDA_HOME" step, run here verbatim. A CUDA variant then builds with that
nvcc (CMake's cache names it), not with a system toolkit."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow


def test_cuda_variant_builds_with_the_workflows_pip_cuda_home(kernel_builder, kb_python, tmp_path):
    venv = Path(kb_python).parent.parent
    if not list(venv.glob("lib/python3*/site-packages/nvidia/cu13/bin/nvcc")):
        pytest.fail(f"no nvcc from pip in {venv}: run scripts/install-deps (requirements/dev.txt)")
    workflow = yaml.safe_load(subprocess.run(
        [str(kernel_builder), "ci", "generate", "github", str(REPO / "examples" / "relu"), "--builder-repo", "a/b",
         "--builder-ref", "main"], capture_output=True, text=True, check=True).stdout)
    (step,) = [s for s in workflow["jobs"]["build"]["steps"] if s.get("name") == "Assemble CUDA_HOME"]
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    (runner_temp / "toolchain").symlink_to(venv)  # the job's toolchain venv
    github_env = runner_temp / "github-env"
    env = dict(os.environ, RUNNER_TEMP=str(runner_temp), GITHUB_ENV=str(github_env), NVCC="from the plan")
    subprocess.run(["bash", "-e", "-c", step["run"]], env=env, check=True)
    assignments = dict(line.split("=", 1) for line in github_env.read_text().splitlines())
    cuda_home = Path(assignments["CUDA_HOME"])
    assert (cuda_home / "bin" / "nvcc").exists() and (cuda_home / "include" / "cuda_runtime.h").exists()

    project = tmp_path / "cuda_anon"
    shutil.copytree(REPO / "tests" / "e2e" / "builder" / "data" / "cuda_anon", project)
    build = subprocess.run([str(kernel_builder), "build", str(project), "--python", str(kb_python), "--unique-id", "pipcuda",
                            "--variant", "torch211-cxx11-cu130-x86_64-linux"],
                           capture_output=True, text=True, env=dict(os.environ, CUDA_HOME=str(cuda_home)))
    assert build.returncode == 0, build.stderr[-4000:]
    cache = (project / "build" / ".kb" / "torch211-cxx11-cu130-x86_64-linux" / "cmake-build" / "CMakeCache.txt").read_text()
    assert re.search(rf"^CMAKE_CUDA_COMPILER:[A-Z]+={re.escape(str(cuda_home))}/bin/nvcc$", cache, re.MULTILINE)
    assert list((project / "build" / "torch211-cxx11-cu130-x86_64-linux").glob("*.so"))
