"""Attacks with names (docs/hub-security.md, "Names"): file paths in commits, branch names, repo
ids and traversal through encoded repo names in URLs. Valid unusual names must keep working, and
the official client must still download whatever was accepted."""
import base64
import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import attacker  # noqa: E402
from attacker import SECRET, error_of, file_op, lfs_op, quote, serve, sha256, world  # noqa: E402,F401

# (id, path, a substring the refusal must name; None where the path cannot be shown as-is)
BAD_PATHS = [
    ("backslash-dotdot", "..\\x", "..\\x"),
    ("drive", "C:\\evil", "C:\\evil"),
    ("backslash-inner", "dir\\file.txt", "dir\\file.txt"),
    ("control", "ctrl-name\x01.txt", "ctrl-name"),
    ("tab", "tab-name\t.txt", "tab-name"),
    ("newline", "nl-name\n.txt", "nl-name"),
    ("del", "del-name\x7f.txt", "del-name"),
    ("nul", "nul-name\x00.txt", "nul-name"),
    ("git-config", ".git/config", ".git/config"),
    ("git-upper", ".GIT/x", ".GIT/x"),
    ("git-mixed-inner", "sub/.Git/hooks/post-checkout", "sub/.Git/hooks"),
    ("git-leaf", "sub/.git", "sub/.git"),
    ("dot", "a/./b", "a/./b"),
    ("dot-alone", ".", None),
    ("dotdot", "a/../b", "a/../b"),
    ("dotdot-alone", "..", None),
    ("dotdot-lead", "../escape.txt", "../escape.txt"),
    ("double-slash", "a//b", "a//b"),
    ("absolute", "/abs", "/abs"),
    ("trailing-slash", "x/", "x/"),
    ("empty", "", None),
    ("pct-dotdot", "%2e%2e/x", "%2e%2e/x"),
    ("pct-dotdot-upper", "%2E%2E/x", "%2E%2E/x"),
    ("pct-slash", "a%2fb", "a%2fb"),
    ("pct-backslash", "a%5Cb", "a%5Cb"),
    ("long-component", "c" * 256, "ccccccccccc"),
    ("long-path", "/".join(["d" * 99] * 50), "ddddddddddd"),
]
BAD_IDS = [b[0] for b in BAD_PATHS]

# Valid paths at the edges of the rules.
GOOD_PATHS = [
    "with space.txt",
    "ünïcødé/файл.txt",
    "日本語.bin",
    ".gitattributes-like",
    ".github/workflows/ci.yml",
    "x.git/y",
    "a..b.txt",
    "...",
    "e" * 255,
    "/".join(["f" * 200] * 20),  # 4019 bytes
]

INVALID_UTF8_LINE = (b'{"key": "file", "value": {"path": "bad-utf8-\xff\xfe.txt", "content": "eA==", '
                     b'"encoding": "base64"}}')


@pytest.fixture(scope="module")
def names_world(kernel_hub, tmp_path_factory):
    server = attacker.Server(kernel_hub, tmp_path_factory.mktemp("names") / "root")
    world = attacker.World(server)
    world.lfs_data = b"\x00lfs body for names\x00"
    world.lfs_oid = world.alice.upload("acme/pub", world.lfs_data)
    yield world
    server.stop()


def bad_op(kind, path, world):
    if kind == "file":
        return file_op(path, b"payload")
    if kind == "lfsFile":
        return lfs_op(path, world.lfs_oid, len(world.lfs_data))
    return {"key": kind, "value": {"path": path}}


@pytest.mark.parametrize("kind", ["file", "lfsFile", "deletedFile", "deletedFolder"])
@pytest.mark.parametrize("name,path,shown", BAD_PATHS, ids=BAD_IDS)
def test_bad_commit_path_is_refused_naming_it(names_world, kind, name, path, shown):
    if kind == "deletedFolder" and name == "trailing-slash":
        pytest.skip("a folder deletion may name the folder with a trailing slash (docs/hub-api.md)")
    alice = names_world.alice
    head = alice.head("acme/pub")
    answer = alice.commit("acme/pub", [bad_op(kind, path, names_world)])
    assert answer.status_code == 400, (answer.status_code, answer.text)
    if shown is not None:
        assert shown in error_of(answer), error_of(answer)
    assert alice.head("acme/pub") == head
    names_world.server.assert_alive()


