"""transformers' hub-kernel integration on our `kernels`: a tiny random Llama (built from a config,
nothing downloaded) kernelized with the RMSNorm layer of `examples/rmsnorm`, built by our
kernel-builder, from its directory and from a local kernel-hub (fp32 and bf16, eager and
torch.compile, transformers' KernelConfig); training modes; transformers 5.22.2 (`.tf522-site`),
which accepts only kernels 0.17.x, refusing this package.

Runs on CPU, and on CUDA too where a GPU is present (`-m cuda` selects the GPU cases)."""
from __future__ import annotations

import importlib.metadata
import json
import os

import pytest
import torch

from layer_kernels import rmsnorm_kernel
from loader_testlib import OUR_PYTHONPATH, REPO_ROOT, run_python

import kernels
from kernels import KernelizeFallback, LayerRepository, LocalLayerRepository, Mode, kernelize, use_kernel_mapping

transformers = pytest.importorskip("transformers", reason="transformers is in requirements/dev.txt")
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRMSNorm  # noqa: E402


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def device(request):
    if request.param == "cuda" and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    return request.param


# Llama also marks `rotary_pos_emb` and `SiLU` extensible; they have no mapping here and keep their
# forward, while everything about RMSNorm must work (no other fallback).
ONLY_MAPPED = KernelizeFallback.NO_LAYER


def tiny_llama(device: str) -> LlamaForCausalLM:
    config = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, LlamaRMSNorm):  # random, so that a wrong weight would show
                module.weight.normal_()
    return model.to(device).eval()


def input_ids(device: str) -> torch.Tensor:
    return torch.randint(0, 128, (2, 11), generator=torch.Generator().manual_seed(1)).to(device)


def logits(model, device: str) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids(device)).logits


def norms(model):
    return [m for m in model.modules() if isinstance(m, LlamaRMSNorm)]


def uses_kernel(module) -> bool:
    forward = module.forward.__func__
    return forward.__qualname__ == "RMSNorm.forward" and forward.__module__.startswith("_rmsnorm_")


def local_mapping(device: str, modes=None):
    repo = LocalLayerRepository(rmsnorm_kernel(device), layer_name="RMSNorm")
    return {"RMSNorm": {device: repo if modes is None else {mode: repo for mode in modes}}}


def test_transformers_sees_our_kernels():
    from transformers.integrations import hub_kernels
    from transformers.utils import import_utils

    # transformers reads the distribution's version (importlib.metadata), not kernels.__version__.
    assert importlib.metadata.version("kernels") == kernels.__version__
    assert import_utils.is_kernels_available(), (kernels.__version__, import_utils.KERNELS_MIN_VERSION,
                                                 import_utils.KERNELS_MAX_VERSION)
    assert hub_kernels.LayerRepository is kernels.LayerRepository
    assert hub_kernels.KernelizeFallback is kernels.KernelizeFallback
    assert hub_kernels.Mode is kernels.Mode is kernels.layer.mode.Mode
    assert LlamaRMSNorm.kernel_layer_name == "RMSNorm"


def test_kernelized_llama_matches_the_original(device):
    model = tiny_llama(device)
    expected = logits(model, device)
    with use_kernel_mapping(local_mapping(device)):
        kernelize(model, mode=Mode.INFERENCE, device=device, use_fallback=ONLY_MAPPED)
    assert len(norms(model)) == 5 and all(uses_kernel(m) for m in norms(model))
    torch.testing.assert_close(logits(model, device), expected, rtol=1e-4, atol=1e-4)


def test_transformers_kernelize_entry_point(device):
    """transformers' own `kernelize` (Device(...) argument, KernelizeFallback.ALL)."""
    from transformers.integrations.hub_kernels import kernelize as transformers_kernelize

    model = tiny_llama(device)
    expected = logits(model, device)
    with use_kernel_mapping(local_mapping(device)):
        transformers_kernelize(model)
    assert all(uses_kernel(m) for m in norms(model))
    torch.testing.assert_close(logits(model, device), expected, rtol=1e-4, atol=1e-4)


@pytest.fixture(scope="module")
def rmsnorm_on_hub(hub, tmp_path_factory):
    return hub.publish("trusted-org/rmsnorm", tmp_path_factory.mktemp("rmsnorm-publish"),
                       {"v1": rmsnorm_kernel("cpu")})["v1"]


def test_layer_repository_from_a_local_hub(env_hub, cache, rmsnorm_on_hub):
    model = tiny_llama("cpu")
    expected = logits(model, "cpu")
    repo = LayerRepository("trusted-org/rmsnorm", layer_name="RMSNorm", version=1)
    with use_kernel_mapping({"RMSNorm": {"cpu": repo}}):
        kernelize(model, mode=Mode.INFERENCE, device="cpu", use_fallback=ONLY_MAPPED)
    assert all(uses_kernel(m) for m in norms(model))
    assert str(repo) == f"`trusted-org/rmsnorm` (revision: {rmsnorm_on_hub}), layer `RMSNorm`"
    torch.testing.assert_close(logits(model, "cpu"), expected, rtol=1e-4, atol=1e-4)


