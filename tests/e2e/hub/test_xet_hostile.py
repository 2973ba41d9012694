"""Hostile inputs to kernel-hub's Xet storage (docs/hub-security.md, "Xet storage"): objects whose
hashes do not match their names, shards referencing xorbs the repository cannot reach, a false
SHA-256, oversize bodies, tokens of other repositories or of the wrong scope, forged tokens and
tampered signed URLs. The objects are a real hf_xet 1.8.0 upload (tests/unit/xet/data/upload)."""
import http.client
import json
import socket
import urllib.parse
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "unit" / "xet" / "data" / "upload"
XORB = next(DATA.glob("*.xorb"))
XORB_HASH = XORB.stem
SHARD = (DATA / "upload.shard").read_bytes()
FILES = json.loads((DATA / "files.json").read_text())


def request(url, method, token=None, body=None, headers=None):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    all_headers = dict(headers or {})
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    connection.request(method, target, body=body, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


def xet_token(hub, hub_token, repo, kind="write", revision="main"):
    status, _, body = request(f"{hub.url}/api/models/{repo}/xet-{kind}-token/{revision}", "GET", hub_token)
    return status, (json.loads(body) if status == 200 else body)


def create_repo(hub, token, name, private=False):
    status, _, body = request(f"{hub.url}/api/repos/create", "POST", token,
                              json.dumps({"name": name, "type": "model", "private": private}).encode(),
                              {"Content-Type": "application/json"})
    assert status == 200, body


@pytest.fixture
def setup(hub):
    alice = hub.add_user("alice")
    bob = hub.add_user("bob")
    create_repo(hub, alice, "a")
    create_repo(hub, bob, "secret", private=True)
    return hub, alice, bob


def cas(grant, method, path, body=None, headers=None, token=None):
    return request(grant["casUrl"] + path, method, grant["accessToken"] if token is None else token, body, headers)


def test_tokens_are_bound_to_repository_and_scope(setup):
    hub, alice, bob = setup
    # No write token for someone else's repository; a private one does not even exist for outsiders.
    assert xet_token(hub, bob, "alice/a", "write")[0] == 403
    assert xet_token(hub, alice, "bob/secret", "read")[0] == 404
    assert xet_token(hub, None, "bob/secret", "read")[0] == 401
    assert xet_token(hub, alice, "alice/a", "read", "no-such-branch")[0] == 404
    status, read = xet_token(hub, alice, "alice/a", "read")
    assert status == 200 and read["casUrl"].endswith("/api/kernel-hub/xet") and read["exp"] > 0
    # A read token cannot upload; a forged or altered token is no token.
    xorb = XORB.read_bytes()
    assert cas(read, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb)[0] == 403
    forged = read["accessToken"].replace("72656164", "7772697465", 1)  # hex of "read" -> "write"
    assert cas(read, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb, token=forged)[0] == 401
    assert cas(read, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb, token="xet1_00.00")[0] == 401
    assert cas(read, "GET", f"/v1/reconstructions/{'0' * 64}", token="")[0] == 401


def test_xorb_must_hash_to_its_name(setup):
    hub, alice, _ = setup
    _, grant = xet_token(hub, alice, "alice/a")
    xorb = XORB.read_bytes()
    status, headers, _ = cas(grant, "POST", f"/v1/xorbs/default/{'ab' * 32}", xorb)
    assert status == 400 and headers["x-error-code"] == "XetXorbHashMismatch"
    status, headers, _ = cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb[:-100])
    assert status == 400 and headers["x-error-code"] == "XetMalformedXorb"
    status, headers, _ = cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH.upper()}", xorb)
    assert status == 400 and headers["x-error-code"] == "XetMalformedHash"
    assert not (hub.root / "xet" / "xorbs").exists() or not any((hub.root / "xet" / "xorbs").rglob("*"))
    status, _, body = cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb)
    assert status == 200 and json.loads(body) == {"was_inserted": True}
    status, _, body = cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb)
    assert status == 200 and json.loads(body) == {"was_inserted": False}


