"""Differential tests against upstream `kernels==0.17.2` (`.upstream-site`), run on the real
system: over seeded random sets of variant directories, get_local_kernel (auto, `backend="cpu"`,
`backend="cuda"`) loads the variant upstream loads wherever upstream loads one, and raises an
exception that upstream's `except` clause catches wherever upstream raises — except where ours
falls back to the CPU variant (no device visible), which it must then say in a warning. Plus the
exception types of the remaining public functions' local failures."""
from __future__ import annotations

import json
import random

import pytest

from loader_testlib import REPO_ROOT, make_variant, run_python

UPSTREAM_SITE = REPO_ROOT / ".upstream-site"

PROBE = r'''
import json, warnings
from pathlib import Path
import kernels
from kernels import get_local_kernel
out = [kernels.__file__]
for path, backend in json.loads(open(CASES).read()):
    path = Path(path)  # upstream takes a Path only
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            variant = get_local_kernel(path, backend=backend).VARIANT
            out.append({"ok": variant, "fallback": any("is used instead" in str(w.message) for w in record)})
        except Exception as e:
            out.append({"error": [c.__name__ for c in type(e).__mro__], "text": str(e)[:200]})
print(json.dumps(out))
'''


def _candidates():
    import torch

    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    t, old = f"torch{major}{minor}", f"torch{major}{int(minor) - 1}"
    arch = [f"{t}-cxx11-{c}-x86_64-linux" for c in ("cpu", "cu126", "cu128", "cu130", "rocm70", "xpu20253")]
    arch += [f"{old}-cxx11-cpu-x86_64-linux", f"{old}-cxx11-cu128-x86_64-linux", f"{t}-cpu-aarch64-darwin",
             f"{t}-cxx11-cpu-aarch64-linux", f"torch-stable-abi{major}{minor}-cu128-x86_64-linux"]
    return arch + ["torch-cpu", "torch-cuda", "torch-rocm", "torch-universal", "not-a-variant"]


def _run(code: str, cases_file, pythonpath=None):
    r = run_python(code.replace("CASES", repr(str(cases_file))), {}, pythonpath=pythonpath, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def upstream():
    if not (UPSTREAM_SITE / "kernels").is_dir():
        pytest.skip("upstream kernels not installed: pip install --target .upstream-site kernels==0.17.2")


def test_random_variant_sets_match_upstream(upstream, tmp_path):
    pytest.importorskip("torch")
    rng = random.Random(17)
    names = _candidates()
    cases = []
    for i in range(120):
        chosen = rng.sample(names, rng.randint(0, 4))
        for impl in ("up", "our"):
            build = tmp_path / impl / f"set{i}" / "build"
            build.mkdir(parents=True)
            for name in chosen:
                backend = "cuda" if "-cu" in name or name == "torch-cuda" else "cpu"
                make_variant(build, name, backend=backend, ops_id=f"_{impl}_s{i}_{name.replace('-', '_')}")
        for backend in (None, "cpu", "cuda"):
            where = rng.choice(["", "/build"])
            cases.append((f"set{i}{where}", backend))
    results = {}
    for impl, pythonpath in (("up", str(UPSTREAM_SITE)), ("our", None)):
        cases_file = tmp_path / f"{impl}.json"
        cases_file.write_text(json.dumps([(str(tmp_path / impl / p), b) for p, b in cases]))
        results[impl] = _run(PROBE, cases_file, pythonpath)
        assert (str(UPSTREAM_SITE) in results[impl].pop(0)) == (impl == "up")
    loaded = fallbacks = raised = 0
    for case, up, our in zip(cases, results["up"], results["our"]):
        if "ok" in up:
            loaded += 1
            assert our == {"ok": up["ok"], "fallback": False}, case
        elif "ok" in our:
            # Upstream found nothing; ours may only load through the warned CPU fallback.
            fallbacks += 1
            assert case[1] is None and our["fallback"], (case, up, our)
        else:
            raised += 1
            assert up["error"][0] in our["error"], (case, up, our)  # `except <upstream's type>` catches ours
            assert our["text"].startswith(("Cannot find a build variant for this system in", "Could not find kernel")), our
    import torch

    print(f"loaded {loaded}, fell back {fallbacks}, raised {raised}")
    assert loaded and raised  # every kind of outcome was exercised
    assert fallbacks or torch.cuda.is_available() or not torch.version.cuda


LOCAL_FAILURES = r'''
import json, sys, tempfile, warnings
from pathlib import Path
import kernels  # first: loader_testlib puts our package on sys.path
from kernels import Metadata, get_local_kernel
sys.path.insert(0, TESTS)
from loader_testlib import make_variant
tmp = Path(tempfile.mkdtemp())
def nometa():
    v = make_variant(tmp / "a", "torch-cpu", ops_id="_x_nometa"); (v / "metadata.json").unlink(); return v
def noinit():
    v = make_variant(tmp / "b", "torch-cpu", ops_id="_x_noinit"); (v / "__init__.py").unlink(); return v
def badmeta():
    v = make_variant(tmp / "c", "torch-cpu", ops_id="_x_badmeta"); (v / "metadata.json").write_text("{"); return v
def unknown_dep():
    return make_variant(tmp / "d", "torch-cpu", ops_id="_x_dep", python_depends=["no-such-dependency"])
def raising():
    return make_variant(tmp / "e", "torch-cpu", ops_id="_x_raise", extra_files={"_helpers.py": "raise RuntimeError('x')\n"})
(tmp / "f").write_text("x")
calls = {
    "missing path": lambda: get_local_kernel(tmp / "missing"),
    "empty dir": lambda: get_local_kernel(Path(tempfile.mkdtemp())),
    "a file": lambda: get_local_kernel(tmp / "f"),
    "variant without metadata": lambda: get_local_kernel(nometa()),
    "variant without module": lambda: get_local_kernel(noinit()),
    "unparsable metadata": lambda: get_local_kernel(badmeta()),
    "unknown dependency": lambda: get_local_kernel(unknown_dep()),
    "module raises": lambda: get_local_kernel(raising()),
    "invalid backend": lambda: get_local_kernel(tmp, backend="metal"),
    "Metadata of a missing file": lambda: Metadata.read_from_file(tmp / "missing.json"),
    "Metadata of a bad file": lambda: Metadata.read_from_file(tmp / "c" / "torch-cpu" / "metadata.json"),
}
out = {"kernels": kernels.__file__}
for name, call in calls.items():
    try:
        call()
        out[name] = None
    except Exception as e:
        out[name] = [c.__name__ for c in type(e).__mro__]
print(json.dumps(out))
'''


def test_local_failures_raise_upstream_types(upstream, tmp_path):
    code = LOCAL_FAILURES.replace("TESTS", repr(str(REPO_ROOT / "tests" / "python")))
    up = _run(code, tmp_path, str(UPSTREAM_SITE))
    ours = _run(code, tmp_path)
    assert str(UPSTREAM_SITE) in up.pop("kernels") and str(UPSTREAM_SITE) not in ours.pop("kernels")
    assert up.keys() == ours.keys()
    for name in up:
        assert up[name] is not None and ours[name] is not None, name
        assert up[name][0] in ours[name], (name, up[name], ours[name])
