"""huggingface_hub 1.33 and 2.4.0 with hf_xet (their default install) against kernel-hub's Xet
storage: each client runs in a subprocess with a clean environment (no HF_HUB_DISABLE_XET), so it
uploads and downloads through Xet exactly as a fresh `pip install huggingface_hub` does."""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from xet_support import CLIENTS, client_env, make_folder, plain_get, run_client, xet_requests  # noqa: E402


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_xet_upload_then_plain_resolve_and_xet_download(hub, tmp_path, client):
    token = hub.add_user("alice")
    env = client_env(hub, token, tmp_path / "home", CLIENTS[client])
    run_client(env, "create_repo", repo_id="alice/demo", repo_type="model")
    folder = tmp_path / "folder"
    files = make_folder(folder)
    out = run_client(env, "upload_folder", repo_id="alice/demo", repo_type="model", folder=str(folder))
    assert out["xet"] is True
    assert out["version"] == ("1.33.0" if client == "hf-1.33" else "2.4.0")
    # It went through Xet: xorbs and a shard were uploaded, and no LFS batch was asked for.
    assert xet_requests(hub, "POST", "/v1/xorbs/default/"), hub.log()[-3000:]
    assert xet_requests(hub, "POST", "/v1/shards")
    assert "/info/lfs/objects/batch" not in hub.log()
    # Stored as xorbs only: nothing of the big file is in the LFS object store.
    big_sha = hashlib.sha256(files["weights/big.bin"]).hexdigest()
    assert not (hub.root / "objects" / big_sha[:2] / big_sha).exists()

    # Plain resolve (what LFS clients and our loader use) streams it from the xorbs.
    for path, data in files.items():
        status, headers, body = plain_get(f"{hub.url}/alice/demo/resolve/main/{path}", token)
        assert status == 200 and body == data, path
    status, headers, body = plain_get(f"{hub.url}/alice/demo/resolve/main/weights/big.bin", token,
                                      {"Range": "bytes=1000000-2500000"})
    assert status == 206 and body == files["weights/big.bin"][1000000:2500001]
    assert headers["ETag"] == f'"{big_sha}"'
    assert headers["X-Xet-Hash"] and "xet-read-token" in headers["Link"]

    # The same client downloads through Xet (reconstruction + signed xorb ranges).
    before = len(xet_requests(hub, "GET", "/reconstructions/"))
    local = run_client(env, "download", repo_id="alice/demo", repo_type="model", filename="weights/big.bin",
                       cache_dir=str(tmp_path / "cache"))["result"]
    assert Path(local).read_bytes() == files["weights/big.bin"]
    assert len(xet_requests(hub, "GET", "/reconstructions/")) > before
    assert xet_requests(hub, "GET", "/data/")
    snapshot = run_client(env, "snapshot", repo_id="alice/demo", repo_type="model",
                          cache_dir=str(tmp_path / "snap"))["result"]
    for path, data in files.items():
        assert (Path(snapshot) / path).read_bytes() == data, path


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_lfs_upload_then_xet_download(hub, tmp_path, client):
    token = hub.add_user("bob")
    lfs_env = client_env(hub, token, tmp_path / "home-lfs", CLIENTS[client], disable_xet=True)
    run_client(lfs_env, "create_repo", repo_id="bob/lfs", repo_type="model")
    folder = tmp_path / "folder"
    files = make_folder(folder)
    out = run_client(lfs_env, "upload_folder", repo_id="bob/lfs", repo_type="model", folder=str(folder))
    assert out["xet"] is False
    assert "/info/lfs/objects/batch" in hub.log()
    assert not xet_requests(hub, "POST", "/v1/")

    xet_env = client_env(hub, token, tmp_path / "home-xet", CLIENTS[client])
    for path in ("weights/big.bin", "weights/small.bin", "nested/deep/zeros.bin"):
        local = run_client(xet_env, "download", repo_id="bob/lfs", repo_type="model", filename=path,
                           cache_dir=str(tmp_path / "cache"))["result"]
        assert Path(local).read_bytes() == files[path], path
    assert xet_requests(hub, "GET", "/reconstructions/"), hub.log()[-3000:]
    assert xet_requests(hub, "GET", "/data/")


LOAD = """
import sys
from pathlib import Path
from kernels import get_kernel
k = get_kernel("acme/relu", version=1, backend="cpu")
print(Path(k.__file__).parent)
"""


def test_kernels_loader_reads_a_xet_uploaded_kernel(hub, tmp_path, variant_tree):
    """Our loader (bulk download of a variant directory) reads files stored only as xorbs."""
    hub.add_org("acme", trusted=True)
    token = hub.add_user("alice", "acme")
    env = client_env(hub, token, tmp_path / "home")
    run_client(env, "create_repo", repo_id="acme/relu", repo_type="kernel")
    run_client(env, "create_branch", repo_id="acme/relu", repo_type="kernel", branch="v1")
    assert xet_requests(hub, "POST", "/v1/shards") == []
    files = variant_tree(tmp_path / "relu")
    # huggingface_hub does not upload to kernel repositories: hf_xet itself does, then a commit.
    run_client(env, "xet_commit", repo_id="acme/relu", repo_type="kernel", revision="v1",
               files={path: str(tmp_path / "relu" / path) for path in files})
    binary = "build/torch-cpu/_relu_cpu_abc1234.abi3.so"
    assert xet_requests(hub, "POST", "/v1/shards")
    sha = hashlib.sha256(files[binary]).hexdigest()
    assert not (hub.root / "objects" / sha[:2] / sha).exists()  # only in xorbs
    load_env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    load_env.update(HF_ENDPOINT=hub.url, HF_TOKEN=token, HF_HUB_CACHE=str(tmp_path / "kcache"))
    loaded = subprocess.run([sys.executable, "-c", LOAD], env=load_env, capture_output=True, text=True, timeout=300)
    assert loaded.returncode == 0, loaded.stderr
    assert " /api/kernels/acme/relu/bulk/" in hub.log() or "GET /api/kernels/acme/relu/bulk/" in hub.log()
    variant_dir = Path(loaded.stdout.strip().splitlines()[-1])
    for path, data in files.items():
        assert (variant_dir / Path(path).name).read_bytes() == data, path


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_hf_cli_upload_and_download(hub, tmp_path, client):
    token = hub.add_user("carol")
    env = client_env(hub, token, tmp_path / "home", CLIENTS[client])
    folder = tmp_path / "folder"
    files = make_folder(folder)
    hf = [sys.executable, "-c", "import sys; from huggingface_hub.cli.hf import main; sys.argv[0] = 'hf'; sys.exit(main())"]
    up = subprocess.run(hf + ["upload", "carol/cli", str(folder), ".", "--repo-type", "model"], env=env,
                        capture_output=True, text=True, timeout=600)
    assert up.returncode == 0, up.stderr[-3000:]
    assert xet_requests(hub, "POST", "/v1/shards")
    out = tmp_path / "out"
    down = subprocess.run(hf + ["download", "carol/cli", "--repo-type", "model", "--local-dir", str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert down.returncode == 0, down.stderr[-3000:]
    for path, data in files.items():
        assert (out / path).read_bytes() == data, path
    assert xet_requests(hub, "GET", "/reconstructions/")
