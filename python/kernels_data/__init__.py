"""Compatibility module: upstream re-exports `Metadata` and friends from `kernels_data`."""
from __future__ import annotations

from kernels._metadata import (  # noqa: F401
    Backend,
    Digest,
    DigestAlgorithm,
    DigestValidationError,
    GitStatus,
    KernelDependency,
    KernelName,
    KernelVersion,
    Metadata,
)
