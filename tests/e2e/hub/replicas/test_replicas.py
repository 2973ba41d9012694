"""kernel-hub replicas over one PostgreSQL and one S3 store (Swift) behind haproxy
(docs/hub-scale.md), with the services of conftest.py, shared by the whole file:
- `kernel-hub migrate` from a directory to PostgreSQL + S3 and back is byte for byte;
- 16 writers commit to one branch through the balancer: each commit lands once, history is linear;
- replicas killed with SIGKILL 20 times during uploads and commits: clients retry through the
  balancer; no corrupt ref, no half-made commit visible, no acknowledged commit lost;
- kernel-builder upload, our loader, upstream kernels 0.17.2 and huggingface_hub 2.4 + hf_xet end
  to end through the balancer."""
import base64
import hashlib
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.error
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from replica_support import REPLICAS, REPO_ROOT, request  # noqa: E402
from xet_support import CLIENTS, client_env, make_folder, run_client  # noqa: E402

# What a directory root holds that is not the Hub's state: flock files, temporaries, staging.
NOT_STATE = ("tmp", "locks")


def tree(root: Path) -> dict:
    files = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_dir() or relative.split("/")[0] in NOT_STATE or path.name.startswith(".") \
                or path.name.endswith("lock"):
            continue
        files[relative] = path.read_bytes()
    return files


def test_migration_to_postgres_and_s3_and_back_is_byte_for_byte(seed):
    source, back = tree(seed.source), tree(seed.round_trip)
    assert sorted(source) == sorted(back)
    assert [path for path in source if source[path] != back[path]] == []
    # A bit of everything went through: LFS objects, xorbs, accounts, discussions, benchmark runs.
    for prefix in ("objects/", "xet/xorbs/", "accounts.json", "repos/models/alice/lfs/", "repos/kernels/acme/relu/"):
        assert any(path.startswith(prefix) for path in source), (prefix, sorted(source)[:50])
    assert any("discussions" in path for path in source)
    assert any("benchmark" in path for path in source)
    assert "Copied 0 of" not in seed.migrate_log.splitlines()[1]


def test_migration_run_again_copies_nothing(seed, services, kernel_hub):
    _, env = services
    result = subprocess.run([str(kernel_hub), "migrate", "--from", str(seed.source), "--to",
                             env["KB_HUB_DATABASE"], env["KB_HUB_OBJECT_STORE"]],
                            env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "\nCopied 0 of " in result.stderr and " and 0 of " in result.stderr, result.stderr


# ---- writers -------------------------------------------------------------------------------------

def ndjson_commit(summary: str, parent: str | None, files: dict) -> bytes:
    header = {"summary": summary, "description": ""}
    if parent:
        header["parentCommit"] = parent
    lines = [{"key": "header", "value": header}]
    for path, data in files.items():
        lines.append({"key": "file", "value": {"path": path, "content": base64.b64encode(data).decode(),
                                               "encoding": "base64"}})
    return "\n".join(json.dumps(line) for line in lines).encode()


def head(url, token, repo, branch="main"):
    _, body, _ = request(f"{url}/api/models/{repo}/revision/{branch}", token)
    return json.loads(body)["sha"]


def history(url, token, repo, branch="main"):
    """Every commit of the branch, newest first (following the pages' Link: rel="next")."""
    commits, page = [], f"{url}/api/models/{repo}/commits/{branch}"
    while page:
        _, body, headers = request(page, token)
        commits += json.loads(body)
        link = headers.get("Link", "")
        page = link.split(">", 1)[0].lstrip("<") if 'rel="next"' in link else None
        if page and page.startswith("/"):
            page = url + page
    return commits


def landed(url, token, repo, summary) -> bool:
    return any(commit["title"] == summary for commit in history(url, token, repo))


def commit_once(url, token, repo, summary, files, stats):
    """A careful client: parent_commit compare-and-set; on 409/412 or a lost answer it rereads the
    head, and first checks whether its own commit landed (a replica may die after committing)."""
    uncertain = False
    for attempt in range(200):
        try:
            if uncertain and landed(url, token, repo, summary):
                return
            parent = head(url, token, repo)
            request(f"{url}/api/models/{repo}/commit/main", token, ndjson_commit(summary, parent, files), "POST",
                    {"Content-Type": "application/x-ndjson"})
            return
        except urllib.error.HTTPError as error:
            if error.code in (409, 412):
                stats["conflicts"] += 1
            elif error.code in (502, 503, 504):
                stats["unavailable"] += 1
                uncertain = True
            else:
                raise
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, http.client.HTTPException):
            # No answer, or part of one (IncompleteRead: the replica was killed while it answered).
            stats["lost"] += 1
            uncertain = True
        time.sleep(random.uniform(0, 0.05 * min(attempt + 1, 10)))
    raise AssertionError(f"{summary} did not land after 200 attempts")


