"""Helpers shared by the end-to-end tests of the CLIs' contracts (exit statuses, stdout)."""
import subprocess
from pathlib import Path

# The smallest valid build.toml: one CPU kernel (its sources need not exist for the commands that
# only read the configuration).
MINIMAL_BUILD_TOML = """[general]
name = "relu"
version = 1
edition = 5
license = "Apache-2.0"
backends = ["cpu"]

[torch]
src = ["torch-ext/torch_binding.cpp"]

[kernel.relu]
backend = "cpu"
depends = ["torch"]
src = ["relu/relu.cpp"]
"""


def write_minimal_project(directory: Path) -> None:
    """MINIMAL_BUILD_TOML and the (empty) source files it lists, which check-config requires."""
    (directory / "build.toml").write_text(MINIMAL_BUILD_TOML)
    for source in ("torch-ext/torch_binding.cpp", "relu/relu.cpp"):
        (directory / source).parent.mkdir(parents=True, exist_ok=True)
        (directory / source).touch()


def run(binary, *args, **kwargs):
    """Runs a CLI with text output captured (60 s limit)."""
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=60, **kwargs)
