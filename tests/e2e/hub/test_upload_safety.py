"""`kernel-builder upload` publishes exactly what was built (docs/hub-security.md, "Upload"):
every variant passes the check-builds rules (its metadata.json digest lists exactly its files,
with matching hashes) and no symlink in what upload sends leads outside the kernel directory.
Each refusal happens before anything is sent: the repository is not even created, and no byte of
the kernel (or of the file a link leads to) reaches the Hub."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

hf = pytest.importorskip("huggingface_hub")

SECRET = b"host secret: do not publish\n"
HINT_LINK = ("hint: Upload follows a symlink only when it stays inside the kernel directory (the Hub stores "
             "no symlinks, so a link's content is published). Remove the link, or copy the file into the "
             "kernel directory if it belongs to the kernel.\n")
HINT_DIGEST = ("hint: Upload publishes only the files a variant's metadata.json digest lists. Rebuild the "
               "variant (or remove what was added to it after the build); `kernel-builder check-builds` "
               "runs the same check.\n")


@pytest.fixture
def world(hf_env, tmp_path, variant_tree):
    """A trusted org `acme`, its member's token, a built kernel at tmp/relu and a secret file
    outside it (tmp/host-secret.txt)."""
    hf_env.add_org("acme", trusted=True)
    token = hf_env.add_user("alice", "acme")
    kernel = tmp_path / "relu"
    expected = variant_tree(kernel)
    secret = tmp_path / "host-secret.txt"
    secret.write_bytes(SECRET)
    return hf_env, token, kernel, expected, secret


def upload(kernel_builder, kernel_dir, hub, token, *args, command="upload"):
    env = dict(os.environ, HF_ENDPOINT=hub.url, HF_TOKEN=token, NO_COLOR="1")
    return subprocess.run([str(kernel_builder), command, str(kernel_dir), *args],
                          capture_output=True, text=True, env=env)


def error_block(stderr: str) -> str:
    """stderr from the `error:` line on (progress lines before it vary)."""
    at = stderr.find("error: ")
    assert at >= 0, stderr
    return stderr[at:]


def hub_files(token, revision="v1") -> set:
    """Paths of the files of acme/relu at `revision`. (huggingface_hub is imported here, after
    hf_env configured it: importing its modules earlier fixes its settings for the session.)"""
    from huggingface_hub.hf_api import RepoFile
    return {e.path for e in hf.HfApi(token=token).list_repo_tree("acme/relu", repo_type="kernel", revision=revision,
                                                                recursive=True) if isinstance(e, RepoFile)}


def assert_nothing_reached_the_hub(hub, token, *secrets: bytes):
    from huggingface_hub.errors import RepositoryNotFoundError
    with pytest.raises(RepositoryNotFoundError):
        hf.HfApi(token=token).list_repo_refs("acme/relu", repo_type="kernel")
    for path in hub.root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            for secret in secrets:
                assert secret not in data, path


def rehash(kernel_builder, kernel: Path):
    """Re-records every variant's digest, as an author running `kernel-builder hash` would after
    changing the build directory."""
    subprocess.run([str(kernel_builder), "hash", str(kernel)], check=True, capture_output=True)


# --- symlinks -----------------------------------------------------------------------------------

def test_file_symlink_out_of_the_kernel_is_refused(world, kernel_builder):
    hub, token, kernel, _, secret = world
    (kernel / "build" / "torch-cpu" / "leak.txt").symlink_to(secret)
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == (
        f"error: Refusing to upload: the symlink `build/torch-cpu/leak.txt` leads outside the kernel directory "
        f"`{kernel}`, to `{secret}`\n" + HINT_LINK)
    assert result.stdout == ""
    assert_nothing_reached_the_hub(hub, token, SECRET)


def test_symlink_refused_even_when_the_digest_lists_it(world, kernel_builder):
    """The author ran `kernel-builder hash` with the link in place: the digest then matches, and
    only the symlink rule stands between the secret and the Hub."""
    hub, token, kernel, _, secret = world
    variant = kernel / "build" / "torch-cpu"
    (variant / "leak.txt").symlink_to(secret)
    rehash(kernel_builder, kernel)
    assert subprocess.run([str(kernel_builder), "check-builds", str(kernel)]).returncode == 0
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert "error: Refusing to upload: the symlink `build/torch-cpu/leak.txt` leads outside" in result.stderr
    assert_nothing_reached_the_hub(hub, token, SECRET)


def test_directory_symlink_out_of_the_kernel_is_refused(world, kernel_builder, tmp_path):
    hub, token, kernel, _, _ = world
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "id_rsa").write_bytes(SECRET)
    (kernel / "build" / "torch-cpu" / "extra").symlink_to(outside, target_is_directory=True)
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == (
        f"error: Refusing to upload: the symlink `build/torch-cpu/extra` leads outside the kernel directory "
        f"`{kernel}`, to `{outside}`\n" + HINT_LINK)
    assert_nothing_reached_the_hub(hub, token, SECRET)


def test_symlinked_variant_directory_out_of_the_kernel_is_refused(world, kernel_builder, tmp_path):
    hub, token, kernel, _, _ = world
    moved = tmp_path / "moved-variant"
    (kernel / "build" / "torch-cpu").rename(moved)
    (moved / "leak.txt").write_bytes(SECRET)
    (kernel / "build" / "torch-cpu").symlink_to(moved, target_is_directory=True)
    rehash(kernel_builder, kernel)
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == (
        f"error: Refusing to upload: the symlink `build/torch-cpu` leads outside the kernel directory "
        f"`{kernel}`, to `{moved}`\n" + HINT_LINK)
    assert_nothing_reached_the_hub(hub, token, SECRET)


def test_chain_of_links_is_followed_to_its_end(world, kernel_builder):
    """leak.txt -> ../../notes.txt (inside) -> the secret (outside): the first hop stays inside,
    the chain does not."""
    hub, token, kernel, _, secret = world
    (kernel / "notes.txt").symlink_to(secret)
    (kernel / "build" / "torch-cpu" / "leak.txt").symlink_to(Path("..") / ".." / "notes.txt")
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == (
        f"error: Refusing to upload: the symlink `build/torch-cpu/leak.txt` leads outside the kernel directory "
        f"`{kernel}`, to `{secret}`\n" + HINT_LINK)
    assert_nothing_reached_the_hub(hub, token, SECRET)


def test_dangling_symlink_out_of_the_kernel_is_refused(world, kernel_builder, tmp_path):
    hub, token, kernel, _, _ = world
    (kernel / "build" / "torch-cpu" / "later.txt").symlink_to(tmp_path / "not-yet")
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert "error: Refusing to upload: the symlink `build/torch-cpu/later.txt` leads outside" in result.stderr
    assert_nothing_reached_the_hub(hub, token)


@pytest.mark.parametrize("what", ["card", "benchmark", "benchmarks-dir", "build-dir"])
def test_symlinks_outside_the_variants_are_refused_too(world, kernel_builder, tmp_path, what):
    """CARD.md and benchmarks/ are not covered by any digest: the symlink rule alone protects them."""
    hub, token, kernel, _, secret = world
    if what == "card":
        link, target = kernel / "build" / "CARD.md", secret
    elif what == "benchmark":
        (kernel / "benchmarks").mkdir()
        link, target = kernel / "benchmarks" / "benchmark_leak.py", secret
    elif what == "benchmarks-dir":
        target = tmp_path / "bench-elsewhere"
        target.mkdir()
        (target / "benchmark.py").write_bytes(SECRET)
        link = kernel / "benchmarks"
    else:
        target = tmp_path / "build-elsewhere"
        (kernel / "build").rename(target)
        link = kernel / "build"
    link.symlink_to(target, target_is_directory=target.is_dir())
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == (
        f"error: Refusing to upload: the symlink `{link.relative_to(kernel).as_posix()}` leads outside the "
        f"kernel directory `{kernel}`, to `{target}`\n" + HINT_LINK)
    assert_nothing_reached_the_hub(hub, token, SECRET)


def test_symlink_inside_the_kernel_is_uploaded_as_its_content(world, kernel_builder):
    """A link that stays inside (through a symlinked kernel path too) is followed: the Hub gets a
    regular file with the target's bytes, which is what the digest hashed."""
    hub, token, kernel, expected, _ = world
    shared = kernel / "torch-ext" / "relu" / "_ops.py"
    shared.parent.mkdir(parents=True)
    shared.write_bytes(b"ops = 'shared'\n")
    variant = kernel / "build" / "torch-cpu"
    (variant / "_ops.py").unlink()
    (variant / "_ops.py").symlink_to(Path("..") / ".." / "torch-ext" / "relu" / "_ops.py")
    (kernel / "build" / "CARD.md").symlink_to(Path("..") / "torch-ext" / "relu" / "_ops.py")
    rehash(kernel_builder, kernel)
    expected["build/torch-cpu/_ops.py"] = b"ops = 'shared'\n"
    expected["build/torch-cpu/metadata.json"] = (variant / "metadata.json").read_bytes()
    via_link = kernel.parent / "relu-link"
    via_link.symlink_to(kernel, target_is_directory=True)
    result = upload(kernel_builder, via_link, hub, token)
    assert result.returncode == 0, result.stderr
    assert {p for p in hub_files(token) if p.startswith("build/")} == set(expected)
    for path, data in expected.items():
        local = hf.hf_hub_download("acme/relu", path, repo_type="kernel", revision="v1",
                                   cache_dir=kernel.parent / "cache", token=token)
        assert Path(local).read_bytes() == data, path
    readme = hf.hf_hub_download("acme/relu", "README.md", repo_type="kernel", cache_dir=kernel.parent / "cache",
                                token=token)
    assert Path(readme).read_bytes() == b"ops = 'shared'\n"


