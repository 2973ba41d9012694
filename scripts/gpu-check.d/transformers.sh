# shellcheck shell=bash
# kernels under transformers 5.24 on CUDA: its tests, a kernelized Llama, transformers' KernelConfig.
# Carried besides .device/: .whl/ (transformers 5.24.0 and those of its dependencies the machine
# lacks); no network needed. Writes: versions, the CUDA cases of
# tests/python/test_transformers_kernels.py, bench/kernelize_llama.py (a random Llama with RMSNorm
# from examples/rmsnorm against the original: max |logit diff| and ms per forward, fp32/bf16/fp16,
# eager and torch.compile, plus tokens/s), and transformers' KernelConfig path
# (set_use_kernels(True, kernel_config), as from_pretrained calls it) on CUDA.
export HF_HUB_OFFLINE=1
device_env gpucheck
install_loader .whl/*.whl

step "versions"
nvidia-smi -L | tee -a "$SUMMARY"
python3 - <<'PY' 2>&1 | tee -a "$SUMMARY"
import importlib.metadata, torch, transformers, kernels
from transformers.utils import import_utils
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())
print("transformers", transformers.__version__, "kernels", importlib.metadata.version("kernels"),
      f"accepted: {import_utils.KERNELS_MIN_VERSION} <= v < {import_utils.KERNELS_MAX_VERSION}",
      "is_kernels_available", import_utils.is_kernels_available())
PY

step "tests/python/test_transformers_kernels.py -m cuda"
run_pytest transformers -m cuda tests/python/test_transformers_kernels.py

step "bench/kernelize_llama.py: kernelized Llama vs the original (builds examples/rmsnorm for CUDA when needed)"
timeout 400 python3 bench/kernelize_llama.py --device cuda --json "$OUT/kernelize.json" > "$OUT/kernelize.txt" 2>&1
note "bench exit $?"; tail -n 8 "$OUT/kernelize.txt" | tee -a "$SUMMARY"
python3 - "$OUT/kernelize.json" <<'PY' 2>&1 | tee -a "$SUMMARY"
import json, re, sys
text = open(sys.argv[1].replace(".json", ".txt")).read()
tokens = int(re.search(r"(\d+) tokens", text).group(1))
for r in json.load(open(sys.argv[1]))["rows"]:
    mode = "compiled" if r["compiled"] else "eager"
    print(f"{r['dtype']:9} {mode:9} tokens/s original {tokens / r['original_ms'] * 1e3:12.0f}  "
          f"kernelized {tokens / r['kernelized_ms'] * 1e3:12.0f}")
PY

step "transformers' KernelConfig on CUDA: set_use_kernels(True, KernelConfig(...)) with examples/rmsnorm"
python3 - <<'PY' 2>&1 | tee -a "$SUMMARY"
import tempfile
from pathlib import Path
import torch
from transformers import KernelConfig, LlamaConfig, LlamaForCausalLM

kernel = Path("examples/rmsnorm").resolve()
config = LlamaConfig(vocab_size=32000, hidden_size=1024, intermediate_size=4096, num_hidden_layers=4,
                     num_attention_heads=16, num_key_value_heads=8)
torch.manual_seed(0)
with tempfile.TemporaryDirectory() as saved:
    LlamaForCausalLM(config).save_pretrained(saved)
    ids = torch.randint(0, 32000, (1, 512), generator=torch.Generator().manual_seed(1)).cuda()
    for dtype in (torch.float32, torch.bfloat16):
        try:
            plain = LlamaForCausalLM.from_pretrained(saved, dtype=dtype).to("cuda").eval()
            # What from_pretrained(use_kernels=True, kernel_config=...) calls once the model is on
            # its device (device_map would need accelerate).
            fast = LlamaForCausalLM.from_pretrained(saved, dtype=dtype).to("cuda").eval()
            fast.set_use_kernels(True, KernelConfig({"RMSNorm": f"{kernel}:RMSNorm"}, use_local_kernel=True))
            swapped = sum(1 for m in fast.modules() if getattr(m.forward, "__module__", "").startswith("_rmsnorm_"))
            with torch.no_grad():
                diff = (fast(ids).logits.float() - plain(ids).logits.float()).abs().max().item()
            print(f"{str(dtype):15} use_kernels {fast.use_kernels} norms on the kernel {swapped} "
                  f"max|logit diff| {diff:.3g}")
        except Exception as e:  # report and go on with the next dtype
            print(f"{str(dtype):15} FAILED: {type(e).__name__}: {e}")
PY
echo "done: $SUMMARY"
