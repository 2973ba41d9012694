"""A sigstore instance of the tests' own: a certificate authority (as Fulcio), a certificate
transparency log and a transparency log (as Rekor), with keys made here, written out as a
trusted_root.json. `sign` gives the bundle that sigstore's keyless signing would give for the
identity claims of a GitHub Actions workflow: a short-lived certificate with the OIDC extensions
and an embedded SCT, the signature, and a one-entry log with its inclusion proof, signed checkpoint
and signed entry timestamp. Nothing here is the product; it lets the tests verify real bundles
offline (sigstore's public-good instance cannot sign in a test)."""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import struct
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
SCT_LIST_OID = x509.ObjectIdentifier("1.3.6.1.4.1.11129.2.4.2")
OIDC_ISSUER_V1 = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.1")
OIDC_ISSUER_V2 = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.8")
BUILD_SIGNER_URI = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.9")
SOURCE_REPOSITORY_URI = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.12")


def _spki(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def _der_utf8(text: str) -> bytes:
    data = text.encode()
    assert len(data) < 128
    return bytes([0x0C, len(data)]) + data


def _der_octets(data: bytes) -> bytes:
    if len(data) < 128:
        return bytes([0x04, len(data)]) + data
    length = len(data).to_bytes((len(data).bit_length() + 7) // 8, "big")
    return bytes([0x04, 0x80 | len(length)]) + length + data


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _validity(start: dt.datetime) -> dict:
    return {"start": start.strftime("%Y-%m-%dT%H:%M:%SZ")}


class SigstoreInstance:
    def __init__(self, now: dt.datetime | None = None):
        self.now = now or dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
        self.ca_key = ec.generate_private_key(ec.SECP384R1())
        self.ct_key = ec.generate_private_key(ec.SECP256R1())
        self.rekor_key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kernels tests"),
                          x509.NameAttribute(NameOID.COMMON_NAME, "test fulcio")])
        ski = x509.SubjectKeyIdentifier.from_public_key(self.ca_key.public_key())
        self.ca_cert = (
            x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(self.ca_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(self.now - dt.timedelta(days=1)).not_valid_after(self.now + dt.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=1), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(ski, critical=False)
            .sign(self.ca_key, hashes.SHA384())
        )
        self.ct_log_id = hashlib.sha256(_spki(self.ct_key)).digest()
        self.rekor_log_id = hashlib.sha256(_spki(self.rekor_key)).digest()

    def trusted_root(self) -> dict:
        start = self.now - dt.timedelta(days=1)

        def log(key, log_id: bytes, url: str) -> dict:
            return {"baseUrl": url, "hashAlgorithm": "SHA2_256",
                    "publicKey": {"rawBytes": _b64(_spki(key)), "keyDetails": "PKIX_ECDSA_P256_SHA_256",
                                  "validFor": _validity(start)},
                    "logId": {"keyId": _b64(log_id)}}

        return {
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [log(self.rekor_key, self.rekor_log_id, "https://rekor.invalid")],
            "certificateAuthorities": [{
                "subject": {"organization": "kernels tests", "commonName": "test fulcio"},
                "uri": "https://fulcio.invalid",
                "certChain": {"certificates": [{"rawBytes": _b64(self.ca_cert.public_bytes(serialization.Encoding.DER))}]},
                "validFor": _validity(start),
            }],
            "ctlogs": [log(self.ct_key, self.ct_log_id, "https://ctfe.invalid")],
            "timestampAuthorities": [],
        }

    def write_trusted_root(self, path: Path) -> Path:
        path.write_text(json.dumps(self.trusted_root(), indent=2))
        return path

    def _leaf(self, key, repository: str, workflow_uri: str) -> x509.Certificate:
        """A Fulcio-style certificate for the workflow identity, with its SCT embedded."""
        serial = x509.random_serial_number()

        def builder():
            return (
                x509.CertificateBuilder().subject_name(x509.Name([])).issuer_name(self.ca_cert.subject)
                .public_key(key.public_key()).serial_number(serial)
                .not_valid_before(self.now - dt.timedelta(minutes=1))
                .not_valid_after(self.now + dt.timedelta(minutes=9))
                .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                             data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                             crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.ca_key.public_key()),
                               critical=False)
                .add_extension(x509.SubjectAlternativeName([x509.UniformResourceIdentifier(workflow_uri)]),
                               critical=True)
                .add_extension(x509.UnrecognizedExtension(OIDC_ISSUER_V1, GITHUB_ISSUER.encode()), critical=False)
                .add_extension(x509.UnrecognizedExtension(OIDC_ISSUER_V2, _der_utf8(GITHUB_ISSUER)), critical=False)
                .add_extension(x509.UnrecognizedExtension(BUILD_SIGNER_URI, _der_utf8(workflow_uri)), critical=False)
                .add_extension(x509.UnrecognizedExtension(SOURCE_REPOSITORY_URI,
                                                          _der_utf8(f"https://github.com/{repository}")),
                               critical=False)
            )

        # RFC 6962 §3.2: the log signs the certificate's TBS without the SCT list (the
        # "precertificate"), bound to the issuer's key; the SCT is then embedded, last.
        precert_tbs = builder().sign(self.ca_key, hashes.SHA256()).tbs_certificate_bytes
        timestamp_ms = int(self.now.timestamp() * 1000)
        issuer_key_hash = hashlib.sha256(_spki(self.ca_key)).digest()
        signed = struct.pack("!BBQH", 0, 0, timestamp_ms, 1) + issuer_key_hash \
            + len(precert_tbs).to_bytes(3, "big") + precert_tbs + struct.pack("!H", 0)
        signature = self.ct_key.sign(signed, ec.ECDSA(hashes.SHA256()))
        sct = struct.pack("!B", 0) + self.ct_log_id + struct.pack("!QH", timestamp_ms, 0) \
            + struct.pack("!BBH", 4, 3, len(signature)) + signature
        sct_list = struct.pack("!H", len(sct) + 2) + struct.pack("!H", len(sct)) + sct
        leaf = builder().add_extension(x509.UnrecognizedExtension(SCT_LIST_OID, _der_octets(sct_list)),
                                       critical=False).sign(self.ca_key, hashes.SHA256())
        assert leaf.tbs_precertificate_bytes == precert_tbs
        return leaf

    def sign(self, artifact: bytes, repository: str, workflow_uri: str) -> dict:
        """The bundle (v0.3) of a keyless signature of `artifact` by the workflow `workflow_uri`."""
        key = ec.generate_private_key(ec.SECP256R1())
        leaf = self._leaf(key, repository, workflow_uri)
        digest = hashlib.sha256(artifact).digest()
        signature = key.sign(artifact, ec.ECDSA(hashes.SHA256()))
        leaf_pem = leaf.public_bytes(serialization.Encoding.PEM)
        body = json.dumps({
            "apiVersion": "0.0.1", "kind": "hashedrekord",
            "spec": {"data": {"hash": {"algorithm": "sha256", "value": digest.hex()}},
                     "signature": {"content": _b64(signature), "publicKey": {"content": _b64(leaf_pem)}}},
        }, separators=(",", ":"), sort_keys=True).encode()
        integrated_time = int(self.now.timestamp())
        log_index = 0
        # A one-entry log: the root is the leaf hash, the inclusion proof has no hashes.
        root = hashlib.sha256(b"\x00" + body).digest()
        note = f"rekor.invalid - 1\n1\n{_b64(root)}\n"
        note_signature = self.rekor_key.sign(note.encode(), ec.ECDSA(hashes.SHA256()))
        checkpoint = note + "\n" + f"\u2014 rekor.invalid {_b64(self.rekor_log_id[:4] + note_signature)}\n"
        promise = json.dumps({"body": _b64(body), "integratedTime": integrated_time,
                              "logID": self.rekor_log_id.hex(), "logIndex": log_index},
                             separators=(",", ":"), sort_keys=True).encode()
        signed_entry_timestamp = self.rekor_key.sign(promise, ec.ECDSA(hashes.SHA256()))
        return {
            "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
            "verificationMaterial": {
                "certificate": {"rawBytes": _b64(leaf.public_bytes(serialization.Encoding.DER))},
                "tlogEntries": [{
                    "logIndex": str(log_index),
                    "logId": {"keyId": _b64(self.rekor_log_id)},
                    "kindVersion": {"kind": "hashedrekord", "version": "0.0.1"},
                    "integratedTime": str(integrated_time),
                    "inclusionPromise": {"signedEntryTimestamp": _b64(signed_entry_timestamp)},
                    "inclusionProof": {"logIndex": str(log_index), "rootHash": _b64(root), "treeSize": "1",
                                       "hashes": [], "checkpoint": {"envelope": checkpoint}},
                    "canonicalizedBody": _b64(body),
                }],
            },
            "messageSignature": {"messageDigest": {"algorithm": "SHA2_256", "digest": _b64(digest)},
                                 "signature": _b64(signature)},
        }

    def sign_variant(self, variant: Path, repository: str = "huggingface/kernels-community",
                     workflow: str = "build.yaml") -> Path:
        """Writes `metadata.json.sigstore` for the variant's metadata.json, signed by
        `https://github.com/<repository>/.github/workflows/<workflow>@refs/heads/main`."""
        uri = f"https://github.com/{repository}/.github/workflows/{workflow}@refs/heads/main"
        bundle = self.sign((variant / "metadata.json").read_bytes(), repository, uri)
        path = variant / "metadata.json.sigstore"
        path.write_text(json.dumps(bundle))
        return path
