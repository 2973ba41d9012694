"""The official huggingface_hub client (docs/hub-api.md), as a user installs it, against
kernel-hub. Each scenario runs official_client_driver.py in a subprocess whose environment is
built here from nothing but PATH and HOME (so conftest's HF_HUB_DISABLE_XET does not leak in):

- client "1.33.0": .venv's huggingface_hub 1.33.0 with hf_xet 1.8.0;
- client "2.4.0": PYTHONPATH=.hf2-site (huggingface_hub 2.4.0 with hf_xet 1.8.0);
- transfer "xet": the default install, no override — uploads go through Xet (kernel-hub's Xet
  routes); transfer "lfs": HF_HUB_DISABLE_XET=1 — uploads go through the LFS batch API.

Every call of a scenario must succeed (or fail with the exact huggingface_hub error type it
expects) and every byte read back must equal what was written."""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
DRIVER = Path(__file__).with_name("official_client_driver.py")
CLIENTS = {"1.33.0": {}, "2.4.0": {"PYTHONPATH": str(REPO_ROOT / ".hf2-site")}}
TRANSFERS = {"xet": {}, "lfs": {"HF_HUB_DISABLE_XET": "1"}}


def client_env(hub, tmp_path, client, transfer, token=None):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "HF_ENDPOINT": hub.url,
           "HF_HOME": str(tmp_path / "hf-home"), **CLIENTS[client], **TRANSFERS[transfer]}
    if token:
        env["HF_TOKEN"] = token
    return env


def run_scenario(hub, tmp_path, client, transfer, scenario, **args):
    env = client_env(hub, tmp_path, client, transfer)
    result = subprocess.run([sys.executable, str(DRIVER), scenario, json.dumps(args)], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    report = json.loads(result.stdout)
    assert report["data"]["version"] == client
    failed = [s for s in report["steps"] if s[1] != "ok"]
    assert failed == [], "\n".join(f"{name}: {why}" for name, why in failed) + "\n" + result.stderr[-3000:]
    return report["data"]


def assert_transfer_used(hub, transfer):
    """The uploads went the way the variant says (the server's access log names the routes)."""
    log = hub.log()
    if transfer == "xet":
        assert "/xet-write-token/" in log and "POST /api/kernel-hub/xet/v1/xorbs/" in log
        assert "/info/lfs/objects/batch" not in log
    else:
        assert "/info/lfs/objects/batch" in log and "xet-write-token" not in log


def variants(repo_type="model"):
    # huggingface_hub 1.33 refuses create_commit/upload_* for repo_type="kernel" itself (a
    # ValueError before any request); 2.4.0 accepts them.
    clients = ["2.4.0"] if repo_type == "kernel" else list(CLIENTS)
    return [pytest.param(c, t, id=f"{c}-{t}") for c in clients for t in TRANSFERS]


def typed_variants():
    return [pytest.param(kind, c, t, id=f"{kind}-{c}-{t}") for kind in ("model", "kernel")
            for c, t in ((p.values[0], p.values[1]) for p in variants(kind))]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_folder(root: Path) -> dict:
    """Small text files, a > 10 MB binary file, a small binary with NUL bytes and a README.md with
    YAML metadata. Returns {path: sha256}."""
    files = {
        "README.md": b"---\nlicense: apache-2.0\ntags:\n- kernel\n- test\n---\n# Test card\n",
        "config.json": b'{"hidden_size": 8}\n',
        "src/module.py": b"print('hello')\n",
        "weights/kernel.so": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 16 + b"\x00" * 64,
        "weights/big.bin": os.urandom(11 * 1024 * 1024 + 123),
    }
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return {path: digest(data) for path, data in files.items()}


@pytest.fixture
def people(hub):
    hub.add_org("acme")
    return {"alice": hub.add_user("alice", "acme"), "bob": hub.add_user("bob"), "carol": hub.add_user("carol")}


@pytest.mark.parametrize("repo_type,client,transfer", typed_variants())
def test_upload_folder_and_read_back(hub, tmp_path, people, repo_type, client, transfer):
    folder = tmp_path / "folder"
    expected = make_folder(folder)
    data = run_scenario(hub, tmp_path, client, transfer, "upload_and_read_back", token=people["alice"],
                        repo="acme/roundtrip", repo_type=repo_type, folder=str(folder), cache=str(tmp_path / "cache"))
    assert data["written"] == expected
    assert data["downloaded"] == expected
    assert data["snapshot"] == {".gitattributes": data["snapshot"][".gitattributes"], **expected}
    sizes = {path: (tmp_path / "folder" / path).stat().st_size for path in expected}
    for path, size in sizes.items():
        assert data["tree"][path]["size"] == size, path
    assert data["tree"]["weights/big.bin"]["lfs"] and data["tree"]["weights/kernel.so"]["lfs"]
    if transfer == "xet":  # the tree names the Xet form of a file uploaded through Xet
        assert len(data["tree"]["weights/big.bin"]["xet_hash"]) == 64
    assert_transfer_used(hub, transfer)
    assert not data["tree"]["config.json"]["lfs"]
    assert data["paths_info"] == [["RepoFile", "README.md"], ["RepoFolder", "weights"]]
    if repo_type == "model":
        big = data["siblings"]["weights/big.bin"]
        assert big["size"] == sizes["weights/big.bin"]
        assert big["lfs_sha256"] == expected["weights/big.bin"] and big["lfs_size"] == sizes["weights/big.bin"]
        assert data["siblings"]["config.json"]["size"] == sizes["config.json"]
        assert data["siblings"]["config.json"]["lfs_sha256"] is None
        # huggingface_hub does not parse a sibling's xetHash; the raw answer carries it when known.
        raw = httpx.get(f"{hub.url}/api/models/acme/roundtrip", params={"blobs": "true"}).json()
        siblings = {s["rfilename"]: s for s in raw["siblings"]}
        if transfer == "xet":
            assert siblings["weights/big.bin"]["xetHash"] == data["tree"]["weights/big.bin"]["xet_hash"]


@pytest.mark.parametrize("client,transfer", variants())
def test_commits_deletes_refs_tags_and_repo_deletion(hub, tmp_path, people, client, transfer):
    data = run_scenario(hub, tmp_path, client, transfer, "history_and_refs", token=people["alice"],
                        repo="acme/history", repo_type="model", cache=str(tmp_path / "cache"))
    assert data["files"] == [".gitattributes", "c.txt"]
    assert data["commits"] == [["Replace a by c", "", ["alice"]], ["Add two files", "Both small.", ["alice"]],
                               ["initial commit", "", []]]
    # 53 commits: more than one page of 50, so this passes only if the client followed the Link.
    assert data["many_commits"] == [f"Step {i}" for i in reversed(range(50))] + [c[0] for c in data["commits"]]
    assert data["branches"] == ["dev", "main"]
    assert data["tags"] == [["v1.0", "refs/tags/v1.0", data["head"]]]
    assert data["at_tag"] == "c\n"
    assert data["branches_after"] == ["main"] and data["tags_after"] == []
    assert data["delete_branch main"]["status"] == 403
    assert not (hub.root / "repos" / "models" / "acme" / "history").exists()


@pytest.mark.parametrize("repo_type,client,transfer", typed_variants())
def test_pull_request_from_a_non_member(hub, tmp_path, people, repo_type, client, transfer):
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(11 * 1024 * 1024))
    data = run_scenario(hub, tmp_path, client, transfer, "community_pr", owner_token=people["alice"],
                        outsider_token=people["bob"], third_token=people["carol"], repo="acme/community",
                        repo_type=repo_type, big_file=str(big), cache=str(tmp_path / "cache"))
    prefix = "kernels/" if repo_type == "kernel" else ""
    assert data["pr_url"] == f"{hub.url}/{prefix}acme/community/discussions/1"
    assert data["pr_revision"] == "refs/pr/1"
    assert data["outsider commit to main"]["status"] == 403
    assert data["third commits to the PR"]["status"] == 403
    assert "refs/pr/1" in data["pull_requests"]
    assert data["pr_files"] == {"file.txt": digest(b"v2\n"), "big.bin": digest(big.read_bytes()),
                                "more.txt": digest(b"more\n"), "review.txt": digest(b"ok\n")}
    assert data["main_file"] == "v1\n"
    assert_transfer_used(hub, transfer)
    if repo_type == "model":
        assert data["discussion"] == {"num": 2, "author": "bob", "is_pull_request": True, "status": "draft",
                                      "git_reference": "refs/pr/2"}
        assert data["discussions"] == [[1, "bob", True], [2, "bob", True]]


