"""The connection layer of `kernel-hub serve` as an attacker sees it (docs/hub-security.md,
"Connections" and the body rules of "Limits"): idle keep-alive connections do not starve new
clients, --max-connections answers 503, an unread body is never parsed as a request, body
limits refuse before reading, idle connections are closed; bad values of the serve options (their
help text is pinned with every command's in tests/e2e/test_help_golden.py). Raw sockets
throughout, since HTTP libraries hide exactly what is checked here."""
import resource
import socket
import subprocess
import time

import pytest

WAIT = 5.0  # generous: every answer here takes milliseconds when the server is right


class Server:
    def __init__(self, binary, root, *args, preexec_fn=None):
        self.log_path = root.parent / f"{root.name}.log"
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen([str(binary), "serve", "--root", str(root), "--port", "0", *args],
                                        stdout=subprocess.PIPE, stderr=self.log, text=True, preexec_fn=preexec_fn)
        line = self.process.stdout.readline().strip()
        assert line.startswith("Listening on http://"), line
        self.port = int(line.rsplit(":", 1)[1])

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=WAIT)

    def stop(self):
        self.process.kill()
        self.process.wait()
        self.log.close()


@pytest.fixture
def serve(kernel_hub, tmp_path):
    servers = []

    def start(*args, preexec_fn=None):
        root = tmp_path / f"root{len(servers)}"
        root.mkdir()
        servers.append(Server(kernel_hub, root, *args, preexec_fn=preexec_fn))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def read_response(sock, buffer=b""):
    """Reads one response (headers and a Content-Length body); returns (status, headers, rest)."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before a full response: {buffer!r}"
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk, "connection closed inside a response body"
        rest += chunk
    return int(lines[0].split(" ")[1]), headers, rest[length:]


def read_to_eof(sock):
    """Everything until the server closes (fails if it does not within WAIT)."""
    data = b""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            return data
        data += chunk
    pytest.fail(f"the server kept the connection open; read so far: {data!r}")


def get(path="/api/whoami-v2", extra=""):
    return f"GET {path} HTTP/1.1\r\nHost: hub\r\n{extra}\r\n".encode()


SMUGGLED = get("/api/whoami-v2")


def test_new_client_is_answered_while_500_keep_alive_connections_idle(serve):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4096)), hard))
    server = serve("--keep-alive-timeout", "120")  # however slowly this machine opens them
    idle = []
    try:
        for _ in range(500):
            sock = server.connect()
            sock.sendall(get())
            status, headers, _ = read_response(sock)
            assert status == 401 and headers.get("connection") != "close"
            idle.append(sock)
        started = time.monotonic()
        with server.connect() as fresh:
            fresh.sendall(get())
            assert read_response(fresh)[0] == 401
        assert time.monotonic() - started < WAIT
        # The idle ones are still served too.
        idle[0].sendall(get())
        assert read_response(idle[0])[0] == 401
    finally:
        for sock in idle:
            sock.close()


def test_connections_beyond_max_connections_are_answered_503_and_closed(serve):
    server = serve("--max-connections", "4", "--keep-alive-timeout", "120")
    idle = []
    try:
        for _ in range(4):
            sock = server.connect()
            sock.sendall(get())
            assert read_response(sock)[0] == 401
            idle.append(sock)
        with server.connect() as extra:
            extra.sendall(get())
            status, headers, rest = read_response(extra)
            assert status == 503 and headers["connection"] == "close"
            assert read_to_eof(extra) == rest == b""
        idle.pop().close()
        time.sleep(0.5)  # the server notices the close
        with server.connect() as again:
            again.sendall(get())
            assert read_response(again)[0] == 401
    finally:
        for sock in idle:
            sock.close()


@pytest.mark.parametrize("request_head", [
    # Refused before its body is read: a bad upload ticket, an unknown PUT route, a GET.
    "PUT /api/kernel-hub/lfs/{} HTTP/1.1\r\nHost: hub\r\nContent-Length: {}\r\n\r\n".format("0" * 64, len(SMUGGLED)),
    f"PUT /no/such/route HTTP/1.1\r\nHost: hub\r\nContent-Length: {len(SMUGGLED)}\r\n\r\n",
    f"GET /api/whoami-v2 HTTP/1.1\r\nHost: hub\r\nContent-Length: {len(SMUGGLED)}\r\n\r\n",
    f"PATCH /api/repos/delete HTTP/1.1\r\nHost: hub\r\nContent-Length: {len(SMUGGLED)}\r\n\r\n",
    # Framings another HTTP parser could read differently.
    f"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Length: {len(SMUGGLED)}\r\n"
    "Transfer-Encoding: chunked\r\n\r\n",
    f"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Length: {len(SMUGGLED)}\r\n"
    f"Content-Length: {len(SMUGGLED) + 1}\r\n\r\n",
    f"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Length: +{len(SMUGGLED)}\r\n\r\n",
    "POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
], ids=["bad-ticket", "unknown-put-route", "get-with-body", "unsupported-method", "length-and-chunked", "two-lengths",
        "signed-length", "other-coding"])
def test_an_unread_body_is_never_parsed_as_a_request(serve, request_head):
    server = serve()
    with server.connect() as sock:
        sock.sendall(request_head.encode() + SMUGGLED)
        status, headers, rest = read_response(sock)
        assert status >= 400 and headers["connection"] == "close"
        assert rest + read_to_eof(sock) == b"", "a second response: the body was parsed as a request"


def test_a_body_sent_after_the_refusal_is_drained_not_parsed(serve):
    server = serve()
    with server.connect() as sock:
        sock.sendall(f"PUT /api/kernel-hub/lfs/{'0' * 64} HTTP/1.1\r\nHost: hub\r\n"
                     f"Content-Length: {len(SMUGGLED)}\r\n\r\n".encode())
        status, headers, rest = read_response(sock)  # refused before the body was sent
        assert status >= 400 and headers["connection"] == "close"
        sock.sendall(SMUGGLED)
        assert rest + read_to_eof(sock) == b""


def test_pipelined_requests_are_all_answered(serve):
    server = serve()
    with server.connect() as sock:
        sock.sendall(get() + get("/api/no-such-thing") + get())
        first, _, rest = read_response(sock)
        second, _, rest = read_response(sock, rest)
        third, _, rest = read_response(sock, rest)
        assert (first, second, third) == (401, 404, 401)


@pytest.mark.parametrize("method,path,option", [
    ("POST", "/api/repos/create", "--max-request-body"),
    ("PUT", "/api/kernel-hub/lfs/" + "0" * 64, "--max-file-size"),
])
def test_a_content_length_over_the_limit_is_refused_before_the_body_is_sent(serve, method, path, option):
    server = serve(option, "1K")
    with server.connect() as sock:
        sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: hub\r\nContent-Length: 1048576\r\n\r\n".encode())
        status, headers, rest = read_response(sock)  # no byte of the body sent
        assert status == 413 and headers["connection"] == "close"
        assert rest + read_to_eof(sock) == b""


def test_uploads_are_not_held_to_the_request_body_limit(serve):
    server = serve("--max-request-body", "1K")
    with server.connect() as sock:  # an unknown ticket: refused by the upload handler, not with 413
        sock.sendall(f"PUT /api/kernel-hub/lfs/{'0' * 64} HTTP/1.1\r\nHost: hub\r\nContent-Length: 4096\r\n\r\n".encode())
        status, headers, _ = read_response(sock)
        assert status not in (413, 200) and headers["connection"] == "close"


def test_expect_100_continue_over_the_limit_is_refused_without_continue(serve):
    server = serve("--max-request-body", "1K")
    with server.connect() as sock:
        sock.sendall(b"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Length: 4096\r\n"
                     b"Expect: 100-continue\r\n\r\n")
        assert read_response(sock)[0] == 413


def test_a_chunked_body_is_cut_off_at_the_limit(serve):
    server = serve("--max-request-body", "1K")
    with server.connect() as sock:
        sock.sendall(b"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nTransfer-Encoding: chunked\r\n\r\n")
        sock.sendall(b"200\r\n" + b"x" * 512 + b"\r\n" * 1)
        sock.sendall(b"200\r\n" + b"x" * 512 + b"\r\n")
        sock.sendall(b"1\r\nx\r\n")  # byte 1025: the body never ends, the answer comes anyway
        status, headers, rest = read_response(sock)
        assert status == 413 and headers["connection"] == "close"


def test_a_body_within_the_limit_is_read_and_the_connection_stays_open(serve):
    server = serve("--max-request-body", "1K")
    body = b'{"name": "x"}'
    with server.connect() as sock:
        for framing in (f"Content-Length: {len(body)}\r\n\r\n".encode() + body,
                        b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"):
            sock.sendall(b"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\n" + framing)
            status, headers, rest = read_response(sock)
            assert status == 401 and headers.get("connection") != "close" and rest == b""


def test_idle_keep_alive_connections_are_closed_after_the_timeout(serve):
    server = serve("--keep-alive-timeout", "1")
    with server.connect() as sock:
        sock.sendall(get())
        status, headers, _ = read_response(sock)
        assert headers["keep-alive"].startswith("timeout=1")
        time.sleep(0.3)
        sock.sendall(get())  # not closed while in use
        assert read_response(sock)[0] == 401
        started = time.monotonic()
        assert read_to_eof(sock) == b""
        assert time.monotonic() - started >= 0.5


def test_a_request_head_sent_byte_by_byte_is_cut_off(serve):
    server = serve()  # a head must arrive within the read timeout (5 s) of its first byte
    with server.connect() as sock:
        sock.sendall(b"GET /api/whoami-v2 HTTP/1.1\r\nX-Slow: ")
        sock.settimeout(0.5)
        started = time.monotonic()
        while time.monotonic() - started < 15:
            try:
                sock.sendall(b"x")
                sock.recv(65536)  # an answer (400) or the end of the connection
                break
            except socket.timeout:
                continue
            except OSError:  # reset
                break
        else:
            pytest.fail("the server kept reading a head sent a byte every 0.5 s for 15 s")
        assert time.monotonic() - started < 10


def test_max_connections_is_lowered_to_the_open_file_limit(serve):
    server = serve(preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256)))
    with server.connect() as sock:
        sock.sendall(get())
        assert read_response(sock)[0] == 401
    assert ("note: --max-connections lowered from 4096 to 192: the open-file limit (RLIMIT_NOFILE) is 256"
            in server.log_path.read_text())


@pytest.mark.parametrize("args,message", [
    (["--max-file-size", "1.5G"], "Invalid size `1.5G`: expected a whole number of bytes"),
    (["--max-request-body", "-1"], "Invalid size `-1`"),
    (["--quota", "10X"], "Invalid size `10X`: unknown unit `X`"),
    (["--max-file-size", "16777216T"], "larger than 2^64-1 bytes"),
    (["--keep-alive-timeout", "0"], "--keep-alive-timeout: Value 0 not in range 1 to 3600"),
    (["--max-connections", "0"], "--max-connections: Value 0 not in range 1 to 1048576"),
    (["--max-files-per-commit", "many"], "--max-files-per-commit: Value many not in range"),
    (["--public-url", "ftp://hub"], "Invalid URL `ftp://hub`"),
    (["--threads", "5000"], "--threads: Value 5000 not in range 1 to 4096"),
])
def test_bad_option_values_are_usage_errors(kernel_hub, tmp_path, args, message):
    r = subprocess.run([str(kernel_hub), "serve", "--root", str(tmp_path / "root"), "--port", "0", *args],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert not (tmp_path / "root").exists()


def server_memory_kib(server):
    with open(f"/proc/{server.process.pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_slow_bodies_hold_no_worker_and_a_new_client_is_answered_within_100_ms(serve, record_property):
    """200 clients each send a body a byte at a time (docs/hub-security.md, "Request bodies"),
    more than the 64 workers, no token needed; a new client is still answered at once."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4096)), hard))
    server = serve()
    slow = []
    try:
        for _ in range(200):
            sock = server.connect()
            sock.sendall(b"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n{")
            slow.append(sock)
        time.sleep(0.5)
        for sock in slow:
            sock.sendall(b" ")  # still sending, slowly
        latencies = []
        for _ in range(5):
            started = time.monotonic()
            with server.connect() as fresh:
                fresh.sendall(get())
                assert read_response(fresh)[0] == 401
            latencies.append(time.monotonic() - started)
        record_property("slow_body_new_client_ms", f"{1000 * max(latencies):.1f}")
        print(f"200 slow bodies open: a new client's request answered in {1000 * max(latencies):.1f} ms (worst of 5)")
        assert max(latencies) < 0.1, latencies
    finally:
        for sock in slow:
            sock.close()