@pytest.mark.parametrize("name,path,shown", BAD_PATHS, ids=BAD_IDS)
def test_bad_preupload_path_is_refused(names_world, name, path, shown):
    answer = names_world.alice.preupload("acme/pub", [{"path": path, "size": 1, "sample": "eA=="}])
    assert answer.status_code == 400, (answer.status_code, answer.text)
    if shown is not None:
        assert shown in error_of(answer), error_of(answer)


def test_invalid_utf8_path_is_refused(names_world):
    alice = names_world.alice
    head = alice.head("acme/pub")
    answer = alice.commit("acme/pub", [INVALID_UTF8_LINE])
    assert answer.status_code == 400, answer.text
    assert alice.head("acme/pub") == head
    names_world.server.assert_alive()


@pytest.mark.parametrize("path", GOOD_PATHS, ids=[f"good{i}" for i in range(len(GOOD_PATHS))])
def test_valid_unusual_paths_still_work(names_world, path):
    alice = names_world.alice
    data = ("content of " + path).encode()
    answer = alice.commit("acme/pub", [file_op(path, data)])
    assert answer.status_code == 200, answer.text
    got = names_world.anonymous.resolve("acme/pub", path)
    assert got.status_code == 200 and got.content == data


def test_file_and_folder_with_one_name_in_one_commit(world):
    answer = world.alice.commit("acme/pub", [file_op("clash", b"1"), file_op("clash/inner.txt", b"2")])
    assert answer.status_code == 400, answer.text
    assert "clash" in error_of(answer)
    files = world.alice.files("acme/pub")
    assert "clash" not in files and "clash/inner.txt" not in files


def test_folder_over_an_existing_file(world):
    assert world.alice.commit("acme/pub", [file_op("plain", b"1")]).status_code == 200
    answer = world.alice.commit("acme/pub", [file_op("plain/inner.txt", b"2")])
    assert answer.status_code == 400, answer.text
    assert "plain" in error_of(answer)
    assert "plain/inner.txt" not in world.alice.files("acme/pub")


def test_file_over_an_existing_folder(world):
    assert world.alice.commit("acme/pub", [file_op("folder/inner.txt", b"1")]).status_code == 200
    answer = world.alice.commit("acme/pub", [file_op("folder", b"2")])
    assert answer.status_code == 400, answer.text
    assert "folder" in error_of(answer)
    assert "folder" not in world.alice.files("acme/pub")


def test_lfs_file_over_an_existing_folder(world):
    assert world.alice.commit("acme/pub", [file_op("folder/inner.txt", b"1")]).status_code == 200
    answer = world.alice.commit("acme/pub", [lfs_op("folder", world.public_oid, len(world.public_data))])
    assert answer.status_code == 400, answer.text
    assert "folder" not in world.alice.files("acme/pub")


# --- branch names ---------------------------------------------------------------------------------

BAD_BRANCHES = ["HEAD", "x.lock", "a/b.lock", "a//b", "/x", "x/", "@", "a..b", "-x", "refs/heads/x", "refs/pr/1",
                "a\x00b", "a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b", "a\x01b", "a\x7fb", ".x",
                "a/.x", "x.", "a@{b", "g" * 256, "g" * 300]
GOOD_BRANCHES = ["v1", "feature/x", "release-1.0", "a.b", "x@y", "h" * 255]


@pytest.mark.parametrize("branch", BAD_BRANCHES, ids=[f"bad{i}" for i in range(len(BAD_BRANCHES))])
def test_bad_branch_name_is_refused(names_world, branch):
    alice = names_world.alice
    answer = alice.create_branch("acme/pub", branch)
    assert answer.status_code == 400, (answer.status_code, answer.text)
    refs = alice.get("/api/models/acme/pub/refs").json()
    assert branch not in [b["name"] for b in refs["branches"]]
    commit = alice.commit("acme/pub", [file_op("via-bad-branch.txt", b"x")], revision=branch)
    assert 400 <= commit.status_code < 500, commit.text
    assert "via-bad-branch.txt" not in alice.files("acme/pub")
    names_world.server.assert_alive()


