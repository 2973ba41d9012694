"""Hub loading against our kernel-hub (docs/python-api.md): versions and their messages, revisions,
backend=, variant errors, trust, redirects, dependencies, offline mode, has_kernel,
get_kernel_variants, install_kernel, and the loaded-kernel registry's repo_info."""
from __future__ import annotations

import logging
import warnings
from pathlib import Path

import pytest

from loader_testlib import make_variant, run_python

import kernels
from kernels import (RepoInfo, VariantAccepted, VariantRejected, get_kernel, get_loaded_kernels, has_kernel,
                     install_kernel)


@pytest.fixture(scope="module")
def repos(hub, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("repos")
    out = {}

    def bundle(tag, variants, **kw):
        root = tmp / tag
        for variant, backend in variants:
            make_variant(root / "build", variant, backend=backend, **kw)
        return root

    noarch = [("torch-cpu", "cpu"), ("torch-cuda", "cuda"), ("torch-universal", "cpu")]
    out["demo"] = hub.publish("trusted-org/demo", tmp, {
        "v1": bundle("demo1", noarch + [("not-a-variant", "cpu")], value="1", name="demo"),
        "v2": bundle("demo2", noarch, value="2", name="demo"),
    }, main_files={"notes.txt": "demo\n"})
    out["untrusted"] = hub.publish("other-org/untrusted", tmp, {"v1": bundle("u1", noarch, name="untr")})
    redirect = tmp / "redirect"
    (redirect).mkdir()
    (redirect / "kernel-status.toml").write_text(
        'kind = "redirect"\ndestination = "trusted-org/demo"\nrevision = "v1"\n')
    out["old"] = hub.publish("trusted-org/old-name", tmp, {"v1": redirect})
    bad = tmp / "bad"
    bad.mkdir()
    (bad / "kernel-status.toml").write_text('kind = "frobnicate"\n')
    hub.publish("trusted-org/bad-status", tmp, {"v1": bad})
    out["deps"] = hub.publish("trusted-org/deps", tmp, {
        "v1": bundle("deps1", noarch, name="deps-k", python_depends=["no-such-dep"])})
    out["arch"] = hub.publish("trusted-org/arch", tmp, {
        "v1": bundle("arch1", [("torch29-cxx11-cu126-x86_64-linux", "cuda"), ("torch-metal", "metal")], name="archk")})
    return out


def test_version_load_and_repo_info(env_hub, cache, repos):
    mod = get_kernel("trusted-org/demo", version=1)
    assert mod.VALUE == 1 and mod.VARIANT == "torch-cuda"  # torch here is a CUDA build
    entry = [k for k in get_loaded_kernels() if k.module is mod][0]
    assert entry.repo_info == RepoInfo("trusted-org/demo", repos["demo"]["v1"])
    assert str(Path(mod.__file__)).startswith(str(cache))
    assert (cache / "kernels--trusted-org--demo" / "refs" / "v1").read_text() == repos["demo"]["v1"]
    two = get_kernel("trusted-org/demo", version=2)
    assert two.VALUE == 2 and two is not mod


def test_invalid_variant_name_logged(env_hub, cache, repos, caplog):
    with caplog.at_level(logging.WARNING, logger="kernels"):
        get_kernel("trusted-org/demo", version=1)
    assert (f"Repository trusted-org/demo (revision: {repos['demo']['v1']}) contains invalid build variant variant: "
            "'not-a-variant'") in [r.getMessage() for r in caplog.records]


def test_version_not_found(env_hub, cache, repos):
    with pytest.raises(ValueError, match=r"^Version 3 not found, available versions: 1, 2$"):
        get_kernel("trusted-org/demo", version=3)


def test_outdated_version_warning(env_hub, cache, repos, caplog):
    with caplog.at_level(logging.WARNING, logger="kernels._versions"):
        get_kernel("trusted-org/demo", version=1)
    assert "You are using version 1 of 'trusted-org/demo', but version 2 is available." in [
        r.getMessage() for r in caplog.records if r.name == "kernels._versions"]


def test_revision_branch_and_backend_cpu(env_hub, cache, repos):
    mod = get_kernel("trusted-org/demo", revision="v2", backend="cpu")
    assert (mod.VALUE, mod.VARIANT) == (2, "torch-cpu")
    assert [k for k in get_loaded_kernels() if k.module is mod][0].repo_info == RepoInfo("trusted-org/demo", "v2")


def test_no_variant_for_system(env_hub, cache, repos):
    with pytest.raises(FileNotFoundError) as e:
        get_kernel("trusted-org/arch", version=1)
    text = str(e.value)
    assert text.startswith(f"Cannot find a build variant for this system in trusted-org/arch (revision: "
                           f"{repos['arch']['v1']}):\n\n")
    assert "torch-metal: backend (metal) does not match system backend (cuda) and is not universal" in text
    assert "torch29-cxx11-cu126-x86_64-linux: Torch version (2.9) does not match" in text


def test_untrusted_publisher(env_hub, cache, repos):
    with pytest.raises(ValueError) as refused:
        get_kernel("other-org/untrusted", version=1)
    # Hugging Face's text, then the fix on a kernel-hub of one's own.
    assert str(refused.value) == (
        "Kernel repository 'other-org/untrusted' is not from a trusted publisher. Set trust_remote_code=True or add "
        "the repository id to the trust_remote_code list to allow loading kernels from untrusted sources. On a "
        "kernel-hub you run, trust the organization with `kernel-hub org add other-org --trusted --root <HUB_DIR>`.")
    # A list is an allowlist of repository ids (upstream 0.17.2): another repository's id does not
    # trust this one, its own id does.
    with pytest.raises(ValueError, match="is not from a trusted publisher"):
        get_kernel("other-org/untrusted", version=1, trust_remote_code=["other-org/else"])
    assert get_kernel("other-org/untrusted", version=1, trust_remote_code=["other-org/untrusted"]).VALUE == 1
    assert get_kernel("other-org/untrusted", version=1, trust_remote_code=True).VALUE == 1
    # The other public functions that reach the Hub check the publisher too, as upstream's do.
    with pytest.raises(ValueError, match="is not from a trusted publisher"):
        install_kernel("other-org/untrusted", version=1)
    with pytest.raises(ValueError, match="is not from a trusted publisher"):
        has_kernel("other-org/untrusted", version=1)
    assert has_kernel("other-org/untrusted", version=1, trust_remote_code=["other-org/untrusted"])
    assert install_kernel("other-org/untrusted", version=1, trust_remote_code=True).is_dir()


def test_trust_unverifiable(env_hub, cache, repos):
    with pytest.raises(ValueError, match="Kernel repository 'ghost-org/x' could not verify publisher trust status."):
        get_kernel("ghost-org/x", version=1)


def test_redirect(env_hub, cache, repos):
    with pytest.warns(UserWarning, match="'trusted-org/old-name' redirected to 'trusted-org/demo'"):
        mod = get_kernel("trusted-org/old-name", version=1)
    assert mod.VALUE == 1
    info = [k for k in get_loaded_kernels() if k.module is mod][-1].repo_info
    assert info.repo_id == "trusted-org/old-name"


def test_bad_status_kind(env_hub, cache, repos):
    with pytest.raises(ValueError, match="Unknown kernel status kind: 'frobnicate'"):
        get_kernel("trusted-org/bad-status", version=1)


def test_dependency_validation(env_hub, cache, repos):
    with pytest.raises(ValueError, match="Kernel module `deps_k` uses unsupported kernel dependency: no-such-dep"):
        get_kernel("trusted-org/deps", version=1)
    # Validated before the variant's files were fetched: only metadata.json is in the snapshot.
    snap = cache / "kernels--trusted-org--deps" / "snapshots" / repos["deps"]["v1"] / "build" / "torch-cuda"
    assert sorted(p.name for p in snap.iterdir()) == ["metadata.json"]


def test_has_kernel_and_variants(env_hub, cache, repos):
    assert kernels.has_kernel("trusted-org/demo", version=1)
    assert not kernels.has_kernel("trusted-org/arch", version=1)
    assert kernels.has_kernel("trusted-org/demo", version=1, backend="cpu")
    decisions = kernels.get_kernel_variants("trusted-org/demo", version=1)
    assert [type(d) for d in decisions] == [VariantAccepted, VariantAccepted, VariantRejected]
    assert [d.variant.variant_str for d in decisions] == ["torch-cuda", "torch-universal", "torch-cpu"]
    assert decisions[2].reason == "backend (cpu) does not match system backend (cuda) and is not universal"


def test_install_kernel(env_hub, cache, repos):
    path = kernels.install_kernel("trusted-org/demo", revision=repos["demo"]["v2"], backend="cpu")
    assert path == cache / "kernels--trusted-org--demo" / "snapshots" / repos["demo"]["v2"] / "build" / "torch-cpu"
    assert (path / "__init__.py").is_symlink()


def test_offline(env_hub, cache, repos):
    env = {"HF_HUB_CACHE": str(cache), "HF_ENDPOINT": env_hub.endpoint, "HF_TOKEN": env_hub.token}
    warm = run_python("import kernels; print(kernels.get_kernel('trusted-org/demo', version=1).VALUE)", env)
    assert warm.returncode == 0, warm.stderr
    offline = dict(env, HF_HUB_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9")
    code = ("import warnings, kernels\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    m = kernels.get_kernel('trusted-org/demo', version=1)\n"
            "print(m.VALUE, [str(x.message) for x in w])\n"
            f"print(kernels.get_kernel('trusted-org/demo', revision='{repos['demo']['v1']}').VALUE)\n")
    r = run_python(code, offline)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("1 [\"Skipping publisher trust check for 'trusted-org/demo' because Hugging Face Hub "
                               "is in offline mode.\"]")
    # install_kernel reads HF_HUB_OFFLINE too: the cached commit installs, an uncached one is the
    # offline error (it was a request to the Hub, for kernel-status.toml).
    r = run_python(f"import kernels; print(kernels.install_kernel('trusted-org/demo', revision='{repos['demo']['v1']}'))",
                   offline)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).parent.parent == cache / "kernels--trusted-org--demo" / "snapshots" / repos["demo"]["v1"]
    r = run_python(f"import kernels; kernels.install_kernel('trusted-org/demo', revision='{repos['demo']['v2']}')",
                   offline)
    assert (f"Cannot find a local snapshot for trusted-org/demo (revision: {repos['demo']['v2']}). When Hugging Face "
            "Hub is in offline mode the kernel must already be present in the local cache.") in r.stderr, r.stderr
    r = run_python("import kernels; kernels.get_kernel('trusted-org/never', version=1)", offline)
    assert ("Version 1 of 'trusted-org/never' is not available in the local cache and Hugging Face Hub is in "
            "offline mode. Download the kernel while online first, or pass an explicit `revision=<commit>`.") in r.stderr
    r = run_python(f"import kernels; kernels.get_kernel('trusted-org/demo', revision='{'0' * 40}')", offline)
    assert (f"Cannot find a local snapshot for trusted-org/demo (revision: {'0' * 40}). When Hugging Face Hub is "
            "in offline mode the kernel must already be present in the local cache.") in r.stderr
