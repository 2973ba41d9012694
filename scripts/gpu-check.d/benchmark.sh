# shellcheck shell=bash
# `kernels benchmark` of the relu, activation and matmul examples with CUDA events (docs/benchmarks.md).
# Builds the relu and activation (bandwidth-bound) and matmul (compute-bound) examples with the
# carried kernel-builder, runs `kernels benchmark` on each local project, and writes to $OUT the
# tables (<example>.txt), the run documents (<example>.json), the charts
# (<example>-{light,dark}.{svg,png}) and the progress/stderr (<example>.err); summary.txt collects
# the tables. Carried besides .device/, where the machine has no matplotlib: .whl/benchmark/
# (matplotlib 3.11.2 and its cp312 wheels).
device_env gpucheck
install_loader
# A wheel built before `kernels benchmark` existed: take the pure-Python benchmark code from this tree.
if [ ! -d "$SITE/kernels/_benchmark" ]; then
  note "note: the carried wheel has no kernels._benchmark; using python/kernels from the tree"
  cp -r python/kernels/_benchmark python/kernels/benchmark.py python/kernels/cli.py python/kernels/__init__.py "$SITE/kernels/"
fi
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  if ls .whl/benchmark/matplotlib-*.whl >/dev/null 2>&1; then
    wheels=()
    for wheel in .whl/benchmark/*.whl; do [[ $wheel == */numpy-* ]] || wheels+=("$wheel"); done
    python3 -c 'import numpy' 2>/dev/null || wheels+=(.whl/benchmark/numpy-*.whl)
    python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "${wheels[@]}" || exit 1
  fi
fi
visual=()
if python3 -c 'import matplotlib' 2>/dev/null; then visual=(--rasterized); else
  note "note: no matplotlib on this machine and none carried (.whl/benchmark): no charts"
fi
gpu_info

for ex in relu activation matmul; do
  step "kernel-builder build examples/$ex"
  start=$(date +%s)
  kernel-builder build "examples/$ex" > "$OUT/build-$ex.log" 2>&1
  note "build exit $? in $(since "$start") s: $(ls "examples/$ex/build" | tr '\n' ' ')"
done

step "matmul example tests on CUDA (the SGEMM kernel against float64 torch.mm)"
run_pytest matmul -k cuda examples/matmul

for ex in relu activation matmul; do
  step "kernels benchmark examples/$ex (CUDA events)"
  args=(--iterations 100 --warmup 10 --output "$OUT/$ex.json")
  [ ${#visual[@]} -gt 0 ] && args+=(--visual "$OUT/$ex" "${visual[@]}")
  timeout 900 python3 -m kernels.cli benchmark "./examples/$ex" "${args[@]}" > "$OUT/$ex.txt" 2> "$OUT/$ex.err"
  note "benchmark exit $?"
  cat "$OUT/$ex.txt" >> "$SUMMARY"
  tail -n 3 "$OUT/$ex.err" >> "$SUMMARY"
  python3 - "$OUT/$ex.json" <<'PYEOF' 2>&1 | tee -a "$SUMMARY"
import json, sys
doc = json.load(open(sys.argv[1]))
print("timer:", doc["settings"]["timer"], "| variant:", doc["kernel"]["variant"], "| gpu:", doc["machine"]["gpu"],
      "| peak source:", doc["device"]["peak_source"])
for r in doc["results"]:
    print(f'{r["benchmark"]}.{r["case"]}: verified={r["verified"]} mean={r["mean"]:.4f} ms '
          f'bandwidth_fraction={r["bandwidth_fraction"]} peak_fraction={r["peak_fraction"]}')
PYEOF
done

step "benchmark unit tests with a GPU visible (statistics, table, charts, scaffold)"
python3 -m pytest -q -p no:cacheprovider tests/python/test_benchmark_stats.py tests/python/test_benchmark_cli.py \
  > "$OUT/pytest-benchmark.log" 2>&1
note "pytest exit $?: $(counts "$OUT/pytest-benchmark.log")"
