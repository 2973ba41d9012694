"""A Hub's "not found" answers raise what upstream `kernels` raises (huggingface_hub's
RepositoryNotFoundError / RevisionNotFoundError), and still FileNotFoundError as before; the code
travels as a field of the core's error (util::Error::code), never matched in message text."""
from __future__ import annotations

import pytest

import kernels

errors = pytest.importorskip("huggingface_hub.errors")


def test_missing_repository(env_hub, cache):
    with pytest.raises(errors.RepositoryNotFoundError) as caught:
        kernels.get_kernel("trusted-org/no-such-kernel", revision="main")
    assert isinstance(caught.value, FileNotFoundError)
    assert caught.value.response.status_code == 404
    assert "Repository not found" in str(caught.value)
    with pytest.raises(errors.RepositoryNotFoundError):
        kernels.install_kernel("trusted-org/no-such-kernel", revision="main")


def test_missing_revision(env_hub, cache, tmp_path):
    env_hub.publish("trusted-org/nf-rev", tmp_path / "pub", {"v1": None})
    with pytest.raises(errors.RevisionNotFoundError) as caught:
        kernels.get_kernel("trusted-org/nf-rev", revision="no-such-branch")
    assert isinstance(caught.value, FileNotFoundError)
    # A missing repository is not a missing revision, and vice versa.
    assert not isinstance(caught.value, errors.RepositoryNotFoundError)
    with pytest.raises(FileNotFoundError):
        kernels.get_kernel("trusted-org/nf-rev", revision="no-such-branch")
