"""The loader against a hostile Hub (docs/hub-security.md, "The loader"): no path, repo id,
revision or commit id from a Hub, a lockfile, a redirect or the user becomes a URL or a cache path
before it passed the Hub's name rules; a refused answer is a ValueError naming the repository and
the offending value; nothing is written outside the cache (and for a refused listing, nothing of
the variant at all); nothing named by the attack is even requested."""
from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import List, Set

import pytest

from hostile_hub import HostileHub, Repo, git_blob_sha1, kernel_files

from kernels import get_kernel, has_kernel, install_kernel, load_kernel
from kernels import cli

REPO = "acme/evil"
PAYLOAD = b"import os  # planted by a hostile Hub\n"


@pytest.fixture
def repo(tmp_path) -> Repo:
    return Repo(kernel_files(tmp_path / "source"))


@pytest.fixture
def hostile(repo, cache, monkeypatch):
    hub = HostileHub({REPO: repo, "acme/other": Repo(dict(repo.files))})
    monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    yield hub
    hub.stop()


def _tree(root: Path, *skip: Path) -> Set[str]:
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if Path(dirpath, d) not in skip]
        for name in dirnames + filenames:
            out.add(os.path.join(dirpath, name))
    return out


class Guard:
    """Records the tmp tree outside the cache (and the test's own project folder) before an
    attack, and checks it after; no file anywhere, the cache included, may carry the marker."""

    def __init__(self, tmp_path: Path, cache: Path, hub: HostileHub):
        self.tmp_path, self.cache, self.hub = tmp_path, cache, hub
        self.skip = (cache, tmp_path / "proj")
        self.before = _tree(tmp_path, *self.skip)

    def check(self, *, marker: str = "pwned") -> None:
        stray = _tree(self.tmp_path, *self.skip) - self.before
        assert not stray, f"written outside the cache: {sorted(stray)}"
        assert not [p for p in _tree(self.tmp_path) if marker in os.path.relpath(p, self.tmp_path)]
        assert not [line for line in self.hub.log if marker in line], self.hub.log

    def nothing_installed(self, repo: Repo) -> None:
        assert not (self.cache / "kernels--acme--evil" / "snapshots" / repo.commit / "build").exists()


@pytest.fixture
def guard(tmp_path, cache, hostile) -> Guard:
    return Guard(tmp_path, cache, hostile)


def _shown(value: str) -> str:
    """A value as error messages show it (control characters as '?')."""
    return "".join("?" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in value)


def _assert_names(message: str, *values: str) -> None:
    for value in values:
        assert _shown(value) in message, f"{value!r} not named in: {message}"


# -- control cases ------------------------------------------------------------------------------

@pytest.mark.parametrize("bulk", [False, True], ids=["per-file", "bulk"])
def test_benign_kernel_loads(hostile, guard, repo, bulk):
    hostile.bulk = bulk
    mod = get_kernel(REPO, version=1, backend="cpu")
    assert mod.VALUE == 7 and mod.VARIANT == "torch-cpu"
    assert has_kernel(REPO, version=1, backend="cpu")
    assert any("/bulk/" in line for line in hostile.log) == bulk
    guard.check()


# -- tree listings ------------------------------------------------------------------------------

def _evil_listing_paths(tmp_path: Path) -> List[str]:
    return [
        str(tmp_path / "pwned.py"),                              # absolute
        "build/torch-cpu/" + "../" * 6 + "pwned.py",             # '..' up to tmp_path
        "build/torch-cpu/%2e%2e/%2e%2e/pwned.py",                # percent-encoded dots
        "build/torch-cpu/..\\..\\pwned.py",                      # backslashes
        "build/torch-cpu/pwn\ned.py",                            # control character
        "build/torch-cpu//pwned.py",                             # empty segment
        "build/torch-cpu/.git/pwned.py",                         # .git component
        "build/torch-cuda/pwned.py",                             # another variant
        "build/torch-cpux/pwned.py",                             # a sibling sharing the prefix
        "pwned.py",                                              # outside build/
    ]


LISTING_IDS = ["absolute", "dotdot", "pct-dots", "backslash", "control", "empty-segment", "dot-git",
               "other-variant", "sibling-prefix", "outside-build"]


def _plant(repo: Repo, folder: str, path: str) -> None:
    repo.extra_tree.setdefault(folder, []).append(
        {"type": "file", "path": path, "oid": git_blob_sha1(PAYLOAD), "size": len(PAYLOAD)})
    repo.unlisted[path] = PAYLOAD