@pytest.mark.parametrize("args,trickle,limit", [
    (["--body-min-rate", "1K"], 2.0, 9.0),    # 1 byte every 2 s: below the rate once 5 s have passed
    (["--body-timeout", "3"], 0.2, 6.0),      # fast enough, but not done within the deadline
])
def test_a_slow_body_is_closed(serve, args, trickle, limit):
    server = serve(*args)
    with server.connect() as sock:
        sock.sendall(b"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Length: 100000\r\n\r\n")
        started = time.monotonic()
        sock.settimeout(0.1)
        closed = False
        while time.monotonic() - started < 20 and not closed:
            try:
                sock.sendall(b"x" * (1 if trickle > 1 else 2000))
                closed = sock.recv(65536) == b""
            except socket.timeout:
                time.sleep(trickle)
            except OSError:
                closed = True
        assert closed, "the server kept reading a slow body for 20 s"
        assert time.monotonic() - started < limit
    assert "closed (slower than --body-min-rate)" in server.log_path.read_text() or \
        "closed (over --body-timeout)" in server.log_path.read_text()


def test_an_upload_at_a_fair_rate_is_read_to_its_end(serve):
    """The rate is an average since the body's first byte: a pause within the grace is fine."""
    server = serve("--body-min-rate", "1K")
    body = b'{"name": "x"}' + b" " * 6000
    with server.connect() as sock:
        sock.sendall(b"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Length: %d\r\n\r\n" % len(body))
        sock.sendall(body[:10])
        time.sleep(3)
        sock.sendall(body[10:])
        assert read_response(sock)[0] == 401


