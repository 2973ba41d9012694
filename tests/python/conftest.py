"""Fixtures of the loader tests (helpers live in loader_testlib.py, importable by the tests)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loader_testlib import Hub  # noqa: E402


@pytest.fixture(scope="session")
def hub(tmp_path_factory):
    h = Hub(tmp_path_factory.mktemp("hub-root"))
    yield h
    h.stop()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache per test, via HF_HUB_CACHE (read per call)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    monkeypatch.delenv("KERNELS_CACHE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("LOCAL_KERNELS", raising=False)
    return root


@pytest.fixture
def env_hub(hub, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
    monkeypatch.setenv("HF_TOKEN", hub.token)
    return hub


