"""Runs one scenario of the official huggingface_hub client against kernel-hub, in a process of
its own (test_official_client_suite.py starts it with an explicit environment: the client
version comes from PYTHONPATH, Xet from HF_HUB_DISABLE_XET or its absence).

Usage: official_client_driver.py <scenario> <json arguments>
Prints one JSON object on stdout: {"steps": [[name, "ok" | "<ExceptionType>: message"], ...],
"data": {...}}. A step that raises is recorded and the scenario goes on where it can, so the
test names every failing call at once."""
import hashlib
import json
import os
import sys
import traceback
import warnings
from pathlib import Path

import huggingface_hub as hf
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi

STEPS = []
DATA = {"version": hf.__version__}


def step(name, fn, *args, **kwargs):
    try:
        result = fn(*args, **kwargs)
        STEPS.append([name, "ok"])
        return result
    except Exception as e:  # the report names the failure; the test decides
        STEPS.append([name, f"{type(e).__name__}: {e}".splitlines()[0][:500]])
        print(traceback.format_exc(), file=sys.stderr)
        return None


def expect_error(name, error_type, fn, *args, **kwargs):
    """A step that must raise `error_type` (a huggingface_hub.errors name)."""
    expected = getattr(hf.errors, error_type, None) or getattr(__builtins__, error_type)
    try:
        fn(*args, **kwargs)
        STEPS.append([name, f"no error (expected {error_type})"])
    except expected as e:
        STEPS.append([name, "ok"])
        DATA[name] = {"type": type(e).__name__, "message": str(e),
                      "status": getattr(getattr(e, "response", None), "status_code", None)}
    except Exception as e:
        STEPS.append([name, f"{type(e).__name__} instead of {error_type}: {e}".splitlines()[0][:500]])


def sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def tree_digests(root):
    root = Path(root)
    return {p.relative_to(root).as_posix(): sha(p) for p in sorted(root.rglob("*"))
            if p.is_file() and ".cache" not in p.relative_to(root).parts}


def upload_and_read_back(args):
    api = HfApi(token=args["token"])
    repo, kind, folder = args["repo"], args["repo_type"], Path(args["folder"])
    written = tree_digests(folder)
    DATA["written"] = written
    step("create_repo", api.create_repo, repo, repo_type=kind)
    step("create_repo exist_ok", api.create_repo, repo, repo_type=kind, exist_ok=True)
    info = step("upload_folder", api.upload_folder, repo_id=repo, repo_type=kind, folder_path=folder,
                commit_message="Upload the test folder")
    DATA["commit"] = getattr(info, "oid", None)
    tree = step("list_repo_tree", lambda: list(api.list_repo_tree(repo, repo_type=kind, recursive=True)))
    DATA["tree"] = {e.path: {"size": getattr(e, "size", None), "lfs": bool(getattr(e, "lfs", None)),
                             "xet_hash": getattr(e, "xet_hash", None)}
                    for e in tree or [] if isinstance(e, hf.hf_api.RepoFile)}
    downloaded = {}
    for path in written:
        local = step(f"hf_hub_download {path}", hf.hf_hub_download, repo, path, repo_type=kind,
                     cache_dir=args["cache"], token=args["token"])
        if local:
            downloaded[path] = sha(local)
    DATA["downloaded"] = downloaded
    snap = step("snapshot_download", hf.snapshot_download, repo, repo_type=kind,
                cache_dir=args["cache"] + "-snap", token=args["token"])
    DATA["snapshot"] = tree_digests(snap) if snap else {}
    if kind == "model":
        info = step("repo_info files_metadata", api.repo_info, repo, repo_type=kind, files_metadata=True)
        DATA["siblings"] = {s.rfilename: {"size": s.size, "blob_id": s.blob_id,
                                          "lfs_sha256": s.lfs.sha256 if s.lfs else None,
                                          "lfs_size": s.lfs.size if s.lfs else None}
                            for s in (info.siblings if info else [])}
    paths = step("get_paths_info", api.get_paths_info, repo, ["README.md", "weights", "missing.txt"],
                 repo_type=kind)
    DATA["paths_info"] = sorted([type(p).__name__, p.path] for p in paths or [])