@pytest.mark.parametrize("branch", GOOD_BRANCHES, ids=[f"good{i}" for i in range(len(GOOD_BRANCHES))])
def test_valid_branch_names_still_work(names_world, branch):
    alice = names_world.alice
    answer = alice.create_branch("acme/pub", branch)
    assert answer.status_code == 200, answer.text
    refs = alice.get("/api/models/acme/pub/refs").json()
    assert branch in [b["name"] for b in refs["branches"]]
    commit = alice.commit("acme/pub", [file_op("on-branch.txt", branch.encode())], revision=branch)
    assert commit.status_code == 200, commit.text
    assert alice.resolve("acme/pub", "on-branch.txt", revision=branch).content == branch.encode()


def test_starting_point_from_another_repo_is_not_found(world):
    """A branch of mallory's repo cannot start from a commit of acme/priv."""
    private_head = world.alice.head("acme/priv")
    assert world.mallory.create_repo("mallory/r").status_code == 200
    answer = world.mallory.create_branch("mallory/r", "stolen", body={"startingPoint": private_head})
    assert 400 <= answer.status_code < 500, answer.text
    assert world.anonymous.resolve("mallory/r", "secret.txt", revision="stolen").status_code != 200


# --- repo ids --------------------------------------------------------------------------------------

BAD_REPO_NAMES = ["x.git", "a--b", ".x", "x-", "-x", "a..b", "x.", "a" * 97, "a b", "a/b", "..", ".", "../../evil",
                  "..%2f..%2fevil", "ä", "", "x\\y", "x\x00y", "x:y"]
GOOD_REPO_NAMES = ["a" * 96, "ok-name_1.x", "_x_", "A.b-c_d", "x.gitx"]


@pytest.mark.parametrize("name", BAD_REPO_NAMES, ids=[f"bad{i}" for i in range(len(BAD_REPO_NAMES))])
@pytest.mark.parametrize("repo_type", ["model", "kernel"])
def test_bad_repo_name_is_refused(names_world, name, repo_type):
    alice = names_world.alice
    answer = alice.create_repo("acme/" + name, repo_type=repo_type)
    assert answer.status_code == 400, (answer.status_code, answer.text)
    root = names_world.server.root
    assert not any(p.name == "evil" for p in root.rglob("*"))
    names_world.server.assert_alive()


def test_bad_repo_name_in_the_organization_field(names_world):
    answer = names_world.alice.post("/api/repos/create", json={"name": "x", "organization": "../acme"})
    assert answer.status_code in (400, 403), answer.text


@pytest.mark.parametrize("name", GOOD_REPO_NAMES, ids=[f"good{i}" for i in range(len(GOOD_REPO_NAMES))])
def test_valid_repo_names_still_work(names_world, name):
    alice = names_world.alice
    answer = alice.create_repo("acme/" + name)
    assert answer.status_code == 200, answer.text
    assert alice.get(f"/api/models/acme/{name}").status_code == 200


# --- traversal through encoded repo names in URLs ------------------------------------------------

TRAVERSALS = ["..%2Fpriv", "..%2F..%2Fmodels%2Facme%2Fpriv", "%2E%2E%2Facme%2Fpriv", "..%5Cacme%5Cpriv"]


@pytest.mark.parametrize("name", TRAVERSALS)
def test_encoded_traversal_in_repo_name_reads_nothing(world, name):
    """mallory is a member of namespace `mallory`; `mallory/../acme/priv` must not be acme/priv."""
    mallory = world.mallory
    for path in (f"/api/models/mallory/{name}", f"/api/models/mallory/{name}/revision/main",
                 f"/api/models/mallory/{name}/tree/main", f"/api/models/mallory/{name}/refs",
                 f"/mallory/{name}/resolve/main/secret.txt", f"/api/models/mallory/{name}/bulk/main"):
        answer = mallory.get(path)
        assert answer.status_code in (400, 404), (path, answer.status_code)
        assert SECRET not in answer.content
    world.server.assert_alive()


