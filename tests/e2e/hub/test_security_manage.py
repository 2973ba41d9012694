"""Attacks on kernel-hub's repository management and pull requests (docs/hub-security.md, "Who
may change a repository"): deleting, tagging, re-configuring or writing someone else's
repository or pull request, downloading a gated repository, and deletion losing objects that
another repository still owns."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import attacker  # noqa: E402
from attacker import SECRET, error_of, file_op, lfs_op, serve, sha256, world  # noqa: E402,F401


def delete_repo(actor, repo_id, repo_type="model"):
    namespace, name = repo_id.split("/")
    return actor.request("DELETE", "/api/repos/delete", json={"name": name, "organization": namespace, "type": repo_type})


def manage_requests(repo_id):
    """Every management request a member may send, as (method, path, json)."""
    return [
        ("DELETE", f"/api/models/{repo_id}/branch/dev", None),
        ("POST", f"/api/models/{repo_id}/tag/main", {"tag": "pwned"}),
        ("DELETE", f"/api/models/{repo_id}/tag/v1", None),
        ("PUT", f"/api/models/{repo_id}/settings", {"private": True}),
        ("POST", f"/api/models/{repo_id}/branch/evil", {}),
    ]


@pytest.fixture
def managed(world):
    alice = world.alice
    assert alice.create_branch("acme/pub", "dev").status_code == 200
    assert alice.post("/api/models/acme/pub/tag/main", json={"tag": "v1"}).status_code == 200
    return world


def refs_of(actor, repo_id):
    body = actor.get(f"/api/models/{repo_id}/refs").json()
    return sorted(b["name"] for b in body["branches"]), sorted(t["name"] for t in body["tags"])


def test_outsiders_cannot_manage_a_public_repository(managed):
    world = managed
    before = refs_of(world.alice, "acme/pub")
    for who, status in ((world.mallory, 403), (world.bob, 403), (world.anonymous, 401)):
        for method, path, body in manage_requests("acme/pub"):
            answer = who.request(method, path, json=body)
            assert answer.status_code == status, (method, path, answer.status_code, answer.text)
        answer = delete_repo(who, "acme/pub")
        assert answer.status_code == status, answer.text
    assert refs_of(world.alice, "acme/pub") == before
    info = world.anonymous.get("/api/models/acme/pub").json()
    assert info["private"] is False
    assert world.anonymous.resolve("acme/pub", "pub.bin").status_code == 200
    world.server.assert_alive()


def test_a_private_repository_stays_invisible_to_management_requests(world):
    for who, status in ((world.mallory, 404), (world.anonymous, 401)):
        for method, path, body in manage_requests("acme/priv"):
            answer = who.request(method, path, json=body)
            assert answer.status_code == status, (method, path, answer.text)
            assert answer.headers.get("X-Error-Code") == "RepoNotFound"
        # Deleting: the same answer as for a repository that does not exist.
        answer, missing = delete_repo(who, "acme/priv"), delete_repo(who, "acme/no-such-repo")
        assert answer.status_code == missing.status_code == status
        assert error_of(answer).replace("priv", "<r>") == error_of(missing).replace("no-such-repo", "<r>")
    assert world.alice.resolve("acme/priv", "secret.txt").content == SECRET


def test_main_cannot_be_deleted_even_by_a_member(world):
    answer = world.alice.request("DELETE", "/api/models/acme/pub/branch/main")
    assert answer.status_code == 403
    assert world.alice.head("acme/pub")


def test_pull_request_refs_are_writable_by_their_author_and_members_only(world):
    mallory, bob, alice = world.mallory, world.bob, world.alice
    main_head = alice.head("acme/pub")
    # An outsider cannot write main, but may open a pull request.
    assert mallory.commit("acme/pub", [file_op("x.txt", b"x")]).status_code == 403
    opened = mallory.commit("acme/pub", [file_op("x.txt", b"mallory's\n")], params={"create_pr": "1"})
    assert opened.status_code == 200, opened.text
    assert opened.json()["pullRequestUrl"].endswith("/acme/pub/discussions/1")
    assert alice.head("acme/pub") == main_head
    # The author writes to it; another outsider cannot, a member can.
    assert mallory.commit("acme/pub", [file_op("y.txt", b"y")], revision="refs/pr/1").status_code == 200
    hijack = bob.commit("acme/pub", [file_op("x.txt", b"bob's\n")], revision="refs/pr/1")
    assert hijack.status_code == 403, hijack.text
    assert bob.preupload("acme/pub", [{"path": "x.txt", "size": 1, "sample": ""}], revision="refs/pr/1").status_code == 403
    assert world.anonymous.commit("acme/pub", [file_op("x.txt", b"a")], revision="refs/pr/1").status_code == 401
    assert alice.commit("acme/pub", [file_op("z.txt", b"z")], revision="refs/pr/1").status_code == 200
    assert alice.resolve("acme/pub", "x.txt", revision="refs/pr/1").content == b"mallory's\n"
    # A pull request of a private repository cannot be opened by outsiders (it reads as missing).
    private = mallory.commit("acme/priv", [file_op("x.txt", b"x")], params={"create_pr": "1"})
    assert private.status_code == 404 and private.headers.get("X-Error-Code") == "RepoNotFound"
    # Someone else's discussion number is no pull request to write to.
    assert mallory.post("/api/models/acme/pub/discussions", json={"title": "q", "description": "",
                                                                   "pullRequest": False}).status_code == 200
    assert mallory.commit("acme/pub", [file_op("w", b"w")], revision="refs/pr/2").status_code == 403


def test_gated_files_are_for_members_only(world):
    alice = world.alice
    assert alice.request("PUT", "/api/models/acme/pub/settings", json={"gated": "manual"}).status_code == 200
    for who, status in ((world.mallory, 403), (world.anonymous, 401)):
        answer = who.resolve("acme/pub", "pub.bin")
        assert answer.status_code == status and answer.headers["X-Error-Code"] == "GatedRepo", answer.text
        assert who.get("/api/models/acme/pub/bulk/main").status_code == status
        assert who.get("/api/models/acme/pub").json()["gated"] == "manual"  # metadata stays readable
    assert alice.resolve("acme/pub", "pub.bin").status_code == 200
    bad = alice.request("PUT", "/api/models/acme/pub/settings", json={"gated": "sometimes"})
    assert bad.status_code == 400 and "gated" in error_of(bad)


def test_deleting_a_repository_keeps_objects_another_repository_owns(world):
    alice = world.alice
    shared, only = b"shared between two repositories\n" * 100, b"only in the doomed repository\n" * 100
    for repo in ("acme/keep", "acme/doomed"):
        assert alice.create_repo(repo).status_code == 200
    shared_oid = alice.upload("acme/keep", shared)
    assert alice.commit("acme/keep", [lfs_op("shared.bin", shared_oid, len(shared))]).status_code == 200
    assert alice.upload("acme/doomed", shared) == shared_oid
    only_oid = alice.upload("acme/doomed", only)
    ops = [lfs_op("shared.bin", shared_oid, len(shared)), lfs_op("only.bin", only_oid, len(only))]
    assert alice.commit("acme/doomed", ops).status_code == 200
    assert delete_repo(alice, "acme/doomed").status_code == 200
    assert only_oid not in world.server.stored_objects()
    assert shared_oid in world.server.stored_objects()
    assert alice.resolve("acme/keep", "shared.bin").content == shared
    assert alice.get("/api/models/acme/doomed").status_code == 404
    # The name is free again, and the deleted repository's objects are not reachable through it.
    assert alice.create_repo("acme/doomed").status_code == 200
    refused = alice.commit("acme/doomed", [lfs_op("only.bin", only_oid, len(only))])
    assert refused.status_code == 422, refused.text


def test_deleting_a_repository_gives_its_bytes_back_to_the_quota(serve):
    # 5 KiB: two repositories' records (about 700 bytes each with the first commit), a commit and
    # one 2 KiB file fit; a second 2 KiB file does not.
    server = serve("--quota", "5K")
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/a").status_code == 200
    first = b"a" * 2048
    oid = alice.upload("acme/a", first)
    assert alice.commit("acme/a", [lfs_op("a.bin", oid, len(first))]).status_code == 200
    assert alice.create_repo("acme/b").status_code == 200
    second = b"b" * 2048
    entry = alice.batch_entry("acme/b", sha256(second), len(second))
    assert entry["error"]["code"] == 413  # about 4 KiB used of 5 KiB
    assert delete_repo(alice, "acme/a").status_code == 200
    assert "error" not in alice.batch_entry("acme/b", sha256(second), len(second))
    alice.upload("acme/b", second)
    server.assert_alive()
