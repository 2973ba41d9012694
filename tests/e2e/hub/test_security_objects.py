"""Attacks on kernel-hub's object store (docs/hub-security.md, "Objects are scoped to repositories"
and "Limits"): reading private files by hash, lying about sizes, abusing upload tickets and
exceeding the service limits."""
import os
import sys
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import attacker  # noqa: E402
from attacker import SECRET, error_of, file_op, lfs_op, serve, sha256, world  # noqa: E402,F401

NEVER_UPLOADED = sha256(b"no such body was ever uploaded anywhere")


def assert_not_uploaded_refusal(response, oid, path, repo):
    assert response.status_code == 422, (response.status_code, response.text)
    message = error_of(response)
    assert oid in message and path in message and repo in message, message


# --- 1. private objects are not readable by hash ----------------------------------------------------

@pytest.mark.parametrize("repo_type", ["model", "kernel"])
def test_outsider_cannot_commit_a_private_object_by_hash(world, repo_type):
    mallory = world.mallory
    assert mallory.create_repo("mallory/loot", repo_type=repo_type).status_code == 200
    head = mallory.head("mallory/loot", repo_type)
    stolen = mallory.commit("mallory/loot", [lfs_op("s", world.secret_oid, len(SECRET))], repo_type)
    assert_not_uploaded_refusal(stolen, world.secret_oid, "s", "mallory/loot")
    # The same answer as for a hash that exists nowhere: the refusal tells nothing.
    nowhere = mallory.commit("mallory/loot", [lfs_op("s", NEVER_UPLOADED, len(SECRET))], repo_type)
    assert nowhere.status_code == stolen.status_code
    assert error_of(nowhere).replace(NEVER_UPLOADED, "<oid>") == error_of(stolen).replace(world.secret_oid, "<oid>")
    # Nothing was committed and the file is served to nobody.
    assert mallory.head("mallory/loot", repo_type) == head
    for who in (world.anonymous, mallory):
        answer = who.resolve("mallory/loot", "s", repo_type)
        assert answer.status_code == 404
        assert SECRET not in answer.content
    world.server.assert_alive()


def test_outsider_cannot_read_a_private_commit_through_own_repo(world):
    """A commit id of acme/priv is no revision of mallory's repo."""
    private_head = world.alice.head("acme/priv")
    assert world.mallory.create_repo("mallory/peek").status_code == 200
    for who in (world.mallory, world.anonymous):
        answer = who.resolve("mallory/peek", "secret.txt", revision=private_head)
        assert answer.status_code == 404 and SECRET not in answer.content, answer.text
        listing = who.tree("mallory/peek", revision=private_head)
        assert listing.status_code == 404 and "secret.txt" not in listing.text, listing.text
        bulk = who.get(f"/api/models/mallory/peek/bulk/{private_head}")
        assert bulk.status_code == 404 and SECRET not in bulk.content


def test_outsider_cannot_smuggle_a_private_object_in_among_valid_operations(world):
    mallory = world.mallory
    assert mallory.create_repo("mallory/loot").status_code == 200
    answer = mallory.commit("mallory/loot", [file_op("ok.txt", b"fine"), lfs_op("s", world.secret_oid, len(SECRET))])
    assert answer.status_code == 422, answer.text
    assert "ok.txt" not in mallory.files("mallory/loot")
    assert world.anonymous.resolve("mallory/loot", "s").status_code == 404


def test_outsider_with_a_token_of_another_org_cannot_steal_either(world):
    bob = world.bob
    assert bob.create_repo("other/loot").status_code == 200
    answer = bob.commit("other/loot", [lfs_op("s", world.secret_oid, len(SECRET))])
    assert_not_uploaded_refusal(answer, world.secret_oid, "s", "other/loot")
    assert SECRET not in bob.resolve("other/loot", "s").content


