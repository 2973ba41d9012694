#!/usr/bin/env python3
"""Scale bench of kernel-hub replicas (docs/hub-scale.md): one PostgreSQL and one Swift (S3) from
scripts/services, three `kernel-hub serve` replicas over them, and two haproxy balancers in the
same run: one in front of replica 0 alone, one in front of all three. For each balancer, N
keep-alive clients measure requests/s of refs, tree (recursive) and resolve of an LFS file (the
redirect to a presigned object-store URL, not followed), then download throughput (resolve, then
the object store's bytes). Prints each figure, the 3-replica / 1-replica ratios, and how many bytes
the replicas themselves sent during the downloads (their access logs) against the bytes the
clients received.

Usage: bench/hub_scale.py [--kernel-hub PATH] [--clients N] [--seconds S] [--size-mib M]
"""
import argparse
import http.client
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e" / "hub" / "replicas"))
sys.path.insert(0, str(REPO / "bench"))
from hub_load import setup_repo  # noqa: E402
from replica_support import SERVICES, Cluster, Replica, free_port, service  # noqa: E402


def fetch(connections: dict, url: str, follow: bool) -> tuple:
    """GET `url` on a kept-alive connection of this thread; returns (status, bytes read), after
    following one redirect when `follow`."""
    parts = urllib.parse.urlsplit(url)
    key = parts.netloc
    if key not in connections:
        connections[key] = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn = connections[key]
    conn.request("GET", parts.path + ("?" + parts.query if parts.query else ""))
    response = conn.getresponse()
    n = 0
    while chunk := response.read(1 << 20):
        n += len(chunk)
    if follow and response.status in (301, 302, 307):
        location = response.getheader("Location")
        if location.startswith("/"):
            location = f"{parts.scheme}://{parts.netloc}{location}"
        return fetch(connections, location, False)
    return response.status, n


def measure(url: str, clients: int, seconds: float, follow: bool = False) -> tuple:
    """(requests/s, bytes/s) of `clients` threads fetching `url` for `seconds`."""
    counts, volumes, failures = [], [], []
    deadline = time.perf_counter() + seconds

    def worker():
        connections, done, volume = {}, 0, 0
        while time.perf_counter() < deadline:
            status, n = fetch(connections, url, follow)
            if status not in (200, 302, 307):
                failures.append(status)
                return
            done += 1
            volume += n
        counts.append(done)
        volumes.append(volume)

    began = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    assert not failures, failures[:5]
    return sum(counts) / elapsed, sum(volumes) / elapsed


def hub_bytes_sent(cluster: Cluster, marks: list) -> int:
    """Bytes of the responses the replicas logged since `marks` (their logs' sizes)."""
    total = 0
    for replica, mark in zip(cluster.replicas, marks):
        with open(replica.log, "rb") as log:
            log.seek(mark)
            for line in log.read().decode(errors="replace").splitlines():
                words = line.split()
                if len(words) >= 5 and words[0] in ("GET", "HEAD", "POST", "PUT") and words[3].isdigit():
                    total += int(words[3])
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel-hub", default=str(REPO / "build-release/src/cli/kernel-hub"))
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--size-mib", type=int, default=64)
    args = parser.parse_args()
    binary = Path(args.kernel_hub)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        started = []
        cluster = None
        try:
            env = service("postgres", "start", state / "postgres")
            started.append("postgres")
            env.update(service("swift", "start", state / "swift"))
            started.append("swift")
            # Accounts are records: made in a directory, migrated into the database.
            seed = state / "seed"
            subprocess.run([str(binary), "org", "add", "acme", "--root", str(seed)], check=True, capture_output=True)
            token = subprocess.run([str(binary), "user", "add", "bench", "--root", str(seed), "--org", "acme"],
                                   check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
            subprocess.run([str(binary), "migrate", "--from", str(seed), "--to", env["KB_HUB_DATABASE"],
                            env["KB_HUB_OBJECT_STORE"]], check=True, capture_output=True, env={**os.environ, **env})
            cluster = Cluster(binary, env, state)
            for index in range(3):
                (state / f"replica-{index}").mkdir()
                cluster.replicas.append(Replica(free_port(), state / f"replica-{index}", state / f"replica-{index}.log"))
            backends = [f"127.0.0.1:{replica.port}" for replica in cluster.replicas]
            cluster.url = service("haproxy", "start", state / "haproxy", 0, *backends)["KB_HUB_URL"]
            started.append("haproxy")
            one = service("haproxy", "start", state / "haproxy-one", 0, backends[0])["KB_HUB_URL"]
            started.append("haproxy-one")
            for index in range(3):
                cluster.start_replica(index)
            cluster.wait_until_up()
            size = setup_repo(cluster.url, token, args.size_mib)
            print(f"kernel-hub replicas over PostgreSQL + Swift behind haproxy; clients={args.clients}, "
                  f"{args.seconds:.0f} s each; resolve file {size / 2**20:.0f} MiB; cpus={os.cpu_count()}")
            paths = {"refs": "/api/kernels/acme/bench/refs",
                     "tree": "/api/kernels/acme/bench/tree/main?recursive=true",
                     "resolve": "/kernels/acme/bench/resolve/main/build/torch-cpu/big.so"}
            results = {}
            for label, url in (("1 replica", one), ("3 replicas", cluster.url)):
                for name, path in paths.items():
                    rate, _ = measure(url + path, args.clients, args.seconds)
                    results[(label, name)] = rate
                    print(f"{label:10s} {name:8s} {rate:9.1f} req/s")
                marks = [replica.log.stat().st_size for replica in cluster.replicas]
                _, throughput = measure(url + paths["resolve"], args.clients, args.seconds, follow=True)
                sent = hub_bytes_sent(cluster, marks)
                received = throughput * args.seconds
                results[(label, "download")] = throughput
                print(f"{label:10s} download {throughput / 1e9:9.3f} GB/s; the replicas sent {sent / 1e6:.2f} MB "
                      f"for {received / 1e9:.2f} GB downloaded ({100 * sent / max(received, 1):.4f} %)")
            for name in list(paths) + ["download"]:
                print(f"ratio 3/1 {name:8s} {results[('3 replicas', name)] / results[('1 replica', name)]:6.2f}x")
        finally:
            if cluster:
                cluster.stop()
            for name in reversed(started):
                subprocess.run([str(SERVICES / name.split("-")[0]), "stop", str(state / name)], capture_output=True,
                               timeout=60)


if __name__ == "__main__":
    main()
