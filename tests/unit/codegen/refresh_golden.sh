#!/usr/bin/env bash
# Rewrites the golden files of the code generator from the current output. Review the diff!
# Usage: tests/unit/codegen/refresh_golden.sh [BUILD_DIR]
set -euo pipefail
build_dir="${1:-${KB_BUILD_DIR:-build-release}}"
KB_REFRESH_GOLDEN=1 "$build_dir/tests/unit/codegen/codegen_tests" --gtest_filter='golden*'