def test_batch_answer_does_not_say_whether_a_foreign_object_exists(world):
    mallory = world.mallory
    assert mallory.create_repo("mallory/probe").status_code == 200
    known = mallory.batch_entry("mallory/probe", world.secret_oid, len(SECRET))
    unknown = mallory.batch_entry("mallory/probe", NEVER_UPLOADED, len(SECRET))
    assert "upload" in unknown.get("actions", {}), unknown
    assert "upload" in known.get("actions", {}), known
    assert "error" not in known
    assert set(known) == set(unknown)


def test_uploading_garbage_under_a_foreign_hash_does_not_give_it_away(world):
    """Mallory gets a ticket for the secret's hash but has only wrong bytes of the right size."""
    mallory = world.mallory
    assert mallory.create_repo("mallory/probe").status_code == 200
    entry = mallory.batch_entry("mallory/probe", world.secret_oid, len(SECRET))
    put = attacker.put_body(entry["actions"]["upload"]["href"], b"x" * len(SECRET))
    assert 400 <= put.status_code < 500, put.text
    answer = mallory.commit("mallory/probe", [lfs_op("s", world.secret_oid, len(SECRET))])
    assert answer.status_code == 422, answer.text
    assert SECRET not in world.anonymous.resolve("mallory/probe", "s").content


def test_inline_content_of_a_private_repo_is_not_referencable_by_hash(world):
    """Inline `file` content lands in the same object store: its sha256 must not open it either."""
    inline = b"inline private content of acme\n"
    assert world.alice.commit("acme/priv", [file_op("inline.txt", inline)]).status_code == 200
    assert world.mallory.create_repo("mallory/inl").status_code == 200
    answer = world.mallory.commit("mallory/inl", [lfs_op("i", sha256(inline), len(inline))])
    assert_not_uploaded_refusal(answer, sha256(inline), "i", "mallory/inl")
    assert inline not in world.anonymous.resolve("mallory/inl", "i").content


def test_batch_download_operation_hands_out_nothing(world):
    assert world.mallory.create_repo("mallory/dl").status_code == 200
    body = {"operation": "download", "transfers": ["basic"], "hash_algo": "sha256",
            "objects": [{"oid": world.secret_oid, "size": len(SECRET)}]}
    answer = world.mallory.batch_raw("mallory/dl", body)
    assert answer.status_code == 400, answer.text
    assert "operation" in error_of(answer)
    assert "href" not in answer.text


def test_member_may_reference_an_object_of_a_private_repo_of_their_org(world):
    alice = world.alice
    assert alice.create_repo("acme/other", private=True).status_code == 200
    answer = alice.commit("acme/other", [lfs_op("copy.txt", world.secret_oid, len(SECRET))])
    assert answer.status_code == 200, answer.text
    got = alice.resolve("acme/other", "copy.txt")
    assert got.status_code == 200 and got.content == SECRET


def test_anyone_may_reference_an_object_of_a_public_repo(world):
    mallory = world.mallory
    assert mallory.create_repo("mallory/fork").status_code == 200
    answer = mallory.commit("mallory/fork", [lfs_op("pub.bin", world.public_oid, len(world.public_data))])
    assert answer.status_code == 200, answer.text
    got = world.anonymous.resolve("mallory/fork", "pub.bin")
    assert got.status_code == 200 and got.content == world.public_data
    # Now owned by mallory/fork too: it stays committable there.
    again = mallory.commit("mallory/fork", [lfs_op("again.bin", world.public_oid, len(world.public_data))])
    assert again.status_code == 200, again.text


def test_recommitting_an_object_of_the_same_repo_works(world):
    answer = world.alice.commit("acme/priv", [lfs_op("dir/secret-again.txt", world.secret_oid, len(SECRET))])
    assert answer.status_code == 200, answer.text
    assert world.alice.resolve("acme/priv", "dir/secret-again.txt").content == SECRET


