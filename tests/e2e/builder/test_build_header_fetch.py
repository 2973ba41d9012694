"""Pinned header archives (docs/building.md): with no CUTLASS_SRC_DIR and no cache entry, the
builder downloads the archive its table pins (here: a table from KERNEL_BUILDER_HEADER_ARCHIVES
naming a wheel served by a local HTTP server), checks its SHA-256 before extracting anything,
unpacks only the include directory into the shared cache, and fetches it once for two builds at
once; a mismatch, an unreachable server and --offline / KERNEL_BUILDER_OFFLINE stop the build
with the errors that say what to do.

To stay cheap the fixture's CUDA unit also depends on `cutlass_4_0`, which has no archive: after
the 3.8 fetch the build stops on that dependency, before configuring. Compiling against fetched
headers is covered by examples/cutlass-gemm's compile test (the real pinned wheel from PyPI)."""
import hashlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture  # noqa: E402

INCLUDE = "cutlass_library/source/include"


def wheel_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr("cutlass_library/__init__.py", "# not a header\n")
        wheel.writestr(f"{INCLUDE}/cutlass/cutlass.h", "#pragma once\n#define KB_FETCHED_CUTLASS 38\n")
        wheel.writestr(f"{INCLUDE}/cutlass/version.h", "#define CUTLASS_MAJOR 3\n#define CUTLASS_MINOR 8\n")
        wheel.writestr(f"{INCLUDE}/cute/tensor.hpp", "#pragma once\n")
        wheel.writestr("cutlass_library/source/tools/util/include/cutlass/util/x.h", "outside include/\n")
    return buffer.getvalue()