# --- digests ------------------------------------------------------------------------------------

def digest_refusal(variant: str, *violations: str) -> str:
    return (f"error: Refusing to upload: variant `{variant}` does not pass the check-builds rules\n"
            f"Caused by: Variant `{variant}` failed the digest check\n"
            "Caused by: kernel does not match the expected digest:\n" + "\n".join(violations) + "\n" + HINT_DIGEST)


def test_file_added_after_the_build_is_refused(world, kernel_builder):
    hub, token, kernel, _, _ = world
    (kernel / "build" / "torch-cpu" / "notes.txt").write_bytes(SECRET)
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == digest_refusal("torch-cpu", "Unknown file: notes.txt")
    assert_nothing_reached_the_hub(hub, token, SECRET)


def test_modified_file_is_refused(world, kernel_builder):
    hub, token, kernel, _, _ = world
    (kernel / "build" / "torch-cpu" / "_ops.py").write_bytes(b"ops = 'patched after the build'\n")
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == digest_refusal(
        "torch-cpu", "File hash mismatch for _ops.py: expected: VzMuvVYqE/gd+X4rW4KF0KUxcNIXQajwDUivCA4WP40=, "
                     "got: zx115FSPSJLSzK+ZYi2A5Au4um3+uwy/4m5xmYy/wiM=")
    assert_nothing_reached_the_hub(hub, token, b"patched after the build")


