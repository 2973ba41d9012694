# shellcheck shell=bash
# The layer API on CUDA (`layers`, the default) and the first run of a scaffolded kernel (`first-run`).
#   scripts/gpu-check layers [layers]    # kernelize on CUDA: tests, then bench/kernelize_llama.py
#   scripts/gpu-check layers first-run   # init -> build (CPU + CUDA) -> the scaffold's tests/example
# Carried besides .device/: .whl/ (transformers 5.22.2: the machine's is older).
device_preamble gpucheck .whl/*.whl
python3 -c 'import transformers; print("transformers", transformers.__version__)' | tee -a "$OUT/gpu.txt"

case "${1:-layers}" in
layers)
  step "kernelize tests on CUDA (rmsnorm example built by kernel-builder)"
  run_pytest layers -m cuda tests/python/test_transformers_kernels.py tests/python/test_layers.py examples/rmsnorm/tests
  step "kernelized Llama vs the original on CUDA, eager and compiled"
  kernel-builder build examples/rmsnorm > "$OUT/build-rmsnorm.log" 2>&1; note "build exit $?"
  ls examples/rmsnorm/build | tee -a "$SUMMARY"
  timeout 300 python3 bench/kernelize_llama.py --kernel examples/rmsnorm --json "$OUT/kernelize.json" \
    > "$OUT/kernelize.txt" 2>&1
  note "bench exit $?"; tail -n 8 "$OUT/kernelize.txt" | tee -a "$SUMMARY"
  ;;
first-run)
  step "first-run tests (scaffold, fallback, upstream exception parity) with a GPU visible"
  run_pytest first-run tests/python/test_first_run_scaffold.py tests/python/test_first_run_fallback.py
  step "kernel-builder init --backends cpu cuda, build, the scaffold's own tests and example"
  d=$(mktemp -d)
  (cd "$d" && kernel-builder init --name acme/my-kernel --backends cpu cuda && cd my-kernel &&
     git init -q && git add -A && git -c user.email=a@b -c user.name=gpu commit -qm init &&
     kernel-builder build && ls build && python3 -m pytest -q -p no:cacheprovider tests &&
     python3 -W always example.py) > "$OUT/scaffold.log" 2>&1
  note "scaffold exit $?"; tail -n 15 "$OUT/scaffold.log" | tee -a "$SUMMARY"
  ;;
*)
  echo "error: scripts/gpu-check layers takes \`layers\` or \`first-run\`, not \`$1\`" >&2
  exit 2
  ;;
esac