def history_and_refs(args):
    api = HfApi(token=args["token"])
    repo, kind = args["repo"], args["repo_type"]
    step("create_repo", api.create_repo, repo, repo_type=kind)
    step("commit adds", api.create_commit, repo, repo_type=kind, commit_message="Add two files",
         commit_description="Both small.",
         operations=[CommitOperationAdd("a.txt", b"a\n"), CommitOperationAdd("dir/b.txt", b"b\n")])
    step("commit with deletes", api.create_commit, repo, repo_type=kind, commit_message="Replace a by c",
         operations=[CommitOperationDelete("a.txt"), CommitOperationDelete("dir/"),
                     CommitOperationAdd("c.txt", b"c\n")])
    files = step("list_repo_files", api.list_repo_files, repo, repo_type=kind)
    DATA["files"] = sorted(files or [])
    commits = step("list_repo_commits", api.list_repo_commits, repo, repo_type=kind)
    DATA["commits"] = [[c.title, c.message, c.authors] for c in commits or []]
    DATA["commit_ids"] = [c.commit_id for c in commits or []]
    # More than one page (50) of history: list_repo_commits follows the Link header.
    for i in range(50):
        step(f"commit {i}", api.create_commit, repo, repo_type=kind, commit_message=f"Step {i}",
             operations=[CommitOperationAdd("steps.txt", f"{i}\n".encode())])
    many = step("list_repo_commits, two pages", api.list_repo_commits, repo, repo_type=kind)
    DATA["many_commits"] = [c.title for c in many or []]
    DATA["head"] = many[0].commit_id if many else None
    step("create_branch", api.create_branch, repo, repo_type=kind, branch="dev")
    step("create_tag", api.create_tag, repo, repo_type=kind, tag="v1.0", tag_message="first")
    expect_error("create_tag twice", "HfHubHTTPError", api.create_tag, repo, repo_type=kind, tag="v1.0")
    refs = step("list_repo_refs", api.list_repo_refs, repo, repo_type=kind)
    DATA["branches"] = sorted(b.name for b in refs.branches) if refs else []
    DATA["tags"] = sorted([t.name, t.ref, t.target_commit] for t in refs.tags) if refs else []
    step("commit after the tag", api.create_commit, repo, repo_type=kind, commit_message="After the tag",
         operations=[CommitOperationDelete("c.txt")])
    local = step("hf_hub_download at tag", hf.hf_hub_download, repo, "c.txt", repo_type=kind, revision="v1.0",
                 cache_dir=args["cache"], token=args["token"])
    DATA["at_tag"] = Path(local).read_text() if local else None
    step("delete_tag", api.delete_tag, repo, repo_type=kind, tag="v1.0")
    step("delete_branch", api.delete_branch, repo, repo_type=kind, branch="dev")
    refs = step("list_repo_refs after deletes", api.list_repo_refs, repo, repo_type=kind)
    DATA["branches_after"] = sorted(b.name for b in refs.branches) if refs else []
    DATA["tags_after"] = [t.name for t in refs.tags] if refs else []
    expect_error("delete_branch main", "HfHubHTTPError", api.delete_branch, repo, repo_type=kind, branch="main")
    expect_error("delete missing branch", "RevisionNotFoundError", api.delete_branch, repo, repo_type=kind,
                 branch="nope")
    step("delete_repo", api.delete_repo, repo, repo_type=kind)
    expect_error("repo_info after delete", "RepositoryNotFoundError", api.repo_info, repo, repo_type=kind)
    expect_error("delete_repo again", "RepositoryNotFoundError", api.delete_repo, repo, repo_type=kind)
    step("delete_repo missing_ok", api.delete_repo, repo, repo_type=kind, missing_ok=True)


