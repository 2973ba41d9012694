# shellcheck shell=bash
# Portable (manylinux) and reproducible builds of examples/relu's CUDA variant, and what they cost.
# 1. builds the CUDA variant in compliant mode (the default: C-library link stubs of the target
#    torch's policy, manylinux_2_28 for torch 2.11) and, for comparison, with --no-portable, both
#    from clean build trees with no compiler cache; times both;
# 2. check-abi --manylinux manylinux_2_28 on the compliant module (and on the native one, which
#    shows what portable linking changed);
# 3. the example's own tests on CUDA against the compliant build;
# 4. kernel speed, compliant vs native (bench/portable_cost.py);
# 5. build --check-reproducible of the CUDA variant (two clean builds in two directories).
# Logs in $OUT/*.log, $OUT/portable-cost.json.
device_preamble
python3 -c 'import platform; print("glibc", platform.libc_ver()[1])' | tee -a "$OUT/gpu.txt"
nvcc --version | tail -n 2 >> "$OUT/gpu.txt"; ldd --version | head -n 1 >> "$OUT/gpu.txt"; cat "$OUT/gpu.txt" >> "$SUMMARY"

PY=$(python3 -c 'import sys; print(sys.executable)')  # what examples/conftest.py passes as --python
VARIANT=$("$PY" -c 'import importlib.util, sys
spec = importlib.util.spec_from_file_location("eb", "examples/example_build.py"); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
from pathlib import Path; print(m.variant_name(Path("examples/relu"), "cuda"))')
note "variant $VARIANT"
# The compliant build is made in place (examples/conftest.py then finds it up to date for the
# tests, KB_UNIQUE_ID=gpuport); the native one in a copy.
work=$(mktemp -d)
mkdir -p "$work/native" && cp -r examples/relu "$work/native/" && rm -rf "$work/native/relu/build" examples/relu/build

declare -A DIR=([portable]="$PWD/examples/relu" [native]="$work/native/relu")
build() {  # build <mode> <unique id> [flags]: a clean build, timed (compiler cache bypassed)
  local mode=$1 id=$2 start rc; shift 2
  start=$(date +%s.%N)
  CCACHE_DISABLE=1 kernel-builder build "${DIR[$mode]}" --variant "$VARIANT" --python "$PY" --unique-id "$id" "$@" \
    > "$OUT/build-$mode.log" 2>&1
  rc=$?
  note "build $mode (${*:-default}): exit $rc in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s"
  return $rc
}
step "1. clean builds of the CUDA variant, compliant (default) and --no-portable"
build portable gpuport
build native gpunative --no-portable
for mode in portable native; do
  so=$(ls "${DIR[$mode]}/build/$VARIANT"/*.so 2>/dev/null)
  [ -n "$so" ] || continue
  { echo "-- $mode: NEEDED and glibc versions"; readelf -d "$so" | grep NEEDED
    readelf -V "$so" | grep -oE "GLIBC_[0-9.]+" | sort -uV | tr '\n' ' '; echo; } >> "$SUMMARY"
done

step "2. check-abi --manylinux manylinux_2_28"
kernel-builder check-abi examples/relu --manylinux manylinux_2_28 > "$OUT/check-abi-portable.log" 2>&1
note "compliant build: check-abi exit $?"
kernel-builder check-abi "$work/native/relu" --manylinux manylinux_2_28 > "$OUT/check-abi-native.log" 2>&1
note "native build (--no-portable): check-abi exit $? (expected 1 on glibc >= 2.32 hosts)"
cat "$OUT/check-abi-portable.log" "$OUT/check-abi-native.log" >> "$SUMMARY"

step "3. the relu example's tests on CUDA against the compliant build"
KB_UNIQUE_ID=gpuport run_pytest relu -m cuda examples/relu/tests

step "4. kernel speed, compliant vs native"
python3 bench/portable_cost.py "examples/relu/build/$VARIANT" "$work/native/relu/build/$VARIANT" \
  --device cuda --sizes 20,24,26 --json "$OUT/portable-cost.json" > "$OUT/portable-cost.log" 2>&1
note "bench exit $?"; tee -a "$SUMMARY" < "$OUT/portable-cost.log"

step "5. build --check-reproducible of the CUDA variant"
start=$(date +%s)
kernel-builder build examples/relu --check-reproducible --variant "$VARIANT" --python "$PY" \
  --unique-id gpurepro > "$OUT/reproducible.txt" 2> "$OUT/reproducible.log"
note "check-reproducible exit $? in $(since "$start") s"
tee -a "$SUMMARY" < "$OUT/reproducible.txt"; tail -n 4 "$OUT/reproducible.log" >> "$SUMMARY"
rm -rf "$work"
