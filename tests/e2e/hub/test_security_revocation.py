"""Authorization on every request and no oracles (docs/hub-security.md, "Authorization" and "Xet
storage"): a member taken out of an organization loses access on the next request with every
credential they hold (Hub token, Xet read and write tokens, signed xorb URLs); a Xet token reads
only what its own repository references; a xorb upload answers the same whether or not another
repository holds the xorb, and storing it for one repository changes nothing for another. The
objects are a real hf_xet 1.8.0 upload (tests/unit/xet/data/upload); the last test uses the
official huggingface_hub client."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_xet_hostile import FILES, SHARD, XORB, XORB_HASH, cas, create_repo, request, xet_token  # noqa: E402

XORB_BYTES = XORB.read_bytes()


def commit_xet_file(hub, token, repo, private_path="text.bin"):
    """Commits FILES[0] (already recorded by a shard for `repo`) by its SHA-256."""
    info = FILES[0]
    payload = "\n".join(json.dumps(line) for line in [
        {"key": "header", "value": {"summary": "xet file"}},
        {"key": "lfsFile", "value": {"path": private_path, "algo": "sha256", "oid": info["sha256"], "size": info["size"]}}])
    status, _, body = request(f"{hub.url}/api/models/{repo}/commit/main", "POST", token, payload.encode(),
                              {"Content-Type": "application/x-ndjson"})
    assert status == 200, body


def remove_from_org(hub, user, org):
    subprocess.run([str(hub.binary), "user", "remove-org", user, "--org", org, "--root", str(hub.root)], check=True,
                   capture_output=True)


def file_ids(hub):
    return [p.name for p in (hub.root / "xet" / "files").rglob("*") if p.is_file()]


@pytest.fixture
def acme(hub):
    """Org acme with members alice and bob; acme/priv (private) holding a file uploaded through Xet."""
    hub.add_org("acme")
    alice = hub.add_user("alice", "acme")
    bob = hub.add_user("bob", "acme")
    create_repo(hub, alice, "acme/priv", private=True)
    _, write = xet_token(hub, alice, "acme/priv")
    assert cas(write, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB_BYTES)[0] == 200
    assert cas(write, "POST", "/v1/shards", SHARD)[0] == 200
    commit_xet_file(hub, alice, "acme/priv")
    return hub, alice, bob


def test_a_member_taken_out_of_the_org_loses_every_credential_on_the_next_request(acme):
    hub, alice, bob = acme
    status, read = xet_token(hub, bob, "acme/priv", "read")
    assert status == 200
    status, write = xet_token(hub, bob, "acme/priv", "write")
    assert status == 200
    file_id = next(f for f in file_ids(hub))
    status, _, body = cas(read, "GET", f"/v1/reconstructions/{file_id}")
    assert status == 200
    fetch = next(iter(json.loads(body)["fetch_info"].values()))[0]
    data_url, first, last = fetch["url"], fetch["url_range"]["start"], fetch["url_range"]["end"]
    assert request(data_url, "GET", headers={"Range": f"bytes={first}-{last}"})[0] == 206
    assert cas(write, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB_BYTES)[0] == 200
    resolve = f"{hub.url}/acme/priv/resolve/main/text.bin"
    assert request(resolve, "GET", bob)[0] == 200

    remove_from_org(hub, "bob", "acme")

    # The very next request of each kind is refused; nothing waits for a token to expire.
    assert request(resolve, "GET", bob)[0] == 404
    assert cas(read, "GET", f"/v1/reconstructions/{file_id}")[0] == 401
    assert cas(read, "HEAD", f"/v1/xorbs/default/{XORB_HASH}")[0] == 401
    assert cas(write, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB_BYTES)[0] == 401
    assert cas(write, "POST", "/v1/shards", SHARD)[0] == 401
    assert request(data_url, "GET", headers={"Range": f"bytes={first}-{last}"})[0] == 403
    assert xet_token(hub, bob, "acme/priv", "read")[0] == 404
    # alice, still a member, is unaffected.
    _, alice_read = xet_token(hub, alice, "acme/priv", "read")
    assert cas(alice_read, "GET", f"/v1/reconstructions/{file_id}")[0] == 200


def test_a_write_token_needs_write_access_as_it_is_now(acme):
    """Public repository: bob keeps reading after leaving acme, but his write token stops writing."""
    hub, alice, bob = acme
    create_repo(hub, alice, "acme/pub")
    status, write = xet_token(hub, bob, "acme/pub", "write")
    assert status == 200
    assert cas(write, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB_BYTES)[0] == 200
    remove_from_org(hub, "bob", "acme")
    assert cas(write, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB_BYTES)[0] == 401
    assert xet_token(hub, bob, "acme/pub", "write")[0] == 403
    assert xet_token(hub, bob, "acme/pub", "read")[0] == 200


def test_a_xet_token_reads_only_what_its_repository_references(acme):
    """alice may read acme/priv, but a token for her other repository does not reach its objects."""
    hub, alice, _ = acme
    create_repo(hub, alice, "alice/other")
    status, other = xet_token(hub, alice, "alice/other", "read")
    assert status == 200
    chunks = [p.name for p in (hub.root / "xet" / "chunks").rglob("*") if p.is_file()]
    for file_id in file_ids(hub):
        assert cas(other, "GET", f"/v1/reconstructions/{file_id}")[0] == 404
        assert cas(other, "HEAD", f"/v1/files/{file_id}")[0] == 404
    assert cas(other, "HEAD", f"/v1/xorbs/default/{XORB_HASH}")[0] == 404
    assert cas(other, "GET", f"/v1/chunks/default-merkledb/{chunks[0]}")[0] == 404
    _, own = xet_token(hub, alice, "acme/priv", "read")
    assert cas(own, "HEAD", f"/v1/xorbs/default/{XORB_HASH}")[0] == 200
    # A signed xorb URL is bound to the repository it was handed out for.
    status, _, body = cas(own, "GET", f"/v1/reconstructions/{file_ids(hub)[0]}")
    fetch = next(iter(json.loads(body)["fetch_info"].values()))[0]
    url, first, last = fetch["url"], fetch["url_range"]["start"], fetch["url_range"]["end"]
    moved = url.replace("repo=models/acme/priv", "repo=models/alice/other")
    assert request(moved, "GET", headers={"Range": f"bytes={first}-{last}"})[0] == 403
    assert request(url, "GET", headers={"Range": f"bytes={first}-{last}"})[0] == 206


def test_a_xorb_upload_is_no_oracle_and_moves_no_ownership(acme):
    """mallory uploads the xorb that acme/priv holds: the answer is the one for a new xorb, and
    nothing of acme/priv becomes hers."""
    hub, alice, _ = acme
    mallory = hub.add_user("mallory")
    create_repo(hub, mallory, "mallory/probe")
    owned_priv = (hub.root / "repos" / "models" / "acme" / "priv" / "owned").read_text()
    _, grant = xet_token(hub, mallory, "mallory/probe")
    status, _, body = cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB_BYTES)
    assert status == 200 and json.loads(body) == {"was_inserted": True}, body
    status, _, body = cas(grant, "POST", f"/v1/xorbs/default/{XORB_HASH}", XORB_BYTES)
    assert status == 200 and json.loads(body) == {"was_inserted": False}, body
    # acme/priv owns what it owned, no more, no less; its files are not mallory's.
    assert (hub.root / "repos" / "models" / "acme" / "priv" / "owned").read_text() == owned_priv
    _, probe_read = xet_token(hub, mallory, "mallory/probe", "read")
    for file_id in file_ids(hub):
        assert cas(probe_read, "GET", f"/v1/reconstructions/{file_id}")[0] == 404
    status, _, body = request(f"{hub.url}/api/models/mallory/probe/commit/main", "POST", mallory,
                              "\n".join(json.dumps(line) for line in [
                                  {"key": "header", "value": {"summary": "steal"}},
                                  {"key": "lfsFile", "value": {"path": "s", "algo": "sha256",
                                                               "oid": FILES[0]["sha256"], "size": FILES[0]["size"]}}]
                                        ).encode(), {"Content-Type": "application/x-ndjson"})
    assert status == 422, body
    # Deleting mallory's repository leaves acme/priv's file whole.
    status, _, body = request(f"{hub.url}/api/repos/delete", "DELETE", mallory,
                              json.dumps({"name": "mallory/probe", "type": "model"}).encode(),
                              {"Content-Type": "application/json"})
    assert status == 200, body
    status, _, data = request(f"{hub.url}/acme/priv/resolve/main/text.bin", "GET", alice)
    assert status == 200 and len(data) == FILES[0]["size"]


def test_the_official_client_of_a_removed_member_gets_not_found(acme, tmp_path):
    """huggingface_hub with bob's token: downloads the private file, then after bob leaves acme
    the same call fails with RepositoryNotFoundError."""
    hub, _, bob = acme
    script = (
        "import sys, huggingface_hub as hf\n"
        "from huggingface_hub.errors import RepositoryNotFoundError\n"
        "try:\n"
        "    path = hf.hf_hub_download('acme/priv', 'text.bin', cache_dir=sys.argv[1])\n"
        "    print('ok', open(path, 'rb').read().__len__())\n"
        "except RepositoryNotFoundError:\n"
        "    print('not found')\n")
    env = {"HF_ENDPOINT": hub.url, "HF_TOKEN": bob, "HF_HOME": str(tmp_path / "home"), "HF_HUB_DISABLE_TELEMETRY": "1",
           "HF_HUB_DISABLE_XET": "1", "PATH": "/usr/bin:/bin"}

    def run(cache):
        out = subprocess.run([sys.executable, "-c", script, str(tmp_path / cache)], env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stdout.strip().splitlines()[-1]

    assert run("before") == f"ok {FILES[0]['size']}"
    remove_from_org(hub, "bob", "acme")
    assert run("after") == "not found"


def test_an_upload_url_stops_working_when_its_user_leaves_the_org(acme):
    """An LFS upload URL (a ticket valid for an hour) of a member taken out of the org uploads nothing."""
    hub, _, bob = acme
    data = b"\x00bob's late upload\x00" * 100
    oid = __import__("hashlib").sha256(data).hexdigest()
    body = json.dumps({"operation": "upload", "transfers": ["basic"], "hash_algo": "sha256",
                       "objects": [{"oid": oid, "size": len(data)}], "ref": {"name": "main"}}).encode()
    status, _, answer = request(f"{hub.url}/acme/priv.git/info/lfs/objects/batch", "POST", bob, body,
                                {"Content-Type": "application/vnd.git-lfs+json"})
    assert status == 200, answer
    href = json.loads(answer)["objects"][0]["actions"]["upload"]["href"]
    remove_from_org(hub, "bob", "acme")
    status, _, answer = request(href, "PUT", body=data, headers={"Content-Length": str(len(data))})
    assert status == 403, answer
    assert not (hub.root / "objects" / oid[:2] / oid).exists()
