"""A random Llama (from a config, nothing downloaded) with transformers' RMSNorm swapped for the
RMSNorm layer of `examples/rmsnorm` by `kernels.kernelize`, against the same model unkernelized:
the largest logit difference and the forward time, eager and under torch.compile, per dtype.
The ratio column is kernelized time / original time, measured in the same run.

    python3 bench/kernelize_llama.py [--kernel examples/rmsnorm] [--device cuda] [--json out.json]

`--kernel` is a kernel directory (default examples/rmsnorm). When its build/ holds no variant for
this machine and device, the bench builds one first with kernel-builder (examples/example_build.py:
$KB_BUILD_DIR's binary, this interpreter's torch), so it runs right after the set-up commands."""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

import torch


def build_model(dtype, device, layers, hidden):
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    config = LlamaConfig(vocab_size=32000, hidden_size=hidden, intermediate_size=hidden * 4 // 1,
                         num_hidden_layers=layers, num_attention_heads=hidden // 64,
                         num_key_value_heads=hidden // 128 or 1, max_position_embeddings=4096)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, LlamaRMSNorm):
                module.weight.normal_(1.0, 0.1)
    return model.to(device=device, dtype=dtype).eval()


def timed(fn, device, reps):
    for _ in range(3):
        fn()
    samples = []
    for _ in range(reps):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if device == "cuda":
            torch.cuda.synchronize()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


REPO_ROOT = Path(__file__).resolve().parents[1]


def ensure_built(kernel: Path, device: str) -> None:
    """Builds the variant of `kernel` this machine's `device` loads, unless build/ has it."""
    spec = importlib.util.spec_from_file_location("kb_example_build", REPO_ROOT / "examples" / "example_build.py")
    example_build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example_build)
    variant = example_build.variant_name(kernel, device)
    if (kernel / "build" / variant / "metadata.json").is_file():
        return
    print(f"kernelize_llama: {kernel}/build has no {variant}: building it with kernel-builder", file=sys.stderr)
    example_build.build_with_kernel_builder(kernel, device)


def main() -> None:
    from kernels import KernelizeFallback, LocalLayerRepository, Mode, kernelize, use_kernel_mapping

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", default=str(REPO_ROOT / "examples" / "rmsnorm"),
                        help="kernel directory with an RMSNorm layer (default examples/rmsnorm; built when needed)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--tokens", type=int, default=2048)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json", help="write the rows here too")
    args = parser.parse_args()

    ensure_built(Path(args.kernel).resolve(), args.device)
    rows = []
    dtypes = [torch.float32, torch.bfloat16, torch.float16] if args.device == "cuda" else [torch.float32]
    for dtype in dtypes:
        original = build_model(dtype, args.device, args.layers, args.hidden)
        kernelized = build_model(dtype, args.device, args.layers, args.hidden)
        repo = LocalLayerRepository(args.kernel, layer_name="RMSNorm")
        with use_kernel_mapping({"RMSNorm": {args.device: repo}}):
            kernelize(kernelized, mode=Mode.INFERENCE, device=args.device, use_fallback=KernelizeFallback.NO_LAYER)
        swapped = sum(1 for m in kernelized.modules() if type(m).forward.__module__.startswith("_rmsnorm_")
                      or getattr(m.forward, "__func__", m.forward).__module__.startswith("_rmsnorm_"))
        ids = torch.randint(0, 32000, (1, args.tokens), generator=torch.Generator().manual_seed(1)).to(args.device)
        for compiled in (False, True):
            a = torch.compile(original) if compiled else original
            b = torch.compile(kernelized) if compiled else kernelized
            with torch.no_grad():
                ref = a(ids).logits.float()
                got = b(ids).logits.float()
                diff = (got - ref).abs().max().item()
                scale = ref.abs().max().item()
                t_ref = timed(lambda: a(ids), args.device, args.reps)
                t_got = timed(lambda: b(ids), args.device, args.reps)
            rows.append({"dtype": str(dtype).replace("torch.", ""), "compiled": compiled, "swapped_norms": swapped,
                         "max_abs_diff": diff, "max_abs_logit": scale, "original_ms": t_ref,
                         "kernelized_ms": t_got, "ratio": t_got / t_ref})
    name = torch.cuda.get_device_name() if args.device == "cuda" else "cpu"
    print(f"device: {name}; Llama {args.layers} layers, hidden {args.hidden}, {args.tokens} tokens; "
          f"median of {args.reps}")
    print(f"{'dtype':9} {'mode':9} {'norms':>5} {'max|diff|':>10} {'max|logit|':>10} {'orig ms':>8} "
          f"{'kern ms':>8} {'ratio':>6}")
    for r in rows:
        print(f"{r['dtype']:9} {'compiled' if r['compiled'] else 'eager':9} {r['swapped_norms']:5d} "
              f"{r['max_abs_diff']:10.3g} {r['max_abs_logit']:10.3g} {r['original_ms']:8.3f} "
              f"{r['kernelized_ms']:8.3f} {r['ratio']:6.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": name, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
