"""Every byte kernel-hub stores is charged to someone (docs/hub-security.md, "Storage quota"):
commits store what changed, not the whole tree; repositories, commits, branches, tags,
discussions, benchmark runs, LFS objects, inline files and xorbs all count toward the poster's
--quota, so no route stores more than it; discussions and benchmark runs are limited per user per
hour. Real server, raw HTTP as an attacker sends it."""
import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import attacker  # noqa: E402
from attacker import file_op, serve, sha256  # noqa: E402,F401
from benchmark_documents import run_document  # noqa: E402

XORB = next((Path(__file__).resolve().parents[2] / "unit" / "xet" / "data" / "upload").glob("*.xorb"))
QUOTA = 32 * 1024


def stored_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def test_commits_of_one_small_file_store_small_records_not_copies_of_the_tree(serve):
    """The finding: 1,840 commits of one small file stored 242 MB (the whole tree each time) and
    charged 1 byte. Here a tree of 200 files, then 300 commits changing one of them."""
    server = serve()
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/r").status_code == 200
    tree = [file_op(f"build/torch-cpu/f{i:03}.py", b"%d\n" % i) for i in range(200)]
    assert alice.commit("acme/r", tree).status_code == 200
    commits = server.root / "repos" / "models" / "acme" / "r" / "commits"
    whole_tree = max(p.stat().st_size for p in commits.iterdir())
    before = stored_bytes(commits)
    count = 300
    for i in range(count):
        answer = alice.commit("acme/r", [file_op("counter.txt", b"%d" % i)], summary=f"step {i}")
        assert answer.status_code == 200, answer.text
    added = stored_bytes(commits) - before
    print(f"{count} commits of one small file in a tree of 201 files: {added} bytes of commit records, "
          f"{added // count} per commit (the whole tree is {whole_tree} bytes)")
    assert added < count * 1024, added
    # Every revision still reads back whole.
    files = alice.files("acme/r")
    assert len(files) == 202 and alice.resolve("acme/r", "counter.txt").content == b"%d" % (count - 1)
    server.assert_alive()


def grow(step, limit=2000):
    """Calls step(i) until it answers 413; returns how many were accepted."""
    for i in range(limit):
        answer = step(i)
        if answer.status_code == 413:
            assert "storage quota" in attacker.error_of(answer), answer.text
            return i
        assert answer.status_code in (200, 201), (i, answer.status_code, answer.text)
    raise AssertionError(f"still accepted after {limit} requests")


