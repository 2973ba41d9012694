#!/usr/bin/env python3
"""Held-connection benchmark of kernel-hub (docs/hub-security.md, "Connections"): opens N
connections that each hold the server without finishing a request — idle ones, and slow bodies
(a POST head promising 100 kB, then one byte) — and reports the server's resident memory per held
connection and the latency of a new client's request while they are all open. The figure to keep:
N=10,000 with memory per connection in KiB and a new client answered within 100 ms.

Usage: bench/hub_connections.py [--kernel-hub PATH] [--connections N] [--slow-share F] [--samples M]
"""
import argparse
import resource
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

SLOW_HEAD = b"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Length: 100000\r\n\r\n{"
REQUEST = b"GET /api/whoami-v2 HTTP/1.1\r\nHost: hub\r\n\r\n"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def new_client(port):
    start = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(REQUEST)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed before a response")
            data += chunk
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel-hub", default=str(Path(__file__).resolve().parents[1] / "build-release/src/cli/kernel-hub"))
    parser.add_argument("--connections", type=int, default=10000)
    parser.add_argument("--slow-share", type=float, default=0.5, help="share of held connections that are slow bodies")
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.connections + 256  # this process's end; the server raises its own limit
    if hard < need:
        raise SystemExit(f"the open-file limit ({hard}) cannot hold {args.connections} connections")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
    with tempfile.TemporaryDirectory() as root:
        server = subprocess.Popen([args.kernel_hub, "serve", "--root", root, "--port", "0", "--keep-alive-timeout", "600",
                                   "--max-connections", str(args.connections + 100), "--body-min-rate", "1"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
            baseline = statistics.median(new_client(port) for _ in range(args.samples))
            before = rss_kib(server.pid)
            held = []
            started = time.monotonic()
            for i in range(args.connections):
                sock = socket.create_connection(("127.0.0.1", port), timeout=30)
                if i < args.connections * args.slow_share:
                    sock.sendall(SLOW_HEAD)
                held.append(sock)
            opened = time.monotonic() - started
            time.sleep(1)
            after = rss_kib(server.pid)
            latencies = sorted(new_client(port) for _ in range(args.samples))
            alive = server.poll() is None
            print(f"kernel-hub {args.kernel_hub}")
            print(f"held {len(held)} connections ({int(args.connections * args.slow_share)} slow bodies) in {opened:.1f} s")
            print(f"server memory: {before} KiB before, {after} KiB with them open: "
                  f"{(after - before) / len(held):.2f} KiB per connection")
            print(f"new client: median {1000 * statistics.median(latencies):.1f} ms, max {1000 * latencies[-1]:.1f} ms "
                  f"(alone: {1000 * baseline:.1f} ms); server alive: {alive}")
            for sock in held:
                sock.close()
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
