"""The official huggingface_hub client against kernel-hub, and `kernel-builder upload`."""
import json
import os
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest


hf = pytest.importorskip("huggingface_hub")


def api(token=None):
    return hf.HfApi(token=token)


def run_upload(kernel_builder, kernel_dir, token, endpoint, *args):
    env = dict(os.environ, HF_ENDPOINT=endpoint, HF_TOKEN=token, NO_COLOR="1")
    return subprocess.run([str(kernel_builder), "upload", str(kernel_dir), *args],
                          capture_output=True, text=True, env=env)


def test_official_client_reads_back_kernel_builder_upload(hf_env, kernel_builder, tmp_path, variant_tree):
    hf_env.add_org("acme", trusted=True)
    token = hf_env.add_user("alice", "acme")
    kernel_dir = tmp_path / "relu"
    expected = variant_tree(kernel_dir)
    (kernel_dir / "build" / "CARD.md").write_text("# relu card\n")
    (kernel_dir / "benchmarks").mkdir()
    (kernel_dir / "benchmarks" / "benchmark.py").write_text("print('bench')\n")
    out_json = tmp_path / "out.json"
    result = run_upload(kernel_builder, kernel_dir, token, hf_env.url, "--output-json", str(out_json))
    assert result.returncode == 0, result.stderr
    assert f"Found 1 build variant(s) in {kernel_dir / 'build'}" in result.stderr
    assert "Using branch `v1` (new)" in result.stderr
    assert result.stdout == f"Kernel uploaded: {hf_env.url}/kernels/acme/relu/tree/v1\n"
    assert json.loads(out_json.read_text()) == {
        "status": "uploaded", "repo_id": "acme/relu", "branch": "v1",
        "url": f"{hf_env.url}/kernels/acme/relu/tree/v1", "pull_requests": []}
    assert token not in result.stderr + result.stdout

    client = api(token)
    refs = client.list_repo_refs("acme/relu", repo_type="kernel")
    assert sorted(b.name for b in refs.branches) == ["main", "v1"]
    tree = {e.path: e for e in client.list_repo_tree("acme/relu", repo_type="kernel", revision="v1", recursive=True)}
    for path in expected:
        assert path in tree
    so = tree["build/torch-cpu/_relu_cpu_abc1234.abi3.so"]
    assert so.lfs is not None and so.lfs.size == len(expected["build/torch-cpu/_relu_cpu_abc1234.abi3.so"])
    assert "benchmarks/benchmark.py" in tree
    top = [e.path for e in client.list_repo_tree("acme/relu", repo_type="kernel", revision="v1", path_in_repo="build")]
    assert top == ["build/torch-cpu"]
    for path, data in expected.items():
        local = hf.hf_hub_download("acme/relu", path, repo_type="kernel", revision="v1", cache_dir=tmp_path / "c")
        assert Path(local).read_bytes() == data, path
    readme = hf.hf_hub_download("acme/relu", "README.md", repo_type="kernel", cache_dir=tmp_path / "c")
    assert Path(readme).read_text() == "# relu card\n"
    snap = Path(hf.snapshot_download("acme/relu", repo_type="kernel", revision="v1",
                                     allow_patterns=["build/torch-cpu/*"], cache_dir=tmp_path / "s"))
    got = {p.relative_to(snap).as_posix(): p.read_bytes() for p in snap.rglob("*") if p.is_file()}
    assert got == expected
    with pytest.raises(hf.errors.EntryNotFoundError):
        hf.hf_hub_download("acme/relu", "kernel-status.toml", repo_type="kernel", cache_dir=tmp_path / "c")

    # Second upload: nothing changed.
    again = run_upload(kernel_builder, kernel_dir, token, hf_env.url)
    assert again.returncode == 0, again.stderr
    assert "Using branch `v1`\n" in again.stderr
    assert "No changes to upload." in again.stderr and again.stdout == ""

    # A removed file is deleted remotely; a PR leaves the branch untouched. (The digest is
    # re-recorded, as a rebuild would: upload refuses a variant missing a file its digest lists.)
    (kernel_dir / "build" / "torch-cpu" / "_ops.py").unlink()
    subprocess.run([str(kernel_builder), "hash", str(kernel_dir)], check=True, capture_output=True)
    pr = run_upload(kernel_builder, kernel_dir, token, hf_env.url, "--create-pr")
    assert pr.returncode == 0, pr.stderr
    assert pr.stdout.startswith(f"Pull request created: {hf_env.url}/kernels/acme/relu/discussions/")
    prs = client.list_repo_refs("acme/relu", repo_type="kernel", include_pull_requests=True).pull_requests
    assert len(prs) == 1
    pr_files = [e.path for e in client.list_repo_tree("acme/relu", repo_type="kernel", revision=prs[0].ref, recursive=True)]
    assert "build/torch-cpu/_ops.py" not in pr_files
    v1_files = [e.path for e in client.list_repo_tree("acme/relu", repo_type="kernel", revision="v1", recursive=True)]
    assert "build/torch-cpu/_ops.py" in v1_files


