# shellcheck shell=bash
# check_arch on the real device: examples/relu built for one capability at a time (docs/loader.md).
# Each kernel is published on a local kernel-hub and loaded on the device:
#   - archs ["8.0"] on a 9.0 device: get_kernel refuses (RuntimeError naming 9.0, the archs and
#     check_arch=False), has_kernel is False; with check_arch=False it loads and the first launch
#     fails with CUDA's "no kernel image" (what the check prevents);
#   - the same kernel with a Python-only torch-cuda variant beside it: get_kernel skips the arch
#     variant for the one that runs;
#   - archs ["8.0+PTX"] and ["9.0a"]: accepted, the kernel runs and matches torch.relu.
device_env gpuarch
install_loader
variant=$(cuda_variant_name)
python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(), "capability", torch.cuda.get_device_capability())' | tee -a "$SUMMARY"

hub="$(mktemp -d)"
start_hub "$hub" archtest
export HF_ENDPOINT="$HUB_ENDPOINT" HF_TOKEN="$HUB_TOKEN" HF_HUB_CACHE="$hub/cache"

# publish NAME CAPS [noarch]: examples/relu with `cuda-capabilities = CAPS`, its CUDA variant built here
# (and a Python-only torch-cuda variant beside it when asked), uploaded as archtest/NAME v1.
publish() {
  local name=$1 caps=$2 dir="$hub/src-$1" start
  cp -r examples/relu "$dir"; rm -rf "$dir/build"
  sed -i "s/^cuda-capabilities = .*/cuda-capabilities = $caps/; s|^repo-id = .*|repo-id = \"archtest/$name\"|" "$dir/build.toml"
  (cd "$dir" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init)
  start=$(date +%s)
  kernel-builder build "$dir" --variant "$variant" > "$OUT/arch-build-$name.log" 2>&1
  note "build $name ($caps): exit $? in $(since "$start") s; archs $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['backend'].get('archs'))" "$dir/build/$variant/metadata.json")"
  if [ "${3:-}" = noarch ]; then
    mkdir -p "$dir/build/torch-cuda"
    cp "$dir/build/$variant/metadata.json" "$dir/build/torch-cuda/metadata.json"
    python3 - "$dir/build/torch-cuda" <<'PY'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1]); m = json.loads((d / "metadata.json").read_text())
m["backend"] = {"type": "cuda"}; m.pop("digest", None); m["id"] = "_relu_noarch_gpuarch"
(d / "metadata.json").write_text(json.dumps(m, indent=2))
(d / "__init__.py").write_text("import torch\nVARIANT = 'torch-cuda'\ndef relu(x):\n    return torch.relu(x)\n")
PY
    kernel-builder hash "$dir" >> "$OUT/arch-build-$name.log" 2>&1 || note "hash $name failed"
  fi
  kernel-builder upload "$dir" --repo-id "archtest/$name" >> "$OUT/arch-upload.log" 2>&1 || note "upload $name failed"
}

step "archs [\"8.0\"] on this device"
publish only80 '["8.0"]'
python3 - <<'PY' 2>&1 | tee -a "$SUMMARY"
import torch
from kernels import get_kernel, has_kernel
try:
    get_kernel("archtest/only80", version=1)
    print("get_kernel: loaded (UNEXPECTED)")
except RuntimeError as e:
    print("get_kernel: RuntimeError:", e)
print("has_kernel:", has_kernel("archtest/only80", version=1))
k = get_kernel("archtest/only80", version=1, check_arch=False)
try:
    x = torch.randn(1 << 20, device="cuda"); y = k.relu(x); torch.cuda.synchronize()
    print("check_arch=False: ran (UNEXPECTED), matches:", torch.equal(y, torch.relu(x)))
except Exception as e:  # what the check prevents
    print("check_arch=False: loaded, first launch failed:", type(e).__name__, str(e).splitlines()[0])
PY

step "archs [\"8.0\"] with a Python-only torch-cuda variant beside it"
publish skip80 '["8.0"]' noarch
python3 - <<'PY' 2>&1 | tee -a "$SUMMARY"
import torch
from kernels import get_kernel, get_kernel_variants
k = get_kernel("archtest/skip80", version=1)
x = torch.randn(4096, device="cuda")
print("get_kernel chose:", getattr(k, "VARIANT", k.__file__), "matches:", torch.equal(k.relu(x), torch.relu(x)))
for d in get_kernel_variants("archtest/skip80", version=1):
    print("  ", type(d).__name__, d.variant.variant_str, getattr(d, "reason", ""))
PY

for caps in '["8.0+PTX"]' '["9.0a"]'; do
  name=$(echo "$caps" | tr -dc 'a-zA-Z0-9')
  step "archs $caps on this device"
  publish "$name" "$caps"
  python3 - "$name" <<'PY' 2>&1 | tee -a "$SUMMARY"
import sys, torch
from kernels import get_kernel, has_kernel
name = "archtest/" + sys.argv[1]
k = get_kernel(name, version=1)
x = torch.randn(1 << 24, device="cuda", dtype=torch.bfloat16)
print("has_kernel:", has_kernel(name, version=1), "get_kernel loaded; bf16 relu matches:", torch.equal(k.relu(x), torch.relu(x)))
PY
done
kill "$HUB_PID"
