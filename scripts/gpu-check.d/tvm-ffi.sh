# shellcheck shell=bash
# TVM-FFI variants: examples/tvm-ffi-axpy's CUDA variant built and tested, the TVM-FFI e2e tests.
# Carried besides .device/: the apache-tvm-ffi cp312 wheel (and typing-extensions) in .whl/tvm-ffi/,
# fetched on a machine with PyPI by
#   pip download --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 \
#     apache-tvm-ffi==0.1.15.post2 -d .whl/tvm-ffi
# Builds the CUDA variant with the carried kernel-builder (`tvm-ffi01-cu<toolkit>-x86_64-linux`),
# runs the example's tests (CPU and CUDA) and the TVM-FFI e2e tests.
device_env gputvmffi
SITE=/tmp/kb-tvm-site
install_loader
python3 -m pip install -q --no-index --find-links .whl/tvm-ffi --target "$SITE" --no-deps apache-tvm-ffi || exit 1
# typing-extensions only if the interpreter lacks a new enough one (torch brings one).
python3 -c 'import importlib.metadata as m, sys; sys.exit(tuple(map(int, m.version("typing_extensions").split(".")[:2])) < (4, 13))' 2>/dev/null ||
  python3 -m pip install -q --no-index --find-links .whl/tvm-ffi --target "$SITE" --no-deps typing-extensions || exit 1
gpu_info
python3 -c 'import tvm_ffi; print("tvm_ffi", tvm_ffi.__version__)' | tee -a "$OUT/gpu.txt" || exit 1

step "examples/tvm-ffi-axpy (build time = the CUDA variant alone, all default capabilities)"
build_and_test_example tvm-ffi-axpy
ls -la examples/tvm-ffi-axpy/build/ > "$OUT/variants.txt" 2>&1
cat examples/tvm-ffi-axpy/build/tvm-ffi*-cu*/metadata.json > "$OUT/metadata-cuda.json" 2>/dev/null

step "tests/e2e/builder/test_build_tvm_ffi.py (CPU build + load + call, CUDA compile, loader selection)"
KB_TEST_PYTHON="$PY" run_pytest e2e-tvm-ffi tests/e2e/builder/test_build_tvm_ffi.py
