# shellcheck shell=bash
# Every kernel project builds: the Triton autotune example, a CUDA unit against CUTLASS_SRC_DIR.
# For each example with CUDA code or a CUDA path it builds the example with the carried
# kernel-builder (through the examples' pytest fixtures) and runs all of its tests, then the CUDA
# compile against a CUTLASS_SRC_DIR tree and the missing-CUTLASS error.
device_preamble gpuprojects

step "examples (build time = the example build alone; pytest = build + all tests)"
build_and_test_example triton-autotune

step "CUDA unit against CUTLASS_SRC_DIR headers, and the missing-CUTLASS error"
KB_TEST_PYTHON="$PY" run_pytest header-deps tests/e2e/builder/test_build_header_deps.py
