"""End-to-end tests of `kernel-builder check-config` and `update-build` (exit status, exact output)."""
import re
import subprocess
from pathlib import Path

V4_WARNING = (
    "\u26a0\ufe0f  build.toml uses the legacy v4 format; upgrading to edition 5 in memory. "
    "Run `kernel-builder update-build` to persist the upgrade.\n"
)
V3_ERROR = (
    "error: build.toml uses an unsupported legacy format; migrate it with `kernel-builder update-build`\n"
)

EDITION5 = """[general]
name = "relu"
version = 1
edition = 5
license = "Apache-2.0"
backends = ["cuda"]

[torch]
src = ["torch-ext/torch_binding.cpp"]

[kernel.relu]
backend = "cuda"
depends = ["torch"]
src = ["relu/relu.cu"]
"""

V4 = """# Relu kernel
[general]
name = "relu"
version = 1
license = "Apache-2.0"
backends = ["cuda", "cpu"]

[torch]
src = ["torch-ext/torch_binding.cpp"]
minver = "2.9.0"

[kernel.relu_cuda]  # CUDA first
backend = "cuda"
depends = ["torch"]
src = ["relu/relu.cu"]

[kernel.a_cpu]
backend = "cpu"
depends = ["torch"]
src = ["relu/relu.cpp"]
"""

V3 = """[general]
name = "relu"
license = "MIT"
backends = ["cuda"]
"""


def run(binary: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, cwd=cwd,
                          env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})


def write(tmp_path: Path, text: str) -> Path:
    """build.toml and the source files it lists (check-config reports missing ones)."""
    (tmp_path / "build.toml").write_text(text)
    for source in re.findall(r'"([\w-]+/[\w.]+)"', text):
        (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / source).touch()
    return tmp_path


