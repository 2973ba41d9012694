"""`kernel-builder ci plan` and `ci generate github` (docs/release-ci.md): the release bundle grouped by
toolchain, and a GitHub Actions workflow that runs it. The workflow is validated by
check-jsonschema against SchemaStore's github-workflow schema (vendored in the PyPI package), its
shell steps by ShellCheck, and its expressions by a check that every `${{ matrix.X }}` a job uses
is a key of every matrix entry of that job and every `needs` names a job. The workflow of
examples/relu is pinned by a golden file (KB_REFRESH_GOLDEN=1 rewrites it)."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = ["relu", "noarch", "activation", "cutlass-gemm", "tvm-ffi-axpy", "stable-abi"]
PIN = ["--builder-repo", "acme/kernel-builder", "--builder-ref", "0123456789abcdef0123456789abcdef01234567"]


def run(binary, *args, **kwargs):
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=120, **kwargs)


def check_jsonschema() -> str:
    found = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not Path(found).exists():
        pytest.fail("check-jsonschema not installed: run scripts/install-deps (requirements/dev.txt)")
    return found


def validate_schema(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([check_jsonschema(), "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120)


def shell_steps(workflow: dict):
    for job_id, job in workflow["jobs"].items():
        for step in job["steps"]:
            if "run" in step:
                yield job_id, step.get("name", ""), step["run"]


def expression_problems(workflow: dict) -> list:
    problems = []
    jobs = workflow["jobs"]
    for job_id, job in jobs.items():
        needs = job.get("needs", [])
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in jobs:
                problems.append(f"{job_id}: needs unknown job {need}")
        include = job.get("strategy", {}).get("matrix", {}).get("include", [])
        keys = set.intersection(*(set(e) for e in include)) if include else set()
        used = set(re.findall(r"matrix\.([A-Za-z0-9_-]+)", json.dumps(job)))
        problems += [f"{job_id}: matrix.{k} is not a key of every matrix entry" for k in sorted(used - keys)]
    return problems


def generate(kernel_builder, kernel_dir: Path, *extra) -> subprocess.CompletedProcess:
    return run(kernel_builder, "ci", "generate", "github", kernel_dir, *PIN, *extra)


def test_plan_has_every_bundle_variant_of_this_system_once(kernel_builder):
    plan = run(kernel_builder, "ci", "plan", REPO / "examples" / "relu")
    assert plan.returncode == 0, plan.stderr
    doc = json.loads(plan.stdout)  # stdout is the document only
    assert doc["format_version"] == 1 and doc["branch"] == "v1" and doc["kernel"] == "relu"
    listed = run(kernel_builder, "list-variants", REPO / "examples" / "relu", "--json")
    here = {v["name"] for v in json.loads(listed.stdout) if v["bundle"]}
    planned = [v for g in doc["groups"] for v in g["variants"]]
    assert len(planned) == len(set(planned)) and doc["variants"] == planned
    assert here <= set(planned), sorted(here - set(planned))
    for group in doc["groups"]:
        assert group["install"]["torch"] == f"torch=={group['torch']}.*", group
        assert (group["install"]["nvcc"] is not None) == (group["backend"] == "cuda"), group
    assert re.search(r"^\d+ variant\(s\) in \d+ job group\(s\)$", plan.stderr.strip().splitlines()[-1])


def test_plan_marks_the_groups_a_toolchain_here_builds(kernel_builder, kb_python):
    plan = run(kernel_builder, "ci", "plan", REPO / "examples" / "relu", "--all", "--system", "x86_64-linux",
               "--python", kb_python)
    assert plan.returncode == 0, plan.stderr
    groups = {g["id"]: g for g in json.loads(plan.stdout)["groups"]}
    assert groups["torch211-cpu-x86_64-linux"]["buildable_here"] is True
    assert groups["torch211-cpu-x86_64-linux"]["toolchain_here"].startswith(str(kb_python))
    assert groups["torch213-cpu-x86_64-linux"]["buildable_here"] is False


def test_plan_refuses_an_unknown_system_with_the_known_ones(kernel_builder):
    plan = run(kernel_builder, "ci", "plan", REPO / "examples" / "relu", "--system", "riscv64-linux")
    assert plan.returncode == 2 and plan.stdout == ""
    assert "error: `riscv64-linux` is not a system this kernel builds for" in plan.stderr
    assert "hint: Systems of this kernel: " in plan.stderr and "x86_64-linux" in plan.stderr


@pytest.mark.parametrize("example", EXAMPLES)
def test_generated_workflow_is_valid(kernel_builder, tmp_path, example):
    out = tmp_path / ".github" / "workflows" / "release.yml"
    result = generate(kernel_builder, REPO / "examples" / example, "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and f"Wrote {out}" in result.stderr
    schema = validate_schema(out)
    assert schema.returncode == 0, schema.stdout + schema.stderr
    workflow = yaml.safe_load(out.read_text())
    assert expression_problems(workflow) == []
    # Every planned variant is built by exactly one matrix entry.
    plan = json.loads(run(kernel_builder, "ci", "plan", REPO / "examples" / example,
                          *sum((["--system", s] for s in ("x86_64-linux", "aarch64-linux")), [])).stdout)
    built = [v for job in ("build", "build-self-hosted") for e in workflow["jobs"].get(job, {}).get("strategy", {})
             .get("matrix", {}).get("include", []) for v in e["variants"].split()]
    assert sorted(built) == sorted(plan["variants"])


def test_generated_shell_steps_pass_shellcheck(kernel_builder, tmp_path):
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.fail("shellcheck not installed: run scripts/install-deps (Debian package shellcheck)")
    workflow = yaml.safe_load(generate(kernel_builder, REPO / "examples" / "relu", "--sign").stdout)
    checked = 0
    for job_id, name, script in shell_steps(workflow):
        # What GitHub substitutes before the shell runs: a word without spaces.
        text = re.sub(r"\$\{\{[^}]*\}\}", "EXPR", script)
        path = tmp_path / f"{job_id}-{checked}.sh"
        path.write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + text)
        result = subprocess.run([shellcheck, "-S", "warning", str(path)], capture_output=True, text=True)
        assert result.returncode == 0, (job_id, name, result.stdout)
        checked += 1
    assert checked >= 8


def test_signed_workflow_signs_before_the_upload(kernel_builder, tmp_path):
    """--sign: each build job may request an OIDC token and signs its variants' metadata.json into
    metadata.json.sigstore between the build and the upload; nothing else changes."""
    out = tmp_path / "release.yml"
    result = generate(kernel_builder, REPO / "examples" / "relu", "--sign", "-o", out)
    assert result.returncode == 0, result.stderr
    schema = validate_schema(out)
    assert schema.returncode == 0, schema.stdout + schema.stderr
    signed = yaml.safe_load(out.read_text())
    assert expression_problems(signed) == []
    plain = yaml.safe_load(generate(kernel_builder, REPO / "examples" / "relu").stdout)
    assert signed["permissions"] == plain["permissions"] == {"contents": "read"}
    build_jobs = [job for job in signed["jobs"] if job.startswith("build")]
    assert build_jobs
    for job in build_jobs:
        assert signed["jobs"][job]["permissions"] == {"contents": "read", "id-token": "write"}
        names = [step.get("name", "") for step in signed["jobs"][job]["steps"]]
        sign = names.index("Sign metadata.json (sigstore, this workflow's identity)")
        assert names[sign - 1].startswith("Build ") and names[sign + 1] == "Upload to the Hub"
        assert names[:sign] + names[sign + 1:] == [s.get("name", "") for s in plain["jobs"][job]["steps"]]
        script = signed["jobs"][job]["steps"][sign]["run"]
        assert 'sigstore sign --overwrite --bundle "$metadata.sigstore" "$metadata"' in script
    assert "permissions" not in signed["jobs"]["verify"] and "permissions" not in signed["jobs"]["kernel-builder"]


def test_sign_step_signs_every_built_variant(kernel_builder, tmp_path):
    """The sign step's script, run with a stand-in for the toolchain's python that records its
    arguments: one `sigstore sign` per variant's metadata.json, with the bundle beside it."""
    workflow = yaml.safe_load(generate(kernel_builder, REPO / "examples" / "relu", "--sign").stdout)
    [script] = [s["run"] for s in workflow["jobs"]["build"]["steps"] if s.get("name", "").startswith("Sign ")]
    runner = tmp_path / "runner"
    python = runner / "toolchain" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\necho \"$*\" >> \"$RUNNER_TEMP/calls\"\n")
    python.chmod(0o755)
    kernel = tmp_path / "kernel"
    for variant in ("torch211-cxx11-cpu-x86_64-linux", "torch-cuda"):
        (kernel / "build" / variant).mkdir(parents=True)
        (kernel / "build" / variant / "metadata.json").write_text("{}")
    (kernel / "build" / ".kb").mkdir()
    result = subprocess.run(["bash", "-eo", "pipefail", "-c", script], capture_output=True, text=True,
                            env={**os.environ, "RUNNER_TEMP": str(runner), "KERNEL_DIR": str(kernel)})
    assert result.returncode == 0, result.stderr
    calls = (runner / "calls").read_text().splitlines()
    assert calls[0] == "-m pip install -q sigstore>=4,<5"
    assert calls[1:] == [f"-m sigstore sign --overwrite --bundle {m}.sigstore {m}" for m in
                         (kernel / "build" / "torch-cuda" / "metadata.json",
                          kernel / "build" / "torch211-cxx11-cpu-x86_64-linux" / "metadata.json")]


