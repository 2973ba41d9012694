"""Signature verification of a kernel variant (docs/signature-verification.md): the sigstore bundle
`metadata.json.sigstore` is checked over the exact bytes of `metadata.json` before they are parsed,
then the variant's files are re-hashed against the digest that metadata records.

Needs `sigstore` 4.x (`pip install 'kernels[signature]'`); loading kernels does not.

Trust root: sigstore's public-good instance, refreshed over TUF; with `HF_HUB_OFFLINE=1`, or when
the refresh cannot reach the network (an air-gapped machine, a self-hosted Hub), the trust root
that sigstore keeps on disk (cached or shipped with it) is used, with a warning in the latter
case. `KERNELS_SIGSTORE_TRUSTED_ROOT=<trusted_root.json>` names another instance's root (a private
sigstore deployment)."""
from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Union

try:
    from sigstore.errors import Error as SigstoreError
    from sigstore.errors import TUFError, VerificationError
    from sigstore.models import Bundle, InvalidBundle, TrustedRoot
    from sigstore.verify import Verifier, policy
    from sigstore.verify.policy import VerificationPolicy
except ImportError as e:  # pragma: no cover - exercised by the CLI test without sigstore
    raise ImportError(
        "Signature verification needs the sigstore package (4.x): pip install 'kernels[signature]'"
    ) from e

from kernels._env import SIGSTORE_TRUSTED_ROOT_ENV as TRUSTED_ROOT_ENV
from kernels._env import is_offline
from kernels._metadata import Digest, DigestValidationError, DigestViolation, Metadata  # noqa: F401 - upstream exposes them here

GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com"


class GitHubWorkflowPolicy:
    """Accepts a signature made by one of `signer_uris`, GitHub Actions workflows of the repository
    `repo_id` (`https://github.com/<org>/<repo>/.github/workflows/<file>@<ref>`)."""

    def __init__(self, *, repo_id: str, signer_uris: List[str]):
        if not signer_uris:
            raise ValueError("At least one signer URI must be provided")
        self.repo_id = repo_id
        self.signer_uris = list(signer_uris)

    def verify(self, cert) -> None:
        policy.AllOf([
            policy.OIDCIssuer(GITHUB_ACTIONS_ISSUER),
            policy.OIDCIssuerV2(GITHUB_ACTIONS_ISSUER),
            policy.OIDCSourceRepositoryURI(f"https://github.com/{self.repo_id}"),
            policy.AnyOf([policy.OIDCBuildSignerURI(uri) for uri in self.signer_uris]),
        ]).verify(cert)


_SIGNER_URI = re.compile(r"https://github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/\.github/workflows/[^/@\s]+@\S+")


def policies_for_signers(signer_uris: List[str]) -> List[GitHubWorkflowPolicy]:
    """One GitHubWorkflowPolicy per repository of `signer_uris` (workflow URIs,
    `https://github.com/<org>/<repo>/.github/workflows/<file>@<ref>`), accepting those workflows."""
    by_repository: dict = {}
    for uri in signer_uris:
        match = _SIGNER_URI.fullmatch(uri)
        if match is None:
            raise ValueError(f"`{uri}` is not a GitHub workflow URI: expected "
                             "https://github.com/<org>/<repo>/.github/workflows/<file>@<ref>, e.g. "
                             "https://github.com/acme/kernels/.github/workflows/release.yaml@refs/heads/main")
        by_repository.setdefault(match.group(1), []).append(uri)
    return [GitHubWorkflowPolicy(repo_id=repo, signer_uris=uris) for repo, uris in by_repository.items()]


_COMMUNITY = "huggingface/kernels-community"
DEFAULT_POLICIES: List[VerificationPolicy] = [
    GitHubWorkflowPolicy(
        repo_id=_COMMUNITY,
        signer_uris=[
            f"https://github.com/{_COMMUNITY}/.github/workflows/{workflow}@refs/heads/main"
            for workflow in ("build.yaml", "build-mac.yaml", "build-windows.yaml", "sign-old-builds.yaml")
        ],
    ),
]
"""The signers accepted by default: the build workflows of kernels-community."""


