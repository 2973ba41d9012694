"""Attacks with malformed request bodies (docs/hub-security.md, "Request bodies"): wrong JSON
types, missing fields, non-JSON and deeply nested JSON on every write route. Each must be a 400
naming the field — never a 500, never a crash — and must change nothing."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import attacker  # noqa: E402
from attacker import error_of, sha256  # noqa: E402

OID = sha256(b"body attack object")
DEEP_OPEN = "[" * 100000
DEEP_BALANCED = "[" * 100000 + "]" * 100000
DEEP_OBJECT = '{"a":' * 50000 + "1" + "}" * 50000


@pytest.fixture(scope="module")
def bodies_world(kernel_hub, tmp_path_factory):
    server = attacker.Server(kernel_hub, tmp_path_factory.mktemp("bodies") / "root")
    world = attacker.World(server)
    yield world
    server.stop()


def check_refused(world, answer, field):
    assert answer.status_code == 400, (answer.status_code, answer.text)
    if field is not None:
        assert field in error_of(answer), error_of(answer)
    world.server.assert_alive()


def raw(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


# --- create repo ---------------------------------------------------------------------------------

CREATE = [
    ("name-int", {"name": 7}, "name"),
    ("name-missing", {"type": "model"}, "name"),
    ("name-null", {"name": None}, "name"),
    ("private-string", {"name": "p1", "private": "yes"}, "private"),
    ("private-int", {"name": "p2", "private": 1}, "private"),
    ("type-int", {"name": "p3", "type": 5}, "type"),
    ("organization-int", {"name": "p4", "organization": 5}, "organization"),
    ("visibility-int", {"name": "p5", "visibility": 5}, "visibility"),
    ("array", ["name", "x"], None),
    ("string", '"acme/x"', None),
    ("not-json", "name=acme/x", None),
    ("truncated", '{"name": "acme/x"', None),
    ("empty", "", None),
    ("deep-open", DEEP_OPEN, None),
    ("deep-balanced", DEEP_BALANCED, None),
    ("deep-object", DEEP_OBJECT, None),
]


@pytest.mark.parametrize("name,body,field", CREATE, ids=[c[0] for c in CREATE])
def test_create_repo_body(bodies_world, name, body, field):
    answer = bodies_world.alice.post("/api/repos/create", data=raw(body),
                                     headers={"Content-Type": "application/json"})
    check_refused(bodies_world, answer, field)
    if isinstance(body, dict) and isinstance(body.get("name"), str):
        assert bodies_world.alice.get(f"/api/models/alice/{body['name']}").status_code == 404


# --- branch ------------------------------------------------------------------------------------------

BRANCH = [
    ("startingPoint-int", {"startingPoint": 5}, "startingPoint"),
    ("startingPoint-object", {"startingPoint": {"a": 1}}, "startingPoint"),
    ("array", [1], None),
    ("not-json", "start=main", None),
    ("deep-open", DEEP_OPEN, None),
    ("deep-balanced", DEEP_BALANCED, None),
]


@pytest.mark.parametrize("name,body,field", BRANCH, ids=[c[0] for c in BRANCH])
def test_branch_body(bodies_world, name, body, field):
    alice = bodies_world.alice
    branch = "br-" + name
    answer = alice.post(f"/api/models/acme/pub/branch/{branch}", data=raw(body),
                        headers={"Content-Type": "application/json"})
    check_refused(bodies_world, answer, field)
    refs = alice.get("/api/models/acme/pub/refs").json()
    assert branch not in [b["name"] for b in refs["branches"]]


# --- preupload -----------------------------------------------------------------------------------

PREUPLOAD = [
    ("files-object", {"files": {}}, "files"),
    ("files-string", {"files": "x"}, "files"),
    ("files-missing", {}, "files"),
    ("file-not-object", {"files": ["x"]}, "files[0]"),
    ("path-int", {"files": [{"path": 5, "size": 1, "sample": ""}]}, "path"),
    ("path-missing", {"files": [{"size": 1, "sample": ""}]}, "path"),
    ("size-string", {"files": [{"path": "a", "size": "12", "sample": ""}]}, "size"),
    ("size-negative", {"files": [{"path": "a", "size": -1, "sample": ""}]}, "size"),
    ("size-float", {"files": [{"path": "a", "size": 1.5, "sample": ""}]}, "size"),
    ("size-huge", '{"files": [{"path": "a", "size": 18446744073709551616, "sample": ""}]}', "size"),
    ("sample-int", {"files": [{"path": "a", "size": 1, "sample": 5}]}, "sample"),
    ("gitIgnore-int", {"files": [], "gitIgnore": 5}, "gitIgnore"),
    ("array", [], None),
    ("not-json", "files", None),
    ("deep-open", DEEP_OPEN, None),
    ("deep-balanced", DEEP_BALANCED, None),
]


@pytest.mark.parametrize("name,body,field", PREUPLOAD, ids=[c[0] for c in PREUPLOAD])
def test_preupload_body(bodies_world, name, body, field):
    answer = bodies_world.alice.post("/api/models/acme/pub/preupload/main", data=raw(body),
                                     headers={"Content-Type": "application/json"})
    check_refused(bodies_world, answer, field)


# --- LFS batch -----------------------------------------------------------------------------------

def batch_body(**changes):
    body = {"operation": "upload", "transfers": ["basic"], "hash_algo": "sha256",
            "objects": [{"oid": OID, "size": 10}]}
    for key, value in changes.items():
        if value is ...:
            body.pop(key)
        else:
            body[key] = value
    return body


BATCH = [
    ("objects-string", batch_body(objects="x"), "objects"),
    ("objects-object", batch_body(objects={}), "objects"),
    ("objects-missing", batch_body(objects=...), "objects"),
    ("object-not-object", batch_body(objects=[5]), "objects[0]"),
    ("oid-int", batch_body(objects=[{"oid": 5, "size": 10}]), "oid"),
    ("oid-missing", batch_body(objects=[{"size": 10}]), "oid"),
    ("size-string", batch_body(objects=[{"oid": OID, "size": "12"}]), "size"),
    ("size-missing", batch_body(objects=[{"oid": OID}]), "size"),
    ("size-negative", batch_body(objects=[{"oid": OID, "size": -1}]), "size"),
    ("operation-int", batch_body(operation=5), "operation"),
    ("transfers-string", batch_body(transfers="basic"), "transfers"),
    ("ref-string", batch_body(ref="main"), "ref"),
    ("array", [], None),
    ("not-json", "oid=1", None),
    ("deep-open", DEEP_OPEN, None),
    ("deep-balanced", DEEP_BALANCED, None),
]


@pytest.mark.parametrize("name,body,field", BATCH, ids=[c[0] for c in BATCH])
def test_lfs_batch_body(bodies_world, name, body, field):
    answer = bodies_world.alice.batch_raw("acme/pub", raw(body))
    check_refused(bodies_world, answer, field)


# --- commit (ndjson) -----------------------------------------------------------------------------

def line(key, value):
    return json.dumps({"key": key, "value": value})


GOOD_FILE = {"path": "f.txt", "content": "eA==", "encoding": "base64"}
HEADER = line("header", {"summary": "s", "description": ""})

# (id, ndjson lines after a valid header, or None: the whole body given as the only line; field)
COMMIT = [
    ("line-array", ["[1, 2]"], None),
    ("line-string", ['"x"'], None),
    ("line-not-json", ["not json"], None),
    ("line-deep-open", [DEEP_OPEN], None),
    ("line-deep-balanced", [DEEP_BALANCED], None),
    ("key-int", [json.dumps({"key": 5, "value": GOOD_FILE})], "key"),
    ("key-missing", [json.dumps({"value": GOOD_FILE})], "key"),
    ("key-unknown", [line("renameFile", GOOD_FILE)], "renameFile"),
    ("value-string", [json.dumps({"key": "file", "value": "x"})], "value"),
    ("value-missing", [json.dumps({"key": "file"})], "value"),
    ("header-value-string", None, "value"),
    ("header-summary-int", None, "summary"),
    ("header-description-int", None, "description"),
    ("header-parentCommit-int", None, "parentCommit"),
    ("file-content-int", [line("file", {"path": "g.txt", "content": 5, "encoding": "base64"})], "content"),
    ("file-content-missing", [line("file", {"path": "g.txt", "encoding": "base64"})], "content"),
    ("file-encoding-hex", [line("file", {"path": "g.txt", "content": "78", "encoding": "hex"})], "encoding"),
    ("file-encoding-int", [line("file", {"path": "g.txt", "content": "eA==", "encoding": 1})], "encoding"),
    ("file-base64-bad", [line("file", {"path": "g.txt", "content": "!!!", "encoding": "base64"})], "g.txt"),
    ("file-path-int", [line("file", {"path": 7, "content": "eA==", "encoding": "base64"})], "path"),
    ("file-path-missing", [line("file", {"content": "eA==", "encoding": "base64"})], "path"),
    ("lfs-oid-int", [line("lfsFile", {"path": "l.bin", "algo": "sha256", "oid": 5, "size": 10})], "oid"),
    ("lfs-oid-missing", [line("lfsFile", {"path": "l.bin", "algo": "sha256", "size": 10})], "oid"),
    ("lfs-oid-upper", [line("lfsFile", {"path": "l.bin", "algo": "sha256", "oid": OID.upper(), "size": 10})], "oid"),
    ("lfs-size-string", [line("lfsFile", {"path": "l.bin", "algo": "sha256", "oid": OID, "size": "12"})], "size"),
    ("lfs-size-negative", [line("lfsFile", {"path": "l.bin", "algo": "sha256", "oid": OID, "size": -1})], "size"),
    ("lfs-size-missing", [line("lfsFile", {"path": "l.bin", "algo": "sha256", "oid": OID})], "size"),
    ("lfs-size-huge", ['{"key": "lfsFile", "value": {"path": "l.bin", "oid": "%s", "size": 1e30}}' % OID], "size"),
    ("lfs-algo-int", [line("lfsFile", {"path": "l.bin", "algo": 256, "oid": OID, "size": 10})], "algo"),
    ("lfs-path-int", [line("lfsFile", {"path": 3, "algo": "sha256", "oid": OID, "size": 10})], "path"),
    ("deletedFile-path-int", [line("deletedFile", {"path": 7})], "path"),
    ("deletedFile-path-missing", [line("deletedFile", {})], "path"),
    ("deletedFolder-path-int", [line("deletedFolder", {"path": 7})], "path"),
    ("deletedFolder-path-missing", [line("deletedFolder", {})], "path"),
]

HEADERS = {
    "header-value-string": json.dumps({"key": "header", "value": "x"}),
    "header-summary-int": line("header", {"summary": 5}),
    "header-description-int": line("header", {"summary": "s", "description": 5}),
    "header-parentCommit-int": line("header", {"summary": "s", "parentCommit": 5}),
}


@pytest.mark.parametrize("name,lines,field", COMMIT, ids=[c[0] for c in COMMIT])
def test_commit_body(bodies_world, name, lines, field):
    alice = bodies_world.alice
    head = alice.head("acme/pub")
    if lines is None:
        body = HEADERS[name] + "\n" + line("file", GOOD_FILE) + "\n"
    else:
        # A valid file operation first: a refusal must not leave it committed.
        body = "\n".join([HEADER, line("file", GOOD_FILE), *lines]) + "\n"
    answer = alice.commit_raw("acme/pub", body.encode())
    check_refused(bodies_world, answer, field)
    assert alice.head("acme/pub") == head


@pytest.mark.parametrize("body", [DEEP_OPEN, DEEP_OBJECT, "\x00\x01\x02", "\xff\xfe"], ids=["deep", "deep-object", "binary", "bad-utf8"])
def test_commit_body_that_is_not_ndjson(bodies_world, body):
    alice = bodies_world.alice
    head = alice.head("acme/pub")
    answer = alice.commit_raw("acme/pub", body.encode("latin-1"))
    assert answer.status_code == 400, (answer.status_code, answer.text)
    bodies_world.server.assert_alive()
    assert alice.head("acme/pub") == head


def test_the_server_survives_all_of_it_and_still_commits(bodies_world):
    alice = bodies_world.alice
    answer = alice.commit("acme/pub", [attacker.file_op("after-the-storm.txt", b"still here")])
    assert answer.status_code == 200, answer.text
    assert alice.resolve("acme/pub", "after-the-storm.txt").content == b"still here"


@pytest.mark.parametrize("cursor", ["-1", "18446744073709551615", "99999999999999999999999", "abc", "", "1e3", "4", "0",
                                    "f6d61696e.0000000000000000", "d.", "f612e.zz"])
def test_bad_tree_cursor_is_400(bodies_world, cursor):
    """A cursor is opaque: the last entry of the previous page, bound to the commit
    (docs/hub-api.md, "Tree listing"); a forged one is refused rather than read as the start."""
    answer = bodies_world.alice.tree("acme/pub", cursor=cursor)
    assert answer.status_code == 400, (cursor, answer.status_code, answer.text)
    assert "cursor" in error_of(answer)
    assert bodies_world.alice.tree("acme/pub").status_code == 200
    bodies_world.server.assert_alive()
