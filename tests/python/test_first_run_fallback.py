"""Issue 17 on a pinned CUDA system: the automatic CPU fallback where no device is visible (and
its warning, once), its absence where a device is visible or `backend=` was passed, and the
"no variant" errors of every loading function — FileNotFoundError as upstream raises it, with
every variant's rejection and the fixes (golden texts)."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from first_run_lib import CPU, CU128, ROCM, check_golden, pin_system
from loader_testlib import make_variant

import kernels
from kernels import get_kernel, get_kernel_variants, get_local_kernel, has_kernel, install_kernel, load_kernel


def _build(tmp_path, *variants, tag="k"):
    build = tmp_path / "proj" / "build"
    for variant in variants:
        backend = "cuda" if "-cu" in variant else "rocm" if "rocm" in variant else "cpu"
        make_variant(build, variant, backend=backend, ops_id=f"_fr_{tag}_{variant.replace('-', '_')}")
    return build


def _fallback_warnings(record):
    found = [w for w in record if "is used instead" in str(w.message)]
    assert all(w.filename == __file__ for w in found)  # attributed to the caller's line
    return [str(w.message) for w in found]


# -- the fallback -----------------------------------------------------------------------------

def test_no_device_loads_cpu_variant_and_warns_once(tmp_path, monkeypatch):
    pin_system(monkeypatch, device_available=False)
    build = _build(tmp_path, CPU, tag="once")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert get_local_kernel(build).VARIANT == CPU
        assert get_local_kernel(build.parent).VARIANT == CPU  # the project directory too
        assert get_local_kernel(build).VARIANT == CPU
    texts = _fallback_warnings(record)
    assert len(texts) == 2  # once per kernel path, not once per call
    check_golden("fallback_warning_local", texts[0], dir=str(build))


def test_device_visible_no_fallback(tmp_path, monkeypatch):
    pin_system(monkeypatch, device_available=True)
    build = _build(tmp_path, CPU, tag="dev")
    with pytest.raises(FileNotFoundError) as e:
        get_local_kernel(build)
    check_golden("no_variant_device_visible", str(e.value), dir=str(build.parent))


def test_explicit_cuda_fails_with_listing(tmp_path, monkeypatch):
    pin_system(monkeypatch, device_available=False)
    build = _build(tmp_path, CPU, ROCM, tag="cuda")
    make_variant(build, "not-a-variant!", ops_id="_fr_cuda_bad")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with pytest.raises(FileNotFoundError) as e:
            get_local_kernel(build, backend="cuda")
    assert _fallback_warnings(record) == []
    check_golden("no_variant_explicit_cuda_local", str(e.value), dir=str(build))
    assert get_local_kernel(build, backend="cpu").VARIANT == CPU


def test_universal_still_beats_fallback(tmp_path, monkeypatch):
    # Upstream would load torch-universal here: so do we, without a warning.
    pin_system(monkeypatch, device_available=False)
    build = _build(tmp_path, CPU, "torch-universal", tag="univ")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert get_local_kernel(build).VARIANT == "torch-universal"
    assert _fallback_warnings(record) == []


def test_cuda_variant_preferred_when_present(tmp_path, monkeypatch):
    pin_system(monkeypatch, device_available=False)
    build = _build(tmp_path, CPU, CU128, tag="both")
    assert get_local_kernel(build).VARIANT == CU128


def test_no_cpu_variant_no_device_lists_variants(tmp_path, monkeypatch):
    pin_system(monkeypatch, device_available=False)
    build = _build(tmp_path, ROCM, tag="rocm")
    with pytest.raises(FileNotFoundError) as e:
        get_local_kernel(build.parent)
    check_golden("no_variant_rocm_only_local", str(e.value), dir=str(build.parent))


# -- get_local_kernel never takes a directory of variants for a variant -------------------------

def test_directory_without_variants(tmp_path, monkeypatch):
    pin_system(monkeypatch, device_available=False)
    empty = tmp_path / "empty"
    (empty / "build" / "junk").mkdir(parents=True)
    with pytest.raises(FileNotFoundError) as e:
        get_local_kernel(empty)
    check_golden("no_variant_empty_local", str(e.value), dir=str(empty))
    variant = make_variant(tmp_path / "b", CU128, backend="cuda", ops_id="_fr_nomd")
    (variant / "metadata.json").unlink()
    with pytest.raises(FileNotFoundError, match="is named like a variant but has no `metadata.json`"):
        get_local_kernel(variant)
    with pytest.raises(FileNotFoundError, match="Could not find kernel in"):
        get_local_kernel(tmp_path / "missing")


def test_variant_directory_itself_still_loads(tmp_path, monkeypatch):
    pin_system(monkeypatch, device_available=True)
    variant = make_variant(tmp_path / "b", ROCM, backend="rocm", ops_id="_fr_itself")
    assert get_local_kernel(variant).VARIANT == ROCM


# -- the Hub: get_kernel, install_kernel, has_kernel, get_kernel_variants, load_kernel ------------

@pytest.fixture(scope="module")
def cpu_only(hub, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cpu-only")
    make_variant(tmp / "v1" / "build", CPU, name="cpuonly", ops_id="_fr_hub_cpuonly")
    make_variant(tmp / "v1" / "build", "torch29-cxx11-cu126-x86_64-linux", name="cpuonly", backend="cuda",
                 ops_id="_fr_hub_cpuonly_old")
    return hub.publish("trusted-org/cpu-only", tmp, {"v1": tmp / "v1"})["v1"]


def test_hub_fallback(env_hub, cache, cpu_only, monkeypatch):
    pin_system(monkeypatch, device_available=False)
    assert has_kernel("trusted-org/cpu-only", version=1)
    assert [type(d).__name__ for d in get_kernel_variants("trusted-org/cpu-only", version=1)] == \
        ["VariantAccepted", "VariantRejected"]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert get_kernel("trusted-org/cpu-only", version=1).VARIANT == CPU
        path = install_kernel("trusted-org/cpu-only", revision="v1")
    assert path.name == CPU
    texts = _fallback_warnings(record)
    assert len(texts) == 1
    check_golden("fallback_warning_hub", texts[0])


def test_hub_explicit_cuda(env_hub, cache, cpu_only, monkeypatch):
    pin_system(monkeypatch, device_available=False)
    assert not has_kernel("trusted-org/cpu-only", version=1, backend="cuda")
    with pytest.raises(FileNotFoundError) as e:
        get_kernel("trusted-org/cpu-only", version=1, backend="cuda")
    check_golden("no_variant_explicit_cuda_hub", str(e.value), sha=cpu_only)
    with pytest.raises(FileNotFoundError) as e:
        install_kernel("trusted-org/cpu-only", revision="v1", backend="cuda")
    assert str(e.value).startswith("Cannot find a build variant for this system in trusted-org/cpu-only "
                                   "(revision: v1):\n\n")


def test_hub_device_visible(env_hub, cache, cpu_only, monkeypatch):
    pin_system(monkeypatch, device_available=True)
    assert not has_kernel("trusted-org/cpu-only", version=1)
    with pytest.raises(FileNotFoundError, match='hint: pass `backend="cpu"` to load the cpu variant'):
        get_kernel("trusted-org/cpu-only", version=1)


def test_load_kernel_lists_variants(env_hub, cache, cpu_only, monkeypatch, tmp_path):
    pin_system(monkeypatch, device_available=False)
    lock = tmp_path / "kernels.lock"
    lock.write_text(json.dumps([{"repo_id": "trusted-org/cpu-only", "sha": cpu_only, "variants": {}}]))
    with pytest.raises(FileNotFoundError) as e:
        load_kernel("trusted-org/cpu-only", lockfile=lock)  # not downloaded
    assert "Caused by: Cannot find a local snapshot for trusted-org/cpu-only" in str(e.value)
    install_kernel("trusted-org/cpu-only", revision=cpu_only)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert load_kernel("trusted-org/cpu-only", lockfile=lock).VARIANT == CPU
    with pytest.raises(FileNotFoundError) as e:
        load_kernel("trusted-org/cpu-only", lockfile=lock, backend="cuda")
    check_golden("no_variant_load_kernel", str(e.value), sha=cpu_only)
