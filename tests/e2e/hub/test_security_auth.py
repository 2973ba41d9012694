"""Attacks on who may do what, and on the URLs the server hands out (docs/hub-security.md):
the access matrix of every read and write route, and absolute URLs that must come from
configuration (--public-url), never from the request's Host header."""
import itertools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import attacker  # noqa: E402
from attacker import file_op, quote, serve, sha256  # noqa: E402,F401

EVIL = "evil.example"


# --- 6. URLs never come from Host -----------------------------------------------------------------

def all_urls(answer):
    """Every string in the JSON body and every header value of a response."""
    out = list(answer.headers.values())

    def walk(value):
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            out.append(value)
    try:
        walk(answer.json())
    except ValueError:
        out.append(answer.text)
    return out


def url_answers(server, spoof):
    """Create-repo (new and existing), LFS batch, commit and a paginated tree, each sent with
    `spoof` headers; returns [(what, response)]."""
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    out = [("create", alice.create_repo("acme/urls", headers=spoof))]
    out.append(("create-kernel", alice.create_repo("acme/kurls", repo_type="kernel", headers=spoof)))
    out.append(("create-existing", alice.create_repo("acme/urls", headers=spoof)))
    out.append(("batch", alice.batch("acme/urls", [{"oid": sha256(b"u"), "size": 1}], headers=spoof)))
    out.append(("batch-kernel", alice.batch("acme/kurls", [{"oid": sha256(b"u"), "size": 1}], repo_type="kernel",
                                           headers=spoof)))
    # Expanded listings are paginated by 50 (kTreeExpandPageSize): 60 files give a Link header.
    out.append(("commit", alice.commit("acme/urls", [file_op(f"f{i:02}.txt", b"%d" % i) for i in range(60)],
                                       headers=spoof)))
    out.append(("commit-kernel", alice.commit("acme/kurls", [file_op("k.txt", b"k")], repo_type="kernel",
                                              headers=spoof)))
    out.append(("tree", alice.tree("acme/urls", expand="true", headers=spoof)))
    return out


SPOOFS = {
    "host": {"Host": EVIL},
    "forwarded": {"X-Forwarded-Host": EVIL, "X-Forwarded-Proto": "https", "Forwarded": f"host={EVIL}"},
}


@pytest.mark.parametrize("spoof", SPOOFS, ids=list(SPOOFS))
def test_returned_urls_never_name_the_request_host(serve, spoof):
    server = serve()
    answers = url_answers(server, SPOOFS[spoof])
    for what, answer in answers:
        assert answer.status_code in (200, 409), (what, answer.text)
        for value in all_urls(answer):
            assert EVIL not in value, (what, value)
    urls = urls_of(answers)
    assert len(urls) >= 8, urls
    for what, url in urls:
        assert url.startswith(server.url + "/"), (what, url)


def urls_of(answers):
    """(what, url) of every absolute URL the answers carry."""
    out = []
    for what, answer in answers:
        for value in all_urls(answer):
            for token in value.replace("<", " ").replace(">", " ").split():
                if token.startswith("http://") or token.startswith("https://"):
                    out.append((what, token.rstrip(";")))
    return out


def test_public_url_is_the_base_of_every_returned_url(serve):
    server = serve("--public-url", "https://hub.example.org")
    answers = url_answers(server, {"Host": EVIL})
    for what, answer in answers:
        assert answer.status_code in (200, 409), (what, answer.text)
    urls = urls_of(answers)
    assert {what for what, _ in urls} >= {"create", "create-kernel", "create-existing", "batch", "batch-kernel",
                                          "commit", "commit-kernel", "tree"}, urls
    for what, url in urls:
        assert url.startswith("https://hub.example.org/"), (what, url)
    kernel = dict(answers)["create-kernel"].json()["url"]
    assert kernel == "https://hub.example.org/kernels/acme/kurls"


