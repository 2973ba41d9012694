"""The `kernels` command line (docs/cli.md): download, lock, versions, info, variants, check, benchmark,
verify-signature."""
from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

from kernels import _core
from kernels._system import user_agent


def _toml_load(path: Path) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib  # type: ignore
    with path.open("rb") as f:
        return tomllib.load(f)


def cmd_check(args) -> int:
    print("`kernels check` has moved to `kernel-builder check-abi`", file=sys.stderr)
    return 1


def cmd_download(args) -> int:
    from kernels._api import install_kernel

    lock_path = Path(args.project_dir) / "kernels.lock"
    if not lock_path.exists():
        print(f"No kernels.lock file found in: {args.project_dir}", file=sys.stderr)
        return 1
    failed = False
    for entry in _core.parse_lockfile(lock_path.read_text(encoding="utf-8")):
        print(f"Downloading `{entry['repo_id']}` with SHA: {entry['sha']}", file=sys.stderr)
        try:
            if args.all_variants:
                from kernels._env import cache_root_arg

                _core.install_all(entry["repo_id"], entry["sha"], cache_root_arg(), user_agent())
            else:
                install_kernel(entry["repo_id"], revision=entry["sha"], trust_remote_code=True)
        except FileNotFoundError as e:
            print(str(e), file=sys.stderr)
            failed = True
    return 1 if failed else 0


def cmd_lock(args) -> int:
    project = Path(args.project_dir)
    pyproject = project / "pyproject.toml"
    deps = _toml_load(pyproject).get("tool", {}).get("kernels", {}).get("dependencies")
    if deps is None:
        print(f"error: No [tool.kernels.dependencies] table in {pyproject}", file=sys.stderr)
        return 1
    from kernels.locking import KernelDependency, KernelVersion, extract_dependency_locks

    kernels = [KernelDependency(repo_id, KernelVersion.Version(int(version))) for repo_id, version in deps.items()]
    locks = extract_dependency_locks(kernels, api=None)  # with every kernel dependency, transitively
    (project / "kernels.lock").write_text(locks.to_json(), encoding="utf-8")
    return 0


def cmd_versions(args) -> int:
    from kernels._system import system_info

    versions = _core.list_versions(args.repo_id, user_agent())
    if not versions:
        print(f"Repository does not support kernel versions: {args.repo_id}")
        return 0
    info = system_info()
    for number, commit in versions:
        print(f"Version {number}:\n")
        print(_core.variants(args.repo_id, commit, info, user_agent())["trace"])
        print()
    return 0


def cmd_variants(args) -> int:
    from kernels._api import _resolve_revision
    from kernels._system import system_info, validate_backend

    info = system_info(validate_backend(args.backend))
    if Path(args.repo_id).is_dir():
        if args.revision is not None or args.version is not None:
            print("--revision and --version cannot be used with a local path", file=sys.stderr)
            return 1
        selection = _core.local_variants(args.repo_id, info)
    else:
        revision = args.revision
        version = args.version
        if revision is None and version is None:
            versions = _core.list_versions(args.repo_id, user_agent())
            if versions:
                version = versions[-1][0]
            else:
                revision = "main"
        rev = _resolve_revision(args.repo_id, revision, version)
        selection = _core.variants(args.repo_id, rev, info, user_agent())
    if args.explain:
        print(selection["trace"])
    else:
        for name, accepted, _ in selection["decisions"]:
            if accepted:
                print(name)
    if selection["error"] is not None:
        print(f"error: {selection['error']}", file=sys.stderr)
        return 1
    if selection["fallback_warning"]:
        print(f"warning: {selection['fallback_warning']}", file=sys.stderr)
    return 0


def _metadata_info(md: Optional[dict], backends: List[str]) -> dict:
    info: dict = {}
    if md is not None:
        info.update({
            "name": md["name"], "version": md["version"], "license": md["license"],
            "upstream": md["upstream"], "source": md["source"], "python_depends": md["python_depends"],
        })
    info["backends"] = backends
    return info


def _backends(names: List[str]) -> List[str]:
    return sorted({b for b in (_core.variant_backend(n) for n in names) if b})


