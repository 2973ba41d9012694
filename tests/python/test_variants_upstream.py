"""`get_kernel_variants` results carry the parsed variant (upstream 0.17.2's `kernels.variants`
shape): every variant kind of docs/variants.md compared field by field with upstream's objects for
the same names, once through the parser and once through a Hub listing."""
from __future__ import annotations

import dataclasses
import json

import pytest

from loader_testlib import REPO_ROOT, make_variant, run_python

import kernels
from kernels import backends, variants

UPSTREAM_SITE = REPO_ROOT / ".upstream-site"

NAMES = [
    "torch212-cxx11-cu126-x86_64-linux", "torch213-cxx11-rocm72-x86_64-linux",
    "torch212-cxx11-xpu20253-x86_64-linux", "torch212-cxx11-cpu-aarch64-linux",
    "torch212-cxx11-cann80-aarch64-linux", "torch212-cxx11-neuron-x86_64-linux", "torch211-cxx11-tpu-x86_64-linux",
    "torch212-metal-aarch64-darwin", "torch212-cpu-aarch64-darwin", "torch27-cu124-x86_64-windows",
    "torch-stable-abi211-cu126-x86_64-linux", "torch-stable-abi211-cpu-aarch64-darwin",
    "tvm-ffi01-cu130-aarch64-linux", "tvm-ffi012-cpu-aarch64-darwin",
    "torch-cpu", "torch-cuda", "torch-rocm", "torch-metal", "torch-xpu", "torch-neuron", "torch-tpu", "torch-npu",
    "torch-universal", "torch26-cxx98-cu118-x86_64-linux", "torch210-cu128-x86_64-linux",
    # Names of the matrix's torch 2.14/2.15 sets; `rocm714` reads back as ROCm 71.4 in both packages.
    "torch214-cxx11-rocm714-x86_64-linux", "torch214-cxx11-xpu20261-x86_64-linux", "torch215-cxx11-cu134-aarch64-linux",
]

# Runs in both interpreters: the public fields of a variant, recursively, with each part's
# class name and `variant_str` (and a backend's `name`).
SHAPE = '''
import dataclasses
def shape(o):
    if dataclasses.is_dataclass(o):
        out = {"class": type(o).__name__, "variant_str": getattr(o, "variant_str", None),
               "name": getattr(o, "name", None)}
        for f in dataclasses.fields(o):
            if not f.name.startswith("_"):
                out[f.name] = shape(getattr(o, f.name))
        return out
    if o is None or isinstance(o, (bool, str)):
        return o
    return {"class": type(o).__name__, "str": str(o), "repr": repr(o)}
'''
exec(SHAPE)


@pytest.fixture(scope="module")
def upstream():
    if not (UPSTREAM_SITE / "kernels").is_dir():
        pytest.skip("upstream kernels not installed: pip install --target .upstream-site kernels==0.17.2")
    return str(UPSTREAM_SITE)


def _upstream_json(code: str, upstream: str, env=None) -> object:
    r = run_python(SHAPE + code, env or {}, pythonpath=upstream)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.splitlines()[-1])


def test_parse_matches_upstream_field_by_field(upstream):
    theirs = _upstream_json(
        f"import json, kernels.variants as v\nprint(json.dumps([shape(v.parse_variant(n)) for n in {NAMES!r}]))",
        upstream)
    ours = [shape(variants.parse_variant(n)) for n in NAMES]  # noqa: F821 - defined by exec(SHAPE)
    for name, mine, other in zip(NAMES, ours, theirs):
        assert mine == other, name
    assert len(ours) == len(theirs) == len(NAMES)


def test_fields_and_types():
    v = variants.parse_variant("torch212-cxx11-cu126-x86_64-linux")
    assert isinstance(v, variants.ArchVariant)
    assert v.framework == variants.Torch(backends.Version((2, 12), "2.12"), True)
    assert v.framework.version >= (2, 12) and v.framework.version.minor == 12
    assert isinstance(v.arch.backend, backends.CUDA) and v.arch.backend.version == (12, 6)
    assert (v.arch.platform, v.arch.os, v.arch.variant_str) == ("x86_64", "linux", "cu126-x86_64-linux")
    assert repr(v) == ("ArchVariant(framework=Torch(version=<Version('2.12')>, cxx11_abi=True), "
                       "arch=Arch(backend=CUDA(version=<Version('12.6')>), platform='x86_64', os='linux'))")
    npu = variants.parse_variant("torch-npu")
    assert repr(npu) == "NoarchVariant(framework=TorchNoarch(), arch=Noarch(backend_name='npu'))"
    assert (npu.variant_str, npu.framework.variant_str, npu.arch.variant_str) == ("torch-npu", "torch", "npu")
    assert variants.parse_variant("torch-npu") == npu and len({npu, variants.parse_variant("torch-npu")}) == 1
    with pytest.raises(ValueError, match=r"^Invalid variant name: 'torch212-cu126'$"):
        variants.parse_variant("torch212-cu126")


