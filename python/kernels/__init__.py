"""`kernels`: load prebuilt compute kernels from the Hub (drop-in for upstream's API).

Selection, metadata, lock hashes, Hub access, cache and verification live in the C++ core
(`kernels._core`); this package inspects the running torch and imports modules."""
from __future__ import annotations

import os
import sys

# The package version, read by the build too (pyproject.toml); transformers accepts kernels
# 0.18.2 <= version < 0.19 from its version 5.23 on.
__version__ = "0.18.2"

if sys.platform == "win32":  # pragma: no cover - Windows only
    _dnnl = r"C:\Program Files (x86)\Intel\oneAPI\dnnl\latest\bin"
    if os.path.isdir(_dnnl):
        os.add_dll_directory(_dnnl)

from kernels._api import (  # noqa: E402
    get_kernel,
    get_local_kernel,
    get_locked_kernel,
    has_kernel,
    install_kernel,
    load_kernel,
)
from kernels._importer import LoadedKernel, RepoInfo, get_loaded_kernels  # noqa: E402
from kernels._metadata import Metadata  # noqa: E402
from kernels.benchmark import Benchmark  # noqa: E402
from kernels.deps import get_kernel_dep  # noqa: E402
from kernels.variants import VariantAccepted, VariantRejected, get_kernel_variants  # noqa: E402
from kernels import layer as _layer  # noqa: E402
from kernels.layer import *  # noqa: E402,F401,F403  (the layer API: kernels.layer.__all__)

__all__ = [
    "__version__",
    "Benchmark",
    "LoadedKernel",
    "Metadata",
    "RepoInfo",
    "VariantAccepted",
    "VariantRejected",
    "get_kernel",
    "get_kernel_variants",
    "get_loaded_kernels",
    "get_local_kernel",
    "get_locked_kernel",
    "has_kernel",
    "install_kernel",
    "load_kernel",
    "get_kernel_dep",
    # Layers and kernelize (docs/layers.md)
    *_layer.__all__,
]