def create_model(url, token, name):
    try:
        request(f"{url}/api/repos/create", token, json.dumps({"name": name, "organization": "acme",
                                                               "type": "model"}).encode(),
                "POST", {"Content-Type": "application/json"})
    except urllib.error.HTTPError as error:
        assert error.code == 409


def run_writers(url, token, repo, writers, commits, stats, stop=None):
    """`writers` threads, each committing up to `commits` times (until `stop` is set) to its own
    file of the branch; acknowledged commits are appended to stats["acknowledged"]."""
    errors = []

    def writer(w):
        try:
            for n in range(commits):
                if stop is not None and stop.is_set():
                    return
                commit_once(url, token, repo, f"w{w}-{n}", {f"w{w}.txt": f"{w}:{n}\n".encode() * (n + 1)}, stats)
                stats["acknowledged"].append(f"w{w}-{n}")
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(f"writer {w}: {error!r}")

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    return threads, errors


def check_history(url, token, repo, acknowledged: list) -> list:
    """The branch's history (a chain of first parents from its head) holds every acknowledged
    commit exactly once, and no commit twice: none was lost to a concurrent ref update, none landed
    twice because a client retried it."""
    titles = [commit["title"] for commit in history(url, token, repo)]
    assert len(titles) == len(set(titles)), "a commit landed twice"
    assert sorted(set(acknowledged) - set(titles)) == [], "acknowledged commits are missing"
    return titles


def test_sixteen_writers_commit_to_one_branch_each_commit_once(cluster, seed):
    url, token, repo = cluster.url, seed.token, "acme/writers"
    create_model(url, token, "writers")
    stats = {"conflicts": 0, "unavailable": 0, "lost": 0, "acknowledged": []}
    started = time.monotonic()
    threads, errors = run_writers(url, token, repo, 16, 5, stats)
    for thread in threads:
        thread.join(240)
    assert errors == []
    titles = check_history(url, token, repo, stats["acknowledged"])
    assert len(stats["acknowledged"]) == 80
    assert sorted(title for title in titles if title.startswith("w")) == sorted(stats["acknowledged"])
    files = {f"w{w}.txt" for w in range(16)}
    _, body, _ = request(f"{url}/api/models/{repo}/tree/main", token)
    assert {entry["path"] for entry in json.loads(body)} >= files
    print(f"\n16 writers x 5 commits in {time.monotonic() - started:.1f} s, {stats['conflicts']} conflicts retried")


def test_kill9_of_replicas_during_uploads_and_commits(cluster, seed, tmp_path):
    """20 times: a random replica is killed with SIGKILL while 4 writers commit through the
    balancer and a huggingface_hub client uploads LFS files, then it is restarted."""
    url, token, repo = cluster.url, seed.token, "acme/kill9"
    create_model(url, token, "kill9")
    stats = {"conflicts": 0, "unavailable": 0, "lost": 0, "acknowledged": []}
    stop = threading.Event()
    threads, errors = run_writers(url, token, repo, 4, 10000, stats, stop)
    uploads = start_lfs_uploads(cluster, seed, tmp_path, stop)
    rng = random.Random(36)
    started = time.monotonic()
    try:
        for _ in range(20):
            time.sleep(rng.uniform(0.2, 0.6))
            victim = rng.randrange(REPLICAS)
            cluster.kill(victim)
            time.sleep(rng.uniform(0.05, 0.3))
            cluster.start_replica(victim)
        # A few more commits once every replica is back.
        cluster.wait_until_up()
        settled = len(stats["acknowledged"]) + 8
        deadline = time.monotonic() + 60
        while len(stats["acknowledged"]) < settled and time.monotonic() < deadline and not errors:
            time.sleep(0.05)
    finally:
        stop.set()
        for thread in threads + [uploads["thread"]]:
            thread.join(120)
    assert errors == [] and uploads["errors"] == []
    titles = check_history(url, token, repo, stats["acknowledged"])
    # The head's files are whole: each writer's file holds its last landed commit's content.
    for w in range(4):
        mine = [int(t.split("-")[1]) for t in titles if t.startswith(f"w{w}-")]
        if mine:
            _, body, _ = request(f"{url}/{repo}/resolve/main/w{w}.txt", token)
            assert body == f"{w}:{max(mine)}\n".encode() * (max(mine) + 1)
    # Every uploaded file that was acknowledged is there, whole; nothing half-uploaded is listed.
    _, body, _ = request(f"{url}/api/models/acme/kill9-lfs/tree/main", token)
    listed = {entry["path"] for entry in json.loads(body)}
    assert set(uploads["acknowledged"]) <= listed
    for path in listed - {".gitattributes"}:
        _, data, _ = request(f"{url}/acme/kill9-lfs/resolve/main/{path}", token)
        assert data == lfs_content(path)
    print(f"\n20 kills in {time.monotonic() - started:.1f} s: {len(stats['acknowledged'])} commits and "
          f"{len(uploads['acknowledged'])} LFS uploads acknowledged, all there once; clients retried "
          f"{stats['conflicts']} conflicts, {stats['unavailable']} 5xx answers, {stats['lost']} lost answers")