def cmd_info(args) -> int:
    path = Path(args.kernel)
    if path.is_dir():
        if args.revision is not None or args.version is not None:
            print("--revision and --version cannot be used with a local path", file=sys.stderr)
            return 1
        build = path / "build"
        names = sorted(d.name for d in build.iterdir() if d.is_dir()) if build.is_dir() else []
        names = [n for n in names if _core.parse_variant_name(n) is not None]
        if not names:
            print(f"No build variants found in: {build}", file=sys.stderr)
            return 1
        md = None
        for name in names:
            try:
                md = _core.read_metadata(str(build / name / "metadata.json"))
                break
            except (OSError, ValueError):
                continue
        info = {"path": str(path)}
    else:
        if args.revision is not None and args.version is not None:
            print("Only one of --revision or --version can be specified", file=sys.stderr)
            return 1
        versions = _core.list_versions(args.kernel, user_agent())
        if args.version is not None:
            if args.version not in [v for v, _ in versions]:
                print(_core.version_not_found(args.version, versions), file=sys.stderr)
                return 1
            rev = _core.version_branch(args.version)
        elif args.revision is not None:
            rev = args.revision
        else:
            rev = _core.version_branch(versions[-1][0]) if versions else "main"
        try:
            names = _core.build_listing(args.kernel, rev, user_agent())
        except FileNotFoundError:
            names = []
        if not names:
            print(f"No build variants found in {args.kernel} (revision: {rev})", file=sys.stderr)
            return 1
        md = None
        try:
            md = _core.parse_metadata(_core.download_bytes(args.kernel, rev, f"build/{names[0]}/metadata.json", user_agent()))
        except Exception:  # noqa: BLE001 - metadata errors are ignored (docs/cli.md)
            md = None
        info = {"repo_id": args.kernel, "revision": rev}
    info.update(_metadata_info(md, _backends(names)))
    if args.json:
        print(json.dumps(info, indent=2))
        return 0

    def show(v) -> str:
        if v is None:
            return "-"
        if isinstance(v, list):
            return ", ".join(v) if v else "-"
        return str(v)

    if "path" in info:
        print(f"Path: {info['path']}")
    else:
        print(f"Repository: {info['repo_id']}")
        print(f"Revision: {info['revision']}")
    for label, key in (("Name", "name"), ("Version", "version"), ("License", "license"), ("Upstream", "upstream"),
                       ("Source", "source"), ("Python dependencies", "python_depends"), ("Backends", "backends")):
        print(f"{label}: {show(info.get(key))}")
    return 0


def cmd_benchmark(args) -> int:
    from kernels._benchmark import command
    from kernels._benchmark.errors import BenchmarkError

    try:
        return command.run(args)
    except command.UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BenchmarkError as e:
        print(f"error: {e.message}", file=sys.stderr)
        for cause in e.causes:
            print(f"Caused by: {cause}", file=sys.stderr)
        for hint in e.hints:
            print(f"hint: {hint}", file=sys.stderr)
        return 1


def _verification_failure(result, args) -> Optional[str]:
    """The ❌ text of a `verify_variant` result (docs/cli.md), "" for one the flags skip, None on success."""
    from kernels.verify import VerificationResult as R

    if isinstance(result, R.Success):
        return None
    if isinstance(result, R.SignatureBundleMissing):
        return "" if args.filter_unsigned else "cannot verify kernel integrity, signature not found"
    if isinstance(result, (R.MetadataMissing, R.DigestMissing)):
        return "" if args.filter_no_digest else "cannot verify kernel integrity, metadata does not have a digest"
    if isinstance(result, R.SignatureBundleInvalid):
        return f"cannot verify kernel integrity, invalid signature bundle:\n{result.reason}"
    if isinstance(result, R.MetadataInvalid):
        return f"cannot verify kernel integrity, invalid metadata:\n{result.reason}"
    if isinstance(result, R.DigestVerificationFailure):
        return "\n".join(["kernel integrity check failed", *map(str, result.violations)])
    if isinstance(result, R.SignatureVerificationFailure):
        return f"metadata signature verification failed:\n{result.reason}"
    raise AssertionError(f"unhandled verification result {result!r}")