def test_missing_file_is_refused(world, kernel_builder):
    hub, token, kernel, _, _ = world
    (kernel / "build" / "torch-cpu" / "_ops.py").unlink()
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == digest_refusal("torch-cpu", "Missing file: _ops.py")
    assert_nothing_reached_the_hub(hub, token)


def test_variant_without_digest_is_refused(world, kernel_builder):
    hub, token, kernel, _, _ = world
    meta = kernel / "build" / "torch-cpu" / "metadata.json"
    doc = json.loads(meta.read_text())
    del doc["digest"]
    meta.write_text(json.dumps(doc))
    # check-builds accepts it (docs/cli.md: the digest is verified "if present"); upload does not.
    assert subprocess.run([str(kernel_builder), "check-builds", str(kernel)]).returncode == 0
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == (
        "error: Refusing to upload: variant `torch-cpu` does not pass the check-builds rules\n"
        "Caused by: Variant `torch-cpu` records no digest\n"
        "Caused by: its metadata.json has no `digest`, so which files belong to the build cannot be checked\n"
        "hint: Rebuild the variant with `kernel-builder build`, which records the digest; or, once you have "
        "checked that its directory holds only the built files, record it with `kernel-builder hash`.\n")
    assert_nothing_reached_the_hub(hub, token)