def kernel_op_calls(model, ids) -> int:
    """How many times the forward ran the kernel's op (`_rmsnorm_<id>::rms_norm`), by the profiler's count."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile, torch.no_grad():
        model(ids)
    return sum(1 for e in profile.events() if e.name.startswith("_rmsnorm_") and e.name.endswith("::rms_norm"))


# bf16: one unit in the last place of logits of this size (|logit| < 1); measured on CPU: equal.
TOLERANCES = {torch.float32: dict(rtol=1e-4, atol=1e-4), torch.bfloat16: dict(rtol=1.6e-2, atol=4e-3)}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_hub_layer_runs_in_the_kernelized_llama(env_hub, cache, rmsnorm_on_hub, dtype):
    """transformers' own kernelize (device passed as the string "cpu") maps RMSNorm to the hub layer:
    the kernel's op runs once per norm (5), the logits match the original model's, eager and
    under torch.compile."""
    from transformers.integrations.hub_kernels import kernelize as transformers_kernelize

    model = tiny_llama("cpu").to(dtype)
    ids = input_ids("cpu")
    expected = logits(model, "cpu")
    assert kernel_op_calls(model, ids) == 0
    repo = LayerRepository("trusted-org/rmsnorm", layer_name="RMSNorm", version=1)
    with use_kernel_mapping({"RMSNorm": {"cpu": {Mode.INFERENCE | Mode.TORCH_COMPILE: repo}}}):
        transformers_kernelize(model, mode=Mode.INFERENCE | Mode.TORCH_COMPILE)
    assert all(uses_kernel(m) for m in norms(model))
    assert kernel_op_calls(model, ids) == 5
    torch.testing.assert_close(logits(model, "cpu"), expected, **TOLERANCES[dtype])
    recorder = GraphRecorder()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=recorder)
    torch.testing.assert_close(logits(compiled, "cpu"), expected, **TOLERANCES[dtype])
    assert sum(code.count(".rms_norm") for code in recorder.code) == 5


def test_kernel_config_maps_to_the_hub_layer(env_hub, cache, rmsnorm_on_hub):
    """transformers' KernelConfig: `update_kernel` records our LayerRepository for a layer, device
    and mode, and transformers' kernelize applies the model's kernel_config. (Its string form,
    `KernelConfig({"RMSNorm": "org/repo:Layer"})` through `from_pretrained(kernel_config=...)`, takes
    accelerators only: on CPU transformers refuses it; `scripts/gpu-check transformers` runs it on CUDA.)"""
    from transformers import KernelConfig
    from transformers.integrations.hub_kernels import kernelize as transformers_kernelize

    model = tiny_llama("cpu")
    ids = input_ids("cpu")
    expected = logits(model, "cpu")
    config = KernelConfig()
    config.update_kernel("trusted-org/rmsnorm", "RMSNorm", "RMSNorm", "cpu", Mode.INFERENCE, version=1)
    [[device, by_mode]] = config.kernel_mapping["RMSNorm"].items()
    assert device == "cpu" and isinstance(by_mode[Mode.INFERENCE], LayerRepository)
    model.kernel_config = config
    transformers_kernelize(model)
    assert all(uses_kernel(m) for m in norms(model)) and kernel_op_calls(model, ids) == 5
    torch.testing.assert_close(logits(model, "cpu"), expected, rtol=1e-4, atol=1e-4)
    # set_use_kernels registers transformers' own mapping first: kept inside this context.
    with use_kernel_mapping({}), pytest.raises(ValueError, match=r"^Only devices in \[.*\] are supported, got: cpu$"):
        tiny_llama("cpu").set_use_kernels(True, KernelConfig({"RMSNorm": "trusted-org/rmsnorm:RMSNorm"}))


TF522_SITE = REPO_ROOT / ".tf522-site"
TF522_PROBE = """
import json
import transformers, kernels
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.integrations import hub_kernels
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.utils.import_utils import is_kernels_available

out = {"transformers": transformers.__version__, "kernels": kernels.__version__,
       "available": is_kernels_available(), "our_layer_repository": hub_kernels.LayerRepository is kernels.LayerRepository,
       "rmsnorm_marked": hasattr(LlamaRMSNorm, "kernel_layer_name")}
