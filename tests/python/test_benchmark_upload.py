"""`kernels benchmark org/name --version N --upload` against a real kernel-hub (the Hub fixture):
the scripts come from the repository's `benchmarks/` at that revision, the run document is
posted to $HF_ENDPOINT with the token, stored once, and served back unchanged by the JSON API
(docs/hub-benchmarks.md); missing and wrong tokens give clear errors with hints."""
from __future__ import annotations

import json
import urllib.request

import pytest

from benchmark_testlib import KERNEL_CODE, run_kernels
from loader_testlib import make_variant

REPO = "trusted-org/bench-relu"

SCRIPT = '''
import torch
from kernels.benchmark import Benchmark

class ReluBench(Benchmark):
    seed = 0
    def setup(self):
        self.x = torch.randn(1 << 12)
        self.out = torch.empty_like(self.x)
    def benchmark_relu(self):
        self.kernel.relu(self.x, out=self.out)
    def verify_relu(self):
        return torch.relu(self.x)
    def bytes_relu(self):
        return 8 * self.x.numel()
'''


@pytest.fixture(scope="module")
def published(hub, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench-publish")
    content = folder / "v1"
    make_variant(content / "build", "torch-universal", name="bench-relu", init_extra=KERNEL_CODE)
    (content / "benchmarks").mkdir()
    (content / "benchmarks" / "benchmark.py").write_text(SCRIPT)
    (content / "benchmarks" / "helper.py").write_text("raise SystemExit('not a benchmark script')\n")
    commits = hub.publish(REPO, folder, {"v1": content})
    return commits["v1"]


def _env(hub, tmp_path, token):
    env = {"HF_ENDPOINT": hub.endpoint, "HF_HUB_CACHE": str(tmp_path / "cache"), "HF_HOME": str(tmp_path / "home"),
           "HF_HUB_DISABLE_XET": "1"}
    env["HF_TOKEN"] = token
    return env


def _get(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_upload_stores_and_serves_the_run(hub, published, tmp_path):
    output = tmp_path / "run.json"  # named relative to the working directory: the scripts run elsewhere
    r = run_kernels(["benchmark", REPO, "--version", "1", "--iterations", "3", "--warmup", "1", "--upload",
                     "--output", "run.json"], cwd=tmp_path, env=_env(hub, tmp_path, hub.token))
    assert r.returncode == 0, r.stderr
    sent = json.loads(output.read_text())
    assert sent["kernel"] == {"repo_id": REPO, "revision": "v1", "variant": "torch-universal"}
    assert sent["results"][0]["verified"] is True and sent["results"][0]["bandwidth_fraction"] > 0
    line = next(line for line in r.stderr.splitlines() if line.startswith("Uploaded run "))
    run_id = line.split()[2]
    assert line.endswith(f"at revision {published}")

    base = f"{hub.endpoint}/api/kernels/{REPO}/benchmarks"
    runs = _get(base, hub.token)["runs"]
    mine = [run for run in runs if run["id"] == run_id]
    assert len(mine) == 1
    assert mine[0]["revision"] == published and mine[0]["uploaded_by"] == "tester"
    assert mine[0]["document"] == sent
    assert _get(f"{base}/{run_id}", hub.token)["document"] == sent
    assert run_id in [run["id"] for run in _get(f"{base}?revision={published}", hub.token)["runs"]]


def test_upload_without_token(hub, published, tmp_path):
    r = run_kernels(["benchmark", REPO, "--version", "1", "--iterations", "2", "--upload"], cwd=tmp_path,
                    env=_env(hub, tmp_path, ""))
    assert r.returncode == 1
    assert (f"error: Cannot upload the benchmark results of `{REPO}` to {hub.endpoint}\n"
            "Caused by: no Hugging Face token found\n"
            "hint: set HF_TOKEN, or log in with `hf auth login`\n") in r.stderr


def test_a_wrong_token(hub, published, tmp_path):
    r = run_kernels(["benchmark", REPO, "--version", "1", "--iterations", "2", "--upload"], cwd=tmp_path,
                    env=_env(hub, tmp_path, "hf_not_a_token_of_this_hub"))
    assert r.returncode == 1
    assert f"error: Cannot list the benchmarks of `{REPO}` at `v1` on {hub.endpoint}\nCaused by: HTTP 401" in r.stderr
    assert "hint: set HF_TOKEN to a token of this Hub, or log in with `hf auth login`" in r.stderr
    assert "hf_not_a_token_of_this_hub" not in r.stderr


def test_hub_benchmark_without_revision(hub, published, tmp_path):
    r = run_kernels(["benchmark", REPO], cwd=tmp_path, env=_env(hub, tmp_path, hub.token))
    assert (r.returncode, r.stderr) == (2, "error: must specify either branch or version\n")


def test_unknown_repository(hub, tmp_path):
    r = run_kernels(["benchmark", "trusted-org/no-such-kernel", "--version", "1"], cwd=tmp_path,
                    env=_env(hub, tmp_path, hub.token))
    assert r.returncode == 1
    assert (f"error: Cannot list the benchmarks of `trusted-org/no-such-kernel` at `v1` on {hub.endpoint}\n"
            "Caused by: HTTP 404 RepoNotFound") in r.stderr
    assert ("hint: check that `trusted-org/no-such-kernel` and the revision exist on this Hub and that your "
            "token can read them\n") in r.stderr
