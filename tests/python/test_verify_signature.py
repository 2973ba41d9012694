"""Signature verification (docs/signature-verification.md, docs/cli.md `verify-signature`): `kernels.verify.verify_variant`
on variants signed by the tests' own sigstore instance (sigstore_testlib.py: real certificates, SCT,
log entry, checkpoint and signatures, verified by the sigstore library), each outcome; and
`kernels verify-signature` against kernel-hub."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loader_testlib import OUR_PYTHONPATH, make_variant
from sigstore_testlib import SigstoreInstance

GOLDEN = Path(__file__).parent / "golden" / "verify_signature"
CLI = "import sys; from kernels.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def instance():
    return SigstoreInstance()


@pytest.fixture
def trusted(instance, tmp_path, monkeypatch):
    """verify_variant trusts the tests' instance (KERNELS_SIGSTORE_TRUSTED_ROOT)."""
    root = instance.write_trusted_root(tmp_path / "trusted_root.json")
    monkeypatch.setenv("KERNELS_SIGSTORE_TRUSTED_ROOT", str(root))
    return root


@pytest.fixture
def variant(tmp_path):
    return make_variant(tmp_path / "build", "torch-cpu", name="signed", backend="cpu")


def result_name(result) -> str:
    return type(result).__name__


def test_signed_variant_verifies(instance, trusted, variant):
    from kernels.verify import VerificationResult, verify_variant

    instance.sign_variant(variant)
    assert verify_variant(variant) == VerificationResult.Success()
    assert verify_variant(str(variant)) == VerificationResult.Success()


def test_changed_file_fails_the_digest(instance, trusted, variant):
    from kernels.verify import verify_variant

    instance.sign_variant(variant)
    (variant / "_helpers.py").write_text("def helper():\n    return 'changed'\n")
    (variant / "added.py").write_text("x = 1\n")
    result = verify_variant(variant)
    assert result_name(result) == "DigestVerificationFailure"
    assert len(result.violations) == 2
    assert any("_helpers.py" in str(v) for v in result.violations) and any("added.py" in str(v) for v in result.violations)


def test_changed_metadata_fails_the_signature(instance, trusted, variant):
    from kernels.verify import verify_variant

    instance.sign_variant(variant)
    metadata = json.loads((variant / "metadata.json").read_text())
    metadata["digest"]["files"]["_helpers.py"] = metadata["digest"]["files"]["__init__.py"]
    (variant / "metadata.json").write_text(json.dumps(metadata, indent=2))
    assert result_name(verify_variant(variant)) == "SignatureVerificationFailure"


def test_forged_signature_fails(instance, trusted, variant):
    from kernels.verify import verify_variant

    bundle_path = instance.sign_variant(variant)
    bundle = json.loads(bundle_path.read_text())
    other = instance.sign(b"other bytes", "huggingface/kernels-community",
                          "https://github.com/huggingface/kernels-community/.github/workflows/build.yaml@refs/heads/main")
    bundle["messageSignature"]["signature"] = other["messageSignature"]["signature"]
    bundle_path.write_text(json.dumps(bundle))
    result = verify_variant(variant)
    assert result_name(result) == "SignatureVerificationFailure" and "invalid" in result.reason.lower()


@pytest.mark.parametrize("repository,workflow", [
    ("huggingface/kernels-community", "release.yaml"),  # another workflow of the repository
    ("evil/kernels-community", "build.yaml"),           # the same workflow in another repository
])
def test_signer_outside_the_default_policy(instance, trusted, variant, repository, workflow):
    from kernels.verify import verify_variant

    instance.sign_variant(variant, repository=repository, workflow=workflow)
    assert result_name(verify_variant(variant)) == "SignatureVerificationFailure"


def test_custom_policy_accepts_another_signer(instance, trusted, variant):
    from kernels.verify import DEFAULT_POLICIES, GitHubWorkflowPolicy, VerificationResult, verify_variant

    instance.sign_variant(variant, repository="acme/kernels", workflow="release.yaml")
    acme = GitHubWorkflowPolicy(repo_id="acme/kernels",
                                signer_uris=["https://github.com/acme/kernels/.github/workflows/release.yaml@refs/heads/main"])
    assert verify_variant(variant, [acme]) == VerificationResult.Success()
    assert verify_variant(variant, [*DEFAULT_POLICIES, acme]) == VerificationResult.Success()
    assert result_name(verify_variant(variant)) == "SignatureVerificationFailure"
    with pytest.raises(ValueError):
        GitHubWorkflowPolicy(repo_id="acme/kernels", signer_uris=[])


