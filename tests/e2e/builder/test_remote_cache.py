"""A compile cache shared between machines (docs/release-ci.md): `build --remote-cache redis://…` puts every
compile through ccache's remote storage. Two "runners" (two clean copies of the addone fixture in
directories of different depth, each with its own empty local ccache and user cache) build the
same CPU variant against one real redis-server: the second gets every compile from the remote
cache and produces the same module, the one of the session's build without the remote cache
(`cpu_build`, same unique id). The server is Debian's redis-server, started here on a free port
with nothing persisted."""
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture
def redis_url(tmp_path):
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server not installed (Debian package redis-server; scripts/install-deps installs it)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                                "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)


def _runner(tmp_path, name, kernel_builder, kb_python, cpu_variant, redis_url, depth, fixture="addone",
            unique_id="rcache"):
    """Builds a fresh copy of `fixture`; without the remote cache when `redis_url` is None."""
    root = tmp_path / name
    for part in range(depth):
        root = root / f"d{part}"
    project = copy_fixture(fixture, root)
    env = dict(os.environ, CCACHE_DIR=str(tmp_path / name / "ccache"), XDG_CACHE_HOME=str(tmp_path / name / "xdg"))
    env.pop("KERNEL_BUILDER_REMOTE_CACHE", None)
    if redis_url:
        env["KERNEL_BUILDER_REMOTE_CACHE"] = redis_url
    start = time.monotonic()
    run = subprocess.run([str(kernel_builder), "build", str(project), "--python", str(kb_python), "--variant", cpu_variant,
                          "--unique-id", unique_id], capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    assert run.returncode == 0, run.stderr
    module = next((project / "build" / cpu_variant).glob("*.so"))
    return run.stderr, seconds, hashlib.sha256(module.read_bytes()).hexdigest()


def test_second_runner_gets_every_compile_from_the_remote_cache(tmp_path, kernel_builder, kb_python, cpu_variant,
                                                                redis_url, cpu_build):
    # The unique id of the session's CPU build (conftest.py), whose module is compared below.
    first, first_s, first_module = _runner(tmp_path, "runner1", kernel_builder, kb_python, cpu_variant, redis_url, 1,
                                           unique_id="e2ea")
    second, second_s, second_module = _runner(tmp_path, "runner2", kernel_builder, kb_python, cpu_variant, redis_url, 3,
                                              unique_id="e2ea")
    note = f"note: {cpu_variant}: "
    assert note + "0 of 4 compiles from the compiler cache (0 from the remote cache)" in first, first
    assert note + "4 of 4 compiles from the compiler cache (4 from the remote cache)" in second, second
    assert "the torch header cache is off with --remote-cache" in second
    assert second_module == first_module
    print(f"remote cache: runner 1 {first_s:.1f} s, runner 2 {second_s:.1f} s, hit rate 3/3")
    # ccache passes the paths under the kernel directory relative to the build directory here
    # (base_dir): the module is still the one a build without the remote cache makes (__FILE__ in
    # TORCH_CHECK's messages names the sources the same way): the session's build, in a directory
    # of its own with the default compiler cache, kept as it was built (`variant_a`).
    local_module = hashlib.sha256(next(cpu_build["variant_a"].glob("*.so")).read_bytes()).hexdigest()
    assert local_module == first_module


def test_nvcc_compiles_hit_from_another_directory(tmp_path, kernel_builder, kb_python, redis_url):
    """The CUDA fixture (one .cu, one arch, plus the binding): nvcc's compile, whose prefix map
    names the kernel directory inside -Xcompiler, hits from another directory too."""
    if not Path("/usr/local/cuda/bin/nvcc").exists():
        pytest.skip("nvcc not available")
    probe = subprocess.run([str(kb_python), "-c", "import torch; print(torch.__version__); print(torch.version.cuda or '')"],
                           capture_output=True, text=True).stdout.split("\n")
    if not probe[1]:
        pytest.skip("the test interpreter's torch is not a CUDA build")
    nvcc = subprocess.run(["/usr/local/cuda/bin/nvcc", "--version"], capture_output=True, text=True).stdout
    release = nvcc.split("release ")[1].split(",")[0].replace(".", "")
    major, minor = probe[0].split(".")[:2]
    variant = f"torch{major}{minor}-cxx11-cu{release}-x86_64-linux"
    first, _, first_module = _runner(tmp_path, "cuda1", kernel_builder, kb_python, variant, redis_url, 1, "cuda_anon")
    second, _, second_module = _runner(tmp_path, "cuda2", kernel_builder, kb_python, variant, redis_url, 2, "cuda_anon")
    assert f"note: {variant}: 4 of 4 compiles from the compiler cache (4 from the remote cache)" in second, second
    assert second_module == first_module


@pytest.mark.parametrize("args, message", [
    (["--remote-cache", "rediss://user:secret@cache.example"],
     "error: Unsupported remote compile cache `rediss://***@cache.example`"),
    (["--remote-cache", "redis://user:secret@cache.example:6379", "--no-cache"],
     "error: --remote-cache needs the compiler cache, which --no-cache turns off"),
])
def test_bad_remote_cache_requests_stop_before_building(tmp_path, kernel_builder, args, message):
    project = copy_fixture("addone", tmp_path)
    run = subprocess.run([str(kernel_builder), "build", str(project), *args], capture_output=True, text=True)
    assert run.returncode == 2
    assert message in run.stderr
    assert "secret" not in run.stderr
    assert not (project / "build").exists()