class ArchiveServer:
    """Serves `body` at /nvidia_cutlass.whl, counting GETs; `release` holds answers back."""

    def __init__(self, body: bytes):
        self.body = body
        self.gets = 0
        self.release = threading.Event()
        self.release.set()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                server.gets += 1
                server.release.wait(120)
                self.send_response(200)
                self.send_header("Content-Length", str(len(server.body)))
                self.end_headers()
                self.wfile.write(server.body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/nvidia_cutlass.whl"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.httpd.shutdown()


@pytest.fixture
def served():
    server = ArchiveServer(wheel_bytes())
    yield server
    server.close()


def write_table(path: Path, url: str, body: bytes, sha256: str | None = None) -> Path:
    table = {"format_version": 1, "dependencies": {
        "cutlass_3_8": {"url": url, "sha256": sha256 or hashlib.sha256(body).hexdigest(), "size": len(body),
                        "format": "zip", "include_dir": INCLUDE, "release": "test wheel 3.8"},
        "cutlass_4_0": {"unavailable": "no archive in the test table"}}}
    path.write_text(json.dumps(table))
    return path


def project(tmp_path: Path, name: str = "p") -> Path:
    root = tmp_path / name
    root.mkdir()
    project = copy_fixture("addone", root)
    toml = (project / "build.toml").read_text()
    before = '[kernel.addone_cuda]\nbackend = "cuda"\ndepends = ["torch"]'
    assert before in toml
    (project / "build.toml").write_text(toml.replace(
        before, '[kernel.addone_cuda]\nbackend = "cuda"\ndepends = ["torch", "cutlass_3_8", "cutlass_4_0"]'))
    return project


def cuda_variant(kb_python) -> str:
    code = ("import torch, platform; v = torch.__version__.split('+')[0].split('.');"
            "print(f'torch{v[0]}{v[1]}-cxx11-cu' + (torch.version.cuda or '').replace('.', '') + f'-{platform.machine()}-linux')")
    return subprocess.run([str(kb_python), "-c", code], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def build_env(tmp_path):
    if not Path("/usr/local/cuda/bin/nvcc").exists() and not shutil.which("nvcc"):
        pytest.skip("nvcc not available (a CUDA variant is needed)")
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUTLASS_SRC_DIR", "KERNEL_BUILDER_OFFLINE", "KERNEL_BUILDER_HEADER_ARCHIVES")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    return env


def build_command(kernel_builder, kb_python, project_dir: Path, *extra: str) -> list[str]:
    return [str(kernel_builder), "build", str(project_dir), "--python", str(kb_python), "--variant",
            cuda_variant(kb_python), "--unique-id", "fetch1", *extra]


def entry_dir(tmp_path: Path) -> Path:
    return tmp_path / "xdg" / "kernel-builder" / "deps" / "cutlass-3.8"


def stopped_on_cutlass_4_0(stderr: str) -> bool:
    return "error: Kernel `addone_cuda` depends on `cutlass_4_0`, but no CUTLASS 4.0 headers were found" in stderr


def test_two_builds_at_once_fetch_the_pinned_archive_once(tmp_path, kernel_builder, kb_python, served, build_env):
    build_env["KERNEL_BUILDER_HEADER_ARCHIVES"] = str(write_table(tmp_path / "table.json", served.url, served.body))
    served.release.clear()  # the first download waits until the second build waits for it
    processes = [subprocess.Popen(build_command(kernel_builder, kb_python, project(tmp_path, name)),
                                  stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=build_env)
                 for name in ("a", "b")]
    outputs = [[], []]
    waiting = threading.Event()

    def read(index):
        for line in processes[index].stderr:
            outputs[index].append(line)
            if "waiting for another build that is fetching it" in line:
                waiting.set()

    readers = [threading.Thread(target=read, args=(i,)) for i in range(2)]
    for reader in readers:
        reader.start()
    assert waiting.wait(300), "no build waited for the other's fetch:\n" + "".join(outputs[0] + outputs[1])
    served.release.set()
    for process, reader in zip(processes, readers):
        process.wait(600)
        reader.join()
    stderr = ["".join(lines) for lines in outputs]
    assert served.gets == 1
    for process, text in zip(processes, stderr):
        assert process.returncode == 1 and stopped_on_cutlass_4_0(text), text
    both = stderr[0] + stderr[1]
    assert f"note: cutlass_3_8: downloading test wheel 3.8 (0.0 MiB) from {served.url}" in both
    assert f"note: cutlass_3_8: SHA-256 verified; 3 headers unpacked into `{entry_dir(tmp_path)}`" in both
    entry = entry_dir(tmp_path)
    assert (entry / "include/cutlass/cutlass.h").read_text() == "#pragma once\n#define KB_FETCHED_CUTLASS 38\n"
    assert sorted(p.relative_to(entry).as_posix() for p in entry.rglob("*") if p.is_file()) == [
        "include/cute/tensor.hpp", "include/cutlass/cutlass.h", "include/cutlass/version.h", "source.json"]
    assert json.loads((entry / "source.json").read_text())["sha256"] == hashlib.sha256(served.body).hexdigest()
    assert sorted(p.name for p in entry.parent.iterdir()) == [".cutlass-3.8.lock", "cutlass-3.8"]


def test_sha256_mismatch_extracts_nothing(tmp_path, kernel_builder, kb_python, served, build_env):
    pinned = "0" * 64
    build_env["KERNEL_BUILDER_HEADER_ARCHIVES"] = str(write_table(tmp_path / "table.json", served.url, served.body, pinned))
    result = subprocess.run(build_command(kernel_builder, kb_python, project(tmp_path)), capture_output=True, text=True,
                            env=build_env)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert ("error: Cannot fetch the CUTLASS 3.8 headers that kernel `addone_cuda` depends on (`cutlass_3_8`)" in lines), \
        result.stderr
    assert ("Caused by: The archive downloaded for `cutlass_3_8` does not match its pinned SHA-256; nothing was extracted"
            in lines)
    assert f"Caused by: expected sha256 {pinned}" in lines
    assert f"Caused by: got sha256 {hashlib.sha256(served.body).hexdigest()}" in lines
    deps = entry_dir(tmp_path).parent
    assert sorted(p.name for p in deps.iterdir()) == [".cutlass-3.8.lock"]


def test_unreachable_server_names_the_variable_and_the_cache_entry(tmp_path, kernel_builder, kb_python, build_env):
    import socket
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/nvidia_cutlass.whl"
    body = wheel_bytes()
    build_env["KERNEL_BUILDER_HEADER_ARCHIVES"] = str(write_table(tmp_path / "table.json", url, body))
    result = subprocess.run(build_command(kernel_builder, kb_python, project(tmp_path)), capture_output=True, text=True,
                            env=build_env)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert "error: Cannot fetch the CUTLASS 3.8 headers that kernel `addone_cuda` depends on (`cutlass_3_8`)" in lines, \
        result.stderr
    assert f"Caused by: Cannot download {url}" in lines
    assert "hint: set CUTLASS_SRC_DIR to a checkout of https://github.com/NVIDIA/cutlass at tag v3.8.x" in lines
    sha = hashlib.sha256(body).hexdigest()
    assert (f"hint: or pre-fill the cache where the network is reachable: download {url} (SHA-256 {sha}) and unpack "
            f"its `{INCLUDE}/` as `{entry_dir(tmp_path)}/include`") in lines
    assert not entry_dir(tmp_path).exists()


@pytest.mark.parametrize("how", ["--offline", "KERNEL_BUILDER_OFFLINE=1"])
def test_offline_does_not_download(tmp_path, kernel_builder, kb_python, served, build_env, how):
    build_env["KERNEL_BUILDER_HEADER_ARCHIVES"] = str(write_table(tmp_path / "table.json", served.url, served.body))
    extra = []
    if how == "--offline":
        extra.append(how)
    else:
        build_env["KERNEL_BUILDER_OFFLINE"] = "1"
    result = subprocess.run(build_command(kernel_builder, kb_python, project(tmp_path), *extra), capture_output=True,
                            text=True, env=build_env)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert "error: Kernel `addone_cuda` depends on `cutlass_3_8`, but no CUTLASS 3.8 headers were found" in lines, \
        result.stderr
    assert ("Caused by: downloads are off (--offline or KERNEL_BUILDER_OFFLINE), so the pinned test wheel 3.8 was not "
            "fetched") in lines
    assert served.gets == 0