def test_outcomes_before_and_after_the_signature(instance, trusted, variant):
    from kernels.verify import VerificationResult, verify_variant

    assert verify_variant(variant) == VerificationResult.SignatureBundleMissing()
    (variant / "metadata.json.sigstore").write_text("{}")
    assert result_name(verify_variant(variant)) == "SignatureBundleInvalid"
    instance.sign_variant(variant)
    (variant / "metadata.json").unlink()
    assert verify_variant(variant) == VerificationResult.MetadataMissing()
    # Signed, but no digest / not metadata at all: reported only once the signature holds.
    (variant / "metadata.json").write_text(json.dumps({"name": "signed", "id": "_signed_cpu_1", "version": 1,
                                                       "license": "MIT", "python-depends": [],
                                                       "backend": {"type": "cpu"}}))
    instance.sign_variant(variant)
    assert verify_variant(variant) == VerificationResult.DigestMissing()
    (variant / "metadata.json").write_text("[not json")
    instance.sign_variant(variant)
    assert result_name(verify_variant(variant)) == "MetadataInvalid"


def test_default_trust_root_is_sigstores_public_instance(instance, variant, monkeypatch):
    """Without KERNELS_SIGSTORE_TRUSTED_ROOT (offline: the root sigstore keeps on disk), a bundle of
    another instance does not verify."""
    from kernels.verify import verify_variant

    monkeypatch.delenv("KERNELS_SIGSTORE_TRUSTED_ROOT", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    instance.sign_variant(variant)
    result = verify_variant(variant)
    assert result_name(result) == "SignatureVerificationFailure"
    assert "certificate chain" in result.reason


def test_unreachable_trust_root_refresh_falls_back_with_a_warning(instance, variant, monkeypatch):
    """Online, a TUF refresh that cannot reach sigstore (an air-gapped machine, a self-hosted Hub)
    does not stop the verification: the trust root on disk is used, with a warning."""
    from sigstore.errors import TUFError
    from sigstore.verify import Verifier

    from kernels import verify

    monkeypatch.delenv("KERNELS_SIGSTORE_TRUSTED_ROOT", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    calls = []
    real = Verifier.production.__func__

    def production(cls, *, offline=False):
        calls.append(offline)
        if not offline:
            raise TUFError("Failed to refresh TUF metadata")
        return real(cls, offline=True)

    monkeypatch.setattr(Verifier, "production", classmethod(production))
    instance.sign_variant(variant)
    with pytest.warns(UserWarning, match="Could not refresh sigstore's trust root"):
        result = verify.verify_variant(variant)
    assert calls == [False, True]
    assert result_name(result) == "SignatureVerificationFailure"


def test_bad_trusted_root_is_an_error(variant, tmp_path, monkeypatch):
    from kernels.verify import verify_variant

    (tmp_path / "root.json").write_text("{}")
    monkeypatch.setenv("KERNELS_SIGSTORE_TRUSTED_ROOT", str(tmp_path / "root.json"))
    (variant / "metadata.json.sigstore").write_text(json.dumps(SigstoreInstance().sign(
        (variant / "metadata.json").read_bytes(), "a/b", "https://github.com/a/b/.github/workflows/c.yaml@refs/heads/main")))
    with pytest.raises(ValueError, match="KERNELS_SIGSTORE_TRUSTED_ROOT=.* is not a sigstore trusted root"):
        verify_variant(variant)


def test_upstream_names(instance):
    """The names upstream's kernels.verify has, with the same shapes."""
    from kernels import verify

    for name in ("Success", "SignatureBundleMissing", "SignatureBundleInvalid", "MetadataMissing",
                 "SignatureVerificationFailure", "MetadataInvalid", "DigestMissing", "DigestVerificationFailure"):
        assert hasattr(verify.VerificationResult, name)
    assert verify.VerificationResult.SignatureBundleInvalid(reason="r").reason == "r"
    assert verify.VerificationResult.DigestVerificationFailure(violations=["v"]).violations == ["v"]
    [policy] = verify.DEFAULT_POLICIES
    assert policy.repo_id == "huggingface/kernels-community"
    assert "https://github.com/huggingface/kernels-community/.github/workflows/sign-old-builds.yaml@refs/heads/main" \
        in policy.signer_uris


# --- kernels verify-signature against kernel-hub ---

@pytest.fixture(scope="module")
def signed_repo(hub, instance, tmp_path_factory):
    """v1: torch-cpu and torch-cuda signed by kernels-community's build workflow; v2: torch-cuda
    signed by another workflow, torch-cpu unsigned."""
    tmp = tmp_path_factory.mktemp("signed")
    for tag in ("v1", "v2"):
        for backend in ("cpu", "cuda"):
            make_variant(tmp / tag / "build", f"torch-{backend}", name="sig-k", backend=backend, value=tag[1])
    instance.sign_variant(tmp / "v1" / "build" / "torch-cpu")
    instance.sign_variant(tmp / "v1" / "build" / "torch-cuda")
    instance.sign_variant(tmp / "v2" / "build" / "torch-cuda", workflow="release.yaml")
    hub.publish("trusted-org/sig-k", tmp, {"v1": tmp / "v1", "v2": tmp / "v2"})
    root = instance.write_trusted_root(tmp / "trusted_root.json")
    return root


def verify_cli(hub, root, cache, *args):
    env = dict(os.environ, PYTHONPATH=OUR_PYTHONPATH, HF_ENDPOINT=hub.endpoint, HF_HUB_CACHE=str(cache),
               KERNELS_SIGSTORE_TRUSTED_ROOT=str(root))
    env.pop("KERNELS_CACHE", None)
    return subprocess.run([sys.executable, "-c", CLI, "verify-signature", *args], env=env, capture_output=True,
                          text=True)


def test_cli_signed_version(hub, signed_repo, tmp_path):
    r = verify_cli(hub, signed_repo, tmp_path / "cache", "trusted-org/sig-k", "1", "--all-variants")
    assert (r.returncode, r.stdout) == (0, "✅ torch-cpu: kernel metadata is correctly signed\n"
                                           "✅ torch-cuda: kernel metadata is correctly signed\n"), r.stderr
    best = verify_cli(hub, signed_repo, tmp_path / "cache", "trusted-org/sig-k", "1")
    assert best.returncode == 0 and len(best.stdout.splitlines()) == 1, best.stderr
    assert best.stdout.startswith("✅ torch-")


def test_cli_failures_and_filters(hub, signed_repo, tmp_path):
    r = verify_cli(hub, signed_repo, tmp_path / "cache", "trusted-org/sig-k", "2", "--all-variants")
    assert r.returncode == 1, r.stderr
    assert r.stdout.splitlines() == [
        "❌ torch-cpu: cannot verify kernel integrity, signature not found",
        "❌ torch-cuda: metadata signature verification failed:",
        "0 of 1 policies succeeded",
    ]
    filtered = verify_cli(hub, signed_repo, tmp_path / "cache", "trusted-org/sig-k", "2", "--all-variants",
                          "--filter-unsigned")
    assert filtered.returncode == 1 and filtered.stdout.startswith("❌ torch-cuda: "), filtered.stdout


def test_cli_other_signer(hub, signed_repo, tmp_path):
    """--signer accepts another workflow's signatures (and only those)."""
    release = "https://github.com/huggingface/kernels-community/.github/workflows/release.yaml@refs/heads/main"
    r = verify_cli(hub, signed_repo, tmp_path / "cache", "trusted-org/sig-k", "2", "--all-variants",
                   "--filter-unsigned", "--signer", release)
    assert (r.returncode, r.stdout) == (0, "✅ torch-cuda: kernel metadata is correctly signed\n"), r.stderr
    r = verify_cli(hub, signed_repo, tmp_path / "cache", "trusted-org/sig-k", "1", "--all-variants", "--signer", release)
    assert r.returncode == 1 and r.stdout.count("metadata signature verification failed") == 2, r.stdout


def test_cli_bad_signer(hub, signed_repo, tmp_path):
    r = verify_cli(hub, signed_repo, tmp_path / "cache", "trusted-org/sig-k", "1", "--signer", "acme/kernels")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("error: --signer `acme/kernels` is not a GitHub workflow URI: expected "
                        "https://github.com/<org>/<repo>/.github/workflows/<file>@<ref>, e.g. "
                        "https://github.com/acme/kernels/.github/workflows/release.yaml@refs/heads/main\n")
    assert not (tmp_path / "cache").exists()  # nothing downloaded


def test_policies_for_signers():
    from kernels.verify import policies_for_signers

    a1 = "https://github.com/acme/k/.github/workflows/a.yaml@refs/heads/main"
    a2 = "https://github.com/acme/k/.github/workflows/b.yml@refs/tags/v1"
    b1 = "https://github.com/other/k/.github/workflows/a.yaml@refs/heads/main"
    policies = policies_for_signers([a1, b1, a2])
    assert [(p.repo_id, p.signer_uris) for p in policies] == [("acme/k", [a1, a2]), ("other/k", [b1])]
    for bad in ("https://github.com/acme/k/.github/workflows/a.yaml", "http://github.com/acme/k/.github/workflows/a@x",
                "https://github.com/acme/.github/workflows/a.yaml@refs/heads/main"):
        with pytest.raises(ValueError):
            policies_for_signers([bad])


def test_cli_unknown_version(hub, signed_repo, tmp_path):
    r = verify_cli(hub, signed_repo, tmp_path / "cache", "trusted-org/sig-k", "7")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "error: Version 7 not found, available versions: 1, 2\n")


def test_cli_without_sigstore(hub, signed_repo, tmp_path):
    """Loading needs no sigstore; verify-signature says how to get it."""
    env = dict(os.environ, PYTHONPATH=OUR_PYTHONPATH, HF_ENDPOINT=hub.endpoint, HF_HUB_CACHE=str(tmp_path / "cache"))
    code = "import sys; sys.modules['sigstore'] = None; " + CLI
    r = subprocess.run([sys.executable, "-c", code, "verify-signature", "trusted-org/sig-k", "1"], env=env,
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == ("error: Signature verification needs the sigstore package (4.x): "
                        "pip install 'kernels[signature]'\n"), r.stderr


def test_cli_help_golden(monkeypatch, capsys):
    from kernels import cli

    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        cli.main(["verify-signature", "--help"])
    text = capsys.readouterr().out
    path = GOLDEN / "help.txt"
    if os.environ.get("KB_REFRESH_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()


def test_kernel_builder_build_sign_upload_verify(hub, instance, tmp_path):
    """The release flow of `ci generate github --sign`, by hand: kernel-builder builds, the variant's
    metadata.json is signed, kernel-builder upload publishes the signature with the variant (its
    checks accept the file outside the digest), and verify-signature accepts the download."""
    from layer_kernels import example_build  # examples/example_build.py, loaded once for the tests

    project = tmp_path / "signed-noarch"
    (project / "torch-ext" / "signed_noarch").mkdir(parents=True)
    (project / "torch-ext" / "signed_noarch" / "__init__.py").write_text("def answer():\n    return 42\n")
    (project / "build.toml").write_text('[general]\nname = "signed-noarch"\nversion = 1\nedition = 5\n'
                                        'license = "MIT"\nbackends = ["cpu"]\n\n[torch-noarch]\n')
    kb = str(example_build.kernel_builder_binary())
    built = subprocess.run([kb, "build", str(project), "--python", sys.executable, "--unique-id", "sig1"],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    instance.sign_variant(project / "build" / "torch-cpu", repository="acme/kernels", workflow="release.yml")
    env = {**os.environ, "HF_ENDPOINT": hub.endpoint, "HF_TOKEN": hub.token, "HF_HOME": str(tmp_path / "home")}
    upload = subprocess.run([kb, "upload", str(project), "--repo-id", "trusted-org/signed-noarch"], capture_output=True,
                            text=True, env=env)
    assert upload.returncode == 0, upload.stderr
    files = hub.api().list_repo_files("trusted-org/signed-noarch", repo_type="kernel", revision="v1")
    assert "build/torch-cpu/metadata.json.sigstore" in files
    root = instance.write_trusted_root(tmp_path / "trusted_root.json")
    signer = "https://github.com/acme/kernels/.github/workflows/release.yml@refs/heads/main"
    r = verify_cli(hub, root, tmp_path / "cache", "trusted-org/signed-noarch", "1", "--all-variants", "--signer", signer)
    assert (r.returncode, r.stdout) == (0, "✅ torch-cpu: kernel metadata is correctly signed\n"), r.stderr
