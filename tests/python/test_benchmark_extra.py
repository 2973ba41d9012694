"""`pip install 'kernels[benchmark]'` installs every third-party module `kernels benchmark` imports:
a fresh install that benchmarks a Hub repository must not stop on a missing module."""
from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "python" / "kernels"


def third_party_imports(paths: list[Path]) -> set[str]:
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("kernels", "__future__"):
                    found.add(top)
    return found


def test_the_benchmark_extra_has_every_module_the_benchmark_imports():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    listed = {re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("-", "_")
              for requirement in extras["benchmark"]}
    modules = third_party_imports([PACKAGE / "benchmark.py", *sorted((PACKAGE / "_benchmark").glob("*.py"))])
    assert "huggingface_hub" in modules
    missing = modules - listed  # each module here is installed under its own name
    assert not missing, f"the `benchmark` extra lacks {sorted(missing)}"
