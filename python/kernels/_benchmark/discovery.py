"""Which workloads a kernel's benchmark scripts define (docs/cli.md, as upstream 0.17.2 does):
`benchmarks/benchmark*.py` in name order; in each, every `Benchmark` subclass the script itself
defines (not one it imports), in name order; in each class, every callable `benchmark_<name>`
attribute (inherited ones too), in name order."""
from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import List

from kernels._importer import exec_file_module
from kernels.benchmark import Benchmark

PREFIX = "benchmark_"


@dataclass(frozen=True)
class Workload:
    cls: type
    name: str

    @property
    def label(self) -> str:
        return f"{self.cls.__name__}.{self.name}"


def find_scripts(root: Path) -> List[Path]:
    """The scripts of `root/benchmarks`; an error names what is missing."""
    folder = root / "benchmarks"
    if not folder.is_dir():
        raise FileNotFoundError(f"No benchmarks directory found in '{root}'")
    scripts = sorted(p for p in folder.glob("benchmark*.py") if p.is_file())
    if not scripts:
        raise FileNotFoundError(f"No benchmark scripts found in '{folder}'")
    return scripts


def scripts_sha256(scripts: List[Path]) -> str:
    """SHA-256 over the scripts' bytes in run order (upstream's benchmark script sha)."""
    digest = hashlib.sha256()
    for script in scripts:
        digest.update(script.read_bytes())
    return digest.hexdigest()


def import_script(path: Path, index: int) -> ModuleType:
    name = f"kernels_benchmark_script_{index}_{path.stem}"
    return exec_file_module(name, path, f"Cannot import benchmark script `{path}`")


def workloads(module: ModuleType) -> List[Workload]:
    classes = sorted(
        (obj for obj in vars(module).values()
         if inspect.isclass(obj) and issubclass(obj, Benchmark) and obj is not Benchmark
         and obj.__module__ == module.__name__),
        key=lambda c: c.__name__,
    )
    found = []
    for cls in classes:
        for attr in sorted(dir(cls)):
            if attr.startswith(PREFIX) and len(attr) > len(PREFIX) and callable(getattr(cls, attr)):
                found.append(Workload(cls, attr[len(PREFIX):]))
    return found
