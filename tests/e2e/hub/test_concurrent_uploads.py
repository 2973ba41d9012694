"""Uploads from many machines merge safely (docs/release-ci.md): eight `kernel-builder upload` processes,
each with a different variant of the same kernel version, run at once against kernel-hub. Every
upload succeeds and the branch ends with every variant: the first one creates `v1`, the others
find it created (the Hub's 409) and do not take the new branch's files for inherited ones; a
commit whose parent is no longer the branch head (the Hub's 412) is planned again against the new
head, so no upload's files are lost or deleted by another."""
import os
import subprocess

import pytest

hf = pytest.importorskip("huggingface_hub")

VARIANTS = [
    "torch-cpu", "torch-cuda",
    "torch211-cxx11-cpu-x86_64-linux", "torch211-cxx11-cu130-x86_64-linux", "torch211-cxx11-cu128-x86_64-linux",
    "torch210-cxx11-cpu-x86_64-linux", "torch210-cxx11-cu128-x86_64-linux", "torch210-cxx11-cu126-x86_64-linux",
]
RETRY_LINE = "moved (another upload committed first)"


def test_eight_concurrent_uploads_of_one_version_all_land(hf_env, tmp_path, kernel_builder, variant_tree):
    hf_env.add_org("acme", trusted=True)
    token = hf_env.add_user("alice", "acme")
    expected = {}
    kernels = []
    for i, variant in enumerate(VARIANTS):
        kernel = tmp_path / f"runner{i}" / "relu"
        expected.update(variant_tree(kernel, variants=(variant,)))
        kernels.append(kernel)
    env = dict(os.environ, HF_ENDPOINT=hf_env.url, HF_TOKEN=token, NO_COLOR="1")
    uploads = [subprocess.Popen([str(kernel_builder), "upload", str(k)], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for k in kernels]
    results = [(u, *u.communicate(timeout=300)) for u in uploads]
    for upload, _, stderr in results:
        assert upload.returncode == 0, stderr

    api = hf.HfApi(token=token)
    from huggingface_hub.hf_api import RepoFile
    files = {e.path: e for e in api.list_repo_tree("acme/relu", repo_type="kernel", revision="v1", recursive=True)
             if isinstance(e, RepoFile)}
    assert set(expected) <= set(files), sorted(set(expected) - set(files))
    assert {p.split("/")[1] for p in files if p.startswith("build/")} == set(VARIANTS)
    for path in (p for p in expected if p.endswith("metadata.json")):
        local = api.hf_hub_download("acme/relu", path, repo_type="kernel", revision="v1",
                                    cache_dir=str(tmp_path / "check"))
        assert open(local, "rb").read() == expected[path], path
    # One commit per upload on the version branch (none lost, none merged into another).
    commits = api.list_repo_commits("acme/relu", repo_type="kernel", revision="v1")
    uploaded = [c for c in commits if "kernel-builder" in c.title]
    assert len(uploaded) == len(VARIANTS), [c.title for c in commits]
    retries = sum(stderr.count(RETRY_LINE) for _, _, stderr in results)
    print(f"8 concurrent uploads: {len(uploaded)} commits on v1, {retries} retries after a moved head")


def test_uploads_one_after_another_keep_each_others_variants(hf_env, tmp_path, kernel_builder, variant_tree):
    """The branch's creator, another variant, then the creator again: the second upload does not
    take the first one's variant for inherited, and the third (no longer the creator) keeps the
    second's variant."""
    hf_env.add_org("acme", trusted=True)
    token = hf_env.add_user("alice", "acme")
    env = dict(os.environ, HF_ENDPOINT=hf_env.url, HF_TOKEN=token, NO_COLOR="1")
    first = tmp_path / "a" / "relu"
    variant_tree(first, variants=("torch-cpu",))
    second = tmp_path / "b" / "relu"
    variant_tree(second, variants=("torch-cuda",))
    for kernel in (first, second, first):
        run = subprocess.run([str(kernel_builder), "upload", str(kernel)], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
    from huggingface_hub.hf_api import RepoFile
    api = hf.HfApi(token=token)
    variants = {e.path.split("/")[1] for e in api.list_repo_tree("acme/relu", repo_type="kernel", revision="v1",
                                                                  recursive=True)
                if isinstance(e, RepoFile) and e.path.startswith("build/")}
    assert variants == {"torch-cpu", "torch-cuda"}