def test_the_validators_catch_a_broken_workflow(kernel_builder, tmp_path):
    """The checks above can fail: a job without runs-on fails the schema; a matrix key that does
    not exist fails the expression check."""
    workflow = yaml.safe_load(generate(kernel_builder, REPO / "examples" / "relu").stdout)
    broken = json.loads(json.dumps(workflow))
    del broken["jobs"]["build"]["runs-on"]
    path = tmp_path / "broken.yml"
    path.write_text(yaml.safe_dump(broken))
    assert validate_schema(path).returncode != 0
    typo = json.loads(json.dumps(workflow))
    typo["jobs"]["build"]["steps"][-1]["env"] = {"X": "${{ matrix.varaints }}"}
    assert expression_problems(typo) == ["build: matrix.varaints is not a key of every matrix entry"]


def test_relu_workflow_is_the_golden_text(kernel_builder):
    result = generate(kernel_builder, REPO / "examples" / "relu", "--kernel-path", "examples/relu")
    assert result.returncode == 0, result.stderr
    golden = GOLDEN / "relu-release.yml"
    if os.environ.get("KB_REFRESH_GOLDEN") == "1":
        golden.write_text(result.stdout)
    assert result.stdout == golden.read_text()
    # The note for the systems left out goes to stderr.
    assert "note: `aarch64-darwin` variants are not in the workflow" in result.stderr


def test_generate_errors_have_hints(kernel_builder, tmp_path):
    bad_repo = run(kernel_builder, "ci", "generate", "github", REPO / "examples" / "relu",
                   "--builder-repo", "no slash", "--builder-ref", "main")
    assert bad_repo.returncode == 2 and "hint: --builder-repo" in bad_repo.stderr
    darwin = generate(kernel_builder, REPO / "examples" / "relu", "--system", "aarch64-darwin")
    assert darwin.returncode == 2, darwin.stderr
    assert "No CI recipe for `aarch64-darwin`" in darwin.stderr and "hint: " in darwin.stderr
    missing = run(kernel_builder, "ci", "generate", "github", REPO / "examples" / "relu")
    assert missing.returncode == 2 and "--builder-repo is required" in missing.stderr
