"""Signature verification of a variant downloaded from the Hub, when it is loaded (warning only).

A variant that carries `metadata.json.sigstore` is verified with `kernels.verify.verify_variant`
(default signers) the first time a download of it is loaded, when the optional `sigstore` package
is importable. A failed verification logs a warning and the kernel is loaded anyway. The outcome
is kept in a receipt, so that later loads of the same download neither import sigstore nor re-hash
the files: they repeat a failure's warning from the receipt, and are silent after a success.

Receipts live in the repository's cache folder, next to `snapshots/`:
`<repo folder>/signature-receipts/<commit>/<variant>.json` (deleted with the repository by the Hub
client's cache commands). A receipt holds for the metadata, bundle and trust root it was made
with: the SHA-256 of `metadata.json` and of `metadata.json.sigstore`, and the value of
`KERNELS_SIGSTORE_TRUSTED_ROOT`; another download or root verifies again.

Unsigned variants load without a word (upstream's proposal warns about them too). Variants from a
directory (`get_local_kernel`, `LOCAL_KERNELS`) are not checked. `KERNELS_DISABLE_SIGNATURE_VERIFICATION=1`
turns the check off."""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Optional

from kernels._env import SIGSTORE_TRUSTED_ROOT_ENV

DISABLE_ENV = "KERNELS_DISABLE_SIGNATURE_VERIFICATION"
RECEIPT_FORMAT = 1
RECEIPTS_DIR = "signature-receipts"

_logger = logging.getLogger("kernels")


def _disabled() -> bool:
    return os.environ.get(DISABLE_ENV, "").strip().upper() in ("1", "ON", "YES", "TRUE")


def _sigstore_importable() -> bool:
    try:
        return importlib.util.find_spec("sigstore") is not None
    except (ImportError, ValueError):  # blocked (sys.modules entry None) or broken
        return False


def _receipt_path(variant: Path) -> Optional[Path]:
    """`<repo folder>/signature-receipts/<commit>/<variant>.json` for a variant of the Hub cache
    (`<repo folder>/snapshots/<commit>/build/<variant>`); None elsewhere."""
    parts = variant.parts
    if len(parts) < 5 or parts[-2] != "build" or parts[-4] != "snapshots":
        return None
    return Path(*parts[:-4]) / RECEIPTS_DIR / parts[-3] / f"{parts[-1]}.json"


def _describe(result) -> str:
    """The failure text `kernels verify-signature` prints for `result` (its one owner)."""
    from kernels.cli import _verification_failure

    return _verification_failure(result, argparse.Namespace(filter_unsigned=False, filter_no_digest=False))


def _read_receipt(path: Path, identity: dict) -> Optional[dict]:
    try:
        receipt = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(receipt, dict) or any(receipt.get(k) != v for k, v in identity.items()):
        return None
    return receipt


def _write_receipt(path: Path, receipt: dict) -> None:
    """Atomically (a concurrent load reads a whole receipt or none); a read-only cache keeps none."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "w") as f:
            json.dump(receipt, f, indent=2)
        os.replace(tmp, path)
    except OSError as e:
        _logger.debug(f"No signature receipt written at {path}: {e}")


def verify_on_load(variant: Path, repo_id: str) -> None:
    """Verifies the signature of the downloaded `variant` of `repo_id` once per download; warns on
    failure, never raises."""
    try:
        _verify_on_load(variant, repo_id)
    except Exception as e:  # the check is advisory: it must never stop a load
        _logger.warning(f"Could not verify the signature of `{repo_id}` ({variant.name}): {e}")


def _verify_on_load(variant: Path, repo_id: str) -> None:
    if _disabled():
        return
    bundle = variant / "metadata.json.sigstore"
    if not bundle.is_file():
        return
    if not _sigstore_importable():
        _logger.debug(f"`{repo_id}` is signed; pip install 'kernels[signature]' to verify it when it is loaded")
        return
    metadata = variant / "metadata.json"
    identity = {
        "format": RECEIPT_FORMAT,
        "metadata_sha256": hashlib.sha256(metadata.read_bytes()).hexdigest() if metadata.is_file() else None,
        "bundle_sha256": hashlib.sha256(bundle.read_bytes()).hexdigest(),
        "trusted_root": os.environ.get(SIGSTORE_TRUSTED_ROOT_ENV) or None,
    }
    receipt_path = _receipt_path(variant)
    receipt = _read_receipt(receipt_path, identity) if receipt_path is not None else None
    if receipt is None:
        from kernels import verify

        result = verify.verify_variant(variant)
        ok = isinstance(result, verify.VerificationResult.Success)
        receipt = dict(identity, verified=ok, problem=None if ok else _describe(result))
        if receipt_path is not None:
            _write_receipt(receipt_path, receipt)
    if not receipt["verified"]:
        _logger.warning(f"Signature check of `{repo_id}` ({variant.name}): {receipt['problem']}\n"
                        f"The kernel is loaded anyway ({DISABLE_ENV}=1 turns this check off).")