@pytest.mark.parametrize("bulk", [False, True], ids=["per-file", "bulk"])
@pytest.mark.parametrize("index", range(10), ids=LISTING_IDS)
def test_get_kernel_refuses_listing(hostile, guard, repo, tmp_path, index, bulk):
    hostile.bulk = bulk
    path = _evil_listing_paths(tmp_path)[index]
    _plant(repo, "build/torch-cpu", path)
    with pytest.raises(ValueError) as e:
        get_kernel(REPO, version=1, backend="cpu")
    _assert_names(str(e.value), REPO, path)
    guard.check()
    guard.nothing_installed(repo)


@pytest.mark.parametrize("index", [0, 1, 2, 7], ids=["absolute", "dotdot", "pct-dots", "other-variant"])
def test_install_kernel_refuses_listing(hostile, guard, repo, tmp_path, index):
    path = _evil_listing_paths(tmp_path)[index]
    _plant(repo, "build/torch-cpu", path)
    with pytest.raises(ValueError) as e:
        install_kernel(REPO, revision="main", backend="cpu")
    _assert_names(str(e.value), REPO, path)
    guard.check()
    guard.nothing_installed(repo)


def test_listing_with_evil_object_id(hostile, guard, repo):
    # The blob name (and its lock file) come from the oid: `../../../pwned` would be a lock file
    # next to the cache.
    repo.extra_tree["build/torch-cpu"] = [
        {"type": "file", "path": "build/torch-cpu/extra.py", "oid": "../../../pwned", "size": 1}]
    repo.unlisted["build/torch-cpu/extra.py"] = b"x"
    with pytest.raises(ValueError) as e:
        get_kernel(REPO, version=1, backend="cpu")
    _assert_names(str(e.value), REPO, "build/torch-cpu/extra.py", "../../../pwned")
    guard.check()
    guard.nothing_installed(repo)


@pytest.mark.parametrize("entry", ["build/..", "/tmp", "build/a/b", "build/.git", "other/torch-cpu"])
def test_has_kernel_refuses_build_listing(hostile, guard, repo, entry):
    repo.extra_tree["build"] = [{"type": "directory", "path": entry, "oid": "0" * 40, "size": 0}]
    with pytest.raises(ValueError) as e:
        has_kernel(REPO, version=1, backend="cpu")
    _assert_names(str(e.value), REPO, entry)
    guard.check()


# -- revisions and commit ids --------------------------------------------------------------------

def test_user_revision_is_checked(hostile, guard, repo):
    repo.forced_sha = repo.commit  # a hostile Hub resolves anything
    for call in (lambda: get_kernel(REPO, revision="../../../pwned", trust_remote_code=True),
                 lambda: install_kernel(REPO, revision="../../../pwned"),
                 lambda: has_kernel(REPO, revision="../../../pwned")):
        with pytest.raises(ValueError) as e:
            call()
        _assert_names(str(e.value), REPO, "../../../pwned")
    guard.check()


@pytest.mark.parametrize("repo_id", ["acme/evil/../../../pwned", "../pwned", "acme/pwned\n"])
def test_user_repo_id_is_checked(hostile, guard, repo_id):
    for call in (lambda: get_kernel(repo_id, revision="main"),
                 lambda: install_kernel(repo_id, revision="main"),
                 lambda: has_kernel(repo_id, revision="main")):
        with pytest.raises(ValueError) as e:
            call()
        _assert_names(str(e.value), repo_id)
    guard.check()
    assert hostile.log == []


def test_hub_commit_id_is_checked(hostile, guard, repo):
    # The commit id names the snapshot folder: `../../../pwned` is a folder next to the cache.
    repo.forced_sha = "../../../pwned"
    with pytest.raises(ValueError) as e:
        get_kernel(REPO, revision="main", trust_remote_code=True)
    _assert_names(str(e.value), REPO, "../../../pwned")
    with pytest.raises(ValueError) as e:
        has_kernel(REPO, revision="main")
    _assert_names(str(e.value), REPO, "../../../pwned")
    guard.check()


def test_branch_commit_id_is_checked(hostile, guard, repo):
    repo.branches["v1"] = "../../../pwned"
    with pytest.raises(ValueError) as e:
        get_kernel(REPO, version=1)
    _assert_names(str(e.value), REPO, "../../../pwned")
    guard.check()


# -- metadata.json digest -----------------------------------------------------------------------

