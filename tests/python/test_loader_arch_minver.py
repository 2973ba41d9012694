"""The architecture check of variant choice and metadata.json's `kernels-minver`, on a pinned CUDA
12.8 system whose device capability comes from KERNELS_TEST_DEVICE_ARCH (test-only): a variant
whose declared archs do not cover the device is skipped for the next-best one (its files never
downloaded), none runnable gives the RuntimeError (golden) and `has_kernel` False, the system
info without a device arch (`check_arch=False`) loads it; a variant requiring a newer `kernels`
fails to load (golden), an equal, older or absent requirement loads."""
from __future__ import annotations

import pytest

from first_run_lib import CU128, check_golden, pin_system
from loader_testlib import make_variant

import kernels
import kernels._system
from kernels import Metadata, _core, get_kernel, get_local_kernel, has_kernel, install_kernel

NOARCH = "torch-cuda"


@pytest.fixture
def device(monkeypatch):
    """A visible CUDA device of capability 8.0."""
    monkeypatch.setenv("KERNELS_TEST_DEVICE_ARCH", "8.0")
    pin_system(monkeypatch, device_available=True)


@pytest.fixture(scope="module")
def repos(hub, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("arch-repos")

    def publish(repo, tag, variants):
        root = tmp / tag
        for variant, kw in variants:
            make_variant(root / "build", variant, backend="cuda", name="archdemo",
                         ops_id=f"_archdemo_{tag}_{variant.replace('-', '_')}", **kw)
        return hub.publish(repo, tmp, {"main": root})["main"]

    return {
        # cu128 is preferred but built for Hopper/Blackwell only; the noarch variant runs anywhere.
        "skip": publish("trusted-org/arch-skip", "skip",
                        [(CU128, {"archs": ["9.0a", "10.0"], "value": "128"}), (NOARCH, {"value": "0"})]),
        "none": publish("trusted-org/arch-none", "none", [(CU128, {"archs": ["9.0a", "10.0"]})]),
    }


def _hub_paths(hub, mark):
    return [line for line in hub.since(mark) if "/resolve/" in line]


def test_system_info_has_device_arch_and_kernels_version(monkeypatch):
    monkeypatch.setenv("KERNELS_TEST_DEVICE_ARCH", "9.0")
    info = kernels._system.system_info()
    assert info[kernels._system.DEVICE_ARCH_KEY] == "9.0"
    assert info["kernels_version"] == kernels.__version__
    assert kernels._system.without_arch_check(info)["device_arch"] is None
    assert info["device_arch"] == "9.0"  # the original is left alone
    monkeypatch.setenv("KERNELS_TEST_DEVICE_ARCH", "")
    assert kernels._system.system_info()["device_arch"] is None


def test_hub_skips_variant_not_built_for_device(env_hub, cache, repos, device, monkeypatch):
    mark = env_hub.mark()
    mod = get_kernel("trusted-org/arch-skip", revision="main")
    assert mod.VARIANT == NOARCH
    fetched = _hub_paths(env_hub, mark)
    # The skipped variant's metadata.json was read; none of its other files was downloaded.
    assert any(f"build/{CU128}/metadata.json" in line for line in fetched)
    assert not any(f"build/{CU128}/" in line and "metadata.json" not in line for line in fetched)
    assert not (cache / "kernels--trusted-org--arch-skip" / "snapshots" / repos["skip"] / "build" / CU128).exists()
    # Offline, from the cache: the same choice.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert get_kernel("trusted-org/arch-skip", revision=repos["skip"]).VARIANT == NOARCH


def test_hub_device_covered_keeps_best(env_hub, cache, repos, device, monkeypatch):
    monkeypatch.setenv("KERNELS_TEST_DEVICE_ARCH", "10.3")  # 10.0 runs on 10.3
    assert get_kernel("trusted-org/arch-skip", revision="main").VARIANT == CU128


def test_hub_none_runnable_is_runtime_error(env_hub, cache, repos, device):
    with pytest.raises(RuntimeError) as e:
        get_kernel("trusted-org/arch-none", revision="main")
    check_golden("arch_none_runnable_hub", str(e.value), commit=repos["none"])
    assert not has_kernel("trusted-org/arch-none", revision="main")
    assert has_kernel("trusted-org/arch-skip", revision="main")


def test_hub_without_arch_check_loads(env_hub, cache, repos, device):
    info = kernels._system.without_arch_check(kernels._system.system_info())
    result = _core.install("trusted-org/arch-none", "main", False, info, False, "cuda", "", lambda m: True)
    assert result["variant"] == CU128
    assert get_kernel("trusted-org/arch-none", revision="main", check_arch=False).VARIANT == CU128
    assert has_kernel("trusted-org/arch-none", revision="main", check_arch=False)
    # Installing is not loading: install_kernel does not check the architecture (as upstream's).
    assert install_kernel("trusted-org/arch-none", revision="main").name == CU128


def test_local_skips_and_fails(tmp_path, device, monkeypatch):
    """A local kernel loaded through `get_kernel` (a `LOCAL_KERNELS` override) is checked as a Hub
    one; `get_local_kernel` itself loads what was built, as upstream's (it has no `check_arch`)."""
    build = tmp_path / "proj" / "build"
    make_variant(build, CU128, backend="cuda", ops_id="_archloc_cu", archs=["7.5", "9.0a+PTX"])
    make_variant(build, NOARCH, backend="cuda", ops_id="_archloc_noarch")
    monkeypatch.setenv("LOCAL_KERNELS", f"trusted-org/archloc={build.parent}")
    assert get_kernel("trusted-org/archloc", version=1).VARIANT == NOARCH
    assert get_local_kernel(build).VARIANT == CU128
    listing = _core.local_variants(str(build), kernels._system.system_info())  # `kernels variants <dir>`
    assert listing["best"] == NOARCH
    assert f"{CU128}: built for 7.5, 9.0a+PTX, not for this device's CUDA capability 8.0" in listing["trace"]
    only = tmp_path / "only" / "build"
    make_variant(only, CU128, backend="cuda", ops_id="_archloc_only", archs=["sm_100", "8.6"])
    monkeypatch.setenv("LOCAL_KERNELS", f"trusted-org/archonly={only}")
    with pytest.raises(RuntimeError) as e:
        get_kernel("trusted-org/archonly", version=1)
    check_golden("arch_none_runnable_local", str(e.value), dir=str(only))
    assert get_kernel("trusted-org/archonly", version=1, check_arch=False).VARIANT == CU128
    assert get_local_kernel(only).VARIANT == CU128
    # Unparsable entries only: nothing known, the check passes.
    odd = tmp_path / "odd" / "build"
    make_variant(odd, CU128, backend="cuda", ops_id="_archloc_odd", archs=["sm_100", "future"])
    monkeypatch.setenv("LOCAL_KERNELS", f"trusted-org/archodd={odd}")
    assert get_kernel("trusted-org/archodd", version=1).VARIANT == CU128


@pytest.mark.parametrize("minver,loads", [("99.0", False), (kernels.__version__, True), ("0.1", True), (None, True)])
def test_kernels_minver(tmp_path, env_hub, cache, minver, loads):
    tag = (minver or "none").replace(".", "_")
    build = tmp_path / "build"
    vdir = make_variant(build, "torch-universal", name="needs-new", ops_id=f"_minver_{tag}", kernels_minver=minver)
    metadata = Metadata.read_from_file(vdir / "metadata.json")
    assert (metadata.kernels_minver is None) == (minver is None)
    if not loads:
        with pytest.raises(RuntimeError) as e:
            get_local_kernel(build)
        check_golden("kernels_minver_too_old", str(e.value), version=kernels.__version__)
        repo = f"trusted-org/minver-{tag.replace('_', '-')}"
        env_hub.publish(repo, tmp_path, {"main": tmp_path})
        with pytest.raises(RuntimeError) as e:
            get_kernel(repo, revision="main")
        assert str(e.value).startswith("Kernel 'needs-new' variant 'torch-universal' requires kernels>=99.0")
    else:
        assert get_local_kernel(build).VARIANT == "torch-universal"


def test_metadata_kernels_minver_version():
    metadata = Metadata.from_bytes(b'{"name": "kk", "id": "x", "version": 1, "license": "MIT", '
                                   b'"python-depends": [], "backend": {"type": "cpu"}, "kernels-minver": "0.18.0"}')
    minver = metadata.kernels_minver
    assert str(minver) == "0.18.0"
    assert minver == kernels._metadata.Version.from_str("0.18")
    assert kernels._metadata.Version.from_str("0.17.2") < minver
    with pytest.raises(ValueError):
        Metadata.from_bytes(b'{"name": "kk", "id": "x", "version": 1, "license": "MIT", "python-depends": [], '
                            b'"backend": {"type": "cpu"}, "kernels-minver": "soon"}')


def test_user_agent_does_not_touch_the_device(monkeypatch):
    """Asking the device's capability initialises torch's CUDA context: only variant choice may."""
    def no_device(backend):
        raise AssertionError("device_arch called")

    monkeypatch.setattr(kernels._system, "device_arch", no_device)
    assert "kernels/" in kernels._system.user_agent()