def lfs_content(path: str) -> bytes:
    n = int(path.split("-")[1].split(".")[0])
    return hashlib.sha256(path.encode()).digest() * (40000 + n)


def start_lfs_uploads(cluster, seed, tmp_path, stop) -> dict:
    """huggingface_hub (in this process, plain LFS) uploading 1 MB files one commit each until
    `stop`, retrying a failed upload as a user would."""
    import huggingface_hub as hf
    api = hf.HfApi(endpoint=cluster.url, token=seed.token)
    api.create_repo("acme/kill9-lfs", exist_ok=True)
    state = {"acknowledged": [], "errors": []}

    def upload():
        n = 0
        while not stop.is_set():
            path = f"file-{n}.bin"
            for attempt in range(100):
                try:
                    api.upload_file(path_or_fileobj=lfs_content(path), path_in_repo=path, repo_id="acme/kill9-lfs")
                    state["acknowledged"].append(path)
                    break
                except Exception as error:  # noqa: BLE001 - any transport or 5xx error: retry
                    if attempt == 99:
                        state["errors"].append(repr(error))
                        return
                    time.sleep(0.1)
            n += 1

    state["thread"] = threading.Thread(target=upload)
    state["thread"].start()
    return state


# ---- clients -------------------------------------------------------------------------------------

class Balanced:
    url = ""


def test_replicas_serve_the_migrated_hub(cluster, seed):
    for path, data in seed.lfs_files.items():
        _, body, _ = request(f"{cluster.url}/alice/lfs/resolve/main/{path}", seed.token)
        assert body == data, path
    for replica in cluster.replicas:
        _, body, _ = request(f"http://127.0.0.1:{replica.port}/alice/xet/resolve/main/README.md", seed.token)
        assert body == seed.xet_files["README.md"]


def test_clients_end_to_end_through_the_balancer(cluster, seed, kernel_builder, variant_tree, tmp_path):
    hub = Balanced()
    hub.url = cluster.url
    token = seed.token
    # kernel-builder upload, version 2 of the migrated kernel.
    kernel = tmp_path / "relu"
    files = variant_tree(kernel, version=2)
    env = {**os.environ, "HF_ENDPOINT": cluster.url, "HF_TOKEN": token}
    upload = subprocess.run([str(kernel_builder), "upload", str(kernel)], env=env, capture_output=True, text=True,
                            timeout=120)
    assert upload.returncode == 0, upload.stderr[-3000:]
    # Our loader, then upstream kernels 0.17.2, each into a cache of its own.
    load = ("import sys; from pathlib import Path; from kernels import get_kernel; "
            "k = get_kernel('acme/relu', version={v}, backend='cpu'); print(Path(k.__file__).parent)")
    upstream = REPO_ROOT / ".upstream-site"
    loaders = {"ours": None, "upstream 0.17.2": str(upstream) if (upstream / "kernels").is_dir() else "missing"}
    for name, pythonpath in loaders.items():
        if pythonpath == "missing":
            if os.environ.get("CI") == "true":
                pytest.fail("upstream kernels 0.17.2 is not in .upstream-site")
            continue
        for version, expected in ((1, seed.kernel_files), (2, files)):
            load_env = {k: v for k, v in os.environ.items() if not k.startswith("HF_") and k != "PYTHONPATH"}
            load_env.update(HF_ENDPOINT=cluster.url, HF_TOKEN=token, HF_HUB_CACHE=str(tmp_path / f"cache-{name}"),
                            HF_HUB_DISABLE_XET="1")
            if pythonpath:
                load_env["PYTHONPATH"] = pythonpath
            loaded = subprocess.run([sys.executable, "-c", load.format(v=version)], env=load_env, capture_output=True,
                                    text=True, timeout=300)
            assert loaded.returncode == 0, (name, loaded.stderr[-3000:])
            variant_dir = Path(loaded.stdout.strip().splitlines()[-1])
            for path, data in expected.items():
                assert (variant_dir / Path(path).name).read_bytes() == data, (name, version, path)
    # huggingface_hub 2.4 with hf_xet: upload a folder (Xet) and download it again.
    folder = tmp_path / "folder"
    folder.mkdir()
    written = make_folder(folder)
    client = client_env(hub, token, tmp_path / "home", CLIENTS["hf-2.4"])
    run_client(client, "create_repo", repo_id="acme/xet-through-haproxy", repo_type="model")
    run_client(client, "upload_folder", repo_id="acme/xet-through-haproxy", repo_type="model", folder=str(folder))
    snapshot = Path(run_client(client, "snapshot", repo_id="acme/xet-through-haproxy", repo_type="model",
                               cache_dir=str(tmp_path / "snapshot"))["result"])
    for path, data in written.items():
        assert hashlib.sha256((snapshot / path).read_bytes()).hexdigest() == hashlib.sha256(data).hexdigest(), path
