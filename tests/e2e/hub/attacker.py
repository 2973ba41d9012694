"""The attacker's toolkit for the kernel-hub security tests (docs/hub-security.md): start a server
with chosen `serve` options, act as a user (or as nobody) through raw HTTP requests, and check
that the server is still alive after each attack.

Test modules import it by path (pytest runs with --import-mode=importlib):

    sys.path.insert(0, str(Path(__file__).parent)); import attacker
"""
import base64
import hashlib
import json
import subprocess
import urllib.parse
from pathlib import Path

import pytest
import httpx

TIMEOUT = 60  # seconds; generous, only there so that a hung server fails the test instead of blocking it


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def put_body(href: str, data: bytes) -> httpx.Response:
    """An LFS upload PUT to a ticket URL (no token: clients send none there)."""
    return httpx.put(href, content=data, timeout=TIMEOUT)


def quote(text: str) -> str:
    """Fully percent-encoded (no safe characters), as clients encode revisions."""
    return urllib.parse.quote(text, safe="")


class Server:
    """A `kernel-hub serve --port 0` on its own root, with extra serve options."""

    def __init__(self, binary: Path, root: Path, *options: str):
        self.binary = binary
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.log_path = root.parent / (root.name + ".log")
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [str(binary), "serve", "--root", str(root), "--port", "0", *options],
            stdout=subprocess.PIPE, stderr=log, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("Listening on http://"):
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"kernel-hub serve {' '.join(options)} did not start: {line!r}\n{self.log()}")
        self.url = line.split(" ", 2)[2]
        self.session = httpx.Client(timeout=TIMEOUT)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def add_org(self, name: str) -> None:
        subprocess.run([str(self.binary), "org", "add", name, "--root", str(self.root)], check=True,
                       capture_output=True)

    def add_user(self, name: str, *orgs: str) -> str:
        args = [str(self.binary), "user", "add", name, "--root", str(self.root)]
        for org in orgs:
            args += ["--org", org]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        return out.strip().splitlines()[-1]

    def actor(self, token=None) -> "Actor":
        return Actor(self, token)

    def alive(self) -> bool:
        """The process runs and still answers a request."""
        if self.process.poll() is not None:
            return False
        try:
            return httpx.get(self.url + "/api/kernel-hub/capabilities", timeout=TIMEOUT).status_code == 200
        except httpx.HTTPError:
            return False

    def assert_alive(self) -> None:
        assert self.alive(), "kernel-hub died or stopped answering:\n" + self.log()[-4000:]

    def stored_objects(self) -> list:
        """Names of the object files under <root>/objects (content-addressed, one per body)."""
        return sorted(p.name for p in (self.root / "objects").rglob("*") if p.is_file())

    def temp_files(self) -> list:
        tmp = self.root / "tmp"
        return sorted(p.name for p in tmp.rglob("*") if p.is_file()) if tmp.exists() else []

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


def api_segment(repo_type: str) -> str:
    return "kernels" if repo_type == "kernel" else "models"


def web_prefix(repo_type: str) -> str:
    return "/kernels/" if repo_type == "kernel" else "/"