def test_same_bytes_uploaded_for_two_repos_are_stored_once(world):
    data = os.urandom(3000)
    oid = sha256(data)
    assert world.alice.create_repo("acme/a", private=True).status_code == 200
    assert world.mallory.create_repo("mallory/b", private=True).status_code == 200
    assert world.alice.upload("acme/a", data) == oid
    # Mallory cannot read acme/a: she must upload the bytes herself, and may.
    entry = world.mallory.batch_entry("mallory/b", oid, len(data))
    assert "upload" in entry.get("actions", {}), entry
    assert world.mallory.upload("mallory/b", data) == oid
    for actor, repo in ((world.alice, "acme/a"), (world.mallory, "mallory/b")):
        answer = actor.commit(repo, [lfs_op("d.bin", oid, len(data))])
        assert answer.status_code == 200, answer.text
        assert actor.resolve(repo, "d.bin").content == data
    assert world.server.stored_objects().count(oid) == 1


def test_a_ticket_of_one_repo_does_not_make_the_object_owned_by_another(world):
    """Mallory uploads through a ticket of her private repo; alice (who cannot read it) cannot
    reference the object from hers, so the upload was bound to mallory/a only."""
    data = os.urandom(2000)
    assert world.mallory.create_repo("mallory/a", private=True).status_code == 200
    oid = world.mallory.upload("mallory/a", data)
    assert world.alice.create_repo("acme/b").status_code == 200
    answer = world.alice.commit("acme/b", [lfs_op("x.bin", oid, len(data))])
    assert_not_uploaded_refusal(answer, oid, "x.bin", "acme/b")
    # Committing it in mallory/a itself works (the upload is owned there).
    ok = world.mallory.commit("mallory/a", [lfs_op("x.bin", oid, len(data))])
    assert ok.status_code == 200, ok.text


def test_an_uploaded_but_uncommitted_object_of_a_private_repo_stays_private(world):
    data = os.urandom(1000)
    oid = world.alice.upload("acme/priv", data)
    assert world.mallory.create_repo("mallory/c").status_code == 200
    answer = world.mallory.commit("mallory/c", [lfs_op("x", oid, len(data))])
    assert_not_uploaded_refusal(answer, oid, "x", "mallory/c")


# --- 2. declared sizes ---------------------------------------------------------------------------

@pytest.mark.parametrize("delta", [-1, +1, -1000, +10**9])
def test_declared_lfs_size_must_equal_the_stored_size(world, delta):
    data = os.urandom(1500)
    oid = world.alice.upload("acme/pub", data)
    declared = len(data) + delta
    answer = world.alice.commit("acme/pub", [lfs_op("sized.bin", oid, declared)])
    assert answer.status_code == 422, answer.text
    message = error_of(answer)
    assert str(declared) in message and str(len(data)) in message, message
    assert world.anonymous.resolve("acme/pub", "sized.bin").status_code == 404
    world.server.assert_alive()


def test_correct_size_is_served_whole_under_its_etag(world):
    data = os.urandom(1500)
    oid = world.alice.upload("acme/pub", data)
    assert world.alice.commit("acme/pub", [lfs_op("sized.bin", oid, len(data))]).status_code == 200
    got = world.anonymous.resolve("acme/pub", "sized.bin")
    assert got.content == data and got.headers["ETag"].strip('"') == oid
    assert int(got.headers["Content-Length"]) == len(data)


# --- 3. upload tickets and limits ----------------------------------------------------------------

@pytest.mark.parametrize("size", ["18446744073709551616", "9223372036854775808", "-1", "1e30", "1.5", '"12"',
                                  "null", "true"])
def test_batch_refuses_sizes_outside_the_integer_range(world, size):
    oid = sha256(b"whatever")
    body = ('{"operation": "upload", "transfers": ["basic"], "hash_algo": "sha256", '
            '"objects": [{"oid": "%s", "size": %s}]}' % (oid, size))
    answer = world.alice.batch_raw("acme/pub", body)
    assert answer.status_code == 400, answer.text
    assert "size" in error_of(answer), error_of(answer)
    world.server.assert_alive()


