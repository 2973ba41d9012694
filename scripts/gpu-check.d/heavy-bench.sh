# shellcheck shell=bash
# Heavy CUDA kernels: bench/heavy_bench.py against cpp_extension (cold, one-file edits), then a carried mamba-ssm built cold.
#   scripts/gpu-check heavy-bench [heavy|mamba|first]...   (default: heavy mamba)
#   heavy  bench/heavy_bench.py with all cores (--capabilities from KB_HEAVY_CAPS, default 8.0,9.0;
#          KB_HEAVY_SPLIT=N adds --split-compile N; KB_HEAVY_ROWS=cold,header picks rows: all five take
#          longer than one call may run)
#   mamba  kernels-community's mamba-ssm (carried in .kc/mamba-ssm: fetch it here and carry .kc),
#          built cold (fresh XDG_CACHE_HOME and CCACHE_DIR) for this GPU's capability, once with
#          NVCC_APPEND_FLAGS of each word of KB_MAMBA_FLAGS (default "-": none; e.g. "- --split-compile=0"
#          adds a build with nvcc's parallel optimizer on every core); the slowest sources of each build
#   first  bench/build_bench.py --backend cuda (the first-build ratio: every user cache cold;
#          KB_BENCH_REPEAT=N: --repeat N, the noisy rows N times each, medians)
#   ptx    nvcc alone: the heavy bench's heavy source to PTX at --split-compile=4, 12 times per virtual
#          capability (8 at once), 8.0 9.0 10.0 12.0: how many different texts (build --split-compile auto
#          counts on one below 10.0)
#   mamba-repro  `build --check-reproducible` of the carried mamba-ssm for this GPU's capability (cold
#          caches; --split-compile auto is on there below 10.0): "identical" or where it differs
#   split  nvcc alone on the heavy bench's heavy source (capabilities 8.0, 9.0): seconds and object
#          digests at --threads 1/2 x --split-compile 1/2/4/8/0, twice at the most parallel setting,
#          to tell whether --split-compile may change the compiled code
# Figures: summary.txt; heavy-bench.{txt,json}, mamba-*.json, build-bench-cuda.{txt,json}.
device_env
PARTS=("$@"); [ ${#PARTS[@]} -gt 0 ] || PARTS=(heavy mamba)
{
  nvidia-smi -L
  echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  nvcc --version | tail -n 2
  g++ --version | head -n 1
  echo "ninja $(ninja --version); $(cmake --version | head -n 1); ccache: $(command -v ccache || echo none)"
} > "$OUT/env.txt" 2>&1
tee -a "$SUMMARY" < "$OUT/env.txt"

left() { echo $((580 - SECONDS)); }
# The heavy bench's kernel written anew under $1; $src: its heavy source.
heavy_source() {
  rm -rf "$1"; mkdir -p "$1"
  "$PY" -c 'import sys; sys.path.insert(0, "bench"); import heavy_kernel; from pathlib import Path
heavy_kernel.write_project(Path(sys.argv[1]))' "$1"
  src=$1/heavy/attention/heavy_bwd.cu
}
# A fresh copy of the carried mamba-ssm in $work (caches beside it in /tmp/mamba), built for this
# GPU's capability $CAP only.
mamba_copy() {
  work=/tmp/mamba/ssm; rm -rf /tmp/mamba; mkdir -p /tmp/mamba; cp -r .kc/mamba-ssm "$work"
  sed -i -E "s/cuda-capabilities\s*=\s*\[[^]]*\]/cuda-capabilities = [\"$CAP\"]/" "$work/build.toml"
  grep -q cuda-capabilities "$work/build.toml" ||
    sed -i -E "s/^(backend\s*=\s*\"cuda\")$/\1\ncuda-capabilities = [\"$CAP\"]/" "$work/build.toml"
}
for part in "${PARTS[@]}"; do
  case "$part" in
    first)
      step "build_bench --backend cuda (limit $(left) s)"
      timeout "$(left)" "$PY" bench/build_bench.py --kernel-builder "$KB" --python "$PY" --backend cuda \
        --cores "$(nproc)" ${KB_BENCH_REPEAT:+--repeat "$KB_BENCH_REPEAT"} --json "$OUT/build-bench-cuda.json" \
        > "$OUT/build-bench-cuda.txt" 2>&1
      note "exit $?"; tee -a "$SUMMARY" < "$OUT/build-bench-cuda.txt" ;;
    heavy)
      step "heavy_bench (limit $(left) s)"
      timeout "$(left)" "$PY" bench/heavy_bench.py --kernel-builder "$KB" --python "$PY" --cores "$(nproc)" \
        --capabilities "${KB_HEAVY_CAPS:-8.0,9.0}" ${KB_HEAVY_SPLIT:+--split-compile "$KB_HEAVY_SPLIT"} ${KB_HEAVY_ROWS:+--rows "$KB_HEAVY_ROWS"} --json "$OUT/heavy-bench.json" > "$OUT/heavy-bench.txt" 2>&1
      note "exit $?"; tee -a "$SUMMARY" < "$OUT/heavy-bench.txt" ;;
    mamba)
      CAP=$("$PY" -c 'import torch; print("%d.%d" % torch.cuda.get_device_capability())')
      variant=$(cuda_variant_name)
      for flags in ${KB_MAMBA_FLAGS:--}; do
        [ "$flags" = - ] && flags=""
        if [ "$(left)" -lt 60 ]; then note "mamba-ssm ${flags:-default}: skipped (time)"; continue; fi
        mamba_copy
        tag=${flags:+split}; tag=${tag:-default}
        step "mamba-ssm cold, capability $CAP, NVCC_APPEND_FLAGS='$flags' (limit $(left) s)"
        start=$SECONDS
        XDG_CACHE_HOME=/tmp/mamba/xdg CCACHE_DIR=/tmp/mamba/ccache NVCC_APPEND_FLAGS="$flags" \
          timeout "$(left)" "$KB" build "$work" --python "$PY" --variant "$variant" --cores "$(nproc)" \
          --skip-checks --json > "$OUT/mamba-$tag.json" 2> "$OUT/mamba-$tag.log"
        rc=$?
        note "mamba-ssm $tag: exit $rc in $((SECONDS - start)) s"
        "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for v, times in d.get("compile_times", {}).items():
    print("  slowest:", ", ".join("%s %.1f s" % (t["source"].split("/")[-1], t["seconds"]) for t in sorted(times, key=lambda t: -t["seconds"])[:5]))' \
          "$OUT/mamba-$tag.json" 2>/dev/null | tee -a "$SUMMARY"
      done ;;
    ptx)
      step "PTX of heavy_bwd.cu at --split-compile=4, 12 runs per capability (limit $(left) s)"
      heavy_source /tmp/ptx
      for arch in 80 90 100 120; do
        [ "$(left)" -lt 60 ] && { note "ptx: stopped (time)"; break; }
        start=$SECONDS
        seq 1 12 | xargs -P 8 -I{} sh -c "nvcc -O3 -std=c++17 -arch=compute_$arch --split-compile=4 --ptx $src -o /tmp/ptx/$arch-{}.ptx 2>> $OUT/ptx-$arch.log"
        texts=$(md5sum /tmp/ptx/$arch-*.ptx | cut -c1-12 | sort | uniq -c | awk '{printf "%s%sx%s", sep, $1, $2; sep=" "}')
        note "compute_$arch: $(ls /tmp/ptx/$arch-*.ptx | wc -l) PTX files in $((SECONDS - start)) s; distinct texts: $texts"
      done ;;
    mamba-repro)
      CAP=$("$PY" -c 'import torch; print("%d.%d" % torch.cuda.get_device_capability())')
      variant=$(cuda_variant_name)
      mamba_copy
      step "mamba-ssm --check-reproducible, capability $CAP (limit $(left) s)"
      start=$SECONDS
      XDG_CACHE_HOME=/tmp/mamba/xdg CCACHE_DIR=/tmp/mamba/ccache timeout "$(left)" "$KB" build "$work" --python "$PY" \
        --variant "$variant" --cores "$(nproc)" --skip-checks --check-reproducible > "$OUT/mamba-repro.txt" 2> "$OUT/mamba-repro.log"
      note "mamba-ssm --check-reproducible: exit $? in $((SECONDS - start)) s: $(cut -f1,2 "$OUT/mamba-repro.txt")"
      grep -m3 -E "split-compile|differ" "$OUT/mamba-repro.log" | tee -a "$SUMMARY" ;;
    split)
      step "nvcc --split-compile on heavy_bwd.cu (limit $(left) s)"
      heavy_source /tmp/split
      for setting in "1 1" "2 1" "1 2" "1 4" "1 8" "2 4" "2 8" "2 0" "2 8"; do
        set -- $setting
        [ "$(left)" -lt 90 ] && { note "split: stopped (time)"; break; }
        obj=/tmp/split/heavy_t$1_s$2.o
        start=$EPOCHREALTIME
        nvcc -O3 -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
          --threads="$1" --split-compile="$2" -Xcompiler -fPIC -c "$src" -o "$obj" 2> "$OUT/split-t$1-s$2.log"
        rc=$?
        secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
        sass=$(cuobjdump -sass "$obj" 2>/dev/null | md5sum | cut -c1-12)
        elf=$(cuobjdump -elf "$obj" 2>/dev/null | md5sum | cut -c1-12)
        note "threads $1 split-compile $2: exit $rc, $secs s, object $(md5sum < "$obj" | cut -c1-12), sass $sass, elf $elf"
      done ;;
    *) note "unknown part $part" ;;
  esac
done
