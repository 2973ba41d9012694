# shellcheck shell=bash
# The wheels on another distribution: pip install of dist/ → init → build → upload → get_kernel on CUDA.
# docs/install.md. Its own Python 3.12, none of the project's Debian packages, nothing of .device/.
# Carried: dist/ from `KB_WHEEL_PYTHONS="3.11 3.12" scripts/build-wheels`. Nothing is built there
# but the kernel: fresh venv (the machine's site-packages after its own, for torch, cmake, ninja) → pip install of the two
# wheels → kernel-builder init → build (CUDA variant for this GPU) → kernel-hub serve → upload →
# get_kernel → the op on CUDA. Figures: install seconds, build seconds, total.
unset PYTHONPATH LD_LIBRARY_PATH
seconds() { awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $1}"; }
fail() { note "FAILED: $*"; exit 1; }
gpu_info
{ . /etc/os-release; echo "$PRETTY_NAME"; ldd --version | head -n 1; } | tee -a "$OUT/gpu.txt"
cat "$OUT/gpu.txt" >> "$SUMMARY"
ls -l dist/*.whl | tee -a "$SUMMARY"

work=$(mktemp -d)
step "1. fresh venv + pip install of the wheels (no index)"
python3 -m venv "$work/venv" || fail "venv"
# torch, cmake and ninja come from the machine's python3 (itself a venv there, which
# --system-site-packages would not reach): its site directories go after the venv's own, so the
# wheels' kernels is the one imported.
python3 -c 'import site, sys; print("\n".join(p for p in site.getsitepackages() + [site.getusersitepackages()] if p))' \
  > "$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/zz_machine_site.pth"
start=$(date +%s.%N)
"$work/venv/bin/python" -m pip install -q --no-index --disable-pip-version-check \
  dist/kernels-*-cp312-*.whl dist/kernel_builder-*.whl > "$OUT/install.log" 2>&1 || fail "pip install (install.log)"
note "pip install: $(seconds "$start") s"
export PATH="$work/venv/bin:$PATH"
PY="$work/venv/bin/python"
{ command -v kernel-builder; kernel-builder --version; "$PY" -c 'import kernels, kernels._core; print(kernels.__file__, kernels.__version__)'
  ldd "$(command -v kernel-builder)"; } 2>&1 | tee -a "$SUMMARY"

step "2. kernel-builder init + build (CUDA variant for this GPU)"
total=$(date +%s.%N)
cd "$work" || exit 1
kernel-builder init my-kernel --name acme/my-kernel --backends cuda > "$OUT/init.log" 2>&1 || fail "init (init.log)"
(cd my-kernel && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init) || fail "git"
VARIANT=$(cuda_variant_name)
note "variant $VARIANT"
start=$(date +%s.%N)
kernel-builder build my-kernel --python "$PY" --variant "$VARIANT" > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; fail "build (build.log)"; }
note "build: $(seconds "$start") s"
tail -n 8 "$OUT/build.log" >> "$SUMMARY"
ls my-kernel/build | tee -a "$SUMMARY"

step "3. kernel-hub serve + upload + get_kernel on CUDA"
start_hub "$work/hub" acme || fail "kernel-hub (hub-access.log)"
HF_ENDPOINT="$HUB_ENDPOINT" HF_TOKEN="$HUB_TOKEN" kernel-builder upload my-kernel --repo-id acme/my-kernel > "$OUT/upload.log" 2>&1 ||
  { kill "$HUB_PID"; fail "upload (upload.log)"; }
cat "$OUT/upload.log" >> "$SUMMARY"
HF_ENDPOINT="$HUB_ENDPOINT" HF_HUB_CACHE="$work/cache" "$PY" - <<'PY' 2>&1 | tee -a "$SUMMARY"
import time, torch
from kernels import get_kernel
start = time.monotonic()
k = get_kernel("acme/my-kernel", version=1)
loaded = time.monotonic() - start
x = torch.randn(1 << 20, device="cuda")
torch.testing.assert_close(k.my_kernel(x), x + 1)
print(f"get_kernel on CUDA: OK ({k.__name__}, {loaded:.2f} s to load from the local Hub; {k.__file__})")
PY
rc=${PIPESTATUS[0]}
kill "$HUB_PID"
note "init → build → upload → get_kernel on CUDA: $(seconds "$total") s, exit $rc"
exit "$rc"
