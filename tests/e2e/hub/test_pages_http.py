"""kernel-hub's web pages over plain HTTP (docs/hub-pages.md): the security headers, anonymous
views (a private repository is answered like a missing one, whatever token is sent), hostile
file names and card content escaped, and the JSON API left as it was."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from attacker import Server, file_op  # noqa: E402

HOSTILE_PATH = "docs/<script>alert(1)<\\/script>\"'.md".replace("\\", "")


@pytest.fixture
def server(kernel_hub, tmp_path):
    server = Server(kernel_hub, tmp_path / "root")
    server.add_org("acme")
    server.alice = server.actor(server.add_user("alice", "acme"))
    for repo, private in (("acme/relu", False), ("acme/secret", True)):
        assert server.alice.create_repo(repo, repo_type="kernel", private=private).status_code == 200
        answer = server.alice.commit(repo, [file_op("README.md", b"# Card\n<iframe src=//evil>\n"),
                                            file_op(HOSTILE_PATH, b"x")], repo_type="kernel")
        assert answer.status_code == 200, answer.text
    yield server
    server.stop()


def test_pages_carry_a_strict_content_security_policy(server):
    for path in ("/", "/acme/relu", "/acme/secret", "/?search=x"):
        answer = server.actor().get(path)
        assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
        policy = answer.headers["Content-Security-Policy"]
        assert policy.startswith("default-src 'none'; style-src 'sha256-")
        assert "script-src" not in policy and "unsafe" not in policy
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.headers["X-Frame-Options"] == "DENY"


def test_private_repository_is_answered_like_a_missing_one(server):
    anonymous, alice = server.actor(), server.alice
    missing = anonymous.get("/acme/nothing")
    assert missing.status_code == 404
    for actor in (anonymous, alice, server.actor("hf_invalid")):
        # Pages are anonymous views: even the owner's token shows nothing private.
        secret = actor.get("/acme/secret")
        assert (secret.status_code, secret.text) == (404, missing.text)
        index = actor.get("/")
        assert "acme/relu" in index.text and "secret" not in index.text
        search = actor.get("/", params={"search": "secret"}).text
        assert "acme/secret" not in search and "0 of 1 repositories match" in search


def test_hugging_face_addresses_of_a_kernel_lead_to_its_page(server):
    anonymous = server.actor()
    for path, location in (("/kernels/acme/relu/tree/v1", "/acme/relu?revision=v1"),
                           ("/kernels/acme/relu", "/acme/relu")):
        answer = anonymous.get(path)
        assert (answer.status_code, answer.headers["Location"]) == (302, location)
    assert anonymous.get("/kernels/acme/relu/tree/main", follow_redirects=True).status_code == 200
    assert anonymous.get("/kernels/acme/nothing", follow_redirects=True).status_code == 404


def test_repository_content_is_escaped(server):
    page = server.actor().get("/acme/relu").text
    assert "<script>alert(1)" not in page
    assert "<iframe" not in page
    assert "docs/&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;.md" in page
    assert "/resolve/" in page and "%3Cscript%3E" in page


def test_unknown_revisions_and_head_requests(server):
    anonymous = server.actor()
    assert anonymous.get("/acme/relu", params={"revision": "v9"}).status_code == 404
    assert anonymous.get("/acme/relu", params={"revision": "../x"}).status_code == 404
    head = anonymous.request("HEAD", "/acme/relu")
    assert head.status_code == 200 and head.content == b""


def test_api_routes_still_answer_json(server):
    answer = server.actor().get("/api/nothing")
    assert answer.status_code == 404
    assert answer.json() == {"error": "Not found"}
    assert server.actor().get("/a/b/c").headers["Content-Type"] == "application/json"
