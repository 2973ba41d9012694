"""Local loading (docs/python-api.md get_local_kernel, import, LOCAL_KERNELS): the three path
layouts, the legacy package layout, the loaded-kernel registry, ops-id coexistence, dirty
provenance, python-depends validation and argument errors. No Hub involved."""
from __future__ import annotations

import sys
import warnings

import pytest

from loader_testlib import make_variant

import kernels
from kernels import get_kernel, get_loaded_kernels, get_local_kernel


def _project(tmp_path, value="1", name="demo", ops_suffix="a"):
    build = tmp_path / "proj" / "build"
    make_variant(build, "torch-cpu", name=name, value=value, ops_id=f"_{name}_cpu_{ops_suffix}")
    make_variant(build, "torch-cuda", name=name, value=value, backend="cuda", ops_id=f"_{name}_cuda_{ops_suffix}")
    make_variant(build, "torch-universal", name=name, value=value, ops_id=f"_{name}_universal_{ops_suffix}")
    make_variant(build, "not-a-variant!", name=name, value=value, ops_id=f"_{name}_bad_{ops_suffix}")
    return build.parent


def test_get_local_kernel_project_dir_picks_best_variant(tmp_path):
    proj = _project(tmp_path, ops_suffix="p1")
    mod = get_local_kernel(proj, backend="cpu")
    assert mod.VARIANT == "torch-cpu"
    assert mod.__name__ == "_demo_cpu_p1"
    assert mod.helper() == "helped"  # relative import inside the variant
    assert mod.add_one(1) == 2


def test_get_local_kernel_build_dir_and_variant_dir(tmp_path):
    proj = _project(tmp_path, ops_suffix="p2")
    assert get_local_kernel(proj / "build", backend="cpu").VARIANT == "torch-cpu"
    assert get_local_kernel(proj / "build" / "torch-universal").VARIANT == "torch-universal"


def test_get_local_kernel_legacy_layout(tmp_path):
    build = tmp_path / "legacy" / "build"
    make_variant(build, "torch-universal", name="old-kern", legacy=True, ops_id="_old_kern_legacy1")
    mod = get_local_kernel(build.parent)
    assert mod.VARIANT == "torch-universal"
    assert (build / "torch-universal" / "old_kern" / "__init__.py").exists()


def test_get_local_kernel_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="Could not find kernel in"):
        get_local_kernel(tmp_path / "does-not-exist")


def test_variant_dir_without_module(tmp_path):
    vdir = make_variant(tmp_path / "b", "torch-cpu", ops_id="_nomod_cpu_1")
    (vdir / "__init__.py").unlink()
    with pytest.raises(FileNotFoundError, match="No kernel module found at"):
        get_local_kernel(vdir)


def test_same_path_reuses_module_and_registry(tmp_path):
    proj = _project(tmp_path, ops_suffix="p3")
    a = get_local_kernel(proj, backend="cpu")
    b = get_local_kernel(proj, backend="cpu")
    assert a is b
    loaded = [k for k in get_loaded_kernels() if k.module is a]
    assert len(loaded) == 1
    assert loaded[0].repo_info is None
    assert loaded[0].metadata.id == "_demo_cpu_p3"
    assert get_loaded_kernels() is not get_loaded_kernels()


def test_two_versions_coexist(tmp_path):
    one = get_local_kernel(_project(tmp_path / "1", value="1", ops_suffix="v1"), backend="cpu")
    two = get_local_kernel(_project(tmp_path / "2", value="2", ops_suffix="v2"), backend="cpu")
    assert (one.VALUE, two.VALUE) == (1, 2)
    assert sys.modules["_demo_cpu_v1"] is one and sys.modules["_demo_cpu_v2"] is two


def test_same_ops_id_from_other_path(tmp_path):
    first = get_local_kernel(_project(tmp_path / "1", ops_suffix="dup"), backend="cpu")
    # Identical build elsewhere (another cache): the loaded module is reused, not re-executed.
    assert get_local_kernel(_project(tmp_path / "2", ops_suffix="dup"), backend="cpu") is first
    # A different build claiming the same ops id is refused.
    with pytest.raises(ImportError, match="already loaded"):
        get_local_kernel(_project(tmp_path / "3", value="7", ops_suffix="dup"), backend="cpu")


def test_failed_import_leaves_no_module(tmp_path):
    vdir = make_variant(tmp_path / "b", "torch-cpu", ops_id="_broken_cpu_1")
    (vdir / "__init__.py").write_text("raise RuntimeError('boom')\n")
    with pytest.raises(RuntimeError, match="boom"):
        get_local_kernel(vdir)
    assert "_broken_cpu_1" not in sys.modules


