"""`kernels benchmark <repo_id | path>`: resolve the target, load the kernel through the loader
(a local path uses its `build/`, building nothing), measure the device's roofs, run every
workload with progress on stderr, then print the table (stdout; stderr with `--json`, whose
document goes to stdout), write `--output`/`--visual`, and `--upload`. Exit 1 when a workload
failed or did not verify."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import tempfile
import traceback
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional

from kernels import _core
from kernels._benchmark import device as device_mod
from kernels._benchmark import discovery, document, runner, table, timers
from kernels._benchmark.errors import from_hub_response

_VERSION_SUFFIX = re.compile(r"^v(\d+)$")


class UsageError(Exception):
    pass


@dataclass(frozen=True)
class Target:
    repo_id: str  # the Hub repo id, or the local path as given
    revision: str  # the requested branch/tag/sha, or "local"
    local: Optional[Path]


def resolve_target(repo_id: str, branch: Optional[str], version: Optional[int]) -> Target:
    path = Path(repo_id)
    if path.exists():
        if branch is not None or version is not None:
            raise UsageError("--branch and --version cannot be used with a local path")
        if re.fullmatch(r"[^./][^/]*/[^/]+", repo_id):
            print(f"warning: `{repo_id}` is a local directory and is benchmarked as one; "
                  f"write `./{repo_id}` to say so, or remove it to benchmark the Hub repository",
                  file=sys.stderr)
        return Target(repo_id, "local", path)
    revision = None
    if "@" in repo_id:
        repo_id, suffix = repo_id.split("@", 1)
        if suffix.isdigit():
            raise UsageError("version must be prefixed with 'v'")
        revision = suffix
    if version is not None:
        revision = _core.version_branch(version)
    elif branch is not None:
        revision = branch
    if revision is None:
        raise UsageError("must specify either branch or version")
    return Target(repo_id, revision, None)


def _missing(modules: List[str]) -> List[str]:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def _variant_of(kernel) -> str:
    # The loader's registry maps each imported variant directory to its module.
    from kernels import _importer

    with _importer._lock:
        for key, loaded in _importer._by_path.items():
            if loaded.module is kernel:
                return Path(key).name
    return Path(getattr(kernel, "__file__", "") or "unknown").parent.name


def _download_scripts(target: Target, into: Path) -> None:
    from huggingface_hub import HfApi, constants
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError, RepositoryNotFoundError

    from kernels import _core

    def listing(repo_type: str):
        return list(HfApi().list_repo_tree(target.repo_id, path_in_repo="benchmarks",
                                           revision=target.revision, repo_type=repo_type))

    try:
        try:
            entries = listing("kernel")
        except RepositoryNotFoundError:  # a kernel published as a model repository (upstream's type)
            entries = listing("model")
    except EntryNotFoundError:
        entries = []
    except HfHubHTTPError as error:
        raise from_hub_response(f"Cannot list the benchmarks of `{target.repo_id}` at `{target.revision}` "
                                f"on {constants.ENDPOINT}", error.response, target.repo_id) from error
    for entry in entries:
        name = entry.path.rsplit("/", 1)[-1]
        if entry.path.count("/") == 1 and name.startswith("benchmark") and name.endswith(".py"):
            (into / "benchmarks").mkdir(exist_ok=True)
            (into / "benchmarks" / name).write_bytes(_core.download_bytes(target.repo_id, target.revision, entry.path))


@contextmanager
def _cwd(path: Path) -> Iterator[None]:
    previous = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _load_kernel(target: Target):
    from kernels import get_kernel, get_local_kernel

    if target.local is not None:
        return get_local_kernel(target.local)
    return get_kernel(target.repo_id, revision=target.revision)


def run(args) -> int:
    missing = _missing(["torch"] + (["matplotlib"] if args.visual else []))
    if missing:
        print(f"Error: Missing dependencies for benchmark: {', '.join(missing)}", file=sys.stderr)
        print("Install with: pip install 'kernels[benchmark]'", file=sys.stderr)
        return 1
    if args.iterations < 1 or args.warmup < 0:
        raise UsageError("--iterations must be at least 1 and --warmup at least 0")
    target = resolve_target(args.repo_id, args.branch, args.version)
    # Hub scripts run inside their snapshot: outputs named relative to where the user is.
    args.output = os.path.abspath(args.output) if args.output else None
    args.visual = os.path.abspath(args.visual) if args.visual else None
    if args.upload and target.local is not None:
        raise UsageError("--upload needs a Hub repository: results of a local build describe no Hub revision "
                         "(benchmark the published kernel, e.g. `kernels benchmark org/name --version 1 --upload`)")
    with tempfile.TemporaryDirectory(prefix="kernels-benchmark-") as snapshot:
        if target.local is not None:
            root = target.local
            scripts = discovery.find_scripts(root)
        else:
            _progress(f"Downloading the benchmarks of {target.repo_id}@{target.revision}...")
            root = Path(snapshot)
            _download_scripts(target, root)
            scripts = discovery.find_scripts(root)
        kernel = _load_kernel(target)
        variant = _variant_of(kernel)
        with (_cwd(root) if target.local is None else nullcontext()):
            return _run_loaded(args, target, kernel, variant, scripts)


def _run_loaded(args, target: Target, kernel, variant: str, scripts: List[Path]) -> int:
    device = device_mod.torch_device()
    timer = timers.timer_for(device)
    synchronize = timers.synchronizer(device)
    machine = device_mod.machine_info(device)
    _progress(f"Kernel {target.repo_id}@{target.revision}: variant {variant} on {device} ({timer.name})")
    _progress("Measuring the device's copy bandwidth and peak...")
    roofs = device_mod.measure_roofs(device, machine["gpu"], timer, synchronize)

    workloads = []
    for index, script in enumerate(scripts):
        module = discovery.import_script(script, index)
        workloads.extend(discovery.workloads(module))
    if not workloads:
        print(f"error: no `Benchmark` subclass with a `benchmark_<name>` method in {', '.join(s.name for s in scripts)}",
              file=sys.stderr)
        return 1
    cases, failures = [], []
    for n, workload in enumerate(workloads, 1):
        _progress(f"[{n}/{len(workloads)}] {workload.label}")
        try:
            case = runner.run_workload(workload, kernel, device, args.iterations, args.warmup, timer, synchronize)
        except Exception as error:  # noqa: BLE001 - a benchmark's own failure is reported, the run goes on
            frame = traceback.extract_tb(error.__traceback__)[-1]
            failures.append(f"`{workload.label}` raised {type(error).__name__}: {error} "
                            f"({Path(frame.filename).name}:{frame.lineno})")
            continue
        cases.append(case)
        if case.verified is False:
            failures.append(f"Verification failed for {workload.label}: {case.verify_failure}")

    doc = document.build(
        document.Kernel(target.repo_id, target.revision, variant),
        machine, document.Settings(args.iterations, args.warmup, timer.name), roofs, cases)
    names = ", ".join(f"benchmarks/{script.name}" for script in scripts)
    text = table.render(doc, roofs.copy_source, f"{names} (sha256 {discovery.scripts_sha256(scripts)[:12]})")
    if args.json:
        print(text, file=sys.stderr, end="")
        print(json.dumps(doc, indent=2))
    else:
        print(text, end="")
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        _progress(f"Results written to {args.output}")
    if args.visual:
        from kernels._benchmark import charts

        for path in charts.write(doc, args.visual, args.rasterized):
            _progress(f"Chart written to {path}")
    if args.upload:
        if failures:
            print("error: not uploading: the run has failed or unverified cases", file=sys.stderr)
            return 1
        from kernels._benchmark.upload import upload

        answer = upload(doc)
        _progress(f"Uploaded run {answer['id']} of {target.repo_id} at revision {answer['revision']}")
    return 1 if failures else 0