def cmd_verify_signature(args) -> int:
    from kernels._api import _install
    from kernels._env import cache_root_arg, is_offline
    from kernels.verify import policies_for_signers, verify_variant

    try:
        policies = policies_for_signers(args.signer) if args.signer else None
    except ValueError as e:
        print(f"error: --signer {e}", file=sys.stderr)
        return 2
    ua = user_agent()
    commit, _ = _core.resolve_version(args.repo_id, args.version, is_offline(), ua, cache_root_arg())
    if args.all_variants:
        variants = [Path(p) for p in _core.install_all(args.repo_id, commit, cache_root_arg(), ua)]
    else:
        # Verified below with the signers asked for, not at install with the default ones.
        variants = [_install(args.repo_id, commit, is_offline(), None, ua, validate_dependencies=False,
                             verify_signature=False)]
    failed = False
    for variant in variants:
        failure = _verification_failure(verify_variant(variant, policies), args)
        if failure is None:
            print(f"✅ {variant.name}: kernel metadata is correctly signed")
        elif failure:
            print(f"❌ {variant.name}: {failure}")
            failed = True
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kernels", description="Manage compute kernels from the Hub")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="Moved to `kernel-builder check-abi`")
    p.add_argument("repo_id", nargs="?")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("download", help="Download the locked kernels of a project")
    p.add_argument("project_dir", type=Path)
    p.add_argument("--all-variants", action="store_true", help="Download every variant, not only this system's")
    p.set_defaults(func=cmd_download)

    p = sub.add_parser("info", help="Describe a kernel (Hub repo or local directory)")
    p.add_argument("kernel")
    p.add_argument("--revision")
    p.add_argument("--version", type=int)
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("versions", help="List versions and the variant decision trace of each")
    p.add_argument("repo_id")
    p.set_defaults(func=cmd_versions)

    p = sub.add_parser("lock", help="Write kernels.lock from [tool.kernels.dependencies]")
    p.add_argument("project_dir", type=Path)
    p.set_defaults(func=cmd_lock)

    p = sub.add_parser("variants", help="List the variants usable on this system")
    p.add_argument("repo_id", help="A Hub repo id, or a local kernel directory (project, build/ or variant)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--revision")
    group.add_argument("--version", type=int)
    p.add_argument("--backend")
    p.add_argument("--explain", action="store_true", help="Print the decision trace (one reason per variant)")
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser("benchmark", help="Run a kernel's benchmarks/benchmark*.py and report the timings")
    p.add_argument("repo_id", help="A Hub repo id (org/name, org/name@v1) or a local kernel project (uses its build/)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--branch", help="Hub branch, tag or commit to benchmark")
    group.add_argument("--version", type=int, help="Kernel version to benchmark (branch v<N>)")
    p.add_argument("--iterations", type=int, default=100, help="Timed calls per case (default: 100)")
    p.add_argument("--warmup", type=int, default=10, help="Untimed calls before timing (default: 10)")
    p.add_argument("--output", help="Write the run document (JSON) to this file")
    p.add_argument("--json", action="store_true", help="Print the run document on stdout (the table goes to stderr)")
    p.add_argument("--visual", metavar="BASE", help="Write charts BASE-light.svg and BASE-dark.svg")
    p.add_argument("--rasterized", action="store_true", help="With --visual, also write BASE-light.png and BASE-dark.png")
    p.add_argument("--upload", action="store_true", help="Post the results to the Hub at $HF_ENDPOINT")
    p.set_defaults(func=cmd_benchmark)

    p = sub.add_parser("verify-signature", help="Verify the sigstore signature and the digest of a kernel's variants",
                       description="Downloads the best variant of version `version` of `repo_id` (every variant "
                       "with --all-variants), checks that its metadata.json is signed by an accepted signer (the "
                       "workflows given with --signer, by default the build workflows of "
                       "huggingface/kernels-community; KERNELS_SIGSTORE_TRUSTED_ROOT names another sigstore "
                       "instance's trusted_root.json) and that its files match the digest of that "
                       "metadata. Exit status 1 if a variant fails. Needs: pip install 'kernels[signature]'.")
    p.add_argument("repo_id", help="The kernel repo id (org/name)")
    p.add_argument("version", type=int, help="The kernel version to verify (branch v<VERSION>)")
    p.add_argument("--all-variants", action="store_true", help="Verify every variant, not only this system's")
    p.add_argument("--filter-unsigned", action="store_true", help="Skip unsigned variants")
    p.add_argument("--filter-no-digest", action="store_true", help="Skip variants without a digest in the metadata")
    p.add_argument("--signer", action="append", metavar="URI",
                   help="Accept signatures of this GitHub Actions workflow instead of kernels-community's "
                   "(https://github.com/<org>/<repo>/.github/workflows/<file>@<ref>; repeatable)")
    p.set_defaults(func=cmd_verify_signature)
    return parser


# Commands of Hugging Face's `kernels` CLI that another program of this project runs.
MOVED_COMMANDS = {
    "upload": "kernel-builder upload",
    "init": "kernel-builder init",
    "generate-readme": "kernel-builder fill-card",
}


def _subcommands(parser: argparse.ArgumentParser) -> Dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse has no public accessor for its subparsers
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _usage_error(message: str, hint: str) -> int:
    print(f"error: {message}\nhint: {hint}", file=sys.stderr)
    return 2


def _unknown_argument(parser: argparse.ArgumentParser, argv: List[str]) -> Optional[int]:
    """A misspelt or moved command, or an option the command lacks: the usage error with the closest
    name (or the program that has the command) as a hint; None when argparse should decide."""
    commands = _subcommands(parser)
    words = [a for a in argv if not a.startswith("-")]
    if not words:
        return None
    command = words[0]
    if command not in commands:
        if command in MOVED_COMMANDS:
            return _usage_error(f"unknown command `{command}` for `kernels`",
                                f"run `{MOVED_COMMANDS[command]}` instead (the tools wheel installs `kernel-builder`)")
        close = difflib.get_close_matches(command, list(commands), n=1)
        return _usage_error(f"unknown command `{command}` for `kernels`",
                            f"did you mean `{close[0]}`?" if close else "run `kernels --help` for its commands")
    _, extras = parser.parse_known_args(argv)
    if not extras:
        return None
    subparser = commands[command]
    word = extras[0].split("=", 1)[0]
    if not word.startswith("-"):
        return _usage_error(f"unexpected argument `{word}` for `kernels {command}`",
                            f"run `kernels {command} --help` for its arguments")
    close = difflib.get_close_matches(word, list(subparser._option_string_actions), n=1)
    return _usage_error(f"unknown option `{word}` for `kernels {command}`",
                        f"did you mean `{close[0]}`?" if close else f"run `kernels {command} --help` for its options")


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    arguments = sys.argv[1:] if argv is None else list(argv)
    if "-h" not in arguments and "--help" not in arguments:
        status = _unknown_argument(parser, arguments)
        if status is not None:
            return status
    args = parser.parse_args(arguments)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError, OSError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