def test_shard_needs_its_xorbs_uploaded_to_the_repository(setup):
    hub, alice, bob = setup
    _, alice_grant = xet_token(hub, alice, "alice/a")
    status, headers, _ = cas(alice_grant, "POST", "/v1/shards", SHARD)
    assert status == 400 and headers["x-error-code"] == "XetUnknownXorb"
    # Bob stores the xorb in his private repository: it exists now, but not for alice.
    _, bob_grant = xet_token(hub, bob, "bob/secret")
    assert cas(bob_grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB.read_bytes())[0] == 200
    status, headers, _ = cas(alice_grant, "POST", "/v1/shards", SHARD)
    assert status == 400 and headers["x-error-code"] == "XetUnknownXorb"
    assert cas(bob_grant, "POST", "/v1/shards", SHARD)[0] == 200
    # Nor can alice read bob's files, their xorbs or their chunks through her own repository's token.
    _, alice_read = xet_token(hub, alice, "alice/a", "read")
    _, bob_read = xet_token(hub, bob, "bob/secret", "read", "main")
    for grant, expected in ((alice_read, 404), (bob_read, 200)):
        assert cas(grant, "HEAD", f"/v1/xorbs/default/{XORB_HASH}")[0] == expected
    files = sorted((hub.root / "xet" / "files").rglob("*"))
    file_ids = [p.name for p in files if p.is_file()]
    assert len(file_ids) == 3
    for file_id in file_ids:
        assert cas(alice_read, "GET", f"/v1/reconstructions/{file_id}")[0] == 404
        assert cas(bob_read, "GET", f"/v1/reconstructions/{file_id}")[0] == 200
    chunks = [p.name for p in (hub.root / "xet" / "chunks").rglob("*") if p.is_file()]
    assert chunks
    assert cas(alice_read, "GET", f"/v1/chunks/default-merkledb/{chunks[0]}")[0] == 404
    assert cas(bob_read, "GET", f"/v1/chunks/default-merkledb/{chunks[0]}")[0] == 200
    # Alice's commit cannot name bob's content by its SHA-256 either.
    sha = FILES[0]["sha256"]
    payload = "\n".join(json.dumps(line) for line in [
        {"key": "header", "value": {"summary": "steal"}},
        {"key": "lfsFile", "value": {"path": "x.bin", "algo": "sha256", "oid": sha, "size": FILES[0]["size"]}}])
    status, _, body = request(f"{hub.url}/api/models/alice/a/commit/main", "POST", alice, payload.encode(),
                              {"Content-Type": "application/x-ndjson"})
    assert status == 422, body
    # Having the bytes proves possession: once alice uploads the xorb herself, her shard is accepted.
    assert cas(alice_grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB.read_bytes())[0] == 200
    assert cas(alice_grant, "POST", "/v1/shards", SHARD)[0] == 200


def test_shard_with_false_sha256_is_refused(setup):
    hub, alice, _ = setup
    _, grant = xet_token(hub, alice, "alice/a")
    assert cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB.read_bytes())[0] == 200
    raw = bytes.fromhex(FILES[0]["sha256"])
    stored = b"".join(raw[i:i + 8][::-1] for i in range(0, 32, 8))  # the shard's byte order
    where = SHARD.find(stored) if SHARD.find(stored) >= 0 else SHARD.find(raw)
    assert where > 0
    tampered = SHARD[:where] + bytes([SHARD[where] ^ 1]) + SHARD[where + 1:]
    status, headers, body = cas(grant, "POST", "/v1/shards", tampered)
    assert status == 400 and headers["x-error-code"] == "XetShardVerificationFailed", body
    assert not (hub.root / "xet" / "sha256").exists() or not any((hub.root / "xet" / "sha256").rglob("*"))
    # A flipped byte in a term's verification hash, and a truncated shard, are refused too.
    status, headers, _ = cas(grant, "POST", "/v1/shards", SHARD[:-7])
    assert status == 400 and headers["x-error-code"] == "XetMalformedShard"


