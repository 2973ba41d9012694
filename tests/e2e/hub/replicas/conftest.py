"""One set of replica services per test session (docs/hub-scale.md): PostgreSQL and Swift (S3)
from scripts/services, three `kernel-hub serve` replicas over them, haproxy in front, all on
127.0.0.1. Every test of this folder lives in test_replicas.py, so that pytest-xdist's
`--dist loadfile` gives the whole folder to one worker and the services start once.

The Hub they serve is first built as a directory (users, an organisation, a kernel uploaded by
kernel-builder, LFS and Xet files, a discussion, a benchmark run), then `kernel-hub migrate`d into
PostgreSQL + S3 and back to a second directory (test_replicas.py compares the two byte for byte);
the replicas then serve the migrated Hub.

Where the services' binaries are missing the tests skip, except in CI (CI=true), which installs
them (scripts/install-deps) and must run them."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from replica_support import (REPLICAS, SERVICES, Cluster, Replica, Seed, free_port,  # noqa: E402
                             require_binaries, require_postgres_back_end, seed_directory_hub, service)


@pytest.fixture(scope="session")
def services(tmp_path_factory, kernel_hub):
    require_postgres_back_end(kernel_hub, tmp_path_factory.mktemp("back-end-probe"))
    require_binaries()
    state = tmp_path_factory.mktemp("replica-services")
    started = []
    try:
        env = service("postgres", "start", state / "postgres")
        started.append("postgres")
        env.update(service("swift", "start", state / "swift"))
        started.append("swift")
        yield state, env
    finally:
        for name in reversed(started):
            subprocess.run([str(SERVICES / name), "stop", str(state / name)], capture_output=True, timeout=60)


@pytest.fixture(scope="session")
def seed(services, kernel_hub, kernel_builder, tmp_path_factory) -> Seed:
    state, env = services
    tmp = tmp_path_factory.mktemp("seed")
    root, token, kernel_files, lfs_files, xet_files = seed_directory_hub(kernel_hub, kernel_builder, tmp)
    replicated = [env["KB_HUB_DATABASE"], env["KB_HUB_OBJECT_STORE"]]
    log = ""
    for source, target in (([str(root)], replicated), (replicated, [str(tmp / "round-trip")])):
        result = subprocess.run([str(kernel_hub), "migrate", "--from", *source, "--to", *target],
                                env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr[-3000:]
        assert result.stdout == ""
        log += result.stderr
    return Seed(token, kernel_files, lfs_files, xet_files, root, tmp / "round-trip", log)


@pytest.fixture(scope="session")
def cluster(services, seed, kernel_hub):
    state, env = services
    cluster = Cluster(kernel_hub, env, state)
    for index in range(REPLICAS):
        root = state / f"replica-{index}"
        root.mkdir()
        cluster.replicas.append(Replica(free_port(), root, state / f"replica-{index}.log"))
    balancer = service("haproxy", "start", state / "haproxy", 0,
                       *[f"127.0.0.1:{replica.port}" for replica in cluster.replicas])
    cluster.url = balancer["KB_HUB_URL"]
    try:
        for index in range(REPLICAS):
            cluster.start_replica(index)
        cluster.wait_until_up()
        yield cluster
    finally:
        cluster.stop()
        subprocess.run([str(SERVICES / "haproxy"), "stop", str(state / "haproxy")], capture_output=True, timeout=30)
