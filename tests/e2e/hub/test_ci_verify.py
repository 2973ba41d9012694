"""`kernel-builder ci verify` (docs/release-ci.md): the branch of a release holds every planned variant, each
with its metadata.json. Before any upload the branch is missing (exit 1, a hint to run the build
jobs); a partial upload lists what is missing (exit 1); the complete branch passes (exit 0)."""
import json
import os
import subprocess

BUILD_TOML = """[general]
name = "relu"
version = 2
edition = 5
license = "Apache-2.0"
backends = ["cpu", "cuda"]

[general.hub]
repo-id = "acme/relu"

[torch-noarch]
"""


def verify(kernel_builder, kernel, env, *extra):
    return subprocess.run([str(kernel_builder), "ci", "verify", str(kernel), *extra], capture_output=True, text=True,
                          env=env, timeout=60)


def upload_variant(kernel_builder, variant_tree, runner, variant, env):
    """One CI job's upload: a fake build of `variant` in its own checkout."""
    variant_tree(runner, version=2, variants=(variant,))
    (runner / "build.toml").write_text(BUILD_TOML)
    up = subprocess.run([str(kernel_builder), "upload", str(runner)], capture_output=True, text=True, env=env)
    assert up.returncode == 0, up.stderr


def test_verify_reports_missing_variants_until_the_branch_is_complete(hf_env, tmp_path, kernel_builder, variant_tree):
    hf_env.add_org("acme", trusted=True)
    token = hf_env.add_user("alice", "acme")
    env = dict(os.environ, HF_ENDPOINT=hf_env.url, HF_TOKEN=token, NO_COLOR="1")
    kernel = tmp_path / "relu"
    kernel.mkdir()
    (kernel / "build.toml").write_text(BUILD_TOML)

    nothing = verify(kernel_builder, kernel, env)
    assert nothing.returncode == 1, nothing.stderr
    assert "hint: Nothing was uploaded to `v2` of acme/relu yet" in nothing.stderr

    # One runner uploads torch-cpu only.
    upload_variant(kernel_builder, variant_tree, tmp_path / "runner1" / "relu", "torch-cpu", env)
    partial = verify(kernel_builder, kernel, env)
    assert partial.returncode == 1
    assert partial.stdout.splitlines()[1:] == ["missing: torch-cuda"]
    assert "1 of 2 planned variant(s)" in partial.stdout
    assert "error: 1 planned variant(s) missing on `v2` of acme/relu" in partial.stderr

    upload_variant(kernel_builder, variant_tree, tmp_path / "runner2" / "relu", "torch-cuda", env)
    complete = verify(kernel_builder, kernel, env)
    assert complete.returncode == 0, complete.stderr
    assert "2 of 2 planned variant(s)" in complete.stdout

    # Against a plan file: the same answer; a plan naming another variant finds it missing.
    plan = json.loads(subprocess.run([str(kernel_builder), "ci", "plan", str(kernel)], capture_output=True,
                                     text=True).stdout)
    plan["groups"][0]["variants"].append("torch-xpu")
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    other = verify(kernel_builder, kernel, env, "--plan", tmp_path / "plan.json")
    assert other.returncode == 1 and "missing: torch-xpu" in other.stdout