def test_oversize_bodies_are_refused_before_reading(setup):
    hub, alice, _ = setup
    _, grant = xet_token(hub, alice, "alice/a")
    parts = urllib.parse.urlsplit(grant["casUrl"])
    for path, size in ((f"/v1/xorbs/default/{XORB_HASH}", 80 << 20), ("/v1/shards", 80 << 20)):
        with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
            sock.sendall((f"POST {parts.path}{path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                          f"{grant['accessToken']}\r\nContent-Length: {size}\r\n\r\n").encode() + b"\0" * 1024)
            answer = sock.recv(65536).decode(errors="replace")
        assert answer.startswith("HTTP/1.1 413"), answer[:200]


def test_signed_xorb_urls_cannot_be_widened(setup):
    hub, alice, _ = setup
    _, grant = xet_token(hub, alice, "alice/a")
    assert cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB.read_bytes())[0] == 200
    assert cas(grant, "POST", "/v1/shards", SHARD)[0] == 200
    _, read = xet_token(hub, alice, "alice/a", "read")
    file_id = next(p.name for p in (hub.root / "xet" / "files").rglob("*") if p.is_file())
    status, _, body = cas(read, "GET", f"/v1/reconstructions/{file_id}")
    assert status == 200
    fetch = next(iter(json.loads(body)["fetch_info"].values()))[0]
    url, first, last = fetch["url"], fetch["url_range"]["start"], fetch["url_range"]["end"]
    assert request(url, "GET", headers={"Range": f"bytes={first}-{last}"})[0] == 206
    assert request(url, "GET", headers={"Range": f"bytes={first}-{last + 1}"})[0] == 403
    widened = url.replace(f"range={first}-{last}", f"range=0-{last + 5000}")
    assert request(widened, "GET", headers={"Range": f"bytes=0-{last}"})[0] == 403
    assert request(url.replace("sig=", "sig=00"), "GET", headers={"Range": f"bytes={first}-{last}"})[0] == 403


def test_stored_xorbs_count_against_the_quota(kernel_hub, tmp_path, setup):
    import subprocess
    # Charged to the uploader once, by size and 128 bytes of bookkeeping, like an LFS object.
    hub, alice, _ = setup
    _, grant = xet_token(hub, alice, "alice/a")
    xorb = XORB.read_bytes()
    assert cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb)[0] == 200
    assert cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb)[0] == 200
    assert (hub.root / "usage" / "alice").read_text().count(f"{XORB_HASH} {len(xorb) + 128}") == 1
    # A Hub whose quota is below the xorb's size refuses it and stores nothing.
    root = tmp_path / "root"
    root.mkdir()
    token = subprocess.run([str(kernel_hub), "user", "add", "alice", "--root", str(root)], check=True,
                           capture_output=True, text=True).stdout.strip().splitlines()[-1]
    process = subprocess.Popen([str(kernel_hub), "serve", "--root", str(root), "--port", "0", "--quota", "100K"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        small = type("SmallHub", (), {"url": process.stdout.readline().split()[-1]})
        create_repo(small, token, "a")
        _, small_grant = xet_token(small, token, "alice/a")
        status, _, body = cas(small_grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", xorb)
        assert status == 413 and b"quota" in body, body
        assert not any(p.is_file() for p in (root / "xet").rglob("*") if p.name != "secret")
    finally:
        process.kill()
        process.wait()


def test_gated_repository_files_are_not_read_through_xet_by_outsiders(setup):
    hub, alice, bob = setup
    _, grant = xet_token(hub, alice, "alice/a")
    assert cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB.read_bytes())[0] == 200
    assert cas(grant, "POST", "/v1/shards", SHARD)[0] == 200
    file_id = next(p.name for p in (hub.root / "xet" / "files").rglob("*") if p.is_file())
    status, bob_read = xet_token(hub, bob, "alice/a", "read")
    assert status == 200 and cas(bob_read, "GET", f"/v1/reconstructions/{file_id}")[0] == 200
    status, _, body = request(f"{hub.url}/api/models/alice/a/settings", "PUT", alice,
                              json.dumps({"gated": "manual"}).encode(), {"Content-Type": "application/json"})
    assert status == 200, body
    # Gated now: bob's token stops working, and he gets no new one (read, or write for a PR).
    assert cas(bob_read, "GET", f"/v1/reconstructions/{file_id}")[0] == 401
    assert xet_token(hub, bob, "alice/a", "read")[0] == 403
    status, _, _ = request(f"{hub.url}/api/models/alice/a/xet-write-token/main?create_pr=1", "GET", bob)
    assert status == 403
    _, alice_read = xet_token(hub, alice, "alice/a", "read")
    assert cas(alice_read, "GET", f"/v1/reconstructions/{file_id}")[0] == 200


def test_a_shard_may_reference_xorbs_of_readable_repositories_which_it_then_owns(setup):
    hub, alice, _ = setup
    create_repo(hub, alice, "b", private=True)
    _, grant_a = xet_token(hub, alice, "alice/a")
    assert cas(grant_a, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB.read_bytes())[0] == 200
    owned_b = hub.root / "repos" / "models" / "alice" / "b" / "owned"
    assert not owned_b.exists() or XORB_HASH not in owned_b.read_text()
    _, grant_b = xet_token(hub, alice, "alice/b")
    assert cas(grant_b, "POST", "/v1/shards", SHARD)[0] == 200  # alice reads alice/a: reachable
    assert XORB_HASH in owned_b.read_text().split()
