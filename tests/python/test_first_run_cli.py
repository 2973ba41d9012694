"""Issue 17 in the `kernels` CLI on a pinned CUDA system without a device: `kernels variants`
takes a local path (project, build/ or variant directory) as well as a repo id, and its "no
variant" error — like `kernels download`'s — lists every variant's rejection and the fixes."""
from __future__ import annotations

import json

import pytest

from first_run_lib import CPU, ROCM, check_golden, pin_system
from loader_testlib import make_variant

from kernels import cli


@pytest.fixture
def project(tmp_path):
    build = tmp_path / "proj" / "build"
    make_variant(build, CPU, ops_id="_frcli_cpu")
    make_variant(build, ROCM, backend="rocm", ops_id="_frcli_rocm")
    return build.parent


def test_variants_local_path_falls_back(project, monkeypatch, capsys):
    pin_system(monkeypatch, device_available=False)
    assert cli.main(["variants", str(project)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{CPU}\n"
    assert err.startswith(f"warning: Kernel `{project}` has no variant for this system's `cuda` backend (cu128)")
    assert cli.main(["variants", str(project / "build"), "--explain"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == [f"{CPU} compatible, preferred ✅",
                                f"{ROCM}: backend (rocm70) does not match selected backend (cpu)"]


def test_variants_local_path_no_variant(project, monkeypatch, capsys):
    pin_system(monkeypatch, device_available=False)
    assert cli.main(["variants", str(project), "--backend", "cuda", "--explain"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"{CPU}: backend (cpu) does not match selected backend (cu128)",
                                f"{ROCM}: backend (rocm70) does not match selected backend (cu128)"]
    check_golden("cli_variants_local_no_variant", err, dir=str(project))


def test_variants_local_path_rejects_revision(project, monkeypatch, capsys):
    pin_system(monkeypatch, device_available=False)
    assert cli.main(["variants", str(project), "--version", "1"]) == 1
    assert capsys.readouterr().err == "--revision and --version cannot be used with a local path\n"


@pytest.fixture(scope="module")
def rocm_only(hub, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rocm-only")
    make_variant(tmp / "v1" / "build", ROCM, name="rocmonly", backend="rocm", ops_id="_frcli_hub_rocm")
    return hub.publish("trusted-org/rocm-only", tmp, {"v1": tmp / "v1"})["v1"]


def test_variants_hub_no_variant(env_hub, cache, rocm_only, monkeypatch, capsys):
    pin_system(monkeypatch, device_available=False)
    assert cli.main(["variants", "trusted-org/rocm-only"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    check_golden("cli_variants_hub_no_variant", err, sha=rocm_only)


def test_download_lists_variants(env_hub, cache, rocm_only, monkeypatch, capsys, tmp_path):
    pin_system(monkeypatch, device_available=False)
    (tmp_path / "kernels.lock").write_text(json.dumps([{"repo_id": "trusted-org/rocm-only", "sha": rocm_only,
                                                        "variants": {}}]))
    assert cli.main(["download", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{ROCM}: backend (rocm70) does not match selected backend (cu128)\nhint: " in err
