"""Helpers of the Xet end-to-end tests: the official clients in subprocesses with a clean
environment (no HF_HUB_DISABLE_XET, unlike conftest's in-process tests), and what the Hub's access
log says they called."""
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
DRIVER = Path(__file__).with_name("xet_client.py")
CLIENTS = {
    "hf-1.33": None,                               # the .venv's huggingface_hub
    "hf-2.4": str(REPO_ROOT / ".hf2-site"),        # 2.4.0, installed for PYTHONPATH
}


def client_env(hub, token, home, pythonpath=None, disable_xet=False):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_")) and k != "PYTHONPATH"}
    env.update(HF_ENDPOINT=hub.url, HF_HOME=str(home), HF_HUB_DISABLE_TELEMETRY="1",
               HF_XET_CACHE=str(home / "xet"), HF_HUB_DISABLE_PROGRESS_BARS="1")
    if token:
        env["HF_TOKEN"] = token
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    if disable_xet:
        env["HF_HUB_DISABLE_XET"] = "1"
    return env


def run_client(env, action, **args):
    result = subprocess.run([sys.executable, str(DRIVER), action, json.dumps(args)], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{action} failed:\n{result.stderr[-4000:]}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def xet_requests(hub, method, kind):
    """Access-log lines of CAS requests: ("POST", "xorbs") -> uploads of xorbs."""
    return [line for line in hub.log().splitlines() if line.startswith(f"{method} /api/kernel-hub/xet/") and kind in line]


def make_folder(root: Path) -> dict:
    """Small text files, a >10 MB file and binary files with NUL bytes."""
    files = {
        "README.md": b"# demo\n",
        "config.json": b'{"hidden": 8}\n',
        "weights/big.bin": os.urandom(12 * 1024 * 1024 + 12345),
        "weights/small.bin": b"\x00\x01\x02" * 5000 + b"\x00",
        "nested/deep/zeros.bin": b"\x00" * 300000,
    }
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return files


def plain_get(url, token=None, headers=None):
    request = urllib.request.Request(url, headers=dict(headers or {}))
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request) as response:
        return response.status, dict(response.headers), response.read()
