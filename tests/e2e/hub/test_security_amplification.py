"""Amplification as an attacker tries it on kernel-hub (docs/hub-security.md, "Ranges" and "Cost
of a request"): Range applied to JSON answers, many overlapping ranges, a zero-byte file asked for
a huge multi-range, 416 for a range that merely ends past the file, deep pagination, a shard that
names far more than it weighs, and the server CPU time of the worst of these requests."""
import json
import os
import sys
import time
import urllib.parse
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import attacker  # noqa: E402
from attacker import file_op, lfs_op  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "unit" / "xet" / "data" / "upload"
XORB = next(DATA.glob("*.xorb"))
SHARD = (DATA / "upload.shard").read_bytes()
MIB = 1024 * 1024


def cpu_seconds(server) -> float:
    """User + system CPU time the server process has used so far."""
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture(scope="module")
def world(kernel_hub, tmp_path_factory):
    server = attacker.Server(kernel_hub, tmp_path_factory.mktemp("amplification") / "root")
    w = attacker.World(server)
    w.big = os.urandom(MIB)
    w.big_oid = w.alice.upload("acme/pub", w.big)
    empty_oid = w.alice.upload("acme/pub", b"")
    files = [lfs_op("big.bin", w.big_oid, len(w.big)), lfs_op("empty.bin", empty_oid, 0),
             file_op("small.txt", b"x" * 500), file_op("zero.txt", b"")]
    # A wide tree: 3,000 files in 300 directories.
    files += [file_op(f"d{i % 300:03d}/f{i:04d}.txt", b"%d" % i) for i in range(3000)]
    answer = w.alice.commit("acme/pub", files)
    assert answer.status_code == 200, answer.text
    w.cpu = {}  # request -> server CPU seconds, for the worst-request test
    yield w
    server.stop()


def measured(world, name, send):
    """Sends a request and records the server's CPU time for it."""
    before = cpu_seconds(world.server)
    answer = send()
    world.cpu[name] = max(world.cpu.get(name, 0.0), cpu_seconds(world.server) - before)
    return answer


def resolve(world, path, headers):
    return world.alice.get(f"/acme/pub/resolve/main/{path}", headers=headers)


# --- Range only on file bytes --------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/models/acme/pub/tree/main", "/api/models/acme/pub/tree/main?recursive=true",
                                  "/api/models/acme/pub", "/api/models/acme/pub/refs", "/api/whoami-v2"])
def test_json_answers_ignore_range(world, path):
    plain = world.alice.get(path)
    ranged = world.alice.get(path, headers={"Range": "bytes=0-35"})
    assert ranged.status_code == plain.status_code == 200
    assert "content-range" not in ranged.headers
    assert ranged.json() == plain.json()


def test_reconstruction_json_is_never_sliced_and_its_range_is_clamped(world):
    hub = world.server
    grant = world.alice.get("/api/models/acme/pub/xet-write-token/main").json()
    cas = httpx.Client(base_url=grant["casUrl"], headers={"Authorization": f"Bearer {grant['accessToken']}"}, timeout=60)
    assert cas.post(f"/v1/xorbs/default/{XORB.stem}", content=XORB.read_bytes()).status_code == 200
    assert cas.post("/v1/shards", content=SHARD).status_code == 200
    read = world.alice.get("/api/models/acme/pub/xet-read-token/main").json()
    cas.headers["Authorization"] = f"Bearer {read['accessToken']}"
    files = json.loads((DATA / "files.json").read_text())
    file_ids = sorted(p.name for p in (hub.root / "xet" / "files").rglob("*") if p.is_file())
    assert file_ids
    for file_id in file_ids:
        whole = cas.get(f"/v1/reconstructions/{file_id}")
        assert whole.status_code == 200
        size = sum(term["unpacked_length"] for term in whole.json()["terms"])
        for header in ("bytes=0-35", "bytes=0-268435455", "bytes=1-", "bytes=-10"):
            ranged = cas.get(f"/v1/reconstructions/{file_id}", headers={"Range": header})
            if size == 0:
                assert ranged.status_code == 200 and ranged.json() == whole.json()
                continue
            assert ranged.status_code == 200, (header, ranged.text)
            assert "content-range" not in ranged.headers
            assert ranged.json()["terms"], header  # whole JSON, not its first 36 bytes
        if size:
            past = cas.get(f"/v1/reconstructions/{file_id}", headers={"Range": f"bytes={size}-{size + 10}"})
            assert past.status_code == 416
    assert len(files) == len(file_ids)


