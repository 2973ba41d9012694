"""Runs one huggingface_hub call in this (clean) process, for the Xet end-to-end tests: the tests
start it with the interpreter and PYTHONPATH of the client version under test and an environment
without HF_HUB_DISABLE_XET, so huggingface_hub uses hf_xet as its default install does.

    python xet_client.py <action> <json arguments>

Prints one JSON line on stdout: the result, plus the client's version and whether hf_xet was on.
"""
import json
import os
import sys


def main() -> None:
    action, args = sys.argv[1], json.loads(sys.argv[2])
    import huggingface_hub as hf
    from huggingface_hub.utils import _runtime

    api = hf.HfApi()
    result = None
    if action == "create_repo":
        result = api.create_repo(args["repo_id"], repo_type=args["repo_type"], exist_ok=True,
                                 private=args.get("private", False)).repo_id
    elif action == "create_branch":
        api.create_branch(args["repo_id"], repo_type=args["repo_type"], branch=args["branch"], exist_ok=True)
    elif action == "upload_folder":
        info = api.upload_folder(repo_id=args["repo_id"], repo_type=args["repo_type"], folder_path=args["folder"],
                                 path_in_repo=args.get("path_in_repo"), revision=args.get("revision"),
                                 commit_message=args.get("message", "upload"))
        result = info.oid
    elif action == "upload_file":
        info = api.upload_file(path_or_fileobj=args["path"], path_in_repo=args["path_in_repo"], repo_id=args["repo_id"],
                               repo_type=args["repo_type"], revision=args.get("revision"))
        result = info.oid
    elif action == "download":
        result = hf.hf_hub_download(args["repo_id"], args["filename"], repo_type=args["repo_type"],
                                    revision=args.get("revision"), cache_dir=args["cache_dir"])
    elif action == "snapshot":
        result = hf.snapshot_download(args["repo_id"], repo_type=args["repo_type"], revision=args.get("revision"),
                                      cache_dir=args["cache_dir"])
    elif action == "xet_commit":
        # What huggingface_hub does for repository types it does not upload to (kernels): a Xet
        # write token, hf_xet's upload of the files, then the commit naming them by SHA-256.
        import hf_xet
        import httpx
        headers = {"Authorization": f"Bearer {os.environ['HF_TOKEN']}"}
        base = f"{os.environ['HF_ENDPOINT']}/api/{args['repo_type']}s/{args['repo_id']}"
        grant = httpx.get(f"{base}/xet-write-token/{args['revision']}", headers=headers).raise_for_status().json()
        paths = sorted(args["files"])
        infos = hf_xet.upload_files([args["files"][p] for p in paths], grant["casUrl"],
                                    (grant["accessToken"], grant["exp"]), None, None, "model")
        lines = [{"key": "header", "value": {"summary": "xet upload"}}]
        for path, info in zip(paths, infos):
            lines.append({"key": "lfsFile", "value": {"path": path, "algo": "sha256", "oid": info.sha256,
                                                      "size": info.file_size}})
        body = "\n".join(json.dumps(line) for line in lines)
        answer = httpx.post(f"{base}/commit/{args['revision']}", headers=headers, content=body)
        result = answer.raise_for_status().json()["commitOid"]
    else:
        raise SystemExit(f"unknown action {action}")
    print(json.dumps({"result": result, "version": hf.__version__, "xet": _runtime.is_xet_available()}))


if __name__ == "__main__":
    main()