model = LlamaForCausalLM(LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2))
for name, call in (("kernelize", lambda: hub_kernels.kernelize(model)),
                   ("set_use_kernels", lambda: model.set_use_kernels(True))):
    try:
        call()
        out[name] = None
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
print(json.dumps(out))
"""


def test_transformers_5_22_refuses_kernels_0_18():
    """transformers 5.22.2 accepts 0.17.2 <= kernels < 0.18.0: with this package it treats kernels as
    missing (stubs instead of our classes, layers not marked) and says which version it wants."""
    if not (TF522_SITE / "transformers").is_dir():
        pytest.skip("transformers 5.22.2 not installed: scripts/install-deps puts it into .tf522-site")
    r = run_python(TF522_PROBE, {}, pythonpath=os.pathsep.join(p for p in (str(TF522_SITE), OUR_PYTHONPATH) if p))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    wanted = "(0.17.2 <= version < 0.18.0), e.g. `pip install kernels==0.17.2`"
    assert out == {
        "transformers": "5.22.2", "kernels": kernels.__version__, "available": False,
        "our_layer_repository": False, "rmsnorm_marked": False,  # stubs: the model's layers are not marked
        "kernelize": ["ImportError", "`kernels` is either not installed or uses an incompatible version. Please "
                                     f"install a compatible version {wanted}"],
        "set_use_kernels": ["ValueError", f"Kernels are not available. Please install a compatible version {wanted}"],
    }


def test_no_matching_kernel_names_layer_device_and_mode():
    model = tiny_llama("cpu")
    with use_kernel_mapping(local_mapping("cpu", modes=[Mode.INFERENCE])):
        with pytest.raises(ValueError) as error:
            kernelize(model, mode=Mode.TRAINING, device="cpu", use_fallback=ONLY_MAPPED)
    text = str(error.value)
    assert text.startswith("No repository for `RMSNorm` for configuration mode=Mode.TRAINING\nhint: ")
    assert "device=`cpu`" in text
    with use_kernel_mapping({"RMSNorm": {"cuda": LayerRepository("trusted-org/rmsnorm", layer_name="RMSNorm",
                                                                   version=1)}}):
        with pytest.raises(ValueError) as error:
            kernelize(model, mode=Mode.INFERENCE, device="cpu", use_fallback=ONLY_MAPPED)
    text = str(error.value)
    assert text.startswith("No layer mapping for `RMSNorm` with device type `Device(type='cpu', properties=None)`")
    assert "mode=Mode.INFERENCE" in text
    # With the default fallback the model keeps its own layers.
    with use_kernel_mapping({"RMSNorm": {"cuda": LayerRepository("trusted-org/rmsnorm", layer_name="RMSNorm",
                                                                   version=1)}}):
        kernelize(model, mode=Mode.INFERENCE, device="cpu")
    assert not any(uses_kernel(m) for m in norms(model))


class GraphRecorder:
    """A torch.compile backend that keeps the code of every graph and runs it as is."""

    def __init__(self):
        self.code = []

    def __call__(self, graph_module, example_inputs):
        self.code.append(graph_module.code)
        return graph_module.forward


def test_torch_compile_traces_the_kernel_op(device):
    """The layer declares can_torch_compile: kernelize uses it in Mode.TORCH_COMPILE, and
    torch.compile traces the kernel's op (fake implementation) into one graph."""
    norm = tiny_llama(device).model.norm
    x = torch.randn(3, 7, 64, device=device)
    with torch.no_grad():
        expected = norm(x)
    with use_kernel_mapping(local_mapping(device, modes=[Mode.INFERENCE | Mode.TORCH_COMPILE])):
        kernelize(norm, mode=Mode.INFERENCE | Mode.TORCH_COMPILE, device=device, use_fallback=False)
    assert uses_kernel(norm)
    recorder = GraphRecorder()
    torch._dynamo.reset()
    with torch.no_grad():
        traced = torch.compile(norm, backend=recorder, fullgraph=True)(x)
        compiled = torch.compile(norm, fullgraph=True)(x)  # inductor
    assert len(recorder.code) == 1 and ".rms_norm" in recorder.code[0]
    torch.testing.assert_close(traced, expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(compiled, expected, rtol=1e-5, atol=1e-5)


def test_torch_compile_of_the_kernelized_model(device):
    model = tiny_llama(device)
    expected = logits(model, device)
    with use_kernel_mapping(local_mapping(device)):
        kernelize(model, mode=Mode.INFERENCE | Mode.TORCH_COMPILE, device=device, use_fallback=ONLY_MAPPED)
    assert all(uses_kernel(m) for m in norms(model))
    recorder = GraphRecorder()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=recorder)
    torch.testing.assert_close(logits(compiled, device), expected, rtol=1e-4, atol=1e-4)
    assert sum(code.count(".rms_norm") for code in recorder.code) == 5


def test_training_keeps_the_original_forward_without_backward(device):
    """The layer has no backward (has_backward = False): Mode.TRAINING keeps the model's own
    RMSNorm, and gradients flow; without fallback kernelize says why."""
    model = tiny_llama(device).train()
    with use_kernel_mapping(local_mapping(device)):
        kernelize(model, mode=Mode.TRAINING, device=device)
        assert not any(uses_kernel(m) for m in norms(model))
        with pytest.raises(ValueError, match=r"^Available kernel does not support mode: Mode.TRAINING\nhint: "):
            kernelize(model, mode=Mode.TRAINING, device=device, use_fallback=ONLY_MAPPED)
    loss = model(input_ids(device), labels=input_ids(device)).loss
    loss.backward()
    assert all(m.weight.grad is not None for m in norms(model))
    # Registered explicitly for training, the layer is refused outright.
    with use_kernel_mapping(local_mapping(device, modes=[Mode.TRAINING])):
        with pytest.raises(ValueError, match="does not support backward.\nWas registered for `RMSNorm` with mode `Mode.TRAINING`"):
            kernelize(model, mode=Mode.TRAINING, device=device)
