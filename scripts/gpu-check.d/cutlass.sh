# shellcheck shell=bash
# The CUTLASS/CuTe GEMM example (examples/cutlass-gemm): build time, tests, TFLOP/s against torch.mm.
# Needs the pinned nvidia-cutlass 3.8.0.0 wheel in .whl/ (5.1 MiB; `scripts/gpu-check cutlass
# --prepare`, on a machine with PyPI, downloads it with pip and checks its SHA-256 against the
# builder's table). Unpacks the wheel's headers as CUTLASS_SRC_DIR, builds the example for all its
# architectures with the carried kernel-builder (timed), runs its tests, the header-fetch e2e tests
# (a local HTTP server; no network) and the TFLOP/s benchmark against torch.mm.
WHEEL=nvidia_cutlass-3.8.0.0-py3-none-any.whl
pinned_sha() {  # the SHA-256 the builder pins for cutlass_3_8 (one owner: src/builder/data)
  python3 -c 'import json,sys; print(json.load(open("src/builder/data/header-archives.json"))["dependencies"]["cutlass_3_8"]["sha256"])'
}
if [ "${1:-}" = "--prepare" ]; then
  mkdir -p .whl
  [ -f ".whl/$WHEEL" ] || .venv/bin/python -m pip download -q --no-deps --only-binary=:all: -d .whl nvidia-cutlass==3.8.0.0 || exit 1
  echo "$(pinned_sha)  .whl/$WHEEL" | sha256sum -c - || exit 1
  ls -l ".whl/$WHEEL"
  exit 0
fi

device_preamble gpucutlass
echo "$(pinned_sha)  .whl/$WHEEL" | sha256sum -c - > "$OUT/wheel-sha256.txt" 2>&1 || { cat "$OUT/wheel-sha256.txt"; exit 1; }
CUTLASS_SRC_DIR=/tmp/kb-cutlass-3.8
rm -rf "$CUTLASS_SRC_DIR"
python3 - ".whl/$WHEEL" "$CUTLASS_SRC_DIR" <<'PY' || exit 1
import sys, zipfile, pathlib
prefix = "cutlass_library/source/include/"
out = pathlib.Path(sys.argv[2]) / "include"
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in wheel.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            target = out / name[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(wheel.read(name))
PY
export CUTLASS_SRC_DIR

step "examples/cutlass-gemm (build: all archs of build.toml, carried kernel-builder)"
build_and_test_example cutlass-gemm

step "header-fetch e2e (local HTTP server, no network)"
(unset CUTLASS_SRC_DIR; export KB_TEST_PYTHON="$PY"; run_pytest header-fetch tests/e2e/builder/test_build_header_fetch.py)

step "TFLOP/s vs torch.mm"
python3 examples/cutlass-gemm/benchmarks/tflops.py "$OUT" 2>&1 | tee "$OUT/tflops.log" | tee -a "$SUMMARY"