@pytest.mark.parametrize("name", TRAVERSALS)
def test_encoded_traversal_in_repo_name_writes_nothing(world, name):
    mallory = world.mallory
    head = world.alice.head("acme/priv")
    commit = mallory.commit(f"mallory/{name}", [file_op("pwned.txt", b"pwned")])
    assert commit.status_code in (400, 404), commit.text
    branch = mallory.create_branch(f"mallory/{name}", "pwned")
    assert branch.status_code in (400, 404), branch.text
    batch = mallory.batch(f"mallory/{name}", [{"oid": sha256(b"p"), "size": 1}])
    assert batch.status_code in (400, 404), batch.text
    assert world.alice.head("acme/priv") == head
    assert "pwned" not in [b["name"] for b in world.alice.get("/api/models/acme/priv/refs").json()["branches"]]


# --- the official client after all the attacks ---------------------------------------------------

def test_snapshot_download_returns_exactly_the_accepted_files(serve, tmp_path, monkeypatch):
    hf = pytest.importorskip("huggingface_hub")
    server = serve()
    server.add_org("acme")
    token = server.add_user("alice", "acme")
    alice = server.actor(token)
    assert alice.create_repo("acme/names").status_code == 200
    expected = {}
    for path, entry in alice.files("acme/names").items():
        expected[path] = alice.resolve("acme/names", path).content
    # Every attack, recording what the server accepted: the snapshot must hold exactly that.
    accepted = []
    for name, path, _ in BAD_PATHS:
        data = os.urandom(16)
        if alice.commit("acme/names", [file_op(path, data)]).status_code == 200:
            accepted.append(name)
            expected[path] = data
        if alice.commit("acme/names", [{"key": "deletedFile", "value": {"path": path}}]).status_code == 200:
            accepted.append(name + " (deleted)")
            expected.pop(path, None)
    if alice.commit("acme/names", [INVALID_UTF8_LINE]).status_code == 200:
        accepted.append("invalid-utf8")
    for branch in BAD_BRANCHES:
        if alice.create_branch("acme/names", branch).status_code == 200:
            accepted.append("branch " + repr(branch))
    # (the 4019-byte path would not fit in a local path under the cache directory)
    good = {path: os.urandom(64) for path in GOOD_PATHS if len(path) < 1000}
    answer = alice.commit("acme/names", [file_op(path, data) for path, data in good.items()])
    assert answer.status_code == 200, answer.text
    expected.update(good)
    if alice.commit("acme/names", [file_op("clash", b"1"), file_op("clash/x", b"2")]).status_code == 200:
        accepted.append("clash")
        expected.update({"clash": b"1", "clash/x": b"2"})

    monkeypatch.setenv("HF_HUB_DISABLE_XET", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    import huggingface_hub.constants as constants
    monkeypatch.setattr(constants, "ENDPOINT", server.url)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", server.url + "/{repo_id}/resolve/{revision}/{filename}")
    snapshot = Path(hf.snapshot_download("acme/names", endpoint=server.url, token=token,
                                         cache_dir=tmp_path / "cache"))
    got = {str(p.relative_to(snapshot)): p.read_bytes() for p in snapshot.rglob("*") if p.is_file()}
    assert got == expected
    refs = hf.HfApi(endpoint=server.url, token=token).list_repo_refs("acme/names")
    assert [b.name for b in refs.branches] == ["main"]
    server.assert_alive()
    assert accepted == []


@pytest.mark.parametrize("first,second", [("v1", "v1/x"), ("v1/x", "v1"), ("a/b/c", "a")])
def test_branch_names_cannot_be_file_and_folder(world, first, second):
    """git keeps refs as files, so `v1` and `v1/x` cannot both exist (the HF cache writes
    refs/<revision> files the same way)."""
    assert world.alice.create_branch("acme/pub", first).status_code == 200
    answer = world.alice.create_branch("acme/pub", second)
    assert answer.status_code == 409, answer.text
    assert f"Branch `{second}` conflicts with existing branch `{first}`" in error_of(answer)
    branches = world.alice.get("/api/models/acme/pub/refs").json()["branches"]
    assert sorted(b["name"] for b in branches) == sorted(["main", first])
