"""Runs one huggingface_hub call in this (clean) process, for the Xet end-to-end tests: the tests
start it with the interpreter and PYTHONPATH of the client version under test and an environment
without HF_HUB_DISABLE_XET, so huggingface_hub uses hf_xet as its default install does.

    python xet_client.py <action> <json arguments>

Prints one JSON line on stdout: the result, plus the client's version and whether hf_xet was on.
"""
import json
import sys


def main() -> None:
    action, args = sys.argv[1], json.loads(sys.argv[2])
    import huggingface_hub as hf
    from huggingface_hub.utils import _runtime

    api = hf.HfApi()
    result = None
    if action == "create_repo":
        result = api.create_repo(args["repo_id"], repo_type=args["repo_type"], exist_ok=True).repo_id
    elif action == "upload_folder":
        info = api.upload_folder(repo_id=args["repo_id"], repo_type=args["repo_type"], folder_path=args["folder"],
                                 revision=args.get("revision"), commit_message=args.get("message", "upload"))
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
    else:
        raise SystemExit(f"unknown action {action}")
    print(json.dumps({"result": result, "version": hf.__version__, "xet": _runtime.is_xet_available()}))


if __name__ == "__main__":
    main()