# --- Multi-range: merged, limited, never more than the file --------------------------------------

def test_overlapping_ranges_are_merged_into_at_most_the_file(world):
    header = "bytes=" + ",".join(["0-1048575"] * 200)
    answer = measured(world, "resolve with 200 overlapping ranges", lambda: resolve(world, "big.bin", {"Range": header}))
    assert answer.status_code == 206
    assert len(answer.content) == MIB and answer.content == world.big
    assert answer.headers["content-range"] == f"bytes 0-{MIB - 1}/{MIB}"


def test_many_disjoint_ranges_are_answered_with_the_whole_file(world):
    header = "bytes=" + ",".join(f"{i * 1000}-{i * 1000 + 9}" for i in range(200))
    answer = measured(world, "resolve with 200 disjoint ranges", lambda: resolve(world, "big.bin", {"Range": header}))
    assert answer.status_code == 200 and answer.content == world.big


def test_a_few_ranges_come_as_multipart_byteranges(world):
    answer = resolve(world, "big.bin", {"Range": "bytes=0-9,100-109,50-60,105-120"})
    assert answer.status_code == 206
    assert answer.headers["content-type"].startswith("multipart/byteranges; boundary=")
    assert int(answer.headers["content-length"]) == len(answer.content) < 1000
    # Merged: 0-9, 50-60 and 100-120 (100-109 and 105-120 overlap).
    for first, last in ((0, 9), (50, 60), (100, 120)):
        assert b"Content-Range: bytes %d-%d/1048576\r\n\r\n" % (first, last) + world.big[first:last + 1] in answer.content
    assert answer.content.count(b"Content-Range:") == 3


@pytest.mark.parametrize("path", ["empty.bin", "zero.txt"])
def test_a_zero_byte_file_never_answers_more_than_zero_bytes(world, path):
    header = "bytes=" + ",".join(["0-268435455"] * 200)
    for headers in ({"Range": header}, {"Range": "bytes=0-"}, {"Range": "bytes=-5"}, {}):
        answer = resolve(world, path, headers)
        assert answer.status_code == 200, (headers, answer.status_code)
        assert answer.headers["content-length"] == "0" and answer.content == b""


def test_416_only_when_the_start_is_past_the_end(world):
    answer = resolve(world, "small.txt", {"Range": "bytes=0-268435455"})
    assert answer.status_code == 206 and answer.content == b"x" * 500
    assert answer.headers["content-range"] == "bytes 0-499/500"
    answer = resolve(world, "small.txt", {"Range": "bytes=499-"})
    assert answer.status_code == 206 and answer.content == b"x"
    answer = resolve(world, "small.txt", {"Range": "bytes=500-"})
    assert answer.status_code == 416 and answer.headers["content-range"] == "bytes */500"


# --- Pagination by cursor -------------------------------------------------------------------------