class VerificationResult:
    """The outcomes of `verify_variant`, one class each (match on the class)."""

    @dataclass
    class SignatureBundleMissing:
        """The variant has no `metadata.json.sigstore`."""

    @dataclass
    class SignatureBundleInvalid:
        """`metadata.json.sigstore` is not a sigstore bundle."""

        reason: str

    @dataclass
    class MetadataMissing:
        """The variant has no `metadata.json`."""

    @dataclass
    class SignatureVerificationFailure:
        """The bundle does not sign these metadata bytes, or its signer is not accepted."""

        reason: str

    @dataclass
    class MetadataInvalid:
        """The signed `metadata.json` cannot be parsed."""

        reason: str

    @dataclass
    class DigestMissing:
        """The signed metadata records no digest of the variant's files."""

    @dataclass
    class DigestVerificationFailure:
        """The variant's files differ from the signed digest (one violation per file)."""

        violations: List[str]

    @dataclass
    class Success:
        """Signed by an accepted signer, and every file matches the signed digest."""

    Any = Union[
        SignatureBundleMissing, SignatureBundleInvalid, MetadataMissing, SignatureVerificationFailure,
        MetadataInvalid, DigestMissing, DigestVerificationFailure, Success,
    ]


def _verifier() -> Verifier:
    root = os.environ.get(TRUSTED_ROOT_ENV)
    if root:
        try:
            return Verifier(trusted_root=TrustedRoot.from_file(root))
        except (OSError, ValueError, SigstoreError) as e:
            raise ValueError(f"{TRUSTED_ROOT_ENV}={root} is not a sigstore trusted root: {e}") from e
    if is_offline():
        return Verifier.production(offline=True)
    try:
        return Verifier.production()
    except TUFError as e:
        warnings.warn(f"Could not refresh sigstore's trust root ({e}); verifying with the trust root sigstore "
                      "has on disk. Set HF_HUB_OFFLINE=1 to do so without trying the network.", stacklevel=3)
        return Verifier.production(offline=True)


def verify_variant(variant_path: Union[str, "os.PathLike[str]"],
                   policies: Optional[List[VerificationPolicy]] = None) -> VerificationResult.Any:
    """Verifies the variant directory `variant_path`: its `metadata.json` signed by a signer that
    one of `policies` accepts (default: `DEFAULT_POLICIES`), and its files matching the digest of
    that metadata."""
    variant = Path(variant_path)
    bundle_path = variant / "metadata.json.sigstore"
    if not bundle_path.is_file():
        return VerificationResult.SignatureBundleMissing()
    try:
        bundle = Bundle.from_json(bundle_path.read_bytes())
    except (InvalidBundle, ValueError) as e:
        return VerificationResult.SignatureBundleInvalid(reason=str(e))
    metadata_path = variant / "metadata.json"
    if not metadata_path.is_file():
        return VerificationResult.MetadataMissing()
    metadata_bytes = metadata_path.read_bytes()
    # The bytes are verified before they are parsed: a forged metadata.json never reaches the parser.
    try:
        _verifier().verify_artifact(metadata_bytes, bundle, policy.AnyOf(list(DEFAULT_POLICIES if policies is None
                                                                               else policies)))
    except VerificationError as e:
        return VerificationResult.SignatureVerificationFailure(reason=str(e))
    try:
        metadata = Metadata.from_bytes(metadata_bytes)
    except (OSError, ValueError) as e:
        return VerificationResult.MetadataInvalid(reason=str(e))
    if metadata.digest is None:
        return VerificationResult.DigestMissing()
    try:
        metadata.digest.validate(Digest.hash_variant(metadata.digest.algorithm, variant))
    except DigestValidationError as e:
        return VerificationResult.DigestVerificationFailure(violations=e.violations)
    return VerificationResult.Success()