@pytest.mark.parametrize("evil", ["../../../pwned.py", "/etc/passwd", "a/%2e%2e/b"])
def test_digest_paths_are_checked(hostile, guard, repo, evil):
    key = "build/torch-cpu/metadata.json"
    md = json.loads(repo.files[key])
    md["digest"]["files"][evil] = base64.b64encode(hashlib.sha256(b"x").digest()).decode()
    repo.files[key] = json.dumps(md).encode()
    with pytest.raises(ValueError) as e:
        get_kernel(REPO, version=1, backend="cpu")
    _assert_names(str(e.value), REPO, evil)
    guard.check()


# -- kernel-status.toml redirects ---------------------------------------------------------------

@pytest.mark.parametrize("status, named", [
    ('kind = "redirect"\ndestination = "acme/../../pwned"\n', "acme/../../pwned"),
    ('kind = "redirect"\ndestination = "acme/other"\nrevision = "../../../pwned"\n', "../../../pwned"),
], ids=["destination", "revision"])
def test_redirect_is_checked(hostile, guard, repo, status, named):
    repo.files["kernel-status.toml"] = status.encode()
    hostile.repos["acme/other"].forced_sha = repo.commit
    with pytest.raises(ValueError) as e:
        get_kernel(REPO, version=1, backend="cpu")
    _assert_names(str(e.value), REPO, named)
    guard.check()


# -- bulk responses -----------------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "build/torch-cpu/" + "../" * 6 + "pwned.py", "/tmp/pwned.py", "build/torch-cpu/%2e%2e/pwned.py",
    "build/torch-cuda/pwned.py", "build/torch-cpux/pwned.py", "build/torch-cpu/pwn\x01ed.py",
], ids=["dotdot", "absolute", "pct-dots", "other-variant", "sibling-prefix", "control"])
def test_bulk_entry_names_are_checked(hostile, guard, repo, path):
    hostile.bulk = True
    repo.bulk_extra.append((path, PAYLOAD))
    with pytest.raises(ValueError) as e:
        get_kernel(REPO, version=1, backend="cpu")
    _assert_names(str(e.value), REPO, path)
    guard.check()
    assert not Path("/tmp/pwned.py").exists()


# -- HTTP redirects -----------------------------------------------------------------------------

def test_http_redirect_to_another_scheme_is_refused(hostile, guard, repo, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"SECRET\n")
    guard.before.add(str(secret))
    target = "build/torch-cpu/_helpers.py"
    repo.files[target] = secret.read_bytes()  # the listing announces the secret's hash
    repo.redirects[target] = f"file://{secret}"
    with pytest.raises(ValueError) as e:
        get_kernel(REPO, version=1, backend="cpu")
    _assert_names(str(e.value), REPO, "file://")
    blobs = guard.cache / "kernels--acme--evil" / "blobs"
    assert not (blobs / git_blob_sha1(b"SECRET\n")).exists()
    guard.check()


def test_http_redirect_within_http_is_followed(hostile, guard, repo):
    # Control: a Hub may redirect a download (to a CDN, another repo) over http(s).
    target = "build/torch-cpu/_helpers.py"
    repo.redirects[target] = f"/kernels/acme/other/resolve/{repo.commit}/{target}"
    assert get_kernel(REPO, version=1, backend="cpu").VALUE == 7
    assert any("/kernels/acme/other/resolve/" in line for line in hostile.log)
    guard.check()


def test_url_paths_are_sent_as_built(hostile, guard, monkeypatch):
    # libcurl removes dot segments unless told not to, and would then ask for another resource
    # than the one named: the request must reach the server exactly as built.
    monkeypatch.setenv("HF_ENDPOINT", hostile.endpoint + "/mirror/..")
    assert has_kernel(REPO, revision="main", trust_remote_code=True) is False  # the server has no `/mirror/../api/...`
    assert hostile.log and all(line.split()[1].startswith("/mirror/../api/") for line in hostile.log), hostile.log
    guard.check()


# -- lockfiles and the CLI: load_kernel, kernels download / kernels lock ------------------------

def _lockfile(project: Path, entries: list) -> None:
    project.mkdir(exist_ok=True)
    (project / "kernels.lock").write_text(json.dumps(entries))


@pytest.mark.parametrize("entry, named", [
    ({"repo_id": REPO, "sha": "../../../pwned"}, "../../../pwned"),
    ({"repo_id": "acme/evil/../../../pwned", "sha": "main"}, "acme/evil/../../../pwned"),
    ({"dependency": {"repo-id": REPO}, "lock": {"commit": "refs/../../pwned"}}, "refs/../../pwned"),
])
def test_load_kernel_refuses_evil_lockfile(hostile, guard, tmp_path, entry, named):
    _lockfile(tmp_path / "proj", [entry])
    with pytest.raises(ValueError) as e:
        load_kernel(REPO, lockfile=tmp_path / "proj" / "kernels.lock")
    _assert_names(str(e.value), named)
    guard.check()