def test_tree_link_from_public_url_still_pages_correctly(serve):
    server = serve()
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/pages").status_code == 200
    paths = {f"p{i:03}.txt" for i in range(120)}
    assert alice.commit("acme/pages", [file_op(p, b"x") for p in sorted(paths)]).status_code == 200
    seen = set()
    answer = alice.tree("acme/pages", expand="true", headers={"Host": EVIL})
    pages = 0
    while True:
        assert answer.status_code == 200, answer.text
        pages += 1
        seen |= {e["path"] for e in answer.json() if e["type"] == "file"}
        nxt = answer.links.get("next")
        if not nxt:
            break
        assert EVIL not in nxt["url"]
        answer = alice.server.session.get(nxt["url"], headers=alice.headers({"Host": EVIL}))
    assert pages >= 3
    assert seen == paths | {".gitattributes"}


# --- 7. the access matrix --------------------------------------------------------------------------

# Actors. There is no org admin role distinct from member in kernel-hub yet: the member (alice, of
# org acme) is also the admin case.
ACTORS = ["anonymous", "invalid-token", "outsider", "member"]
REPOS = [("model", False), ("model", True), ("kernel", False), ("kernel", True)]
READS = ["info", "revision", "refs", "tree", "tree-path", "resolve", "resolve-head", "bulk"]
WRITES = ["branch", "preupload", "lfs-batch", "commit"]


def repo_name(repo_type, private):
    return f"acme/{repo_type[0]}{'priv' if private else 'pub'}"


@pytest.fixture(scope="module")
def matrix_world(kernel_hub, tmp_path_factory):
    server = attacker.Server(kernel_hub, tmp_path_factory.mktemp("auth") / "root")
    server.add_org("acme")
    member = server.actor(server.add_user("alice", "acme"))
    outsider = server.actor(server.add_user("mallory"))
    actors = {"anonymous": server.actor(), "invalid-token": server.actor("hf_" + "0" * 34),
              "outsider": outsider, "member": member}
    for repo_type, private in REPOS:
        repo = repo_name(repo_type, private)
        assert member.create_repo(repo, repo_type=repo_type, private=private).status_code == 200
        answer = member.commit(repo, [file_op("dir/file.txt", b"matrix content " + repo.encode())], repo_type)
        assert answer.status_code == 200, answer.text
    yield server, actors
    server.stop()


def read(actor, route, repo_type, repo):
    api = f"/api/{attacker.api_segment(repo_type)}/{repo}"
    if route == "info":
        return actor.get(api)
    if route == "revision":
        return actor.get(api + "/revision/main")
    if route == "refs":
        return actor.get(api + "/refs")
    if route == "tree":
        return actor.get(api + "/tree/main", params={"recursive": "true"})
    if route == "tree-path":
        return actor.get(api + "/tree/main/dir")
    if route == "resolve":
        return actor.resolve(repo, "dir/file.txt", repo_type)
    if route == "resolve-head":
        return actor.request("HEAD", f"{attacker.web_prefix(repo_type)}{repo}/resolve/main/dir/file.txt")
    if route == "bulk":
        return actor.get(api + "/bulk/main/dir")
    raise AssertionError(route)


WRITE_COUNTER = itertools.count()


def write(actor, route, repo_type, repo):
    n = next(WRITE_COUNTER)
    if route == "branch":
        return actor.create_branch(repo, f"b{n}", repo_type)
    if route == "preupload":
        return actor.preupload(repo, [{"path": "x.txt", "size": 1, "sample": "eA=="}], repo_type)
    if route == "lfs-batch":
        return actor.batch(repo, [{"oid": sha256(b"%d" % n), "size": 1}], repo_type)
    if route == "commit":
        return actor.commit(repo, [file_op(f"w{n}.txt", b"w")], repo_type)
    raise AssertionError(route)


