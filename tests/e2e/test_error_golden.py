"""Golden error rendering of the CLIs as users see it on stderr: `error:` lines, `Caused by:`
chains with build.toml carets, `hint:` lines, multi-line messages, CLI11's usage errors, and the
exit status of each (src/util/exit_code.h). One golden file per case in golden/errors/, with the
scratch directory shown as <TMP>; KB_REFRESH_GOLDEN=1 rewrites them."""
import os
import subprocess
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "errors"
INVALID_TOML = '[general]\nname = "x"\n'
MISSING_SOURCE_TOML = """[general]
name = "relu"
version = 1
license = "Apache-2.0"
backends = ["cpu"]

[torch]
src = ["torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"]

[kernel.relu]
backend = "cpu"
depends = ["torch"]
src = ["relu_cpu/relu.cpp", "relu_cpu/relu.h"]
"""

# name -> (program, arguments, files to create in the scratch directory)
CASES = {
    "fill-card-without-build-toml": ("kernel_builder", ["fill-card", "."], {}),
    "create-pyproject-invalid-build-toml": ("kernel_builder", ["create-pyproject", "p"], {"p/build.toml": INVALID_TOML}),
    "check-config-invalid-build-toml": ("kernel_builder", ["check-config", "p"], {"p/build.toml": INVALID_TOML}),
    "check-config-missing-directory": ("kernel_builder", ["check-config", "missing"], {}),
    "init-invalid-kernel-name": ("kernel_builder", ["init", "--name", "org/Bad_Name"], {}),
    "build-invalid-unique-id": ("kernel_builder", ["build", "p", "--unique-id", "gpu-relu"],
                                {"p/build.toml": '[general]\nname = "p"\nbackends = ["cpu"]\n'}),
    "unknown-command": ("kernel_builder", ["frobnicate"], {}),
    "unknown-option": ("kernel_builder", ["hash", "--frobnicate"], {}),
    "misspelt-command": ("kernel_builder", ["biuld"], {}),
    "misspelt-option": ("kernel_builder", ["build", "--varient", "x"], {}),
    "unexpected-argument": ("kernel_builder", ["hash", "a", "b"], {}),
    "check-config-missing-source-file": ("kernel_builder", ["check-config", "p"], {
        "p/build.toml": MISSING_SOURCE_TOML, "p/torch-ext/torch_binding.cpp": "", "p/relu_cpu/relu.h": ""}),
    "bad-option-value": ("kernel_hub", ["serve", "--root", "root", "--port", "0", "--max-file-size", "1.5G"], {}),
    "hub-invalid-organization-name": ("kernel_hub", ["org", "add", "bad/name", "--root", "root"], {}),
    "hub-missing-required-option": ("kernel_hub", ["user", "add", "alice"], {}),
    "hub-remove-org-of-unknown-user": ("kernel_hub", ["user", "remove-org", "nobody", "--org", "acme", "--root", "root"],
                                       {}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_rendering_is_the_golden_text(request, tmp_path, name):
    program, args, files = CASES[name]
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    binary = request.getfixturevalue(program)
    env = {**os.environ, "NO_COLOR": "1", "HOME": str(tmp_path)}
    env.pop("HF_TOKEN", None)
    r = subprocess.run([str(binary), *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert r.stdout == ""
    shown = f"$ {program.replace('_', '-')} {' '.join(args)}\n{r.stderr}exit status: {r.returncode}\n"
    shown = shown.replace(str(tmp_path), "<TMP>")
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("KB_REFRESH_GOLDEN") == "1":
        GOLDEN.mkdir(parents=True, exist_ok=True)
        golden.write_text(shown)
    assert golden.is_file(), f"missing {golden}; KB_REFRESH_GOLDEN=1 writes it"
    assert shown == golden.read_text()


def test_no_stale_error_goldens():
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == sorted(CASES)
