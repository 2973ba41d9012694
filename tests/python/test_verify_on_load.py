"""Signature verification when a downloaded kernel is loaded (kernels/_verify_on_load.py): a signed
variant is verified once per download (a receipt in the cache spares later loads), a bad signature
warns and the kernel loads, an unsigned variant is silent, KERNELS_DISABLE_SIGNATURE_VERIFICATION
turns the check off. Signed by the tests' own sigstore instance (sigstore_testlib.py), served by
kernel-hub."""
from __future__ import annotations

import base64
import hashlib
import json
import logging
import sys

import pytest

from loader_testlib import make_variant
from sigstore_testlib import SigstoreInstance

REPO = "trusted-org/onload"


@pytest.fixture(scope="module")
def instance():
    return SigstoreInstance()


@pytest.fixture(scope="module")
def published(hub, instance, tmp_path_factory):
    """v1 signed by kernels-community's build workflow, v2 with a tampered signature, v3 unsigned."""
    tmp = tmp_path_factory.mktemp("onload")
    for tag in ("v1", "v2", "v3"):
        make_variant(tmp / tag / "build", "torch-cpu", name="onload", backend="cpu", value=tag[1])
    instance.sign_variant(tmp / "v1" / "build" / "torch-cpu")
    bundle_path = instance.sign_variant(tmp / "v2" / "build" / "torch-cpu")
    bundle = json.loads(bundle_path.read_text())
    signature = bytearray(base64.b64decode(bundle["messageSignature"]["signature"]))
    signature[-1] ^= 1
    bundle["messageSignature"]["signature"] = base64.b64encode(bytes(signature)).decode()
    bundle_path.write_text(json.dumps(bundle))
    hub.publish(REPO, tmp, {tag: tmp / tag for tag in ("v1", "v2", "v3")})
    return instance.write_trusted_root(tmp / "trusted_root.json")


@pytest.fixture
def loads(env_hub, cache, published, monkeypatch, caplog):
    """`load(version)` gets the kernel; `verifications` lists each variant verify_variant checked;
    `warnings()` the kernels logger's warnings."""
    from kernels import verify

    monkeypatch.setenv("KERNELS_SIGSTORE_TRUSTED_ROOT", str(published))
    monkeypatch.delenv("KERNELS_DISABLE_SIGNATURE_VERIFICATION", raising=False)
    verifications = []
    real = verify.verify_variant

    def counting(variant, policies=None):
        verifications.append(variant.name)
        return real(variant, policies)

    monkeypatch.setattr(verify, "verify_variant", counting)
    caplog.set_level(logging.WARNING, logger="kernels")

    class Loads:
        def load(self, version):
            from kernels import get_kernel

            return get_kernel(REPO, version=version, backend="cpu")

        verified = verifications

        def warnings(self):
            return [r.getMessage() for r in caplog.records if r.name == "kernels" and r.levelno == logging.WARNING]

    return Loads()


def receipts(cache):
    return sorted(cache.rglob("signature-receipts/*/*.json"))


def test_signed_variant_is_verified_once_per_download(loads, cache):
    assert loads.load(1).VALUE == 1
    assert loads.verified == ["torch-cpu"] and loads.warnings() == []
    [receipt] = receipts(cache)
    fields = json.loads(receipt.read_text())
    assert fields["verified"] is True and fields["problem"] is None
    variant = next(cache.rglob("snapshots/*/build/torch-cpu"))
    assert receipt.parent.name == variant.parent.parent.name  # one receipt per snapshot and variant
    assert fields["metadata_sha256"] == hashlib.sha256((variant / "metadata.json").read_bytes()).hexdigest()
    assert fields["bundle_sha256"] == hashlib.sha256((variant / "metadata.json.sigstore").read_bytes()).hexdigest()
    stamp = receipt.stat().st_mtime_ns
    for _ in range(2):
        assert loads.load(1).VALUE == 1
    assert loads.verified == ["torch-cpu"] and receipt.stat().st_mtime_ns == stamp
    # The receipt holds for the metadata bytes it was made with only.
    receipt.write_text(json.dumps(dict(fields, metadata_sha256="0" * 64)))
    loads.load(1)
    assert loads.verified == ["torch-cpu"] * 2 and json.loads(receipt.read_text()) == fields


def test_tampered_signature_warns_and_loads(loads, cache):
    assert loads.load(2).VALUE == 2
    [warning] = loads.warnings()
    assert warning.startswith(f"Signature check of `{REPO}` (torch-cpu): metadata signature verification failed:\n")
    assert warning.endswith("\nThe kernel is loaded anyway (KERNELS_DISABLE_SIGNATURE_VERIFICATION=1 turns this "
                            "check off).")
    [receipt] = receipts(cache)
    assert json.loads(receipt.read_text())["verified"] is False
    # A later load repeats the warning from the receipt, without verifying again.
    assert loads.load(2).VALUE == 2
    assert loads.verified == ["torch-cpu"] and loads.warnings() == [warning, warning]


def test_unsigned_variant_is_silent(loads, cache):
    assert loads.load(3).VALUE == 3
    assert loads.verified == [] and loads.warnings() == [] and receipts(cache) == []


def test_off_switch(loads, cache, monkeypatch):
    monkeypatch.setenv("KERNELS_DISABLE_SIGNATURE_VERIFICATION", "1")
    assert loads.load(2).VALUE == 2
    assert loads.verified == [] and loads.warnings() == [] and receipts(cache) == []


def test_without_sigstore_loading_is_silent(loads, cache, monkeypatch):
    monkeypatch.setitem(sys.modules, "sigstore", None)
    assert loads.load(2).VALUE == 2
    assert loads.verified == [] and loads.warnings() == [] and receipts(cache) == []
