# shellcheck shell=bash
# Builds and tests the examples on CUDA, benchmarks relu, publishes it on kernel-hub, loads it.
# examples/relu, activation, stable-abi and noarch built with kernel-builder (CUDA + CPU variants)
# through their CUDA tests, the runtimes the modules link, check-abi, the bandwidth benchmark, then
# relu published on a local kernel-hub and loaded with kernels.get_kernel on the GPU (and offline).
device_preamble gpucheck

step "build + CUDA tests: examples relu activation stable-abi noarch (pytest -k cuda, one process each)"
for ex in relu activation stable-abi noarch; do
  start=$(date +%s)
  python3 -m pytest -v -p no:cacheprovider -k cuda "examples/$ex" > "$OUT/pytest-$ex.log" 2>&1
  note "$ex: pytest exit $? in $(since "$start") s: $(tail -n 1 "$OUT/pytest-$ex.log")"
done
ls examples/relu/build examples/activation/build | tee -a "$SUMMARY"
step "C++ and CUDA runtimes the built modules link (libstdc++ and libcudart must be the shared ones)"
for so in examples/*/build/*cu1*/*.so; do
  note "$so: $(readelf -d "$so" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
done

step "check-abi of the built CUDA variants (the build ran it too; see check-abi-*.txt)"
for ex in relu activation; do
  kernel-builder check-abi "examples/$ex" > "$OUT/check-abi-$ex.txt" 2>&1
  note "$ex: check-abi exit $?: $(grep -c '⛔' "$OUT/check-abi-$ex.txt") violation section(s)"
done

step "bandwidth benchmark"
timeout 240 python3 bench/kernels_bandwidth.py --sizes 24,25,26,27,28 --reps 15 --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
note "bench exit $?"

step "publish relu on kernel-hub and load it with get_kernel on CUDA"
hub="$(mktemp -d)"
start_hub "$hub" kernels-test
HF_ENDPOINT="$HUB_ENDPOINT" HF_TOKEN="$HUB_TOKEN" kernel-builder upload examples/relu --repo-id kernels-test/relu 2>&1 | tee -a "$SUMMARY"
HF_ENDPOINT="$HUB_ENDPOINT" HF_HUB_CACHE="$hub/cache" python3 - <<'PYEOF' 2>&1 | tee -a "$SUMMARY"
import torch
from kernels import get_kernel
k = get_kernel("kernels-test/relu", version=1)
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    x = torch.randn(1 << 24, device="cuda", dtype=dtype)
    torch.testing.assert_close(k.relu(x), torch.relu(x))
print("get_kernel on CUDA:", k.__name__, "matches torch.relu for fp32/fp16/bf16")
PYEOF
kill "$HUB_PID"
HF_ENDPOINT="$HUB_ENDPOINT" HF_HUB_CACHE="$hub/cache" HF_HUB_OFFLINE=1 python3 - <<'PYEOF' 2>&1 | tee -a "$SUMMARY"
import torch
from kernels import get_kernel
k = get_kernel("kernels-test/relu", version=1)
x = torch.randn(4096, device="cuda")
torch.testing.assert_close(k.relu(x), torch.relu(x))
print("offline get_kernel with the hub stopped:", k.__name__, "OK")
PYEOF
