"""The exceptions a Hub's "not found" answers become, as upstream `kernels` raises them:
huggingface_hub's `RepositoryNotFoundError` / `RevisionNotFoundError`, so that code written for
upstream (`except RepositoryNotFoundError`) catches ours, made to be `FileNotFoundError` too, which
is what this package raised before (`except FileNotFoundError` / `except OSError` keep working).
Without huggingface_hub installed they stay plain `FileNotFoundError`. Which Hub error code maps to
which class is decided here only; the C++ core carries the code (`util::Error::code`)."""
from __future__ import annotations

from typing import Dict, Optional

_CLASSES: Dict[str, type] = {}
_BASES = {"RepoNotFound": "RepositoryNotFoundError", "RevisionNotFound": "RevisionNotFoundError"}


def hub_not_found(code: str, message: str, status: int) -> Optional[BaseException]:
    """The exception for a Hub's `X-Error-Code: <code>` answer, or None for plain FileNotFoundError."""
    base_name = _BASES.get(code)
    if base_name is None:
        return None
    try:
        import httpx
        from huggingface_hub import errors
    except ImportError:
        return None
    cls = _CLASSES.get(code)
    if cls is None:
        cls = type(base_name, (getattr(errors, base_name), FileNotFoundError), {"__module__": __name__})
        _CLASSES[code] = cls
    response = httpx.Response(status or 404, headers={"X-Error-Code": code},
                              request=httpx.Request("GET", "http://hub.invalid/"))
    return cls(message, response=response)
