#!/usr/bin/env python3
"""Idle-connection benchmark of kernel-hub (docs/hub-security.md, "Connections"): the latency of
a new client's request (connect, GET, full response) with no other connection open, then with
N idle keep-alive connections open (each made one request first). Prints median/p99/max of
each and their ratio; the target is a new client answered within 100 ms at N=500.

Usage: bench/hub_idle.py [--kernel-hub PATH] [--idle N] [--samples M] [--timeout S]
                         [--serve-args "ARGS"]
"""
import argparse
import resource
import shlex
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REQUEST = b"GET /api/whoami-v2 HTTP/1.1\r\nHost: hub\r\n\r\n"


def read_response(sock):
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before a response")
        buffer += chunk
    head, _, body = buffer.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        body += sock.recv(65536)
    return int(head.split(b" ")[1])


def new_client(port, timeout):
    """Seconds for one new client's request, or None when it was not answered in time."""
    start = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(REQUEST)
            read_response(sock)
    except (OSError, ConnectionError):
        return None
    return time.perf_counter() - start


def measure(port, samples, timeout):
    times = [new_client(port, timeout) for _ in range(samples)]
    answered = sorted(t for t in times if t is not None)
    return answered, samples - len(answered)


def row(name, answered, missed):
    if not answered:
        return f"{name:28s} {'-':>10s} {'-':>10s} {'-':>10s} {missed:>8d}"
    p99 = answered[min(len(answered) - 1, int(0.99 * len(answered)))]
    return (f"{name:28s} {statistics.median(answered) * 1000:10.2f} {p99 * 1000:10.2f} "
            f"{answered[-1] * 1000:10.2f} {missed:>8d}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel-hub", default=str(Path(__file__).resolve().parents[1] / "build-release/src/cli/kernel-hub"))
    parser.add_argument("--idle", type=int, default=500, help="idle keep-alive connections (default 500)")
    parser.add_argument("--samples", type=int, default=50, help="new-client requests per measurement (default 50)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds a request may take (default 60)")
    parser.add_argument("--serve-args", default="--keep-alive-timeout 300",
                        help="extra `kernel-hub serve` arguments (default: keep idle connections 300 s)")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.idle + 256)), hard))
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([args.kernel_hub, "serve", "--root", str(Path(tmp) / "root"), "--port", "0",
                                   *shlex.split(args.serve_args)],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        idle = []
        try:
            port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
            quiet = measure(port, args.samples, args.timeout)
            opened_at = time.perf_counter()
            unanswered = 0
            for _ in range(args.idle):
                sock = socket.create_connection(("127.0.0.1", port), timeout=args.timeout)
                sock.sendall(REQUEST)
                try:
                    read_response(sock)
                except (OSError, ConnectionError):
                    unanswered += 1
                idle.append(sock)
            opened = time.perf_counter() - opened_at
            busy = measure(port, args.samples, args.timeout)
            still = 0
            for sock in idle:
                try:
                    sock.sendall(REQUEST)
                    read_response(sock)
                    still += 1
                except (OSError, ConnectionError):
                    pass
            print(f"kernel-hub {args.kernel_hub} {args.serve_args}")
            print(f"{args.idle} idle connections opened in {opened:.2f} s ({unanswered} first requests unanswered); "
                  f"{still} still served afterwards")
            print(f"{'new-client request':28s} {'p50 ms':>10s} {'p99 ms':>10s} {'max ms':>10s} {'missed':>8s}")
            print(row("no idle connections", *quiet))
            print(row(f"{args.idle} idle connections", *busy))
            if quiet[0] and busy[0]:
                print(f"ratio (idle/quiet): p50 {statistics.median(busy[0]) / statistics.median(quiet[0]):.2f}x, "
                      f"max {busy[0][-1] / quiet[0][-1]:.2f}x")
        finally:
            for sock in idle:
                sock.close()
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
