"""The official-client matrix of kernel-hub (docs/hub-xet.md, "Official clients"): every pair of
huggingface_hub and hf_xet versions below, each in its own virtual environment under
.hf-matrix/ (gitignored), installed from PyPI once and reused; each pair uploads and downloads
files through Xet and plain LFS (client_matrix_driver.py) under a time limit.

    python client_matrix.py install [--jobs N]   # create the missing venvs (scripts/install-deps)
    python client_matrix.py list                 # the pairs and whether each venv is ready
    python client_matrix.py run [--sizes ...]    # the whole matrix against a fresh kernel-hub
                                                 # (scripts/hub-client-matrix: with 300 MB)
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
MATRIX_DIR = Path(os.environ.get("KB_HF_MATRIX", REPO_ROOT / ".hf-matrix"))
HUB_VERSIONS = ("1.0.1", "1.33.0", "2.4.0")
XET_VERSIONS = ("1.0.5", "1.6.0", "1.8.0")
PAIRS = [(hub, xet) for hub in HUB_VERSIONS for xet in XET_VERSIONS]


def pair_id(hub: str, xet: str) -> str:
    return f"hf{hub}-xet{xet}"


def python_of(hub: str, xet: str) -> Path:
    return MATRIX_DIR / pair_id(hub, xet) / "bin" / "python"


def ready(hub: str, xet: str) -> bool:
    return (MATRIX_DIR / pair_id(hub, xet) / ".complete").exists()


def declared(hub: str, xet: str) -> bool:
    """Whether hf_xet `xet` is within the range huggingface_hub `hub` requires (its METADATA)."""
    from packaging.requirements import Requirement
    from packaging.version import Version
    site = next((MATRIX_DIR / pair_id(hub, xet) / "lib").glob("python*/site-packages"))
    metadata = next(site.glob(f"huggingface_hub-{hub}.dist-info")) / "METADATA"
    for line in metadata.read_text().splitlines():
        if line.startswith("Requires-Dist: hf-xet") and "extra ==" not in line:
            return Version(xet) in Requirement(line.split(":", 1)[1].split(";")[0].strip()).specifier
    return True


def install(hub: str, xet: str) -> str:
    """Creates the pair's venv: huggingface_hub with its dependencies, then hf_xet pinned on top
    (pip replaces the hf_xet huggingface_hub pulled in; a pair outside huggingface_hub's declared
    range is still installed, as users who pin both get it)."""
    venv = MATRIX_DIR / pair_id(hub, xet)
    if ready(hub, xet):
        return f"{pair_id(hub, xet)}: ready"
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run(pip + [f"huggingface_hub=={hub}"], check=True)
    subprocess.run(pip + ["--no-deps", f"hf_xet=={xet}"], check=True)
    (venv / ".complete").write_text(f"huggingface_hub=={hub}\nhf_xet=={xet}\n")
    return f"{pair_id(hub, xet)}: installed"


DRIVER = Path(__file__).with_name("client_matrix_driver.py")
SMALL_SIZES = (0, 1, 500, 5 * 1024 * 1024)
BIG_SIZE = 300 * 1024 * 1024


def make_files(folder: Path, sizes) -> dict:
    """size-<n>.bin for each size: random bytes with a NUL first (binary: LFS, hence Xet, even
    when tiny); returns {name: sha256}."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for size in sizes:
        data = (b"\x00" + os.urandom(size - 1)) if size else b""
        name = f"size-{size}.bin"
        (folder / name).write_bytes(data)
        files[name] = hashlib.sha256(data).hexdigest()
    return files