def test_objects_built_by_hand_render_and_resolve_as_upstreams(upstream):
    """Upstream's constructors and `parse` methods (fields only; the name is rendered from them),
    `resolve_variant(s)` and `variants_trace_str` give what upstream's give on this system."""
    code = """
import json, kernels.variants as v, kernels.backends as b
from packaging.version import Version
built = [v.ArchVariant(v.Torch(Version("2.11"), True), v.Arch(v.CUDA(Version("13.0")), "x86_64", "linux")),
         v.ArchVariant(v.TorchStableAbi(Version("2.11")), v.Arch(v.parse_backend("rocm71"), "x86_64", "linux")),
         v.ArchVariant(v.TvmFfi(Version("0.1")), v.Arch.parse(["cpu", "aarch64", "darwin"])),
         v.NoarchVariant(v.TorchNoarch(), v.Noarch.parse("cuda")),
         v.ArchVariant(v.Torch.parse("torch211-cxx11"), v.Arch(b.CPU(), "x86_64", "linux")),
         v.ArchVariant(v.Torch.parse("torch29"), v.Arch(b.CPU.parse("cpu"), "x86_64", "linux")),
         v.NoarchVariant(v.TorchNoarch(), v.Noarch("cpu"))]
best, trace = v.resolve_variant(built, backend="cpu")
accepted, _ = v.resolve_variants(built, backend="cpu")
print(json.dumps([[b.variant_str for b in built], best.variant_str, [a.variant_str for a in accepted],
                  v.variants_trace_str(trace),
                  [type(d).__name__ for d in trace]]))
"""
    theirs = _upstream_json(code, upstream)
    r = run_python(code, {})
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout.splitlines()[-1]) == theirs
    for text, cls in (("torch211-x", variants.Torch), ("cu12x", backends.CUDA), ("metal", backends.CUDA)):
        with pytest.raises(ValueError):
            cls.parse(text)
    with pytest.raises(TypeError):
        variants.Arch("cuda", "x86_64", "linux")  # strict, as upstream's: a backend object is required
    assert variants.get_variants_local(REPO_ROOT / "no-such-dir") == []


def test_public_names_match_upstream(upstream):
    names = ["ArchVariant", "NoarchVariant", "Torch", "TorchStableAbi", "TvmFfi", "TorchNoarch", "Arch", "Noarch",
             "VariantAccepted", "VariantRejected", "parse_variant"]
    theirs = _upstream_json(
        "import json, kernels, kernels.variants as v, kernels.backends as b\n"
        f"print(json.dumps([[n, hasattr(v, n), hasattr(kernels, n)] for n in {names!r}]"
        " + [[n, hasattr(b, n)] for n in ['CUDA', 'ROCm', 'XPU', 'CANN', 'Metal', 'CPU', 'Neuron', 'TPU']]))",
        upstream)
    ours = [[n, hasattr(variants, n), hasattr(kernels, n)] for n in names] + \
        [[n, hasattr(backends, n)] for n in ["CUDA", "ROCm", "XPU", "CANN", "Metal", "CPU", "Neuron", "TPU"]]
    assert ours == theirs
    assert kernels.VariantAccepted is variants.VariantAccepted


@pytest.fixture(scope="module")
def every_kind(hub, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("every-kind")
    for name in NAMES:
        make_variant(tmp / "v1" / "build", name, name="kinds", backend="cpu")
    return hub.publish("trusted-org/every-kind", tmp, {"v1": tmp / "v1"})["v1"]


def test_get_kernel_variants_matches_upstream(upstream, hub, every_kind, tmp_path):
    env = {"HF_HUB_CACHE": str(tmp_path / "cache"), "HF_ENDPOINT": hub.endpoint, "HF_HUB_DISABLE_XET": "1"}
    code = ("import json, kernels\n"
            f"d = kernels.get_kernel_variants('trusted-org/every-kind', revision='{every_kind}', backend='cpu')\n"
            "print(json.dumps([[type(x).__name__, shape(x.variant)] for x in d]))")
    theirs = _upstream_json(code, upstream, env)
    r = run_python(SHAPE + code, env)
    assert r.returncode == 0, r.stderr[-2000:]
    ours = json.loads(r.stdout.splitlines()[-1])
    assert sorted(x[1]["variant_str"] for x in ours) == sorted(NAMES)
    # Each name's decision and fields match; the order of the rejected tail is not compared
    # (upstream sorts rejections differently; the trace order is docs/variants.md's business).
    by_name = lambda decisions: {x[1]["variant_str"]: x for x in decisions}  # noqa: E731
    assert by_name(ours) == by_name(theirs)
    assert len(ours) == len(theirs)