def test_ten_thousand_idle_or_slow_connections_stay_within_bounded_memory(serve, record_property):
    """Memory per held connection is a few KiB (bench/hub_connections.py measures 10,000; this
    holds 2,000 to stay quick): idle ones and slow bodies alike."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 4200:
        pytest.skip(f"the open-file limit ({hard}) cannot hold 2,000 connections on both ends")
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    server = serve("--keep-alive-timeout", "120")
    before = server_memory_kib(server)
    held = []
    try:
        for i in range(2000):
            sock = server.connect()
            if i % 2:
                sock.sendall(b"POST /api/repos/create HTTP/1.1\r\nHost: hub\r\nContent-Length: 100000\r\n\r\n{")
            held.append(sock)
        time.sleep(0.5)
        after = server_memory_kib(server)
        per_connection = (after - before) / len(held)
        record_property("kib_per_held_connection", f"{per_connection:.1f}")
        print(f"2,000 held connections: {after - before} KiB more ({per_connection:.1f} KiB each)")
        assert per_connection < 16, (before, after)
        started = time.monotonic()
        with server.connect() as fresh:
            fresh.sendall(get())
            assert read_response(fresh)[0] == 401
        assert time.monotonic() - started < 0.1
    finally:
        for sock in held:
            sock.close()
