"""Helpers of the replica tests (conftest.py, test_replicas.py): starting the services of
scripts/services, the replicas and the balancer; seeding a directory Hub."""

import csv
import importlib.util
import io
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[4]
SERVICES = REPO_ROOT / "scripts" / "services"
HUB_TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HUB_TESTS))
from benchmark_documents import run_document  # noqa: E402
from xet_support import CLIENTS, client_env, make_folder, run_client  # noqa: E402

REPLICAS = 3


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def exports(text: str) -> dict:
    """`export NAME=VALUE` lines of a service script, as the shell would read them."""
    values = {}
    for line in text.splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            name, value = words[1].split("=", 1)
            values[name] = value
    return values


def service(name: str, *args, timeout=120) -> dict:
    result = subprocess.run([str(SERVICES / name), *map(str, args)], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"scripts/services/{name} {' '.join(map(str, args))}:\n{result.stderr[-3000:]}"
    return exports(result.stdout)


def unavailable(under_ci: str, elsewhere: str) -> None:
    """Something the replica tests need is missing: a failure in CI, which provides everything
    (scripts/install-deps, the wheels), a skip elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(under_ci)
    pytest.skip(elsewhere)


def require_postgres_back_end(kernel_hub: Path, scratch: Path) -> None:
    """A kernel-hub built without libpq (from source where libpq-dev is missing) has no PostgreSQL
    back end (docs/hub-scale.md): asked to migrate into a database it refuses at once as a usage
    error (exit 2), where a build with one tries to connect (exit 1: nothing listens on port 9).
    The wheel's has one, so CI, which tests the wheels, must never skip here."""
    scratch.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([str(kernel_hub), "migrate", "--from", str(scratch), "--to", "postgresql://127.0.0.1:9/none",
                             "s3://none?endpoint=http://127.0.0.1:9"], capture_output=True, text=True, timeout=60)
    assert result.returncode in (1, 2), result.stderr
    if result.returncode == 2:
        message = f"{kernel_hub} was built without the PostgreSQL back end (libpq): {result.stderr.strip()}"
        unavailable(f"CI tests the wheel's kernel-hub, which links libpq (scripts/build-wheels); {message}",
                    f"{message}; install libpq-dev (scripts/install-deps) and rebuild")


def require_binaries():
    missing = [name for name, paths in {
        "PostgreSQL (postgresql-15)": ["/usr/lib/postgresql/15/bin/initdb"],
        "Swift (swift-proxy, swift-object, swift-container, swift-account)": ["/usr/bin/swift-proxy-server"],
        "haproxy": ["/usr/sbin/haproxy"],
    }.items() if not any(Path(p).exists() for p in paths)]
    if missing:
        unavailable(f"CI installs the replica services (scripts/install-deps), but these are missing: {missing}",
                    f"not installed: {', '.join(missing)} (scripts/install-deps installs them)")


@dataclass
class Replica:
    port: int
    root: Path
    log: Path
    process: subprocess.Popen | None = None


@dataclass
class Cluster:
    """The replicas and the balancer in front of them."""
    binary: Path
    env: dict                 # KB_HUB_DATABASE, KB_HUB_OBJECT_STORE, AWS_* of the services
    state: Path
    url: str = ""             # the balancer
    replicas: list = field(default_factory=list)

    def start_replica(self, index: int) -> None:
        replica = self.replicas[index]
        log = open(replica.log, "ab")
        replica.process = subprocess.Popen(
            [str(self.binary), "serve", "--root", str(replica.root), "--port", str(replica.port),
             "--public-url", self.url, "--threads", "32"],
            env={**os.environ, **self.env}, stdout=subprocess.PIPE, stderr=log, text=True)
        line = replica.process.stdout.readline().strip()
        if not line.startswith("Listening on http://"):
            replica.process.wait(10)
            text = replica.log.read_text()[-3000:]
            raise AssertionError(f"replica {index} did not start:\n{text}")

    def kill(self, index: int) -> None:
        """kill -9: no shutdown, no flush, open transactions cut."""
        process = self.replicas[index].process
        process.send_signal(signal.SIGKILL)
        process.wait()

    def stop(self) -> None:
        for replica in self.replicas:
            if replica.process and replica.process.poll() is None:
                replica.process.kill()
                replica.process.wait()

    def balancer_state(self) -> dict:
        """{server name: status} from haproxy's admin socket ("UP", "DOWN", ...)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(self.state / "haproxy" / "haproxy.sock"))
            s.sendall(b"show stat\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        rows = csv.DictReader(io.StringIO(data.decode().lstrip("# ")))
        return {row["svname"]: row["status"] for row in rows if row["svname"].startswith("replica")}

    def wait_until_up(self, count: int = REPLICAS, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if sum(status == "UP" for status in self.balancer_state().values()) >= count:
                return
            time.sleep(0.2)
        raise AssertionError(f"haproxy sees {self.balancer_state()}, wanted {count} replicas UP")


def request(url, token=None, data=None, method=None, headers=None, timeout=30):
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=timeout) as response:
        return response.status, response.read(), response.headers


@dataclass
class Seed:
    """What the directory Hub held before the migration."""
    token: str                 # alice, member of acme
    kernel_files: dict         # the kernel acme/relu, branch v1: {path: bytes}
    lfs_files: dict            # the model alice/lfs (plain LFS): {path: bytes}
    xet_files: dict            # the model alice/xet (Xet): {path: bytes}
    source: Path               # the directory Hub
    round_trip: Path           # the same Hub after directory -> PostgreSQL + S3 -> directory
    migrate_log: str           # stderr of the migrations


def load_hub_conftest():
    """tests/e2e/hub/conftest.py as a module of its own (its helpers, not its fixtures)."""
    spec = importlib.util.spec_from_file_location("hub_e2e_conftest", HUB_TESTS / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def seed_directory_hub(kernel_hub: Path, kernel_builder: Path, tmp: Path) -> tuple:
    """A directory Hub holding a bit of everything it stores; returns (root, token, files)."""
    root = tmp / "source-root"
    root.mkdir()
    subprocess.run([str(kernel_hub), "org", "add", "acme", "--root", str(root), "--trusted"], check=True,
                   capture_output=True)
    token = subprocess.run([str(kernel_hub), "user", "add", "alice", "--root", str(root), "--org", "acme"],
                           check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    log = open(tmp / "source-hub.log", "ab")
    server = subprocess.Popen([str(kernel_hub), "serve", "--root", str(root), "--port", "0"],
                              stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        url = server.stdout.readline().strip().split(" ", 2)[2]

        class Hub:  # what xet_support's helpers read
            pass
        hub = Hub()
        hub.url = url
        kernel = tmp / "relu"
        kernel_files = load_hub_conftest().make_variant_tree(kernel)
        env = {**os.environ, "HF_ENDPOINT": url, "HF_TOKEN": token}
        upload = subprocess.run([str(kernel_builder), "upload", str(kernel)], env=env, capture_output=True, text=True,
                                timeout=120)
        assert upload.returncode == 0, upload.stderr[-3000:]
        for name, xet in (("lfs", False), ("xet", True)):
            folder = tmp / f"folder-{name}"
            folder.mkdir()
            files = make_folder(folder)
            client = client_env(hub, token, tmp / f"home-{name}", CLIENTS["hf-2.4"], disable_xet=not xet)
            run_client(client, "create_repo", repo_id=f"alice/{name}", repo_type="model")
            run_client(client, "upload_folder", repo_id=f"alice/{name}", repo_type="model", folder=str(folder))
            if xet:
                xet_files = files
            else:
                lfs_files = files
        status, _, _ = request(f"{url}/api/models/alice/lfs/discussions", token,
                               json.dumps({"title": "Bigger weights?", "description": "Please."}).encode(), "POST",
                               {"Content-Type": "application/json"})
        assert status in (200, 201)
        status, _, _ = request(f"{url}/api/kernels/acme/relu/benchmarks", token,
                               json.dumps(run_document("acme/relu", revision="v1")).encode(), "POST",
                               {"Content-Type": "application/json"})
        assert status in (200, 201)
    finally:
        server.kill()
        server.wait()
    return root, token, kernel_files, lfs_files, xet_files