def test_download_benign(hostile, guard, repo, tmp_path, capsys):
    _lockfile(tmp_path / "proj", [{"repo_id": REPO, "sha": repo.commit, "variants": {}}])
    assert cli.main(["download", str(tmp_path / "proj")]) == 0
    assert cli.main(["download", str(tmp_path / "proj"), "--all-variants"]) == 0
    guard.check()


@pytest.mark.parametrize("repo_id, sha, named", [
    (REPO, "../../../pwned", "../../../pwned"),
    ("acme/evil/../../../pwned", "c0ffee" + "0" * 34, "acme/evil/../../../pwned"),
])
@pytest.mark.parametrize("all_variants", [False, True], ids=["system", "all-variants"])
def test_download_refuses_evil_lockfile(hostile, guard, repo, tmp_path, capsys, repo_id, sha, named,
                                        all_variants):
    repo.forced_sha = repo.commit
    _lockfile(tmp_path / "proj", [{"repo_id": repo_id, "sha": sha, "variants": {}}])
    args = ["download", str(tmp_path / "proj")] + (["--all-variants"] if all_variants else [])
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert "error: " in err
    _assert_names(err, repo_id, named)
    guard.check()


@pytest.mark.parametrize("all_variants", [False, True], ids=["system", "all-variants"])
def test_download_refuses_listing(hostile, guard, repo, tmp_path, capsys, all_variants):
    evil = str(tmp_path / "pwned.py")
    _plant(repo, "build/torch-cpu", evil)
    _plant(repo, "build/torch-cuda", evil)
    _lockfile(tmp_path / "proj", [{"repo_id": REPO, "sha": repo.commit, "variants": {}}])
    args = ["download", str(tmp_path / "proj")] + (["--all-variants"] if all_variants else [])
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert "error: " in err
    _assert_names(err, REPO, evil)
    guard.check()
    guard.nothing_installed(repo)


def test_download_checks_every_entry_before_downloading(hostile, guard, repo, tmp_path, capsys):
    _lockfile(tmp_path / "proj", [{"repo_id": REPO, "sha": repo.commit, "variants": {}},
                                  {"repo_id": "acme/other", "sha": "../../../pwned", "variants": {}}])
    assert cli.main(["download", str(tmp_path / "proj")]) == 1
    _assert_names(capsys.readouterr().err, "acme/other", "../../../pwned")
    assert not (guard.cache / "kernels--acme--evil").exists()  # not even the valid entry
    guard.check()


def test_download_all_variants_refuses_variant_name(hostile, guard, repo, tmp_path, capsys):
    repo.extra_tree["build"] = [{"type": "directory", "path": "build/..", "oid": "0" * 40, "size": 0}]
    _lockfile(tmp_path / "proj", [{"repo_id": REPO, "sha": repo.commit, "variants": {}}])
    assert cli.main(["download", str(tmp_path / "proj"), "--all-variants"]) == 1
    err = capsys.readouterr().err
    assert "error: " in err
    _assert_names(err, REPO, "build/..")
    guard.check()


def _project(tmp_path: Path, repo_id: str = REPO) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text(f'[tool.kernels.dependencies]\n"{repo_id}" = 1\n')
    return project


def test_lock_benign(hostile, guard, repo, tmp_path):
    project = _project(tmp_path)
    assert cli.main(["lock", str(project)]) == 0
    lock = json.loads((project / "kernels.lock").read_text())
    assert lock == [{"dependency": {"repo-id": REPO, "version": 1}, "lock": {"commit": repo.commit}}]


# `kernels lock` reads the version branches, the variant listing and each variant's metadata.json
# (as upstream's): no recursive listing, redirect or revision lookup that an attack could use.
@pytest.mark.parametrize("attack", ["branch", "pyproject"])
def test_lock_refuses(hostile, guard, repo, tmp_path, capsys, attack):
    project = _project(tmp_path, "acme/evil/../../../pwned" if attack == "pyproject" else REPO)
    named = "../../../pwned"
    if attack == "pyproject":
        named = "acme/evil/../../../pwned"
    else:
        repo.branches["v1"] = named
    assert cli.main(["lock", str(project)]) == 1
    err = capsys.readouterr().err
    assert "error: " in err
    _assert_names(err, REPO, named)
    assert not (project / "kernels.lock").exists()
    guard.check()