def test_official_client_write_flow_and_branches(hf_env, tmp_path, monkeypatch, variant_tree):
    hf_env.add_org("acme")
    token = hf_env.add_user("alice", "acme")
    client = api(token)
    url = client.create_repo("acme/act", repo_type="kernel")
    assert str(url).endswith("/kernels/acme/act")
    client.create_repo("acme/act", repo_type="kernel", exist_ok=True)
    folder = tmp_path / "folder"
    expected = variant_tree(folder)
    # huggingface_hub 1.33 lists "kernel" in REPO_TYPES_WITH_KERNEL but upload_folder checks
    # REPO_TYPES; the server side is what we test, so widen the client-side check.
    monkeypatch.setattr(hf.constants, "REPO_TYPES", hf.constants.REPO_TYPES + ["kernel"])
    client.upload_folder(folder_path=folder / "build", path_in_repo="build", repo_id="acme/act", repo_type="kernel")
    client.create_branch("acme/act", branch="v1", repo_type="kernel")
    with pytest.raises(hf.errors.HfHubHTTPError):
        client.create_branch("acme/act", branch="v1", repo_type="kernel")
    refs = client.list_repo_refs("acme/act", repo_type="kernel")
    assert {b.name for b in refs.branches} == {"main", "v1"}
    assert len({b.target_commit for b in refs.branches}) == 1
    for path, data in expected.items():
        local = hf.hf_hub_download("acme/act", path, repo_type="kernel", revision="v1", cache_dir=tmp_path / "c")
        assert Path(local).read_bytes() == data
    # Model repos (default type) work too, with siblings.
    client.create_repo("acme/model")
    client.upload_folder(folder_path=folder / "build", repo_id="acme/model")
    info = client.model_info("acme/model")
    assert "torch-cpu/_ops.py" in {s.rfilename for s in info.siblings}


def test_bad_or_missing_token_cannot_write(hf_env, tmp_path, kernel_builder, variant_tree):
    hf_env.add_org("acme")
    good = hf_env.add_user("alice", "acme")
    outsider = hf_env.add_user("mallory")
    api(good).create_repo("acme/relu", repo_type="kernel")
    with pytest.raises(hf.errors.HfHubHTTPError) as bad:
        api("hf_not_a_real_token").create_branch("acme/relu", branch="x", repo_type="kernel")
    assert bad.value.response.status_code == 401
    with pytest.raises(hf.errors.HfHubHTTPError) as forbidden:
        api(outsider).create_branch("acme/relu", branch="x", repo_type="kernel")
    assert forbidden.value.response.status_code == 403
    request = urllib.request.Request(hf_env.url + "/api/kernels/acme/relu/branch/x", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as anonymous:
        urllib.request.urlopen(request)
    assert anonymous.value.code == 401
    assert {b.name for b in api().list_repo_refs("acme/relu", repo_type="kernel").branches} == {"main"}
    # kernel-builder upload as the outsider: who is signed in and how this Hub's administrator adds
    # them (not huggingface.co's publishing guidance), nothing written.
    kernel_dir = tmp_path / "relu"
    variant_tree(kernel_dir)
    result = run_upload(kernel_builder, kernel_dir, outsider, hf_env.url)
    assert result.returncode == 1
    assert result.stderr.endswith(
        f"error: You do not have permission to publish the kernel `acme/relu` on {hf_env.url}\n"
        f"Caused by: HTTP 403 during repository creation ({hf_env.url}/api/repos/create): You don't have the rights "
        "to create a repository under `acme`\n"
        "hint: you are signed in as `mallory`, who is not a member of `acme`; an administrator of that Hub adds you "
        "with `kernel-hub user add mallory --org acme --root <HUB_DIR>` (it prints your new token)\n"), result.stderr
    assert "kernels-community" not in result.stderr
    assert outsider not in result.stderr
    assert outsider not in hf_env.log() and good not in hf_env.log()


def test_private_repo_not_readable_by_others(hf_env, tmp_path):
    hf_env.add_org("acme")
    owner = hf_env.add_user("alice", "acme")
    other = hf_env.add_user("bob")
    api(owner).create_repo("acme/secret", repo_type="kernel", private=True)
    assert api(owner).list_repo_refs("acme/secret", repo_type="kernel").branches
    with pytest.raises(hf.errors.RepositoryNotFoundError):
        api(other).list_repo_refs("acme/secret", repo_type="kernel")
    with pytest.raises(hf.errors.RepositoryNotFoundError):
        api().list_repo_refs("acme/secret", repo_type="kernel")
    with pytest.raises(hf.errors.RepositoryNotFoundError):
        hf.hf_hub_download("acme/secret", ".gitattributes", repo_type="kernel", token=other, cache_dir=tmp_path / "c")


def test_bulk_endpoint_and_capabilities(hf_env, tmp_path, variant_tree):
    hf_env.add_org("acme")
    token = hf_env.add_user("alice", "acme")
    client = api(token)
    client.create_repo("acme/bulk")
    folder = tmp_path / "f"
    expected = variant_tree(folder)
    client.upload_folder(folder_path=folder / "build", path_in_repo="build", repo_id="acme/bulk")
    caps = json.load(urllib.request.urlopen(hf_env.url + "/api/kernel-hub/capabilities"))
    assert caps["bulk"] == 1
    body = urllib.request.urlopen(hf_env.url + "/api/models/acme/bulk/bulk/main/build%2Ftorch-cpu").read()
    got, at = {}, 0
    while True:
        end = body.index(b"\n", at)
        header = json.loads(body[at:end])
        at = end + 1
        if header.get("end"):
            assert header["files"] == len(got)
            break
        got[header["path"]] = body[at:at + header["size"]]
        at += header["size"]
    assert at == len(body)
    assert got == expected