@pytest.mark.parametrize("client,transfer", variants())
def test_errors_metadata_validation_and_settings(hub, tmp_path, people, client, transfer):
    bad = tmp_path / "bad-card"
    bad.mkdir()
    (bad / "README.md").write_text("---\nlicense: [mit\ntags: x\n---\n# Card\n")
    plain = tmp_path / "plain-card"
    plain.mkdir()
    (plain / "README.md").write_text("# No metadata\n")
    data = run_scenario(hub, tmp_path, client, transfer, "errors", token=people["alice"], outsider_token=people["bob"],
                        repo="acme/errors", repo_type="model", cache=str(tmp_path / "cache"),
                        bad_card_dir=str(bad), plain_card_dir=str(plain))
    assert "Invalid metadata in README.md" in data["invalid README metadata"]["message"]
    assert "Invalid YAML at line 3, column 5" in data["invalid README metadata"]["message"]
    assert any("Empty or missing yaml metadata" in w for w in data["plain_card_warnings"])
    assert data["gated download by outsider"]["status"] == 403
    assert data["member_read"] == "x\n"
    assert data["private"] is True


@pytest.mark.parametrize("client,transfer", variants())
def test_hf_cli_upload_and_download(hub, tmp_path, people, client, transfer):
    folder = tmp_path / "folder"
    expected = make_folder(folder)
    env = client_env(hub, tmp_path, client, transfer, token=people["alice"])
    hf_cli = [sys.executable, "-c", "import sys; from huggingface_hub.cli.hf import main; sys.exit(main())"]
    up = subprocess.run(hf_cli + ["upload", "acme/cli", str(folder), ".", "--repo-type", "model"], env=env,
                        capture_output=True, text=True, timeout=600)
    assert up.returncode == 0, up.stderr[-3000:]
    assert f"{hub.url}/acme/cli/" in up.stdout
    out = tmp_path / "downloaded"
    down = subprocess.run(hf_cli + ["download", "acme/cli", "--repo-type", "model", "--local-dir", str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert down.returncode == 0, down.stderr[-3000:]
    got = {p.relative_to(out).as_posix(): digest(p.read_bytes()) for p in out.rglob("*")
           if p.is_file() and ".cache" not in p.relative_to(out).parts and p.name != ".gitattributes"}
    assert got == expected
