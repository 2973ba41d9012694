"""The user agent the Python package computes (docs/python-api.md: caller parts, kernels/<version>,
python/…, backend/…, platform/…, file_type/kernel, torch/…) is what every Hub request of the C++
core sends, and HF_HUB_DISABLE_TELEMETRY leaves none of it (the client's plain default then).
The Hub is tests/python/hostile_hub.py unmodified, which records each request's User-Agent."""
from __future__ import annotations

import pytest

from hostile_hub import HostileHub, Repo, kernel_files

from kernels import get_kernel, install_kernel
from kernels._system import user_agent

REPO = "acme/agent"


@pytest.fixture
def recording_hub(tmp_path, cache, monkeypatch):
    hub = HostileHub({REPO: Repo(kernel_files(tmp_path / "source"))})
    monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_HUB_DISABLE_TELEMETRY", raising=False)
    yield hub
    hub.stop()


def test_get_kernel_sends_the_computed_user_agent(recording_hub):
    mod = get_kernel(REPO, version=1, backend="cpu", user_agent={"my-app": "2.0"})
    assert mod.VALUE == 7
    expected = user_agent({"my-app": "2.0"})
    assert expected.startswith("my-app/2.0; kernels/") and "file_type/kernel" in expected
    assert recording_hub.user_agents, "no request reached the Hub"
    # Every request, the trusted-publisher lookup and the file downloads included.
    assert set(recording_hub.user_agents) == {expected}, recording_hub.log


def test_install_kernel_sends_the_computed_user_agent(recording_hub):
    install_kernel(REPO, revision="main", backend="cpu", user_agent="caller/1")
    assert recording_hub.user_agents
    assert set(recording_hub.user_agents) == {user_agent("caller/1")}, recording_hub.log


def test_disabled_telemetry_sends_no_system_details(recording_hub, monkeypatch):
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    mod = get_kernel(REPO, version=1, backend="cpu", user_agent={"my-app": "2.0"})
    assert mod.VALUE == 7
    assert recording_hub.user_agents
    for agent in recording_hub.user_agents:
        assert agent, "a request without User-Agent"
        for detail in ("my-app", "kernels/", "python/", "platform/", "torch/"):
            assert detail not in agent, agent


def test_every_other_hub_call_sends_the_computed_user_agent(recording_hub, capsys):
    """has_kernel, get_kernel_variants and the `kernels` commands that ask the Hub (versions,
    info) send the same agent as get_kernel; before, their requests said only the client's default."""
    from kernels import cli, get_kernel_variants, has_kernel

    assert has_kernel(REPO, version=1, backend="cpu")
    assert get_kernel_variants(REPO, version=1, backend="cpu")
    assert cli.main(["versions", REPO]) == 0
    assert cli.main(["info", REPO]) == 0
    capsys.readouterr()
    assert len(recording_hub.user_agents) >= 4, recording_hub.log
    assert set(recording_hub.user_agents) == {user_agent(None)}, recording_hub.log