@pytest.mark.parametrize("recursive", [False, True])
def test_tree_pages_follow_opaque_cursors_to_the_end(world, recursive):
    url = f"/api/models/acme/pub/tree/main?recursive={'true' if recursive else 'false'}&expand=true"
    seen, pages = [], 0
    while url:
        answer = measured(world, f"tree page (recursive={recursive}, expand)", lambda: world.alice.get(url))
        assert answer.status_code == 200, answer.text
        seen += [entry["path"] for entry in answer.json()]
        pages += 1
        link = answer.headers.get("link")
        url = link[link.index("<") + 1:link.index(">")].replace(world.server.url, "") if link else None
        if url:
            assert "cursor=" in url and "cursor=0" not in url
    files = [s["rfilename"] for s in world.alice.get("/api/models/acme/pub").json()["siblings"]]
    directories = {path.rsplit("/", 1)[0] for path in files if "/" in path}
    expected = len(files) + len(directories) if recursive else len([f for f in files if "/" not in f]) + len(directories)
    assert len(seen) == len(set(seen)) == expected
    # 50 entries a page (expand); a recursive page may add the directories of its last file.
    assert -(-expected // 52) <= pages <= -(-expected // 50)


def test_commit_pages_resume_at_a_commit_not_an_offset(world):
    for i in range(60):
        assert world.alice.commit("acme/pub", [file_op("counter.txt", b"%d" % i)]).status_code == 200
    first = world.alice.get("/api/models/acme/pub/commits/main")
    assert first.status_code == 200 and len(first.json()) == 50
    link = first.headers["link"]
    assert "cursor=" in link and "p=" not in link
    second = world.alice.get(link[link.index("<") + 1:link.index(">")].replace(world.server.url, ""))
    assert second.status_code == 200 and second.json()
    assert {c["id"] for c in first.json()}.isdisjoint({c["id"] for c in second.json()})
    assert world.alice.get("/api/models/acme/pub/commits/main?p=21").status_code == 400
    assert world.alice.get("/api/models/acme/pub/commits/main?cursor=nothex").status_code == 400


# --- Shards: verification linear in their size ---------------------------------------------------

def test_a_small_shard_naming_a_large_repeated_file_is_refused_quickly(world, tmp_path):
    """hf_xet stores a file that repeats one 1 MiB block 400 times as one xorb and a shard of a few
    KiB naming it 400 times; checking its SHA-256 means reading 400 MiB back."""
    block = os.urandom(MIB)
    path = tmp_path / "repeated.bin"
    with open(path, "wb") as out:
        for _ in range(400):
            out.write(block)
    grant = world.alice.get("/api/models/acme/pub/xet-write-token/main").json()
    before = cpu_seconds(world.server)
    script = ("import sys, hf_xet; hf_xet.upload_files([sys.argv[1]], sys.argv[2], (sys.argv[3], int(sys.argv[4])), "
              "None, None, 'model')")
    import subprocess
    result = subprocess.run([sys.executable, "-c", script, str(path), grant["casUrl"], grant["accessToken"],
                             str(grant["exp"])], capture_output=True, text=True, timeout=300)
    spent = cpu_seconds(world.server) - before
    assert result.returncode != 0, "the shard was accepted"
    assert "POST /api/kernel-hub/xet/v1/shards 400" in world.server.log()
    world.cpu["the xorb and shard uploads of a 400 MiB repeated file"] = spent
    assert spent < 2.0, spent


# --- The worst request ----------------------------------------------------------------------------

def test_worst_cpu_per_request(world, record_property):
    """Runs last in this file: the server CPU time of each expensive request above, and of the
    listings and downloads an anonymous client may ask for."""
    anonymous = world.anonymous
    for name, send in [
        ("recursive tree, first page", lambda: anonymous.get("/api/models/acme/pub/tree/main?recursive=true")),
        ("model info with all files", lambda: anonymous.get("/api/models/acme/pub?blobs=true")),
        ("paths-info of 1,000 paths", lambda: anonymous.post(
            "/api/models/acme/pub/paths-info/main", headers={"Content-Type": "application/x-www-form-urlencoded"},
            data=urllib.parse.urlencode({"paths": [f"d{i % 300:03d}/f{i:04d}.txt" for i in range(1000)],
                                         "expand": "true"}, doseq=True))),
        ("resolve 1 MiB", lambda: anonymous.get("/acme/pub/resolve/main/big.bin")),
        ("commits, first page", lambda: anonymous.get("/api/models/acme/pub/commits/main")),
        ("index page", lambda: anonymous.get("/")),
    ]:
        answer = measured(world, name, send)
        assert answer.status_code == 200, (name, answer.status_code, answer.text[:300])
    worst = max(world.cpu, key=world.cpu.get)
    table = "\n".join(f"  {seconds * 1000:8.1f} ms  {name}" for name, seconds in
                      sorted(world.cpu.items(), key=lambda item: -item[1]))
    print(f"\nserver CPU per request (worst first):\n{table}")
    record_property("worst_cpu_per_request", f"{worst}: {world.cpu[worst] * 1000:.1f} ms")
    for name, seconds in world.cpu.items():
        limit = 2.0 if name.startswith("the xorb and shard") else 0.5
        assert seconds < limit, (name, seconds)