def test_largest_valid_size_gets_a_per_object_413_not_a_ticket(world):
    entry = world.alice.batch_entry("acme/pub", sha256(b"huge"), 2**63 - 1)
    assert "actions" not in entry, entry
    assert entry["error"]["code"] == 413, entry


def test_max_file_size_is_a_per_object_413(serve):
    server = serve("--max-file-size", "1M")
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/r").status_code == 200
    too_big = sha256(b"a")
    fits = sha256(b"b")
    answer = alice.batch("acme/r", [{"oid": too_big, "size": 1024 * 1024 + 1}, {"oid": fits, "size": 1024 * 1024}])
    assert answer.status_code == 200, answer.text
    first, second = answer.json()["objects"]
    assert first["error"]["code"] == 413 and "actions" not in first, first
    assert "upload" in second.get("actions", {}), second


def test_max_file_size_applies_to_inline_content(serve):
    server = serve("--max-file-size", "1K")
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/r").status_code == 200
    answer = alice.commit("acme/r", [file_op("big.txt", b"y" * 1025)])
    assert answer.status_code == 413, answer.text
    assert "big.txt" not in alice.files("acme/r")
    ok = alice.commit("acme/r", [file_op("small.txt", b"y" * 1024)])
    assert ok.status_code == 200, ok.text


def test_max_files_per_commit(serve):
    server = serve("--max-files-per-commit", "5")
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/r").status_code == 200
    head = alice.head("acme/r")
    answer = alice.commit("acme/r", [file_op(f"f{i}.txt", b"%d" % i) for i in range(6)])
    assert answer.status_code == 413, answer.text
    assert alice.head("acme/r") == head
    ok = alice.commit("acme/r", [file_op(f"f{i}.txt", b"%d" % i) for i in range(5)])
    assert ok.status_code == 200, ok.text


def refused_by_quota(actor, repo, data) -> bool:
    """True when the upload of `data` is refused with 413 (per-object in batch, or on PUT)."""
    entry = actor.batch_entry(repo, sha256(data), len(data))
    if "error" in entry:
        assert entry["error"]["code"] == 413, entry
        return True
    put = attacker.put_body(entry["actions"]["upload"]["href"], data)
    if put.status_code == 413:
        return True
    assert put.status_code == 200, put.text
    return False


def test_quota_is_per_user(serve):
    server = serve("--max-file-size", "1M", "--quota", "2M")
    server.add_org("acme")
    server.add_org("other")
    alice = server.actor(server.add_user("alice", "acme"))
    bob = server.actor(server.add_user("bob", "other"))
    assert alice.create_repo("acme/r").status_code == 200
    assert bob.create_repo("other/r").status_code == 200
    chunks = [os.urandom(900 * 1024) for _ in range(3)]
    assert not refused_by_quota(alice, "acme/r", chunks[0])
    assert not refused_by_quota(alice, "acme/r", chunks[1])
    assert refused_by_quota(alice, "acme/r", chunks[2])
    assert sha256(chunks[2]) not in server.stored_objects()
    # Another user is unaffected.
    assert not refused_by_quota(bob, "other/r", os.urandom(900 * 1024))
    # Re-using what alice already stored costs nothing and still works.
    answer = alice.commit("acme/r", [lfs_op("c0", sha256(chunks[0]), len(chunks[0]))])
    assert answer.status_code == 200, answer.text


def test_quota_is_enforced_on_put_for_tickets_issued_before(serve):
    """Two tickets issued while the quota still had room: the second PUT is over it: 413."""
    server = serve("--max-file-size", "1M", "--quota", "1M")
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/r").status_code == 200
    first, second = os.urandom(700 * 1024), os.urandom(700 * 1024)
    answer = alice.batch("acme/r", [{"oid": sha256(first), "size": len(first)},
                                    {"oid": sha256(second), "size": len(second)}])
    assert answer.status_code == 200, answer.text
    entries = answer.json()["objects"]
    assert all("actions" in e for e in entries), entries
    assert attacker.put_body(entries[0]["actions"]["upload"]["href"], first).status_code == 200
    late = attacker.put_body(entries[1]["actions"]["upload"]["href"], second)
    assert late.status_code == 413, late.text
    assert sha256(second) not in server.stored_objects()
    assert server.temp_files() == []


