#!/usr/bin/env python3
"""Load benchmark of kernel-hub: N concurrent keep-alive clients against a local server.
Reports requests/s, MiB/s and latency percentiles for resolve (a large LFS file), tree
(recursive listing) and refs.

Usage: bench/hub_load.py [--kernel-hub PATH] [--clients N] [--seconds S] [--size-mib M]
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path


def post(url, token, path, body, content_type="application/json"):
    req = urllib.request.Request(url + path, data=body, method="POST",
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
    return urllib.request.urlopen(req).read()


def setup_repo(url, token, size_mib):
    post(url, token, "/api/repos/create", json.dumps({"name": "bench", "organization": "acme", "type": "kernel"}).encode())
    big = os.urandom(1024 * 1024) * size_mib
    sha = hashlib.sha256(big).hexdigest()
    batch = json.loads(post(url, token, "/kernels/acme/bench.git/info/lfs/objects/batch",
                            json.dumps({"operation": "upload", "transfers": ["basic"],
                                        "objects": [{"oid": sha, "size": len(big)}]}).encode(),
                            "application/vnd.git-lfs+json"))
    href = batch["objects"][0]["actions"]["upload"]["href"]
    urllib.request.urlopen(urllib.request.Request(href, data=big, method="PUT")).read()
    lines = [{"key": "header", "value": {"summary": "bench"}},
             {"key": "lfsFile", "value": {"path": "build/torch-cpu/big.so", "algo": "sha256", "oid": sha, "size": len(big)}}]
    for i in range(200):
        lines.append({"key": "file", "value": {"path": f"build/torch-cpu/m{i // 20}/f{i}.py",
                                               "content": base64.b64encode(b"x = %d\n" % i).decode(), "encoding": "base64"}})
    post(url, token, "/api/kernels/acme/bench/commit/main", "\n".join(json.dumps(l) for l in lines).encode(),
         "application/x-ndjson")
    return len(big)


def worker(host, port, path, deadline, latencies, bytes_read):
    conn = http.client.HTTPConnection(host, port)
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        conn.request("GET", path)
        response = conn.getresponse()
        n = 0
        while True:
            chunk = response.read(1 << 20)
            if not chunk:
                break
            n += len(chunk)
        assert response.status == 200, response.status
        latencies.append(time.perf_counter() - start)
        bytes_read.append(n)
    conn.close()


def run(name, host, port, path, clients, seconds):
    latencies, bytes_read, threads = [], [], []
    deadline = time.perf_counter() + seconds
    began = time.perf_counter()
    for _ in range(clients):
        t = threading.Thread(target=worker, args=(host, port, path, deadline, latencies, bytes_read))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    lat = sorted(latencies)
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000
    print(f"{name:8s} clients={clients:3d} requests={len(lat):6d} req/s={len(lat) / elapsed:9.1f} "
          f"MiB/s={sum(bytes_read) / elapsed / 2**20:8.1f} p50={p(0.50):7.2f}ms p99={p(0.99):7.2f}ms "
          f"max={lat[-1] * 1000:7.2f}ms")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel-hub", default=str(Path(__file__).resolve().parents[1] / "build-release/src/cli/kernel-hub"))
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--size-mib", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        subprocess.run([args.kernel_hub, "org", "add", "acme", "--root", str(root)], check=True, capture_output=True)
        token = subprocess.run([args.kernel_hub, "user", "add", "bench", "--root", str(root), "--org", "acme"],
                               check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        server = subprocess.Popen([args.kernel_hub, "serve", "--root", str(root), "--port", "0", "--threads", "64"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = server.stdout.readline().strip().split(" ")[-1]
            host, port = url.removeprefix("http://").split(":")
            size = setup_repo(url, token, args.size_mib)
            print(f"kernel-hub at {url}; resolve file {size / 2**20:.0f} MiB; tree of 201 files; cpus={os.cpu_count()}")
            run("refs", host, int(port), "/api/kernels/acme/bench/refs", args.clients, args.seconds)
            run("tree", host, int(port), "/api/kernels/acme/bench/tree/main?recursive=true", args.clients, args.seconds)
            run("resolve", host, int(port), "/kernels/acme/bench/resolve/main/build/torch-cpu/big.so", args.clients, args.seconds)
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