def expected_read(actor, private):
    if actor == "invalid-token":
        return 401
    if not private or actor == "member":
        return 200
    return 401 if actor == "anonymous" else 404  # a private repo looks missing to outsiders


def expected_write(actor, private):
    if actor in ("anonymous", "invalid-token"):
        return 401
    if actor == "outsider":
        return 404 if private else 403
    return 200


def repo_id(param):
    return f"{param[0]}-{'private' if param[1] else 'public'}"


@pytest.mark.parametrize("route", READS)
@pytest.mark.parametrize("repo", REPOS, ids=[repo_id(r) for r in REPOS])
@pytest.mark.parametrize("actor", ACTORS)
def test_read_access(matrix_world, actor, repo, route):
    server, actors = matrix_world
    repo_type, private = repo
    name = repo_name(repo_type, private)
    answer = read(actors[actor], route, repo_type, name)
    assert answer.status_code == expected_read(actor, private), (answer.status_code, answer.text)
    if answer.status_code != 200:
        assert b"matrix content" not in answer.content
        assert "X-Repo-Commit" not in answer.headers
    if answer.status_code == 404:
        # Indistinguishable from a repository that does not exist.
        missing = read(actors[actor], route, repo_type, "acme/" + repo_type[0] + "nothing")
        assert missing.status_code == 404
        assert missing.headers.get("X-Error-Code") == answer.headers.get("X-Error-Code") == "RepoNotFound"
        assert missing.content == answer.content


@pytest.mark.parametrize("route", WRITES)
@pytest.mark.parametrize("repo", REPOS, ids=[repo_id(r) for r in REPOS])
@pytest.mark.parametrize("actor", ACTORS)
def test_write_access(matrix_world, actor, repo, route):
    server, actors = matrix_world
    repo_type, private = repo
    name = repo_name(repo_type, private)
    before = actors["member"].get(f"/api/{attacker.api_segment(repo_type)}/{name}/refs").json()
    answer = write(actors[actor], route, repo_type, name)
    expected = expected_write(actor, private)
    assert answer.status_code == expected, (answer.status_code, answer.text)
    if expected != 200:
        after = actors["member"].get(f"/api/{attacker.api_segment(repo_type)}/{name}/refs").json()
        assert after == before
        assert "actions" not in answer.text


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("repo_type", ["model", "kernel"])
def test_create_repo_in_a_namespace(matrix_world, actor, repo_type):
    server, actors = matrix_world
    name = f"acme/created-by-{actor}-{repo_type}"
    answer = actors[actor].create_repo(name, repo_type=repo_type)
    expected = {"anonymous": 401, "invalid-token": 401, "outsider": 403, "member": 200}[actor]
    assert answer.status_code == expected, (answer.status_code, answer.text)
    exists = actors["member"].get(f"/api/{attacker.api_segment(repo_type)}/{name}").status_code == 200
    assert exists == (expected == 200)


def test_outsider_creates_in_own_namespace_only(matrix_world):
    server, actors = matrix_world
    outsider = actors["outsider"]
    assert outsider.create_repo("mallory/mine").status_code == 200
    assert outsider.post("/api/repos/create", json={"name": "sneaky", "organization": "acme"}).status_code == 403
    assert actors["member"].get("/api/models/acme/sneaky").status_code == 404


def test_member_cannot_write_to_outsiders_repo(matrix_world):
    server, actors = matrix_world
    actors["outsider"].create_repo("mallory/own")
    answer = actors["member"].commit("mallory/own", [file_op("x.txt", b"x")])
    assert answer.status_code == 403, answer.text


def test_whoami_with_invalid_token(matrix_world):
    server, actors = matrix_world
    assert actors["invalid-token"].get("/api/whoami-v2").status_code == 401
    assert actors["anonymous"].get("/api/whoami-v2").status_code == 401
    me = actors["member"].get("/api/whoami-v2")
    assert me.status_code == 200 and me.json()["name"] == "alice"
