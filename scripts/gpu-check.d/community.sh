# shellcheck shell=bash
# Other people's kernels: a huggingface/kernels-community checkout built and tested on this GPU.
#   scripts/gpu-check community DIR [KERNEL...]   (default kernels: relu activation rotary causal-conv1d)
# DIR is not part of this repository: fetch it and carry it (e.g. as .kc/). Builds each kernel with
# the carried kernel-builder for this machine's torch and GPU capability only, then runs the
# kernel's own tests in `kernel-builder testshell` (the kernel importable by its package name,
# LOCAL_KERNELS set for get_kernel, this package's `kernels` on the path). Nothing in the kernels
# is changed except their CUDA capabilities, narrowed to the GPU's to keep the compile short.
# Per kernel: build exit/seconds, pytest exit/seconds/counts; logs <kernel>.{build,test}.log.
SOURCE="${1:?usage: scripts/gpu-check community DIR [KERNEL...]}"; shift
KERNELS=("$@"); [ ${#KERNELS[@]} -gt 0 ] || KERNELS=(relu activation rotary causal-conv1d)
device_env
install_loader
CAP=${KB_CUDA_CAP:-}; [ -n "$CAP" ] || CAP=$("$PY" -c 'import torch; print("%d.%d" % torch.cuda.get_device_capability())')
{
  nvidia-smi -L; echo "cores: $(nproc); capability $CAP"
  "$PY" -c 'import torch; print("torch", torch.__version__)'
} | tee "$SUMMARY"

for kernel in "${KERNELS[@]}"; do
  if [ "$SECONDS" -gt 480 ]; then note "$kernel: skipped (time)"; continue; fi
  work="/tmp/community/$kernel"
  rm -rf "$work"; mkdir -p /tmp/community; cp -r "$SOURCE/$kernel" "$work"
  # Every CUDA kernel unit for this GPU's capability only.
  "$PY" - "$work/build.toml" "$CAP" <<'PY'
import re, sys
path, cap = sys.argv[1], sys.argv[2]
text = open(path).read()
text = re.sub(r'cuda-capabilities\s*=\s*\[[^\]]*\]', f'cuda-capabilities = ["{cap}"]', text)
out = []
for block in re.split(r'(?m)^(?=\[)', text):
    if re.match(r'\[kernel\.', block) and re.search(r'(?m)^backend\s*=\s*"cuda"', block) and 'cuda-capabilities' not in block:
        block = re.sub(r'(?m)^(backend\s*=\s*"cuda"\s*)$', r'\1\ncuda-capabilities = ["' + cap + '"]', block, count=1)
    out.append(block)
open(path, "w").write("".join(out))
PY
  # The kernel's CUDA variants this torch builds, as kernel-builder names them (a stable-ABI
  # kernel has its own names).
  variants=$("$KB" list-variants "$work" --python "$PY" --json 2>/dev/null |
    "$PY" -c 'import json, sys; print(" ".join("--variant " + v["name"] for v in json.load(sys.stdin) if v.get("buildable") and "-cu" in v["name"]))')
  if [ -z "$variants" ]; then
    note "$kernel: no CUDA variant buildable with this torch (kernel-builder list-variants --mark)"
    continue
  fi
  start=$SECONDS
  # shellcheck disable=SC2086
  "$KB" build "$work" --python "$PY" $variants > "$OUT/$kernel.build.log" 2>&1
  build_rc=$?
  built=$((SECONDS - start))
  if [ ! -d "$work/tests" ]; then
    note "$kernel: build exit $build_rc in ${built} s; no tests/ in the kernel"
    continue
  fi
  start=$SECONDS
  # testshell sets PYTHONPATH; this package's `kernels` joins it inside the shell.
  # (testshell clears LD_LIBRARY_PATH; the package's native core needs .device/lib on this machine.)
  timeout $((570 - SECONDS > 30 ? 570 - SECONDS : 30)) "$KB" testshell "$work" --python "$PY" -- \
    sh -c 'PYTHONPATH="$PYTHONPATH:'"$SITE"'" LD_LIBRARY_PATH="'"$PWD"'/.device/lib" exec python3 -m pytest -q -p no:cacheprovider tests' \
    > "$OUT/$kernel.test.log" 2>&1
  rc=$?
  note "$kernel: build exit $build_rc in ${built} s; tests exit $rc in $((SECONDS - start)) s: $(counts "$OUT/$kernel.test.log")"
done