class Actor:
    """Someone sending requests: a token, an invalid token or none (anonymous)."""

    def __init__(self, server: Server, token=None):
        self.server = server
        self.token = token

    def headers(self, extra=None) -> dict:
        out = {}
        if self.token is not None:
            out["Authorization"] = f"Bearer {self.token}"
        out.update(extra or {})
        return out

    def request(self, method: str, path: str, headers=None, **kwargs) -> httpx.Response:
        if "data" in kwargs:
            kwargs["content"] = kwargs.pop("data")
        return self.server.session.request(method, self.server.url + path, headers=self.headers(headers), **kwargs)

    def get(self, path: str, **kwargs) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    # --- write routes -------------------------------------------------------------------------

    def create_repo(self, repo_id: str, repo_type="model", private=False, **kwargs) -> httpx.Response:
        body = {"name": repo_id, "type": repo_type, "private": private}
        return self.post("/api/repos/create", json=body, **kwargs)

    def create_branch(self, repo_id: str, branch: str, repo_type="model", body=None, **kwargs):
        return self.post(f"/api/{api_segment(repo_type)}/{repo_id}/branch/{quote(branch)}",
                         json={} if body is None else body, **kwargs)

    def preupload(self, repo_id: str, files: list, repo_type="model", revision="main", **kwargs):
        return self.post(f"/api/{api_segment(repo_type)}/{repo_id}/preupload/{quote(revision)}",
                         json={"files": files}, **kwargs)

    def batch_raw(self, repo_id: str, body, repo_type="model", **kwargs) -> httpx.Response:
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        return self.post(f"{web_prefix(repo_type)}{repo_id}.git/info/lfs/objects/batch", data=data,
                         headers={"Content-Type": "application/vnd.git-lfs+json",
                                  "Accept": "application/vnd.git-lfs+json", **kwargs.pop("headers", {})},
                         **kwargs)

    def batch(self, repo_id: str, objects: list, repo_type="model", **kwargs) -> httpx.Response:
        return self.batch_raw(repo_id, {"operation": "upload", "transfers": ["basic"], "objects": objects,
                                        "hash_algo": "sha256", "ref": {"name": "main"}}, repo_type, **kwargs)

    def batch_entry(self, repo_id: str, oid: str, size: int, repo_type="model") -> dict:
        response = self.batch(repo_id, [{"oid": oid, "size": size}], repo_type)
        assert response.status_code == 200, response.text
        return response.json()["objects"][0]

    def upload(self, repo_id: str, data: bytes, repo_type="model") -> str:
        """The whole LFS flow (batch, PUT, verify); returns the oid. Fails the test on any refusal."""
        oid = sha256(data)
        entry = self.batch_entry(repo_id, oid, len(data), repo_type)
        assert "error" not in entry, entry
        if "actions" in entry:
            put = put_body(entry["actions"]["upload"]["href"], data)
            assert put.status_code == 200, put.text
            verify = entry["actions"].get("verify")
            if verify:
                answer = httpx.post(verify["href"], json={"oid": oid, "size": len(data)}, timeout=TIMEOUT)
                assert answer.status_code == 200, answer.text
        return oid

    def commit(self, repo_id: str, operations: list, repo_type="model", revision="main",
               summary="attack", **kwargs) -> httpx.Response:
        """`operations` are dicts (one ndjson line each, after a header) or raw str/bytes lines."""
        lines = [json.dumps({"key": "header", "value": {"summary": summary, "description": ""}}).encode()]
        for op in operations:
            if isinstance(op, bytes):
                lines.append(op)
            elif isinstance(op, str):
                lines.append(op.encode())
            else:
                lines.append(json.dumps(op).encode())
        return self.commit_raw(repo_id, b"\n".join(lines) + b"\n", repo_type, revision, **kwargs)

    def commit_raw(self, repo_id: str, body: bytes, repo_type="model", revision="main", **kwargs):
        return self.post(f"/api/{api_segment(repo_type)}/{repo_id}/commit/{quote(revision)}", data=body,
                         headers={"Content-Type": "application/x-ndjson", **kwargs.pop("headers", {})}, **kwargs)

    # --- read routes --------------------------------------------------------------------------

    def resolve(self, repo_id: str, path: str, repo_type="model", revision="main") -> httpx.Response:
        return self.get(f"{web_prefix(repo_type)}{repo_id}/resolve/{quote(revision)}/"
                        f"{urllib.parse.quote(path, safe='/')}")

    def tree(self, repo_id: str, repo_type="model", revision="main", **params) -> httpx.Response:
        return self.get(f"/api/{api_segment(repo_type)}/{repo_id}/tree/{quote(revision)}",
                        params={"recursive": "true", **params})

    def files(self, repo_id: str, repo_type="model", revision="main") -> dict:
        """{path: entry} of the recursive tree (all pages)."""
        out = {}
        response = self.tree(repo_id, repo_type, revision)
        while True:
            assert response.status_code == 200, response.text
            for entry in response.json():
                if entry["type"] == "file":
                    out[entry["path"]] = entry
            nxt = response.links.get("next")
            if not nxt:
                return out
            response = self.server.session.get(nxt["url"], headers=self.headers())

    def head(self, repo_id: str, repo_type="model", revision="main") -> str:
        response = self.get(f"/api/{api_segment(repo_type)}/{repo_id}/revision/{quote(revision)}")
        assert response.status_code == 200, response.text
        return response.json()["sha"]


# --- ndjson operations --------------------------------------------------------------------------

def file_op(path, data: bytes) -> dict:
    return {"key": "file", "value": {"path": path, "content": base64.b64encode(data).decode(), "encoding": "base64"}}


def lfs_op(path, oid, size) -> dict:
    return {"key": "lfsFile", "value": {"path": path, "algo": "sha256", "oid": oid, "size": size}}


def error_of(response: httpx.Response) -> str:
    """The error message of a refusal (JSON `error`, else the raw body)."""
    try:
        body = response.json()
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            return body["error"]
    except ValueError:
        pass
    return response.text


# --- the cast -------------------------------------------------------------------------------------

SECRET = b"acme's private secret!!\n"  # 24 bytes, the size in the original probe


class World:
    """A server with org `acme`, member `alice`, outsider `mallory` (no org), and `bob` of org
    `other`; repos acme/priv (private, SECRET as an LFS file `secret.txt`) and acme/pub (public,
    an LFS file `pub.bin`)."""

    def __init__(self, server: Server):
        self.server = server
        server.add_org("acme")
        server.add_org("other")
        self.alice = server.actor(server.add_user("alice", "acme"))
        self.mallory = server.actor(server.add_user("mallory"))
        self.bob = server.actor(server.add_user("bob", "other"))
        self.anonymous = server.actor()
        assert self.alice.create_repo("acme/priv", private=True).status_code == 200
        assert self.alice.create_repo("acme/pub").status_code == 200
        self.secret_oid = self.alice.upload("acme/priv", SECRET)
        answer = self.alice.commit("acme/priv", [lfs_op("secret.txt", self.secret_oid, len(SECRET))])
        assert answer.status_code == 200, answer.text
        self.public_data = b"\x00public lfs body\x00" * 10
        self.public_oid = self.alice.upload("acme/pub", self.public_data)
        answer = self.alice.commit("acme/pub", [lfs_op("pub.bin", self.public_oid, len(self.public_data))])
        assert answer.status_code == 200, answer.text


@pytest.fixture
def serve(kernel_hub, tmp_path):
    """serve(*options) -> a started Server on a fresh root; all are stopped after the test."""
    started = []

    def start(*options):
        server = Server(kernel_hub, tmp_path / f"root{len(started)}", *options)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def world(serve):
    return World(serve())
