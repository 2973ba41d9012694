"""kernel-hub with its blobs in an S3-compatible object store (a real OpenStack Swift with s3api,
started by scripts/services/swift): uploads land in the store, downloads leave the Hub through
presigned URLs (resolve answers 302; Xet reconstructions name the store's URLs), and
huggingface_hub 1.33 / 2.4 with hf_xet, with and without Xet, get the right bytes."""
import hashlib
import http.client
import os
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from conftest import Hub  # noqa: E402
from xet_support import CLIENTS, client_env, make_folder, run_client, xet_requests  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[3]
SWIFT = REPO_ROOT / "scripts" / "services" / "swift"


@pytest.fixture(scope="module")
def swift(tmp_path_factory):
    state = tmp_path_factory.mktemp("swift")
    started = subprocess.run([str(SWIFT), "start", str(state)], capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    exports = {}
    for line in started.stdout.splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        exports[name] = value.strip("'")
    yield exports
    subprocess.run([str(SWIFT), "stop", str(state)], capture_output=True, timeout=60)


@pytest.fixture
def hub(kernel_hub, tmp_path, swift):
    root = tmp_path / "hub-root"
    root.mkdir()
    # Clients reach the store by another host name than the Hub's (huggingface_hub 1.x treats a
    # redirect to the same host name as staying on the Hub).
    port = urllib.parse.urlparse(swift["KB_HUB_OBJECT_STORE"].split("endpoint=")[1].split("&")[0]).port
    url = swift["KB_HUB_OBJECT_STORE"] + f"&public_endpoint=http://localhost:{port}"
    env = dict(os.environ, AWS_ACCESS_KEY_ID=swift["AWS_ACCESS_KEY_ID"],
               AWS_SECRET_ACCESS_KEY=swift["AWS_SECRET_ACCESS_KEY"])
    log = open(tmp_path / "hub.log", "ab")
    process = subprocess.Popen([str(kernel_hub), "serve", "--root", str(root), "--port", "0", "--object-store", url],
                               stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    line = process.stdout.readline().strip()
    assert line.startswith("Listening on http://"), (tmp_path / "hub.log").read_text()
    server = Hub(root, line.split(" ", 2)[2], process, kernel_hub)
    yield server
    process.kill()
    process.wait()


def request(url, method="GET", token=None, headers=None):
    parsed = urllib.parse.urlparse(url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
    all_headers = dict(headers or {})
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    connection.request(method, parsed.path + ("?" + parsed.query if parsed.query else ""), headers=all_headers)
    response = connection.getresponse()
    return response.status, dict(response.getheaders()), response.read()


def stored_files(root: Path) -> list:
    return [p for p in (root / "objects").rglob("*") if p.is_file()] + \
        [p for p in (root / "xet" / "xorbs").rglob("*") if p.is_file() and "." not in p.name] \
        if root.exists() else []


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_xet_upload_and_download_through_the_object_store(hub, tmp_path, client):
    token = hub.add_user("alice")
    env = client_env(hub, token, tmp_path / "home", CLIENTS[client])
    run_client(env, "create_repo", repo_id="alice/demo", repo_type="model", private=True)
    folder = tmp_path / "folder"
    files = make_folder(folder)
    out = run_client(env, "upload_folder", repo_id="alice/demo", repo_type="model", folder=str(folder))
    assert out["xet"] is True
    # The bytes are in the store, not under the Hub root (only records there).
    assert stored_files(hub.root) == []
    local = run_client(env, "download", repo_id="alice/demo", repo_type="model", filename="weights/big.bin",
                       cache_dir=str(tmp_path / "cache"))["result"]
    assert Path(local).read_bytes() == files["weights/big.bin"]
    # Reconstructions named presigned store URLs: no xorb byte went through the Hub.
    assert xet_requests(hub, "GET", "/reconstructions/")
    assert not xet_requests(hub, "GET", "/data/")
    snapshot = run_client(env, "snapshot", repo_id="alice/demo", repo_type="model",
                          cache_dir=str(tmp_path / "snap"))["result"]
    for path, data in files.items():
        assert (Path(snapshot) / path).read_bytes() == data, path


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_lfs_resolve_redirects_to_a_presigned_url(hub, tmp_path, client):
    token = hub.add_user("bob")
    env = client_env(hub, token, tmp_path / "home", CLIENTS[client], disable_xet=True)
    run_client(env, "create_repo", repo_id="bob/demo", repo_type="model", private=True)
    folder = tmp_path / "folder"
    files = make_folder(folder)
    run_client(env, "upload_folder", repo_id="bob/demo", repo_type="model", folder=str(folder))
    assert stored_files(hub.root) == []
    big = files["weights/big.bin"]
    sha = hashlib.sha256(big).hexdigest()
    url = f"{hub.url}/bob/demo/resolve/main/weights/big.bin"
    # A private file: no token, no redirect.
    status, _, _ = request(url, "HEAD")
    assert status in (401, 404)
    for method in ("HEAD", "GET"):
        status, headers, _ = request(url, method, token)
        # A HEAD gets the metadata and the URL (presigned for GET only) without a redirect.
        assert status == (200 if method == "HEAD" else 302), (method, status)
        assert headers["X-Linked-Size"] == str(len(big)) and headers["X-Linked-Etag"] == f'"{sha}"'
        assert headers["ETag"] == f'"{sha}"' and headers["X-Repo-Commit"]
        assert headers["Location"].startswith("http://localhost:")
    location = headers["Location"]
    # The presigned URL alone serves the bytes and Ranges, without the Hub's token.
    status, _, body = request(location)
    assert status == 200 and body == big
    status, _, body = request(location, headers={"Range": "bytes=1000-1999"})
    assert status == 206 and body == big[1000:2000]
    # Altered, it is refused by the store.
    status, _, body = request(location.replace("X-Amz-Expires=600", "X-Amz-Expires=6000"))
    assert status == 403 and big[:1000] not in body
    # The official client follows it (HEAD metadata from the 302, GET from the store).
    local = run_client(env, "download", repo_id="bob/demo", repo_type="model", filename="weights/big.bin",
                       cache_dir=str(tmp_path / "cache"))["result"]
    assert Path(local).read_bytes() == big
    snapshot = run_client(env, "snapshot", repo_id="bob/demo", repo_type="model",
                          cache_dir=str(tmp_path / "snap"))["result"]
    for path, data in files.items():
        assert (Path(snapshot) / path).read_bytes() == data, path