@pytest.mark.parametrize(
    "dirty,parts",
    [({"kernel": True}, "kernel source"), ({"builder": True}, "kernel-builder"),
     ({"kernel": True, "builder": True}, "kernel source, kernel-builder")],
)
def test_dirty_provenance_warning(tmp_path, dirty, parts):
    suffix = "_".join(sorted(dirty))
    vdir = make_variant(tmp_path / "b", "torch-cpu", name="dirt", dirty=dirty, ops_id=f"_dirt_cpu_{suffix}")
    with pytest.warns(UserWarning) as record:
        get_local_kernel(vdir)
    texts = [str(w.message) for w in record]
    assert (f"Kernel 'dirt' variant 'torch-cpu' was built from a dirty git tree ({parts} had uncommitted "
            "changes). Its recorded git revision does not fully identify the sources it was built from, "
            "so the build may not be reproducible.") in texts


def test_clean_provenance_no_warning(tmp_path):
    vdir = make_variant(tmp_path / "b", "torch-cpu", dirty={}, ops_id="_clean_cpu_1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        get_local_kernel(vdir)


def test_unknown_python_dependency(tmp_path):
    vdir = make_variant(tmp_path / "b", "torch-cpu", name="deps-k", python_depends=["no-such-dep"],
                        ops_id="_deps_k_cpu_1")
    with pytest.raises(ValueError, match="Kernel module `deps_k` uses unsupported kernel dependency: no-such-dep"):
        get_local_kernel(vdir)


def test_missing_python_dependency(tmp_path):
    pytest.importorskip("torch")
    try:
        import einops  # noqa: F401
        pytest.skip("einops installed")
    except ImportError:
        pass
    vdir = make_variant(tmp_path / "b", "torch-cpu", name="deps-k", python_depends=["einops"],
                        ops_id="_deps_k_cpu_2")
    with pytest.raises(ImportError, match="Kernel module `deps_k` requires Python dependency `einops`. "
                                          "Please install with: pip install einops"):
        get_local_kernel(vdir)


def test_invalid_backend(tmp_path):
    with pytest.raises(ValueError, match=r"Invalid backend 'metal', system supported backends: "):
        get_local_kernel(_project(tmp_path, ops_suffix="ib"), backend="metal")


def test_local_kernels_env(tmp_path, monkeypatch):
    proj = _project(tmp_path, ops_suffix="lk")
    monkeypatch.setenv("LOCAL_KERNELS", f"other/thing=/nowhere:my-org/demo={proj}")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # any Hub access would fail
    mod = get_kernel("my-org/demo", version=1, backend="cpu")
    assert mod.VARIANT == "torch-cpu"


def test_local_kernels_invalid_entry(monkeypatch):
    monkeypatch.setenv("LOCAL_KERNELS", "my-org/demo")
    with pytest.raises(ValueError, match="Invalid LOCAL_KERNELS entry: my-org/demo. Expected format: "
                                         "repo_id_1=path_1:repo_id_2=path_2"):
        get_kernel("my-org/demo", version=1)


def test_revision_and_version_errors(monkeypatch):
    monkeypatch.delenv("LOCAL_KERNELS", raising=False)
    with pytest.raises(ValueError, match="Only one of `revision` or `version` must be specified."):
        get_kernel("org/k", revision="main", version=1, trust_remote_code=True)
    with pytest.raises(ValueError, match="A kernel version or revision must be specified. Use `version=<major>`"):
        get_kernel("org/k", trust_remote_code=True)


def test_metadata_api(tmp_path):
    vdir = make_variant(tmp_path / "b", "torch-cpu", name="meta-k", dirty={"kernel": True}, ops_id="_meta_k_cpu_1")
    md = kernels.Metadata.read_from_file(vdir / "metadata.json")
    assert (str(md.name), md.name.python_name, md.id, md.version) == ("meta-k", "meta_k", "_meta_k_cpu_1", 1)
    assert str(md.backend.backend_type) == "cpu" and md.backend.archs is None
    assert md.provenance.dirty and md.provenance.kernel.commit == "b" * 40
    actual = md.digest.hash_variant(md.digest.algorithm, vdir)
    md.digest.validate(actual)
    (vdir / "_helpers.py").write_text("tampered = True\n")
    from kernels_data import DigestValidationError
    with pytest.raises(DigestValidationError) as e:
        md.digest.validate(md.digest.hash_variant(md.digest.algorithm, vdir))
    assert str(e.value.violations[0]).startswith("File hash mismatch for _helpers.py: expected: ")
    with pytest.raises(ValueError, match="Cannot parse metadata: "):
        kernels.Metadata.from_bytes(b"{}")
    with pytest.raises(OSError, match="Failed to open `"):
        kernels.Metadata.read_from_file(tmp_path / "nope.json")