def test_inline_content_counts_against_the_quota(serve):
    server = serve("--max-file-size", "1M", "--quota", "1M")
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/r").status_code == 200
    assert alice.commit("acme/r", [file_op("a.bin", os.urandom(700 * 1024))]).status_code == 200
    over = alice.commit("acme/r", [file_op("b.bin", os.urandom(700 * 1024))])
    assert over.status_code == 413, over.text
    assert "b.bin" not in alice.files("acme/r")


def ticket_for(world, data):
    entry = world.alice.batch_entry("acme/pub", sha256(data), len(data))
    return entry["actions"]["upload"]["href"]


@pytest.mark.parametrize("sent", [99, 101, 0, 5000])
def test_put_of_another_length_than_the_ticket_is_refused(world, sent):
    data = os.urandom(100)
    href = ticket_for(world, data)
    before = world.server.stored_objects()
    body = (data * 60)[:sent]
    answer = attacker.put_body(href, body)
    assert 400 <= answer.status_code < 500, answer.text
    assert world.server.stored_objects() == before
    assert world.server.temp_files() == []
    world.server.assert_alive()


@pytest.mark.parametrize("sent", [99, 101, 100000])
def test_chunked_put_of_another_length_is_refused(world, sent):
    """Without a Content-Length the body is counted as it arrives."""
    data = os.urandom(100)
    href = ticket_for(world, data)
    before = world.server.stored_objects()
    body = (data * 1001)[:sent]

    def chunks():
        for i in range(0, len(body), 37):
            yield body[i:i + 37]
    try:
        answer = httpx.put(href, content=chunks(), timeout=attacker.TIMEOUT)
        assert 400 <= answer.status_code < 500, answer.text
    except httpx.TransportError:
        pass  # cut off at the first byte beyond the ticket's size: also a refusal
    assert world.server.stored_objects() == before
    assert world.server.temp_files() == []
    world.server.assert_alive()


def test_put_of_wrong_bytes_is_refused_and_nothing_is_stored(world):
    data = os.urandom(100)
    href = ticket_for(world, data)
    before = world.server.stored_objects()
    wrong = os.urandom(100)
    answer = attacker.put_body(href, wrong)
    assert 400 <= answer.status_code < 500, answer.text
    assert world.server.stored_objects() == before
    assert sha256(wrong) not in world.server.stored_objects()
    assert world.server.temp_files() == []
    commit = world.alice.commit("acme/pub", [lfs_op("w.bin", sha256(data), 100)])
    assert commit.status_code == 422, commit.text


def test_a_ticket_accepts_one_body_only(world):
    data = os.urandom(100)
    href = ticket_for(world, data)
    assert attacker.put_body(href, data).status_code == 200
    again = attacker.put_body(href, data)
    assert 400 <= again.status_code < 500, again.text


def test_a_ticket_is_bound_to_its_hash(world):
    """A ticket for object A cannot store object B, even of the same size."""
    data = os.urandom(100)
    other = os.urandom(100)
    href = ticket_for(world, data)
    answer = attacker.put_body(href, other)
    assert 400 <= answer.status_code < 500, answer.text
    commit = world.alice.commit("acme/pub", [lfs_op("o.bin", sha256(other), 100)])
    assert commit.status_code == 422, commit.text


def test_forged_ticket_is_refused(world):
    href = ticket_for(world, b"z" * 10)
    forged = href[:-8] + "00000000"
    answer = attacker.put_body(forged, b"z" * 10)
    assert answer.status_code in (403, 404), answer.text
