"""Kernels with layers for the kernelize tests, built once per test process with our
`kernel-builder`:

- `rmsnorm_kernel(backend)`: the `examples/rmsnorm` kernel (a compiled op and `layers.RMSNorm`),
  its built variant copied into a kernel directory of its own;
- `layer_zoo_kernel()`: a torch-noarch kernel written here, whose layers each pass or break one
  rule of kernelize (constructor, members, forward signature, backward, torch.compile).
"""
from __future__ import annotations

import functools
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

from loader_testlib import REPO_ROOT

_spec = importlib.util.spec_from_file_location("kb_example_build_layers", REPO_ROOT / "examples" / "example_build.py")
example_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example_build)

_SCRATCH = Path(tempfile.mkdtemp(prefix="kb-layer-kernels-"))


def _as_kernel_dir(variant_dir: Path, name: str) -> Path:
    """A kernel directory `<scratch>/<name>/build/<variant>` holding a copy of `variant_dir`."""
    kernel_dir = _SCRATCH / name
    target = kernel_dir / "build" / variant_dir.name
    if not target.exists():
        shutil.copytree(variant_dir, target, ignore=shutil.ignore_patterns("__pycache__"))
    return kernel_dir


@functools.lru_cache(maxsize=None)
def rmsnorm_kernel(backend: str = "cpu") -> Path:
    variant = example_build.build_with_kernel_builder(REPO_ROOT / "examples" / "rmsnorm", backend)
    return _as_kernel_dir(variant, f"rmsnorm-{backend}")


ZOO_BUILD_TOML = """\
[general]
name = "layer-zoo"
version = 1
edition = 5
license = "Apache-2.0"
backends = ["cpu", "cuda"]

[torch-noarch]
"""

ZOO_INIT = '''\
"""Test kernel: layers that pass or break kernelize's rules."""
import torch

from . import layers


def add_hundred(x: torch.Tensor) -> torch.Tensor:
    return x + 100


add_hundred.can_torch_compile = True
'''

# Every layer replaces `forward(self, x)` of a layer that computes x + 1.
ZOO_LAYERS = '''\
import torch
from torch import nn


class Double(nn.Module):
    can_torch_compile = True
    has_backward = True

    def forward(self, x):
        return x * 2


class TripleNoCompile(nn.Module):
    has_backward = True

    def forward(self, x):
        return x * 3


class QuadrupleNoBackward(nn.Module):
    can_torch_compile = True
    has_backward = False

    def forward(self, x):
        return x * 4


class WithInit(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x


class ExtraMember(nn.Module):
    scale = 5

    def forward(self, x):
        return x * self.scale


class TwoArguments(nn.Module):
    def forward(self, x, y):
        return x


class KeywordOnly(nn.Module):
    def forward(self, *, x):
        return x


class NotAModule:
    def forward(self, x):
        return x


def add_ten(x):
    return x + 10
'''


@functools.lru_cache(maxsize=None)
def layer_zoo_kernel() -> Path:
    project = _SCRATCH / "layer-zoo-src"
    package = project / "torch-ext" / "layer_zoo"
    package.mkdir(parents=True, exist_ok=True)
    (project / "build.toml").write_text(ZOO_BUILD_TOML)
    (package / "__init__.py").write_text(ZOO_INIT)
    (package / "layers.py").write_text(ZOO_LAYERS)
    kernel_dir = _SCRATCH / "layer-zoo"
    for backend in ("cpu", "cuda"):
        variant = example_build.build_with_kernel_builder(project, backend)
        _as_kernel_dir(variant, "layer-zoo")
    return kernel_dir


@functools.lru_cache(maxsize=None)
def no_layers_kernel() -> Path:
    """A torch-noarch kernel without a `layers` module."""
    project = _SCRATCH / "no-layers-src"
    package = project / "torch-ext" / "no_layers"
    package.mkdir(parents=True, exist_ok=True)
    (project / "build.toml").write_text(ZOO_BUILD_TOML.replace("layer-zoo", "no-layers"))
    (package / "__init__.py").write_text('"""Test kernel without layers."""\nVALUE = 1\n')
    variant = example_build.build_with_kernel_builder(project, "cpu")
    return _as_kernel_dir(variant, "no-layers")


@functools.lru_cache(maxsize=None)
def dependent_kernel(dependency: str) -> Path:
    """A torch-noarch kernel declaring `dependency` (version 1) in `kernel-depends`, whose
    `__init__` loads it with `get_kernel_dep` and re-exports it as `dependency_module`."""
    project = _SCRATCH / "dependent-src"
    package = project / "torch-ext" / "dependent"
    package.mkdir(parents=True, exist_ok=True)
    (project / "build.toml").write_text(
        ZOO_BUILD_TOML.replace('name = "layer-zoo"', 'name = "dependent"')
        .replace('backends = ["cpu", "cuda"]\n',
                 f'backends = ["cpu", "cuda"]\nkernel-depends = [{{ repo-id = "{dependency}", version = 1 }}]\n'))
    (package / "__init__.py").write_text(
        '"""Test kernel that depends on another kernel."""\n'
        "from kernels import get_kernel_dep\n\n"
        f"dependency_module = get_kernel_dep({dependency!r})\n")
    # Its import needs `kernels` and a Hub: the builder's import check cannot run it.
    command = [str(example_build.kernel_builder_binary()), "build", str(project), "--variant", "torch-cpu",
               "--python", sys.executable, "--unique-id", "dependent1", "--no-import-check"]
    example_build._run(command, "kernel-builder build of the dependent test kernel")
    return _as_kernel_dir(project / "build" / "torch-cpu", "dependent")