def test_check_config_is_silent_on_a_valid_file(kernel_builder, tmp_path):
    result = run(kernel_builder, "check-config", str(write(tmp_path, EDITION5)))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_check_config_defaults_to_the_current_directory(kernel_builder, tmp_path):
    write(tmp_path, EDITION5)
    result = run(kernel_builder, "check-config", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")


def test_check_config_prints_every_error_with_location_and_hint(kernel_builder, tmp_path):
    text = EDITION5.replace("backends", "backend").replace('"relu"', '"Relu"', 1)
    result = run(kernel_builder, "check-config", ".", cwd=write(tmp_path, text))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("build.toml:1:1: error: missing required key `backends` in [general]\n"
                                    "[general]\n^~~~~~~~~\n")
    assert "build.toml:2:8: error: Invalid kernel name `Relu`. Name must:\n" in result.stderr
    assert ("build.toml:6:1: error: unknown key `backend` in [general]\n"
            'backend = ["cuda"]\n^~~~~~~\nhint: did you mean `backends`?\n') in result.stderr
    assert result.stderr.endswith("error: found 3 errors in build.toml\n")


def test_check_config_warns_for_v4_and_rejects_v3(kernel_builder, tmp_path):
    result = run(kernel_builder, "check-config", str(write(tmp_path, V4)))
    assert (result.returncode, result.stderr) == (0, V4_WARNING)
    result = run(kernel_builder, "check-config", str(write(tmp_path, V3)))
    assert (result.returncode, result.stderr) == (1, V3_ERROR)


def test_check_config_rejects_a_missing_directory_and_file(kernel_builder, tmp_path):
    result = run(kernel_builder, "check-config", str(tmp_path / "nope"))
    assert result.returncode == 2  # usage error, as in every command (tests/e2e/test_exit_status.py)
    assert result.stderr == f"error: `{tmp_path / 'nope'}` is not a directory\n"
    result = run(kernel_builder, "check-config", str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.startswith(f"error: Cannot open {tmp_path / 'build.toml'} for reading\n")


def test_check_config_prints_semantic_warnings(kernel_builder, tmp_path):
    text = EDITION5.replace('backend = "cuda"', 'backend = "rocm"')
    result = run(kernel_builder, "check-config", ".", cwd=write(tmp_path, text))
    assert result.returncode == 0
    assert result.stderr == ("build.toml:12:11: warning: [kernel.relu] is ignored: backend `rocm` is not in "
                             '`general.backends`\nbackend = "rocm"\n          ^~~~~~\n')


def test_update_build_leaves_edition5_untouched(kernel_builder, tmp_path):
    write(tmp_path, EDITION5)
    before = (tmp_path / "build.toml").stat().st_mtime_ns
    result = run(kernel_builder, "update-build", str(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert (tmp_path / "build.toml").read_text() == EDITION5
    assert (tmp_path / "build.toml").stat().st_mtime_ns == before


def test_update_build_upgrades_v4_keeping_comments_and_order(kernel_builder, tmp_path):
    result = run(kernel_builder, "update-build", ".", cwd=write(tmp_path, V4))
    assert result.returncode == 0, result.stderr
    assert result.stderr == "Updated build.toml to edition 5\n"
    assert (tmp_path / "build.toml").read_text() == """# Relu kernel
[general]
name = "relu"
version = 1
edition = 5
license = "Apache-2.0"
backends = ["cuda", "cpu"]

[torch]
src = ["torch-ext/torch_binding.cpp"]
minver = "2.9"

[kernel.relu_cuda]  # CUDA first
backend = "cuda"
depends = ["torch"]
src = ["relu/relu.cu"]

[kernel.a_cpu]
backend = "cpu"
depends = ["torch"]
src = ["relu/relu.cpp"]
"""
    check = run(kernel_builder, "check-config", str(tmp_path))
    assert (check.returncode, check.stderr) == (0, "")


def test_update_build_upgrades_v3_to_torch_noarch(kernel_builder, tmp_path):
    result = run(kernel_builder, "update-build", str(write(tmp_path, V3)))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "build.toml").read_text() == (
        '[general]\nname = "relu"\nversion = 1\nedition = 5\nlicense = "MIT"\nbackends = ["cuda"]\n'
        "\n[torch-noarch]\n")
    check = run(kernel_builder, "check-config", str(tmp_path))
    assert (check.returncode, check.stderr) == (0, "")


def test_update_build_refuses_v3_without_license(kernel_builder, tmp_path):
    text = V3.replace('license = "MIT"\n', "")
    result = run(kernel_builder, "update-build", str(write(tmp_path, text)))
    assert result.returncode == 1
    assert result.stderr.startswith(
        "error: Cannot update build configuration\n"
        'Caused by: Cannot migrate configuration: "The `license` key is required in the `general` section"\n')
    assert (tmp_path / "build.toml").read_text() == text


def test_update_build_reports_parse_errors(kernel_builder, tmp_path):
    result = run(kernel_builder, "update-build", str(write(tmp_path, "[general]\nname = \n")))
    assert result.returncode == 1
    assert result.stderr.startswith("error: Cannot update build configuration\nCaused by: ")
    assert "build.toml:2:" in result.stderr


def test_update_build_writes_underscore_noarch_spellings(kernel_builder, tmp_path):
    text = ('[general]\nname = "triton-relu"\nversion = 2\nlicense = "MIT"\nbackends = ["cuda", "rocm"]\n'
            '\n[torch-noarch]\ncuda-capabilities = ["8.0", "9.0"]  # Ampere+\nrocm-archs = ["gfx942"]\n')
    result = run(kernel_builder, "update-build", str(write(tmp_path, text)))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "build.toml").read_text() == (
        '[general]\nname = "triton-relu"\nversion = 2\nedition = 5\nlicense = "MIT"\nbackends = ["cuda", "rocm"]\n'
        '\n[torch-noarch]\ncuda_capabilities = ["8.0", "9.0"]  # Ampere+\nrocm_archs = ["gfx942"]\n')
    check = run(kernel_builder, "check-config", str(tmp_path))
    assert (check.returncode, check.stderr) == (0, "")
