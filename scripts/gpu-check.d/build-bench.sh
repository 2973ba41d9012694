# shellcheck shell=bash
# Fixed costs of a clean build: bench/build_bench.py on examples/relu, CUDA and CPU (`speed`: the same).
# With all of the machine's cores, --backend cuda (capabilities 8.0, 9.0, 10.0, 12.0) and --backend
# cpu. Each run compares torch.utils.cpp_extension.load (clean, = 1.00) with kernel-builder's clean
# builds: every user cache cold; the torch header cache warm but the toolchain probe cache and the
# CMake compiler identification seeds cold (the clean build before those caches); every user cache
# warm; without the header cache; no-op; one-file edit. The two warm clean builds also print the
# seconds of each stage (detect, generate, configure, compile, stage, check, finish). A run fails if
# the modules built with and without the header cache export different symbols, or if the modules
# built with and without the toolchain/CMake caches differ byte for byte.
# Figures and logs: env.txt, build-bench-{cuda,cpu}.{txt,json}, summary.txt.
device_env
{
  nvidia-smi -L
  echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  nvcc --version | tail -n 2
  g++ --version | head -n 1
  cmake --version | head -n 1
  command -v ccache || echo "ccache: not installed (the bench uses --no-cache anyway)"
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# One command on the GPU machine may run 10 minutes: the CUDA bench first, the CPU bench with
# what is left.
for backend in cuda cpu; do
  left=$((570 - SECONDS))
  if [ "$left" -lt 90 ]; then
    step "build_bench --backend $backend skipped: ${left} s left"
    continue
  fi
  step "build_bench --backend $backend (limit ${left} s)"
  start=$SECONDS
  timeout "$left" "$PY" bench/build_bench.py --kernel-builder "$KB" --python "$PY" --backend "$backend" \
    --cores "$(nproc)" --json "$OUT/build-bench-$backend.json" > "$OUT/build-bench-$backend.txt" 2>&1
  rc=$?
  tee -a "$SUMMARY" < "$OUT/build-bench-$backend.txt"
  note "exit $rc in $((SECONDS - start)) s"
done
