# shellcheck shell=bash
# Per-kernel-unit symbol isolation (templates/project/variant/kernel_units.cmake) on CUDA.
#  1. builds examples/colliding-kernels' CUDA variant with the carried kernel-builder (two CUDA
#     units defining the same host function, __device__ table, inline function and kernel name)
#     and runs all of its tests: each op's kernel launches its own unit's device code;
#  2. builds and tests examples/relu and examples/activation (one CUDA unit each, isolated by
#     default) to show the fatbin registration of ordinary projects still works;
#  3. runs check-abi and `build --check-reproducible` on the colliding-kernels CUDA variant.
device_preamble gpucollide
kernel-builder --version | tee -a "$OUT/gpu.txt"

step "examples (build = the CUDA variant alone; pytest = all tests, CPU variant built there too)"
for ex in colliding-kernels relu activation; do build_and_test_example "$ex"; done

step "colliding-kernels CUDA module: exported symbols, check-abi, reproducibility"
variant_dir=$(ls -d examples/colliding-kernels/build/torch*-cu*-linux 2>/dev/null | head -n 1)
if [ -z "$variant_dir" ]; then
  note "no CUDA variant of colliding-kernels was built"
  exit 1
fi
variant=$(basename "$variant_dir")
nm -D --defined-only "$variant_dir"/*.abi3.so > "$OUT/exported-symbols.txt"
leaked=$(grep -cE ' (_Z12scale_factorv|table|_Z5shiftv|_Z12scale_kernelPfPKflff)$' "$OUT/exported-symbols.txt")
note "exported: $(wc -l < "$OUT/exported-symbols.txt") symbols; unit internals among them: $leaked (want 0)"
kernel-builder check-abi examples/colliding-kernels > "$OUT/check-abi.log" 2>&1
note "check-abi: exit $?"
start=$(date +%s)
kernel-builder build examples/colliding-kernels --variant "$variant" --python "$PY" \
  --unique-id gpucollide --check-reproducible > "$OUT/reproducible.txt" 2> "$OUT/reproducible.log"
note "check-reproducible: exit $? in $(since "$start") s: $(cut -f1,2 "$OUT/reproducible.txt" | tr '\t' ' ')"
