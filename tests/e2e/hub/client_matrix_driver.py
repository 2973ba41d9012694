"""One official-client pair's round trip against kernel-hub, run inside the pair's venv by
client_matrix.py (docs/hub-xet.md, "Official clients"):

    python client_matrix_driver.py '<json arguments>'

Uploads the files of `folder` with upload_folder (plain LFS when HF_HUB_DISABLE_XET=1, else
through Xet), and in Xet mode also with hf_xet.upload_files directly followed by a commit naming
them by SHA-256 (what kernel uploads do, so even a 0-byte file is stored as Xet); downloads every
file with hf_hub_download into a fresh cache and compares its SHA-256. Prints progress on stderr
(a hang shows where) and one JSON line on stdout: versions, per-step seconds, failures.
"""
import hashlib
import json
import os
import sys
import time
import urllib.request


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def post(url, token, body, content_type):
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def main() -> None:
    args = json.loads(sys.argv[1])
    import huggingface_hub as hf

    api = hf.HfApi()
    token = os.environ["HF_TOKEN"]
    endpoint = os.environ["HF_ENDPOINT"]
    xet = os.environ.get("HF_HUB_DISABLE_XET") != "1"
    out = {"huggingface_hub": hf.__version__, "mode": "xet" if xet else "lfs", "steps": {}, "failures": []}
    try:
        import hf_xet
        out["hf_xet"] = getattr(hf_xet, "__version__", None) or __import__("importlib.metadata").metadata.version("hf_xet")
    except ImportError:
        out["hf_xet"] = None

    def step(name, action):
        print(f"{name} ...", file=sys.stderr, flush=True)
        started = time.monotonic()
        try:
            result = action()
        except Exception as error:  # reported, not raised: the other steps still run
            out["failures"].append(f"{name}: {type(error).__name__}: {str(error)[:400]}")
            result = None
        out["steps"][name] = round(time.monotonic() - started, 3)
        return result

    files = args["files"]  # name -> sha256
    repos = [(args["repo_id"], "upload_folder")]
    step("create_repo", lambda: api.create_repo(args["repo_id"], repo_type="model", exist_ok=True))
    step("upload_folder", lambda: api.upload_folder(repo_id=args["repo_id"], repo_type="model",
                                                    folder_path=args["folder"], commit_message="matrix"))
    if xet:
        direct = args["repo_id"] + "-direct"
        repos.append((direct, "hf_xet.upload_files"))

        def upload_direct():
            api.create_repo(direct, repo_type="model", exist_ok=True)
            request = urllib.request.Request(f"{endpoint}/api/models/{direct}/xet-write-token/main",
                                             headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                grant = json.loads(answer.read())
            names = sorted(files)
            paths = [os.path.join(args["folder"], name) for name in names]
            infos = hf_xet.upload_files(paths, grant["casUrl"], (grant["accessToken"], grant["exp"]), None, None, "model")
            lines = [{"key": "header", "value": {"summary": "hf_xet upload"}}]
            # Named by the SHA-256 computed here, as huggingface_hub does (hf_xet 1.0 reports none).
            for name, info in zip(names, infos):
                lines.append({"key": "lfsFile", "value": {"path": name, "algo": "sha256", "oid": files[name],
                                                          "size": info.file_size}})
            post(f"{endpoint}/api/models/{direct}/commit/main", token,
                 "\n".join(json.dumps(line) for line in lines).encode(), "application/x-ndjson")

        step("hf_xet.upload_files", upload_direct)
    for repo, how in repos:
        for name, sha in sorted(files.items()):
            cache = os.path.join(args["cache_dir"], how)
            local = step(f"download {name} ({how})",
                         lambda: hf.hf_hub_download(repo, name, repo_type="model", cache_dir=cache))
            if local is not None and sha256_of(local) != sha:
                out["failures"].append(f"download {name} ({how}): wrong content")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
