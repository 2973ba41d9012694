"""kernel-hub's benchmark results API (docs/hub-benchmarks.md): upload, listing and one run;
who may do what (anonymous, outsiders, private repositories); validation naming the field; the
size limit and the storage quota; one record per run on disk."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from attacker import Server, error_of, file_op  # noqa: E402
from benchmark_documents import DELETE, changed, result, run_document  # noqa: E402


def benchmarks_path(repo_id: str, rest: str = "") -> str:
    return f"/api/kernels/{repo_id}/benchmarks{rest}"


class World:
    """Org acme with member alice, outsider mallory; kernels acme/relu (public) and acme/secret
    (private), each with one commit on main; a model acme/model."""

    def __init__(self, server: Server):
        self.server = server
        server.add_org("acme")
        self.alice = server.actor(server.add_user("alice", "acme"))
        self.mallory = server.actor(server.add_user("mallory"))
        self.anonymous = server.actor()
        for repo, private in (("acme/relu", False), ("acme/secret", True)):
            assert self.alice.create_repo(repo, repo_type="kernel", private=private).status_code == 200
            answer = self.alice.commit(repo, [file_op("README.md", b"# relu\n")], repo_type="kernel")
            assert answer.status_code == 200, answer.text
        assert self.alice.create_repo("acme/model").status_code == 200


@pytest.fixture
def world(kernel_hub, tmp_path):
    server = Server(kernel_hub, tmp_path / "root")
    yield World(server)
    server.stop()


def post(actor, repo_id: str, document, **kwargs):
    body = document if isinstance(document, (bytes, str)) else json.dumps(document)
    return actor.post(benchmarks_path(repo_id), data=body, headers={"Content-Type": "application/json"}, **kwargs)


def test_upload_list_and_get_one_run(world):
    head = world.alice.head("acme/relu", repo_type="kernel")
    document = run_document("acme/relu")
    answer = post(world.alice, "acme/relu", document)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    assert created["revision"] == head
    assert len(created["id"]) == 20

    runs = world.anonymous.get(benchmarks_path("acme/relu")).json()["runs"]
    assert [run["id"] for run in runs] == [created["id"]]
    run = runs[0]
    assert run["revision"] == head
    assert run["uploaded_by"] == "alice"
    assert run["uploaded_at"].endswith("Z")
    assert run["document"] == document

    one = world.anonymous.get(benchmarks_path("acme/relu", "/" + created["id"]))
    assert one.status_code == 200
    assert one.json() == run

    # One record per run, under the hub root.
    records = sorted((world.server.root / "benchmarks" / "kernels" / "acme" / "relu").iterdir())
    assert [p.name for p in records] == [created["id"] + ".json"]
    assert json.loads(records[0].read_text())["document"] == document


def test_listing_filters_by_revision(world):
    first = post(world.alice, "acme/relu", run_document("acme/relu")).json()
    assert world.alice.commit("acme/relu", [file_op("x.txt", b"x")], repo_type="kernel").status_code == 200
    second = post(world.alice, "acme/relu", run_document("acme/relu", revision="main")).json()
    assert second["revision"] != first["revision"]
    by_sha = world.alice.get(benchmarks_path("acme/relu"), params={"revision": first["revision"]}).json()["runs"]
    assert [run["id"] for run in by_sha] == [first["id"]]
    on_main = world.alice.get(benchmarks_path("acme/relu"), params={"revision": "main"}).json()["runs"]
    assert [run["id"] for run in on_main] == [second["id"]]
    everything = world.alice.get(benchmarks_path("acme/relu")).json()["runs"]
    assert [run["id"] for run in everything] == [first["id"], second["id"]]
    missing = world.alice.get(benchmarks_path("acme/relu"), params={"revision": "nope"})
    assert missing.status_code == 404
    assert missing.headers["X-Error-Code"] == "RevisionNotFound"


def test_unknown_revision_is_refused_on_upload(world):
    answer = post(world.alice, "acme/relu", run_document("acme/relu", revision="v7"))
    assert answer.status_code == 404
    assert answer.headers["X-Error-Code"] == "RevisionNotFound"
    assert world.alice.get(benchmarks_path("acme/relu")).json()["runs"] == []


def test_unknown_run_id(world):
    for run_id in ("0" * 20, "..%2f..%2fetc", "x"):
        answer = world.alice.get(benchmarks_path("acme/relu", "/" + run_id))
        assert answer.status_code == 404
        assert answer.headers["X-Error-Code"] == "BenchmarkNotFound"


def test_anonymous_and_invalid_tokens_cannot_upload(world):
    answer = post(world.anonymous, "acme/relu", run_document("acme/relu"))
    assert answer.status_code == 401
    assert "Authentication required" in error_of(answer)
    assert post(world.server.actor("hf_not_a_token"), "acme/relu", run_document("acme/relu")).status_code == 401
    assert world.alice.get(benchmarks_path("acme/relu")).json()["runs"] == []


def test_outsiders_may_upload_to_public_repositories(world):
    # Uploading needs read access only: anyone may benchmark a public kernel.
    answer = post(world.mallory, "acme/relu", run_document("acme/relu"))
    assert answer.status_code == 201, answer.text
    assert world.anonymous.get(benchmarks_path("acme/relu")).json()["runs"][0]["uploaded_by"] == "mallory"


def test_private_repository_runs_are_invisible_to_outsiders(world):
    created = post(world.alice, "acme/secret", run_document("acme/secret"))
    assert created.status_code == 201, created.text
    run_id = created.json()["id"]
    # Outsiders get the answers of a missing repository.
    assert post(world.mallory, "acme/secret", run_document("acme/secret")).status_code == 404
    assert post(world.anonymous, "acme/secret", run_document("acme/secret")).status_code == 401
    for actor, status in ((world.mallory, 404), (world.anonymous, 401)):
        for rest in ("", "/" + run_id):
            answer = actor.get(benchmarks_path("acme/secret", rest))
            assert answer.status_code == status
            assert answer.headers["X-Error-Code"] == "RepoNotFound"
            assert "ReluBenchmark" not in answer.text
    assert [run["id"] for run in world.alice.get(benchmarks_path("acme/secret")).json()["runs"]] == [run_id]


def test_only_kernel_repositories_have_benchmarks(world):
    answer = world.alice.post("/api/models/acme/model/benchmarks", json=run_document("acme/model"))
    assert answer.status_code == 404
    assert world.alice.get("/api/models/acme/model/benchmarks").status_code == 404


@pytest.mark.parametrize("path,value,field", [
    ("format", "kernels-benchmark/2", "format"),
    ("format", DELETE, "format"),
    ("kernel", [], "kernel"),
    ("kernel.repo_id", "acme/other", "kernel.repo_id"),
    ("kernel.repo_id", "not a repo", "kernel.repo_id"),
    ("kernel.revision", "..", "kernel.revision"),
    ("kernel.variant", 3, "kernel.variant"),
    ("machine.cpu", "x" * 257, "machine.cpu"),
    ("machine.gpu", 1, "machine.gpu"),
    ("settings.iterations", 0, "settings.iterations"),
    ("settings.warmup", 1.5, "settings.warmup"),
    ("settings.timer", "wallclock", "settings.timer"),
    ("device.copy_bandwidth_bytes_per_s", "fast", "device.copy_bandwidth_bytes_per_s"),
    ("device.peak_flops_per_s", -1, "device.peak_flops_per_s"),
    ("results", {}, "results"),
    ("results.1", "case", "results[1]"),
    ("results.1.mean", -0.5, "results[1].mean"),
    ("results.1.mean", "0.4", "results[1].mean"),
    ("results.1.std", DELETE, "results[1].std"),
    ("results.1.unit", "s", "results[1].unit"),
    ("results.1.verified", "yes", "results[1].verified"),
    ("results.1.samples", 0, "results[1].samples"),
    ("results.1.outliers", 101, "results[1].outliers"),
    ("results.1.median", 99.0, "results[1].median"),
    ("results.1.case", "c" * 300, "results[1].case"),
    ("results.1.bandwidth_fraction", True, "results[1].bandwidth_fraction"),
])
def test_invalid_documents_are_refused_naming_the_field(world, path, value, field):
    answer = post(world.alice, "acme/relu", changed(run_document("acme/relu"), path, value))
    assert answer.status_code == 400, answer.text
    assert error_of(answer).startswith(field + ":"), error_of(answer)
    assert answer.headers["X-Error-Message"] == error_of(answer)
    assert world.alice.get(benchmarks_path("acme/relu")).json()["runs"] == []


@pytest.mark.parametrize("body,field", [
    (b"not json", "body"),
    (b"[]", "body"),
    (b'{"format": "kernels-benchmark/1", "x": ' + b"[" * 100 + b"]" * 100 + b"}", "body"),
    # Not representable as a finite double: refused (by the JSON parser) rather than stored as infinity.
    (json.dumps(run_document("acme/relu")).replace('"mean": 0.021', '"mean": 1e999').encode(), "body"),
])
def test_malformed_bodies_are_refused(world, body, field):
    answer = post(world.alice, "acme/relu", body)
    assert answer.status_code == 400, answer.text
    assert error_of(answer).startswith(field + ":"), error_of(answer)


def test_result_count_limit(world):
    many = [result("B", f"case{i}", 1.0) for i in range(1001)]
    answer = post(world.alice, "acme/relu", run_document("acme/relu", results=many))
    assert answer.status_code == 400
    assert error_of(answer) == "results: more than 1000 entries"
    assert post(world.alice, "acme/relu", run_document("acme/relu", results=many[:1000])).status_code == 201


def test_body_over_one_mebibyte_is_413(world):
    document = run_document("acme/relu")
    document["padding"] = "x" * (1 << 20)
    answer = post(world.alice, "acme/relu", document)
    assert answer.status_code == 413
    assert "1048576" in error_of(answer)
    assert world.alice.get(benchmarks_path("acme/relu")).json()["runs"] == []


def test_unknown_members_are_not_stored(world):
    document = run_document("acme/relu")
    document["extra"] = "<script>"
    document["results"][0]["note"] = 1
    assert post(world.alice, "acme/relu", document).status_code == 201
    stored = world.alice.get(benchmarks_path("acme/relu")).json()["runs"][0]["document"]
    assert stored == run_document("acme/relu")


def test_storage_quota_counts_benchmark_records(kernel_hub, tmp_path):
    server = Server(kernel_hub, tmp_path / "root", "--quota", "8K")
    try:
        server.add_org("acme")
        alice = server.actor(server.add_user("alice", "acme"))
        # bob's repository and commit are charged to bob: alice's quota holds her runs only.
        bob = server.actor(server.add_user("bob", "acme"))
        assert bob.create_repo("acme/relu", repo_type="kernel").status_code == 200
        assert bob.commit("acme/relu", [file_op("README.md", b"r")], repo_type="kernel").status_code == 200
        answers = [post(alice, "acme/relu", run_document("acme/relu")) for _ in range(12)]
        statuses = [a.status_code for a in answers]
        # Every record has the same size (same document, fixed-length id and time), charged with
        # 128 bytes of bookkeeping: as many as fit in 8 KiB are stored, every further one is refused.
        records = list((server.root / "benchmarks").rglob("*.json"))
        fitting = 8192 // (records[0].stat().st_size + 128)
        assert 2 <= fitting < 12
        assert statuses == [201] * fitting + [413] * (12 - fitting), statuses
        assert "storage quota" in error_of(answers[-1])
        assert len(alice.get(benchmarks_path("acme/relu")).json()["runs"]) == len(records) == fitting
    finally:
        server.stop()


def test_owners_hide_and_delete_runs_and_outsiders_are_marked(world):
    """The finding: anyone posts runs to anyone's public kernel and the owner can neither hide
    nor delete them. Now runs of outsiders are marked, the owners hide, unhide and delete any
    run, a hidden run is shown to the owners only, and the page names who posted each run."""
    own = post(world.alice, "acme/relu", run_document("acme/relu")).json()["id"]
    spam = post(world.mallory, "acme/relu", run_document("acme/relu")).json()["id"]
    runs = {run["id"]: run for run in world.anonymous.get(benchmarks_path("acme/relu")).json()["runs"]}
    assert (runs[own]["outsider"], runs[spam]["outsider"]) == (False, True)
    assert runs[spam]["uploaded_by"] == "mallory" and not runs[spam]["hidden"]
    page = world.anonymous.get("/acme/relu").text
    assert "by mallory <span class=\"outsider\"" in page and "by alice, " in page

    # Only the owners moderate: the poster of a run and anonymous callers cannot.
    for who, status in ((world.mallory, 403), (world.anonymous, 401)):
        assert who.post(benchmarks_path("acme/relu", f"/{spam}/hide")).status_code == status
        assert who.request("DELETE", benchmarks_path("acme/relu", f"/{own}")).status_code == status
    answer = world.alice.post(benchmarks_path("acme/relu", f"/{spam}/hide"))
    assert answer.status_code == 200 and answer.json() == {"id": spam, "hidden": True}, answer.text
    for who in (world.anonymous, world.mallory):
        assert [run["id"] for run in who.get(benchmarks_path("acme/relu")).json()["runs"]] == [own]
        missing = who.get(benchmarks_path("acme/relu", f"/{spam}"))
        assert missing.status_code == 404 and missing.headers["X-Error-Code"] == "BenchmarkNotFound"
    assert "mallory" not in world.anonymous.get("/acme/relu").text
    listed = world.alice.get(benchmarks_path("acme/relu")).json()["runs"]
    assert [(run["id"], run["hidden"]) for run in listed] == [(own, False), (spam, True)]
    assert world.alice.post(benchmarks_path("acme/relu", f"/{spam}/unhide")).json()["hidden"] is False
    assert len(world.anonymous.get(benchmarks_path("acme/relu")).json()["runs"]) == 2

    # Deleting gives the run's bytes back to its poster's quota.
    usage = world.server.root / "usage" / "mallory"
    charged = [line for line in usage.read_text().splitlines() if not line.endswith(" -")]
    assert world.alice.request("DELETE", benchmarks_path("acme/relu", f"/{spam}")).status_code == 200
    assert world.alice.get(benchmarks_path("acme/relu", f"/{spam}")).status_code == 404
    assert world.alice.request("DELETE", benchmarks_path("acme/relu", f"/{spam}")).status_code == 404
    assert usage.read_text().splitlines()[-1] == charged[-1].split()[0] + " -"
    assert [run["id"] for run in world.anonymous.get(benchmarks_path("acme/relu")).json()["runs"]] == [own]
    world.server.assert_alive()


def test_outsiders_cannot_moderate_a_private_kernel_they_cannot_see(world):
    run = post(world.alice, "acme/secret", run_document("acme/secret")).json()["id"]
    for action in ("/hide", "/unhide"):
        assert world.mallory.post(benchmarks_path("acme/secret", f"/{run}{action}")).status_code == 404
    assert world.mallory.request("DELETE", benchmarks_path("acme/secret", f"/{run}")).status_code == 404
    assert world.alice.post(benchmarks_path("acme/secret", f"/{'0' * 20}/hide")).status_code == 404