def community_pr(args):
    owner = HfApi(token=args["owner_token"])
    outsider = HfApi(token=args["outsider_token"])
    third = HfApi(token=args["third_token"])
    repo, kind = args["repo"], args["repo_type"]
    step("owner create_repo", owner.create_repo, repo, repo_type=kind)
    step("owner upload", owner.upload_file, path_or_fileobj=b"v1\n", path_in_repo="file.txt", repo_id=repo,
         repo_type=kind)
    expect_error("outsider commit to main", "HfHubHTTPError", outsider.upload_file, path_or_fileobj=b"evil\n",
                 path_in_repo="file.txt", repo_id=repo, repo_type=kind)
    big = Path(args["big_file"])
    info = step("outsider create_commit create_pr", outsider.create_commit, repo, repo_type=kind, create_pr=True,
                commit_message="Propose v2", commit_description="From an outsider.",
                operations=[CommitOperationAdd("file.txt", b"v2\n"), CommitOperationAdd("big.bin", big)])
    DATA["pr_url"] = getattr(info, "pr_url", None)
    pr = getattr(info, "pr_revision", None) or "refs/pr/1"
    DATA["pr_revision"] = pr
    step("outsider commits to own PR", outsider.create_commit, repo, repo_type=kind, revision=pr,
         commit_message="More", operations=[CommitOperationAdd("more.txt", b"more\n")])
    expect_error("third commits to the PR", "HfHubHTTPError", third.create_commit, repo, repo_type=kind,
                 revision=pr, commit_message="Hijack", operations=[CommitOperationAdd("more.txt", b"x\n")])
    step("owner commits to the PR", owner.create_commit, repo, repo_type=kind, revision=pr,
         commit_message="Review fix", operations=[CommitOperationAdd("review.txt", b"ok\n")])
    refs = step("list_repo_refs include_pull_requests", owner.list_repo_refs, repo, repo_type=kind,
                include_pull_requests=True)
    DATA["pull_requests"] = [p.ref for p in (refs.pull_requests or [])] if refs else []
    files = {}
    for path in ("file.txt", "big.bin", "more.txt", "review.txt"):
        local = step(f"download {path} at PR", hf.hf_hub_download, repo, path, repo_type=kind, revision=pr,
                     cache_dir=args["cache"], token=args["third_token"])
        files[path] = sha(local) if local else None
    DATA["pr_files"] = files
    main = step("download file.txt at main", hf.hf_hub_download, repo, "file.txt", repo_type=kind,
                cache_dir=args["cache"] + "-main", token=args["third_token"])
    DATA["main_file"] = Path(main).read_text() if main else None
    if kind == "model":  # huggingface_hub's discussions API takes model, dataset and space repos
        details = step("outsider create_pull_request", outsider.create_pull_request, repo, title="Empty PR",
                       description="Opened from the discussions API.")
        DATA["discussion"] = ({"num": details.num, "author": details.author, "is_pull_request": details.is_pull_request,
                               "status": details.status, "git_reference": details.git_reference}
                              if details else None)
        listed = step("get_repo_discussions", lambda: list(owner.get_repo_discussions(repo)))
        DATA["discussions"] = sorted([d.num, d.author, d.is_pull_request] for d in listed or [])


def errors(args):
    api = HfApi(token=args["token"])
    outsider = HfApi(token=args["outsider_token"])
    repo, kind, cache = args["repo"], args["repo_type"], args["cache"]
    step("create_repo", api.create_repo, repo, repo_type=kind)
    step("upload", api.upload_file, path_or_fileobj=b"x\n", path_in_repo="x.txt", repo_id=repo, repo_type=kind)
    expect_error("missing file", "EntryNotFoundError", hf.hf_hub_download, repo, "nope.txt", repo_type=kind,
                 cache_dir=cache, token=args["token"])
    expect_error("missing revision", "RevisionNotFoundError", hf.hf_hub_download, repo, "x.txt", repo_type=kind,
                 revision="no-such-branch", cache_dir=cache, token=args["token"])
    expect_error("missing repo", "RepositoryNotFoundError", hf.hf_hub_download, repo + "-nope", "x.txt",
                 repo_type=kind, cache_dir=cache, token=args["token"])
    bad = Path(args["bad_card_dir"])
    expect_error("invalid README metadata", "ValueError", api.upload_folder, repo_id=repo, repo_type=kind,
                 folder_path=bad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step("README without metadata", api.upload_folder, repo_id=repo, repo_type=kind,
             folder_path=args["plain_card_dir"])
    DATA["plain_card_warnings"] = [str(w.message) for w in caught if "metadata" in str(w.message)]
    step("update_repo_settings gated", api.update_repo_settings, repo, repo_type=kind, gated="auto")
    expect_error("gated download by outsider", "GatedRepoError", hf.hf_hub_download, repo, "x.txt", repo_type=kind,
                 cache_dir=cache + "-outsider", token=args["outsider_token"])
    local = step("gated download by member", hf.hf_hub_download, repo, "x.txt", repo_type=kind,
                 cache_dir=cache + "-member", token=args["token"])
    DATA["member_read"] = Path(local).read_text() if local else None
    step("update_repo_settings private", api.update_repo_settings, repo, repo_type=kind, private=True, gated=False)
    expect_error("private repo for outsider", "RepositoryNotFoundError", outsider.list_repo_refs, repo,
                 repo_type=kind)
    info = step("repo_info private", api.repo_info, repo, repo_type=kind)
    DATA["private"] = getattr(info, "private", None)


SCENARIOS = {f.__name__: f for f in (upload_and_read_back, history_and_refs, community_pr, errors)}

if __name__ == "__main__":
    SCENARIOS[sys.argv[1]](json.loads(sys.argv[2]))
    print(json.dumps({"steps": STEPS, "data": DATA}))
