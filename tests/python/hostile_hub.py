"""A small, deliberately hostile Hub for the loader's security tests (docs/hub-security.md, "The
loader"). It speaks just the endpoints the loader calls (the access log of a real kernel-hub run:
organisation overview, refs, revision, tree, HEAD/GET resolve, capabilities, bulk) from an
in-memory repository, and each test turns one answer evil: extra tree entries, a forged commit
id, a served-but-unlisted file, an HTTP redirect, extra bulk records. Unmodified, it serves a
well-formed kernel (variants `torch-cpu` and `torch-cuda`) that loads, as a control case.

Requests are logged raw (`METHOD path`), before any decoding, so a test can see what reached the
server after libcurl."""
from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Dict, List, Optional, Tuple
from urllib.parse import parse_qs, unquote

from loader_testlib import make_variant


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def kernel_files(workdir: Path, *, name: str = "evilk") -> Dict[str, bytes]:
    """The repo files of a well-formed pure-Python kernel with a CPU and a CUDA variant."""
    root = workdir / "kernel-source"
    for variant, backend in (("torch-cpu", "cpu"), ("torch-cuda", "cuda")):
        make_variant(root / "build", variant, name=name, backend=backend, value="7")
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@dataclass
class Repo:
    files: Dict[str, bytes]
    commit: str = "c0ffee" + "0" * 34
    branches: Dict[str, str] = field(default_factory=dict)
    # Extra entries of a tree listing, keyed by the listed folder ("" is the root): raw JSON
    # objects, so a test may forge paths, oids and types.
    extra_tree: Dict[str, List[dict]] = field(default_factory=dict)
    # Files served by `resolve` although no listing names them (decoded repo path → bytes).
    unlisted: Dict[str, bytes] = field(default_factory=dict)
    # `resolve` answers for these decoded paths with a redirect to the given Location.
    redirects: Dict[str, str] = field(default_factory=dict)
    # What `revision/<anything>` answers as `sha` (a hostile Hub may answer any string).
    forced_sha: Optional[str] = None
    # Extra records appended to every bulk stream: (path, bytes).
    bulk_extra: List[Tuple[str, bytes]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.branches:
            self.branches = {"main": self.commit, "v1": self.commit}

    def served(self, path: str) -> Optional[bytes]:
        if path in self.files:
            return self.files[path]
        return self.unlisted.get(path)


class HostileHub:
    def __init__(self, repos: Dict[str, Repo], *, bulk: bool = False):
        self.repos = repos
        self.bulk = bulk
        self.log: List[str] = []
        self.user_agents: List[str] = []  # the User-Agent header of each request, in order
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet; the log is kept in `hub.log`
                pass

            def do_GET(self) -> None:
                hub._handle(self, head=False)

            def do_HEAD(self) -> None:
                hub._handle(self, head=True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- answers ---------------------------------------------------------------------------------

    @staticmethod
    def _send(handler, status: int, body: bytes = b"", headers: Optional[Dict[str, str]] = None,
              head: bool = False) -> None:
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        if not head:
            handler.wfile.write(body)

    def _json(self, handler, value, head: bool = False) -> None:
        self._send(handler, 200, json.dumps(value).encode(), {"Content-Type": "application/json"}, head)

    def _not_found(self, handler, code: str, head: bool = False) -> None:
        body = json.dumps({"error": code}).encode()
        self._send(handler, 404, body, {"X-Error-Code": code, "Content-Type": "application/json"}, head)

    def _handle(self, handler, head: bool) -> None:
        raw = handler.path
        self.log.append(f"{'HEAD' if head else 'GET'} {raw}")
        self.user_agents.append(handler.headers.get("User-Agent", ""))
        path, _, query = raw.partition("?")
        parts = path.split("/")
        if path.startswith("/api/organizations/") and path.endswith("/overview"):
            return self._json(handler, {"trustedKernelPublisher": True}, head)
        if path == "/api/kernel-hub/capabilities":
            if self.bulk:
                return self._json(handler, {"kernel-hub": 1, "bulk": 1}, head)
            return self._not_found(handler, "EntryNotFound", head)
        # /api/kernels/<ns>/<name>/<op>/<rev>[/<path>] and /kernels/<ns>/<name>/resolve/<rev>/<path>
        if len(parts) >= 6 and parts[1] == "api" and parts[2] == "kernels":
            repo = self.repos.get(f"{parts[3]}/{parts[4]}")
            if repo is None:
                return self._not_found(handler, "RepoNotFound", head)
            op, rest = parts[5], parts[6:]
            if op == "refs":
                return self._json(handler, {"branches": [
                    {"name": n, "ref": f"refs/heads/{n}", "targetCommit": c} for n, c in repo.branches.items()],
                    "tags": [], "converts": []}, head)
            if op == "revision" and rest:
                rev = unquote("/".join(rest))
                sha = repo.forced_sha or repo.branches.get(rev) or (rev if rev == repo.commit else None)
                if sha is None:
                    return self._not_found(handler, "RevisionNotFound", head)
                return self._json(handler, {"sha": sha, "private": False}, head)
            if op == "tree" and rest:
                folder = unquote("/".join(rest[1:]))
                recursive = parse_qs(query).get("recursive", ["false"])[0] == "true"
                return self._json(handler, self._tree(repo, folder, recursive), head)
            if op == "bulk" and rest and self.bulk:
                return self._bulk(handler, repo, unquote("/".join(rest[1:])), head)
            return self._not_found(handler, "EntryNotFound", head)
        if len(parts) >= 7 and parts[1] == "kernels" and parts[4] == "resolve":
            repo = self.repos.get(f"{parts[2]}/{parts[3]}")
            if repo is None:
                return self._not_found(handler, "RepoNotFound", head)
            file_path = unquote("/".join(parts[6:]))
            if file_path in repo.redirects:
                return self._send(handler, 302, b"", {"Location": repo.redirects[file_path]}, head)
            data = repo.served(file_path)
            if data is None:
                return self._not_found(handler, "EntryNotFound", head)
            return self._send(handler, 200, data, {
                "X-Repo-Commit": repo.commit, "ETag": f'"{git_blob_sha1(data)}"'}, head)
        return self._not_found(handler, "RepoNotFound", head)

    @staticmethod
    def _tree(repo: Repo, folder: str, recursive: bool) -> List[dict]:
        prefix = folder + "/" if folder else ""
        out: Dict[str, dict] = {}
        for path, data in sorted(repo.files.items()):
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix):].split("/")
            if recursive:
                for depth in range(1, len(rest)):
                    d = prefix + "/".join(rest[:depth])
                    out.setdefault(d, {"type": "directory", "path": d, "oid": "0" * 40, "size": 0})
            if recursive or len(rest) == 1:
                out[path] = {"type": "file", "path": path, "oid": git_blob_sha1(data), "size": len(data)}
            else:
                d = prefix + rest[0]
                out.setdefault(d, {"type": "directory", "path": d, "oid": "0" * 40, "size": 0})
        return list(out.values()) + list(repo.extra_tree.get(folder, []))

    def _bulk(self, handler, repo: Repo, folder: str, head: bool) -> None:
        prefix = folder + "/" if folder else ""
        records = [(p, d) for p, d in sorted(repo.files.items()) if p.startswith(prefix)] + repo.bulk_extra
        body = b""
        for path, data in records:
            header = {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            body += json.dumps(header).encode() + b"\n" + data
        body += json.dumps({"end": True, "files": len(records)}).encode() + b"\n"
        self._send(handler, 200, body, {"Content-Type": "application/vnd.kernel-hub.bulk",
                                        "X-Repo-Commit": repo.commit}, head)