def test_no_route_stores_more_than_the_quota(serve):
    """One user per route, each with a fresh --quota of 32 KiB, keeps storing through that route
    until the Hub answers 413; the bytes the Hub's root grew by stay within the quota."""
    server = serve("--quota", "32K", "--max-discussions-per-hour", "0", "--max-benchmark-runs-per-hour", "0")
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    assert alice.create_repo("acme/pub", repo_type="kernel").status_code == 200
    assert alice.commit("acme/pub", [file_op("README.md", b"r")], repo_type="kernel").status_code == 200

    def discussion(actor):
        return lambda i: actor.post("/api/kernels/acme/pub/discussions",
                                    json={"title": f"spam {i}", "description": "x" * 200})

    def benchmark(actor):
        return lambda i: actor.post("/api/kernels/acme/pub/benchmarks", data=json.dumps(run_document("acme/pub")),
                                    headers={"Content-Type": "application/json"})

    def lfs(actor, repo):
        def step(i):
            data = os.urandom(4000)
            entry = actor.batch_entry(repo, sha256(data), len(data), "kernel")
            if "error" in entry:
                assert entry["error"]["code"] == 413, entry
                return type("Refused", (), {"status_code": 413, "text": "", "json": lambda self=None: {
                    "error": entry["error"]["message"]}})()
            return attacker.put_body(entry["actions"]["upload"]["href"], data)
        return step

    def xorb(actor, repo):
        grant = actor.get(f"/api/kernels/{repo}/xet-write-token/main").json()
        body = XORB.read_bytes()
        return lambda i: attacker.httpx.post(f"{grant['casUrl']}/v1/xorbs/default/{XORB.stem}", content=body,
                                             headers={"Authorization": f"Bearer {grant['accessToken']}"},
                                             timeout=attacker.TIMEOUT)

    routes = {
        "repositories": lambda actor, name: (lambda i: actor.create_repo(f"{name}/r{i}", repo_type="kernel")),
        "inline files": lambda actor, name: (lambda i: actor.commit(f"{name}/r", [file_op(f"f{i}", os.urandom(900))],
                                                                    repo_type="kernel")),
        "commits": lambda actor, name: (lambda i: actor.commit(f"{name}/r", [file_op("same.txt", b"same")],
                                                               repo_type="kernel", summary=f"again {i}")),
        "branches": lambda actor, name: (lambda i: actor.create_branch(f"{name}/r", f"b{i}", repo_type="kernel")),
        "tags": lambda actor, name: (lambda i: actor.post(f"/api/kernels/{name}/r/tag/main", json={"tag": f"t{i}"})),
        "discussions": lambda actor, name: discussion(actor),
        "pull requests": lambda actor, name: (lambda i: actor.commit("acme/pub", [file_op(f"pr{i}", b"p")],
                                                                     repo_type="kernel", params={"create_pr": "1"})),
        "benchmark runs": lambda actor, name: benchmark(actor),
        "LFS objects": lambda actor, name: lfs(actor, f"{name}/r"),
        "xorbs": lambda actor, name: xorb(actor, f"{name}/r"),
    }
    lines = []
    for index, (route, make) in enumerate(routes.items()):
        name = f"user{index}"
        actor = server.actor(server.add_user(name))
        before = stored_bytes(server.root)
        if route != "repositories":
            assert actor.create_repo(f"{name}/r", repo_type="kernel").status_code == 200
        accepted = grow(make(actor, name))
        grew = stored_bytes(server.root) - before
        lines.append(f"{route}: {accepted} accepted, then 413; the root grew by {grew} bytes")
        assert grew <= QUOTA, lines[-1]
    print("quota 32 KiB per user, by route:\n  " + "\n  ".join(lines))
    server.assert_alive()


def test_discussions_and_benchmark_runs_are_limited_per_user_per_hour(serve):
    server = serve("--max-discussions-per-hour", "3", "--max-benchmark-runs-per-hour", "2")
    server.add_org("acme")
    alice = server.actor(server.add_user("alice", "acme"))
    mallory = server.actor(server.add_user("mallory"))
    carol = server.actor(server.add_user("carol"))
    assert alice.create_repo("acme/pub", repo_type="kernel").status_code == 200
    assert alice.commit("acme/pub", [file_op("README.md", b"r")], repo_type="kernel").status_code == 200

    def open_discussion(actor, i):
        return actor.post("/api/kernels/acme/pub/discussions", json={"title": f"t{i}", "description": ""})

    assert [open_discussion(mallory, i).status_code for i in range(2)] == [200, 200]
    # A pull request opened by a commit counts as a discussion.
    pr = mallory.commit("acme/pub", [file_op("x", b"x")], repo_type="kernel", params={"create_pr": "1"})
    assert pr.status_code == 200, pr.text
    refused = open_discussion(mallory, 3)
    assert refused.status_code == 429 and "in the last hour" in attacker.error_of(refused), refused.text
    refused = mallory.commit("acme/pub", [file_op("y", b"y")], repo_type="kernel", params={"create_pr": "1"})
    assert refused.status_code == 429, refused.text
    listed = alice.get("/api/kernels/acme/pub/discussions").json()
    assert listed["count"] == 3
    assert open_discussion(carol, 0).status_code == 200  # per user

    def post_run(actor):
        return actor.post("/api/kernels/acme/pub/benchmarks", data=json.dumps(run_document("acme/pub")),
                          headers={"Content-Type": "application/json"})

    assert [post_run(mallory).status_code for _ in range(3)] == [201, 201, 429]
    assert post_run(carol).status_code == 201
    assert len(alice.get("/api/kernels/acme/pub/benchmarks").json()["runs"]) == 3
    server.assert_alive()