def test_one_bad_variant_stops_the_whole_upload(hf_env, kernel_builder, tmp_path, variant_tree):
    hf_env.add_org("acme", trusted=True)
    token = hf_env.add_user("alice", "acme")
    kernel = tmp_path / "relu"
    variant_tree(kernel, variants=("torch-cpu", "torch-cuda"))
    (kernel / "build" / "torch-cuda" / "stray.bin").write_bytes(b"stray")
    result = upload(kernel_builder, kernel, hf_env, token)
    assert result.returncode == 1, result.stderr
    assert error_block(result.stderr) == digest_refusal("torch-cuda", "Unknown file: stray.bin")
    assert_nothing_reached_the_hub(hf_env, token, b"from ._ops import ops")


def test_check_builds_reports_the_same_violations(world, kernel_builder):
    """One owner for the rules: check-builds and upload name the same problem."""
    _, _, kernel, _, _ = world
    (kernel / "build" / "torch-cpu" / "notes.txt").write_bytes(b"x")
    checked = subprocess.run([str(kernel_builder), "check-builds", str(kernel)], capture_output=True, text=True,
                             env=dict(os.environ, NO_COLOR="1"))
    assert checked.returncode == 1
    assert checked.stderr == ("error: Variant `torch-cpu` failed the digest check\n"
                              "Caused by: kernel does not match the expected digest:\nUnknown file: notes.txt\n")


def test_clean_build_still_uploads(world, kernel_builder):
    hub, token, kernel, expected, _ = world
    result = upload(kernel_builder, kernel, hub, token)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Kernel uploaded: {hub.url}/kernels/acme/relu/tree/v1\n"
    assert set(expected) <= hub_files(token)
    # The printed address is a page of the Hub, not a 404.
    page = httpx.get(result.stdout.removeprefix("Kernel uploaded: ").strip(), follow_redirects=True)
    assert page.status_code == 200 and "torch-cpu" in page.text


# --- build-and-upload shares the checks ---------------------------------------------------------

NOARCH_FIXTURE = Path(__file__).resolve().parents[1] / "builder" / "data" / "noarch_scale"


def test_build_and_upload_checks_what_it_uploads(world, kernel_builder, tmp_path):
    """A fresh build passes the digest check; a benchmark linking out of the project stops the
    upload after the build, before the Hub is contacted."""
    hub, token, _, _, secret = world
    project = tmp_path / "noarch_scale"
    shutil.copytree(NOARCH_FIXTURE, project)
    (project / "benchmarks").mkdir()
    (project / "benchmarks" / "benchmark_scale.py").symlink_to(secret)
    command = ["--python", sys.executable, "--unique-id", "bu1", "--repo-id", "acme/relu", "--variant", "torch-cpu"]
    refused = upload(kernel_builder, project, hub, token, *command, command="build-and-upload")
    assert refused.returncode == 1, refused.stderr
    assert (project / "build" / "torch-cpu" / "metadata.json").is_file()
    assert error_block(refused.stderr) == (
        f"error: Refusing to upload: the symlink `benchmarks/benchmark_scale.py` leads outside the kernel "
        f"directory `{project}`, to `{secret}`\n" + HINT_LINK)
    assert_nothing_reached_the_hub(hub, token, SECRET)
    (project / "benchmarks" / "benchmark_scale.py").unlink()
    (project / "benchmarks" / "benchmark_scale.py").write_text("print('scale')\n")
    uploaded = upload(kernel_builder, project, hub, token, *command, command="build-and-upload")
    assert uploaded.returncode == 0, uploaded.stderr
    assert uploaded.stdout.startswith(f"Kernel uploaded: {hub.url}/kernels/acme/relu/tree/v")