def run_pair(hub_url: str, token: str, hub: str, xet: str, mode: str, folder: Path, files: dict, work: Path,
             timeout: float) -> dict:
    """One pair's round trip in one mode ("xet" or "lfs") within `timeout` seconds: a hang is a
    failure naming the step it hung in."""
    home = work / f"{pair_id(hub, xet)}-{mode}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_")) and k != "PYTHONPATH"}
    env.update(HF_ENDPOINT=hub_url, HF_TOKEN=token, HF_HOME=str(home), HF_XET_CACHE=str(home / "xet"),
               HF_HUB_DISABLE_TELEMETRY="1", HF_HUB_DISABLE_PROGRESS_BARS="1")
    if mode == "lfs":
        env["HF_HUB_DISABLE_XET"] = "1"
    repo = f"matrix/{pair_id(hub, xet).replace('.', '_')}-{mode}"
    args = {"repo_id": repo, "folder": str(folder), "files": files, "cache_dir": str(home / "cache")}
    started = time.monotonic()
    try:
        done = subprocess.run([str(python_of(hub, xet)), str(DRIVER), json.dumps(args)], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        last = (expired.stderr or b"")
        last = last.decode(errors="replace") if isinstance(last, bytes) else last
        step = last.strip().splitlines()[-1] if last.strip() else "start"
        return {"pair": pair_id(hub, xet), "mode": mode, "seconds": timeout,
                "failures": [f"no answer within {timeout:.0f} s (hung in: {step})"]}
    seconds = round(time.monotonic() - started, 1)
    if done.returncode != 0 or not done.stdout.strip():
        return {"pair": pair_id(hub, xet), "mode": mode, "seconds": seconds,
                "failures": [f"driver exited {done.returncode}: {done.stderr[-1500:]}"]}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result.update(pair=pair_id(hub, xet), seconds=seconds)
    return result


def table(results) -> str:
    lines = [f"{'pair':<22} {'mode':<4} {'seconds':>8}  result"]
    for r in results:
        verdict = "ok" if not r["failures"] else "FAILED: " + "; ".join(f[:160] for f in r["failures"])
        if r.get("note"):
            verdict = r["note"]
        lines.append(f"{r['pair']:<22} {r['mode']:<4} {r['seconds']:>8.1f}  {verdict}")
    return "\n".join(lines)


def run_matrix(sizes, timeout: float, jobs: int, kernel_hub: Path) -> list:
    """The whole matrix against a fresh `kernel-hub serve` in a temporary root."""
    with tempfile.TemporaryDirectory(prefix="hub-client-matrix-") as temp:
        work = Path(temp)
        root = work / "root"
        subprocess.run([str(kernel_hub), "org", "add", "matrix", "--root", str(root)], check=True, capture_output=True)
        token = subprocess.run([str(kernel_hub), "user", "add", "runner", "--root", str(root), "--org", "matrix"],
                               check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        log = open(work / "hub.log", "ab")
        server = subprocess.Popen([str(kernel_hub), "serve", "--root", str(root), "--port", "0"],
                                  stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            url = server.stdout.readline().strip().split(" ", 2)[2]
            files = make_files(work / "files", sizes)
            runs = [(hub, xet, mode) for hub, xet in PAIRS for mode in ("xet", "lfs")]
            with ThreadPoolExecutor(jobs) as pool:
                results = list(pool.map(lambda run: run_pair(url, token, *run, work / "files", files, work, timeout),
                                        runs))
            for r, (hub, xet, mode) in zip(results, runs):
                if mode == "xet" and not declared(hub, xet):
                    r["note"] = f"hf_xet {xet} is outside huggingface_hub {hub}'s declared range: the client refuses"
            return results
        finally:
            server.kill()
            server.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=("install", "list", "run"))
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[*SMALL_SIZES, BIG_SIZE])
    parser.add_argument("--timeout", type=float, default=900, help="seconds for one pair's round trip in one mode")
    parser.add_argument("--kernel-hub", default=str(REPO_ROOT / "build-release" / "src" / "cli" / "kernel-hub"))
    args = parser.parse_args()
    if args.action == "list":
        for hub, xet in PAIRS:
            print(pair_id(hub, xet), "ready" if ready(hub, xet) else "missing")
        return
    if args.action == "run":
        missing = [pair_id(*pair) for pair in PAIRS if not ready(*pair)]
        if missing:
            raise SystemExit(f"missing venvs: {', '.join(missing)} (python {__file__} install)")
        print(f"sizes: {', '.join(str(s) for s in args.sizes)} bytes; limit {args.timeout:.0f} s per pair and mode",
              flush=True)
        results = run_matrix(args.sizes, args.timeout, args.jobs, Path(args.kernel_hub))
        print(table(results))
        raise SystemExit(1 if any(r["failures"] and not r.get("note") for r in results) else 0)
    MATRIX_DIR.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        for line in pool.map(lambda pair: install(*pair), PAIRS):
            print(line, flush=True)


if __name__ == "__main__":
    main()
