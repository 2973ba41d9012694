"""Layers and `kernelize` (docs/layers.md) against kernels built with our kernel-builder: the
noarch `layer-zoo` kernel (layer_kernels.py), loaded from a directory and from a local Hub."""
from __future__ import annotations

import contextvars
import inspect
import json
import logging
import os
import threading
from pathlib import Path

import pytest
import torch
from torch import nn

from layer_kernels import layer_zoo_kernel, no_layers_kernel
from loader_testlib import run_python

import kernels.layer.repos
from kernels import (
    CUDAProperties,
    Device,
    FuncRepository,
    KernelizeFallback,
    LayerRepository,
    LocalFuncRepository,
    LocalLayerRepository,
    LockedLayerRepository,
    Mode,
    ROCMProperties,
    get_kernel_dep,
    kernelize,
    register_kernel_mapping,
    replace_kernel_forward_from_hub,
    use_kernel_forward_from_hub,
    use_kernel_func_from_hub,
    use_kernel_mapping,
    use_kernelized_func,
)
from kernels.layer import globals as layer_globals

X = torch.full((2,), 3.0)
ORIGINAL, DOUBLE, TRIPLE, QUADRUPLE = 4.0, 6.0, 9.0, 12.0  # AddOne and the zoo's layers on X


@use_kernel_forward_from_hub("AddOne")
class AddOne(nn.Module):
    def forward(self, x):
        return x + 1


def zoo(layer_name: str) -> LocalLayerRepository:
    return LocalLayerRepository(layer_zoo_kernel(), layer_name=layer_name)


def result(model) -> float:
    return model(X)[0].item()


@pytest.fixture(autouse=True)
def empty_mapping():
    """Each test starts from an empty mapping and leaves it so."""
    with use_kernel_mapping({}, inherit_mapping=False):
        yield


def kernelized(mapping, mode=Mode.INFERENCE, device="cpu", **kwargs):
    model = nn.Sequential(AddOne())
    with use_kernel_mapping(mapping):
        kernelize(model, mode=mode, device=device, **kwargs)
    return model


# --- Types ----------------------------------------------------------------------------------

def test_mode_values_and_combinations():
    assert [(m.name, m.value) for m in Mode.__members__.values()] == [
        ("_NONE", 0), ("FALLBACK", 1), ("TRAINING", 2), ("INFERENCE", 4), ("TORCH_COMPILE", 8)]
    assert (Mode.INFERENCE | Mode.TORCH_COMPILE).value == 12
    assert str(Mode.TRAINING | Mode.TORCH_COMPILE) == "Mode.TRAINING|TORCH_COMPILE"
    with pytest.raises(ValueError, match=r"^Mode.INFERENCE and Mode.TRAINING are mutually exclusive.$"):
        Mode.INFERENCE | Mode.TRAINING
    with pytest.raises(ValueError, match=r"^Mode.FALLBACK cannot be combined with other modes.$"):
        Mode.FALLBACK | Mode.INFERENCE


def test_kernelize_fallback_flags():
    assert {n: m.value for n, m in KernelizeFallback.__members__.items()} == {
        "NONE": 0, "NO_LAYER": 1, "NO_DEVICE": 2, "NO_COMPATIBLE_PROPERTIES": 4, "NO_COMPATIBLE_MODE": 8,
        "CANNOT_LOAD": 16, "DEFAULT": 15, "ALL": 31}
    assert KernelizeFallback.CANNOT_LOAD not in KernelizeFallback.DEFAULT


def test_device_and_properties():
    assert Device("cuda", CUDAProperties(75, 89)) == Device("cuda", CUDAProperties(75, 89))
    assert len({Device("cpu"), Device("cpu")}) == 1
    assert repr(Device("cuda")) == "Device(type='cuda', properties=None)"
    with pytest.raises(ValueError, match=r"^CUDAProperties is only supported for 'cuda' devices.$"):
        Device("rocm", CUDAProperties(1, 2))
    with pytest.raises(ValueError, match=r"^ROCMProperties is only supported for 'rocm' devices.$"):
        Device("cpu", ROCMProperties(1, 2))
    with pytest.raises(ValueError, match=r"^min_capability \(80\) must be <= max_capability \(75\)$"):
        CUDAProperties(80, 75)
    with pytest.raises(ValueError, match=r"^min_capability \(9\) must be <= max_capability \(8\)$"):
        ROCMProperties(9, 8)
    with pytest.raises(Exception):
        Device("cpu").type = "cuda"  # frozen


def test_repository_revision_or_version():
    with pytest.raises(ValueError, match=r"^Either a revision or a version must be specified.$"):
        LayerRepository("org/k", layer_name="L")
    with pytest.raises(ValueError, match=r"^Either a revision or a version must be specified, not both.$"):
        LayerRepository("org/k", layer_name="L", revision="main", version=1)
    assert str(LayerRepository("org/k", layer_name="L", revision="main")) == "`org/k` (revision: main), layer `L`"
    a = LayerRepository("org/k", layer_name="L", version=1, trust_remote_code=["org/k"])
    assert a == LayerRepository("org/k", layer_name="L", version=1, trust_remote_code=["org/k"])
    assert hash(a) == hash(LayerRepository("org/k", layer_name="L", version=1, trust_remote_code=["org/k"]))
    assert a != LayerRepository("org/k", layer_name="L", version=2)


def test_function_repositories_are_deprecated(tmp_path):
    with pytest.warns(DeprecationWarning, match=r"^FuncRepository is deprecated and will be removed in kernels 0.17. "
                                                r"Use LayerRepository instead.$"):
        repo = FuncRepository("org/k", func_name="f", revision="main")
    assert str(repo) == "`org/k` (revision: main), function `f`"
    with pytest.warns(DeprecationWarning, match="LocalFuncRepository is deprecated"):
        LocalFuncRepository(tmp_path, func_name="f")
    with pytest.warns(DeprecationWarning, match="use_kernel_func_from_hub is deprecated"):
        use_kernel_func_from_hub("F")


# --- Marking extensible code -----------------------------------------------------------------

def test_class_decorator_and_replace():
    assert AddOne.kernel_layer_name == "AddOne"

    class Plain(nn.Module):
        def forward(self, x):
            return x

    assert replace_kernel_forward_from_hub(Plain, "Plain") is None
    assert Plain.kernel_layer_name == "Plain"


def test_function_decorator_makes_a_module():
    def scaled(x, factor: float = 2.0):
        return x * factor

    scaled.can_torch_compile = True
    module = use_kernel_forward_from_hub("Scaled")(scaled)
    assert isinstance(module, nn.Module)
    assert type(module).kernel_layer_name == "Scaled"
    parameters = inspect.signature(type(module).forward).parameters
    assert list(parameters) == ["self", "x", "factor"] and parameters["factor"].default == 2.0
    assert (type(module).can_torch_compile, type(module).has_backward) == (True, True)
    assert module(torch.ones(1), 3.0).item() == 3.0
    plain = use_kernel_forward_from_hub("Plain")(lambda x: x)
    assert (type(plain).can_torch_compile, type(plain).has_backward) == (False, True)
    with pytest.raises(TypeError, match=r"^@use_kernel_forward_from_hub can only be applied to classes or functions$"):
        use_kernel_forward_from_hub("X")(5)


def test_kernelized_func_is_kept_outside_submodules_and_kernelized():
    def add_one(x):
        return x + 1

    func = use_kernel_forward_from_hub("AddOneFunc")(add_one)

    @use_kernelized_func(func)
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(2, 2)

        def forward(self, x):
            return self.__dict__["_kernel_funcs"]["AddOneFunc"](x)

    model = Model()
    assert [name for name, _ in model.named_modules()] == ["", "linear"]
    assert model(X)[0].item() == ORIGINAL
    with use_kernel_mapping({"AddOneFunc": {"cpu": zoo("add_ten")}}):
        kernelize(model, mode=Mode.INFERENCE, device="cpu", use_fallback=False)
    assert model(X)[0].item() == 13.0


def test_kernelized_func_rejects_undecorated_functions():
    def helper(x):
        return x

    with pytest.raises(ValueError, match=r"^Function `helper` is not decorated with @use_kernel_forward_from_hub "
                                         r"and cannot be used with @use_kernelized_func$"):
        @use_kernelized_func(helper)
        class Model(nn.Module):
            pass


def test_condition_leaves_other_modules_alone():
    class Gated(nn.Module):
        def __init__(self, enabled):
            super().__init__()
            self.enabled = enabled

        def forward(self, x):
            return x + 1

    replace_kernel_forward_from_hub(Gated, "Gated", condition=lambda module: module.enabled)
    model = nn.Sequential(Gated(True), Gated(False))
    with use_kernel_mapping({"Gated": {"cpu": zoo("Double")}}):
        kernelize(model, mode=Mode.INFERENCE, device="cpu", use_fallback=False)
    assert (model[0](X)[0].item(), model[1](X)[0].item()) == (DOUBLE, ORIGINAL)


# --- Mappings ---------------------------------------------------------------------------------

def mapped_layers():
    return sorted(layer_globals._KERNEL_MAPPING.get())


def test_use_kernel_mapping_nests_inherits_and_restores():
    register_kernel_mapping({"A": {"cpu": zoo("Double")}})
    with use_kernel_mapping({"B": {"cpu": zoo("Double")}}):
        assert mapped_layers() == ["A", "B"]
        with use_kernel_mapping({"C": {"cpu": zoo("Double")}}, inherit_mapping=False):
            assert mapped_layers() == ["C"]
        register_kernel_mapping({"D": {"cpu": zoo("Double")}})
        assert mapped_layers() == ["A", "B", "D"]
    assert mapped_layers() == ["A"]
    with pytest.raises(RuntimeError):
        with use_kernel_mapping({"E": {"cpu": zoo("Double")}}):
            raise RuntimeError("boom")
    assert mapped_layers() == ["A"]
    register_kernel_mapping({"F": {"cpu": zoo("Double")}}, inherit_mapping=False)
    assert mapped_layers() == ["F"]


def test_registering_a_device_again_replaces_its_modes():
    register_kernel_mapping({"AddOne": {"cpu": {Mode.INFERENCE: zoo("TripleNoCompile")}}})
    register_kernel_mapping({"AddOne": {"cpu": zoo("Double")}})
    model = nn.Sequential(AddOne())
    kernelize(model, mode=Mode.INFERENCE, device="cpu", use_fallback=False)
    assert result(model) == DOUBLE


def test_unknown_device_type_and_bad_mode_keys_are_rejected():
    with pytest.raises(ValueError, match=r"^Unknown device type: metal$"):
        register_kernel_mapping({"AddOne": {"metal": zoo("Double")}})
    with pytest.raises(TypeError, match="mode key must be a `Mode`"):
        register_kernel_mapping({"AddOne": {"cpu": {"inference": zoo("Double")}}})
    assert mapped_layers() == []


def test_mapping_contexts_are_per_thread_and_global_registrations_are_shared():
    # A fresh context sees the process-wide mapping (the autouse fixture's copy hides it here).
    contextvars.Context().run(register_kernel_mapping, {"Global": {"cpu": zoo("Double")}})
    seen = {}
    inside = threading.Event()
    release = threading.Event()

    def worker():
        seen["start"] = mapped_layers()
        with use_kernel_mapping({"Thread": {"cpu": zoo("Double")}}):
            inside.set()
            release.wait(10)
            seen["inside"] = mapped_layers()

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(10)
    seen["main"] = mapped_layers()
    release.set()
    thread.join(10)
    contextvars.Context().run(lambda: layer_globals._KERNEL_MAPPING.get().pop("Global"))
    # A new thread starts from the process-wide mapping (the contextvar's default) ...
    assert "Global" in seen["start"]
    assert "Thread" in seen["inside"]
    # ... and another thread's context does not leak into this one.
    assert "Thread" not in seen["main"]


# --- kernelize: selection, fallback and errors --------------------------------------------------

def test_kernelize_binds_the_layer_forward_to_the_module():
    model = kernelized({"AddOne": {"cpu": zoo("Double")}}, use_fallback=False)
    assert result(model) == DOUBLE
    assert model[0].forward.__self__ is model[0]
    # Without a mapping, kernelize restores the original forward.
    kernelize(model, mode=Mode.INFERENCE, device="cpu")
    assert result(model) == ORIGINAL


def test_no_mapping_warns_and_falls_back_or_raises(caplog):
    with caplog.at_level(logging.WARNING, logger="kernels"):
        model = kernelized({})
    assert result(model) == ORIGINAL
    assert "\nNo kernel mapping found for layer `AddOne`. Check if the layer name matches one of the kernels in " \
           "the mapping or add the kernel you want to use to the mapping. Defaulting to original forward " \
           "implementation." in caplog.messages
    with pytest.raises(ValueError, match=r"^No layer mapping for `AddOne`\nhint: "):
        kernelized({}, use_fallback=False)


def test_no_device_entry():
    mapping = {"AddOne": {"cuda": zoo("Double")}}
    assert result(kernelized(mapping)) == ORIGINAL
    with pytest.raises(ValueError, match=r"^No layer mapping for `AddOne` with device type "
                                         r"`Device\(type='cpu', properties=None\)`\nhint: "):
        kernelized(mapping, use_fallback=False)


def test_fallback_flags_are_granular():
    assert result(kernelized({"AddOne": {"cuda": zoo("Double")}}, use_fallback=KernelizeFallback.NO_DEVICE)) == ORIGINAL
    with pytest.raises(ValueError, match="No layer mapping for `AddOne`\nhint: "):
        kernelized({}, use_fallback=KernelizeFallback.NO_DEVICE)
    with pytest.raises(TypeError, match="`use_fallback` must be a bool or a `KernelizeFallback`"):
        kernelized({}, use_fallback=None)


@pytest.fixture
def capability(monkeypatch):
    """The running GPU's capability (major * 10 + minor), as this machine may have none."""
    value = {"capability": 86}
    monkeypatch.setattr(kernels.layer.repos, "device_capability", lambda device_type: value["capability"])
    return value


class ProtocolRepository:
    """A repository of upstream's protocol (any object with `load()`), here loading the zoo's
    layer for the running system: this machine's torch has no ROCm variant to select."""

    def __init__(self, layer_name):
        self.repo = zoo(layer_name)

    def load(self):
        return self.repo.load()


@pytest.mark.parametrize("device_type, properties, repo", [("cuda", CUDAProperties, zoo),
                                                           ("rocm", ROCMProperties, ProtocolRepository)])
def test_narrowest_capability_range_wins(capability, device_type, properties, repo):
    mapping = {"AddOne": {
        Device(device_type, properties(75, 89)): repo("TripleNoCompile"),
        Device(device_type, properties(80, 89)): repo("Double"),
        device_type: repo("QuadrupleNoBackward"),  # every capability
    }}
    for value, expected in [(86, DOUBLE), (75, TRIPLE), (80, DOUBLE), (90, QUADRUPLE)]:
        capability["capability"] = value
        assert result(kernelized(mapping, device=device_type, use_fallback=False)) == expected, value


def test_no_capability_range_matches(capability):
    capability["capability"] = 90
    mapping = {"AddOne": {Device("cuda", CUDAProperties(75, 89)): zoo("Double")}}
    assert result(kernelized(mapping, device="cuda")) == ORIGINAL
    with pytest.raises(ValueError, match=r"^No layer mapping for `AddOne` device `Device\(type='cuda', properties=None\)` "
                                         r"with the right properties\nhint: "):
        kernelized(mapping, device="cuda", use_fallback=False)


def test_same_capability_range_registered_again_replaces(capability):
    register_kernel_mapping({"AddOne": {Device("cuda", CUDAProperties(80, 89)): zoo("TripleNoCompile")}})
    register_kernel_mapping({"AddOne": {Device("cuda", CUDAProperties(80, 89)): zoo("Double")}})
    model = nn.Sequential(AddOne())
    kernelize(model, mode=Mode.INFERENCE, device="cuda", use_fallback=False)
    assert result(model) == DOUBLE


I, T, C, F = Mode.INFERENCE, Mode.TRAINING, Mode.TORCH_COMPILE, Mode.FALLBACK


@pytest.mark.parametrize("mode, registered, expected", [
    # docs/layers.md: the first registered mode of the kernelize mode's list wins.
    (I, {T: "Double"}, DOUBLE),
    (I, {I | C: "Double"}, DOUBLE),
    (I, {F: "Double", I: "TripleNoCompile"}, TRIPLE),
    (I, {T | C: "Double", T: "TripleNoCompile"}, TRIPLE),
    (I | C, {F: "QuadrupleNoBackward", T | C: "Double"}, DOUBLE),
    (I | C, {I | C: "Double", T | C: "QuadrupleNoBackward"}, DOUBLE),
    (T, {F: "Double", I: "TripleNoCompile"}, DOUBLE),
    (T, {T | C: "Double", F: "TripleNoCompile"}, DOUBLE),
    (T | C, {T | C: "Double", T: "TripleNoCompile"}, DOUBLE),
    (T | C, {F: "Double", T: "TripleNoCompile"}, DOUBLE),
])
def test_mode_fallback_order(mode, registered, expected):
    mapping = {"AddOne": {"cpu": {m: zoo(name) for m, name in registered.items()}}}
    assert result(kernelized(mapping, mode=mode, use_fallback=False)) == expected


@pytest.mark.parametrize("mode, registered", [(T, {I: "Double"}), (T, {I | C: "Double"}), (I | C, {T: "Double"}),
                                              (T | C, {I: "Double"}), (T | C, {I | C: "Double"})])
def test_no_repository_for_the_mode(mode, registered):
    mapping = {"AddOne": {"cpu": {m: zoo(name) for m, name in registered.items()}}}
    assert result(kernelized(mapping, mode=mode)) == ORIGINAL
    with pytest.raises(ValueError, match=rf"^No repository for `AddOne` for configuration mode={mode}\nhint: ".replace("|", r"\|")):
        kernelized(mapping, mode=mode, use_fallback=False)


@pytest.mark.parametrize("mode, layer", [(I | C, "TripleNoCompile"), (T, "QuadrupleNoBackward"),
                                         (T | C, "TripleNoCompile")])
def test_layer_without_the_capability_keeps_the_original_forward(mode, layer):
    mapping = {"AddOne": {"cpu": zoo(layer)}}
    assert result(kernelized(mapping, mode=mode)) == ORIGINAL
    with pytest.raises(ValueError, match=rf"^Available kernel does not support mode: {mode}\nhint: ".replace("|", r"\|")):
        kernelized(mapping, mode=mode, use_fallback=False)


def test_layers_that_support_the_mode_are_used():
    assert result(kernelized({"AddOne": {"cpu": zoo("TripleNoCompile")}}, mode=T)) == TRIPLE
    assert result(kernelized({"AddOne": {"cpu": zoo("QuadrupleNoBackward")}}, mode=I | C)) == QUADRUPLE
    assert result(kernelized({"AddOne": {"cpu": zoo("Double")}}, mode=T | C)) == DOUBLE


@pytest.mark.parametrize("registered, layer, missing", [(T, "QuadrupleNoBackward", "backward"),
                                                        (I | C, "TripleNoCompile", "torch.compile")])
def test_registration_must_match_what_the_layer_supports(registered, layer, missing):
    mapping = {"AddOne": {"cpu": {registered: zoo(layer)}}}
    message = (f"Function/layer from repo `{layer_zoo_kernel()}` (layer `{layer}`) does not support {missing}.\n"
               f"Was registered for `AddOne` with mode `{registered}`")
    for use_fallback in (True, KernelizeFallback.ALL):
        with pytest.raises(ValueError) as error:
            kernelized(mapping, mode=registered, use_fallback=use_fallback)
        assert str(error.value) == message


@pytest.mark.parametrize("layer, error, message", [
    ("WithInit", TypeError, "`{zoo}` (layer `WithInit`) must not override nn.Module constructor."),
    ("ExtraMember", TypeError, "`{zoo}` (layer `ExtraMember`) must not contain additional members compared to `AddOne`."),
    ("TwoArguments", TypeError, "Forward signature of `{zoo}` (layer `TwoArguments`) does not match `AddOne`: "
                                "different number of arguments."),
    ("KeywordOnly", TypeError, "Forward signature of `{zoo}` (layer `KeywordOnly`) does not match `AddOne`: "
                               "different kind of arguments (x (KEYWORD_ONLY) and x (POSITIONAL_OR_KEYWORD)"),
    ("NotAModule", TypeError, "Layer `NotAModule` is not a Torch layer."),
    ("Missing", ValueError, "Layer `Missing` not found in kernel repo `{zoo}` (layer `Missing`)."),
])
def test_layer_validation_errors(layer, error, message):
    # Errors in the kernel itself are never hidden by a fallback.
    with pytest.raises(error) as raised:
        kernelized({"AddOne": {"cpu": zoo(layer)}}, use_fallback=KernelizeFallback.ALL)
    assert str(raised.value) == message.format(zoo=layer_zoo_kernel())


def test_kernel_without_layers():
    repo = LocalLayerRepository(no_layers_kernel(), layer_name="AddOne")
    with pytest.raises(ValueError, match=r"^Kernel repo `.*no-layers` \(layer `AddOne`\) does not define any layers.$"):
        kernelized({"AddOne": {"cpu": repo}})


def test_kernel_that_cannot_be_loaded(tmp_path, caplog):
    mapping = {"AddOne": {"cpu": LocalLayerRepository(tmp_path / "absent", layer_name="Double")}}
    with pytest.raises(FileNotFoundError):
        kernelized(mapping)
    with caplog.at_level(logging.WARNING, logger="kernels"):
        assert result(kernelized(mapping, use_fallback=KernelizeFallback.ALL)) == ORIGINAL
    assert any("Cannot load" in m and "absent" in m for m in caplog.messages)


def test_kernelize_mode_and_device_errors():
    model = nn.Sequential(AddOne())
    with pytest.raises(ValueError, match=r"^Mode.FALLBACK can only be used to register kernel mappings.$"):
        kernelize(model, mode=Mode.FALLBACK, device="cpu")
    with pytest.raises(ValueError, match=r"^kernelize mode must contain Mode.INFERENCE or Mode.TRAINING.$"):
        kernelize(model, mode=Mode.TORCH_COMPILE, device="cpu")
    with pytest.raises(ValueError, match=r"^Unsupported device type 'metal'. Supported device types are: "
                                         r"cpu, cuda, mps, neuron, npu, rocm, tpu, xpu$"):
        kernelize(model, mode=Mode.INFERENCE, device="metal")
    with pytest.raises(ValueError, match=r"^Cannot determine model device, provide as `device` argument to `kernelize`.$"):
        kernelize(model, mode=Mode.INFERENCE)


def test_device_from_parameters_torch_device_or_device():
    mapping = {"AddOne": {"cpu": zoo("Double")}}
    model = nn.Sequential(nn.Identity(), AddOne(), nn.Linear(2, 2))
    with use_kernel_mapping(mapping):
        kernelize(model, mode=Mode.INFERENCE, use_fallback=False)
        assert model[1](X)[0].item() == DOUBLE
        for device in (torch.device("cpu"), Device(type="cpu")):
            kernelize(model[1], mode=Mode.INFERENCE, device=device, use_fallback=False)
            assert model[1](X)[0].item() == DOUBLE


def test_function_repository_and_function_layers():
    def add_one(x):
        return x + 1

    module = use_kernel_forward_from_hub("AddOneFunc")(add_one)
    with pytest.warns(DeprecationWarning):
        repo = LocalFuncRepository(layer_zoo_kernel(), func_name="add_hundred")
    with use_kernel_mapping({"AddOneFunc": {"cpu": repo}}):
        kernelize(nn.Sequential(module), mode=Mode.INFERENCE | Mode.TORCH_COMPILE, device="cpu", use_fallback=False)
    assert module(X)[0].item() == 103.0
    with pytest.warns(DeprecationWarning):
        missing = LocalFuncRepository(layer_zoo_kernel(), func_name="absent")
    with pytest.raises(ValueError, match=r"^Function `absent` not found in `.*layer-zoo` \(function `absent`\)$"):
        missing.load()


def test_disable_kernel_mapping_restores_original_forwards():
    code = f"""
import torch
from torch import nn
from kernels import LocalLayerRepository, Mode, kernelize, use_kernel_forward_from_hub, use_kernel_mapping

@use_kernel_forward_from_hub("AddOne")
class AddOne(nn.Module):
    def forward(self, x):
        return x + 1

model = nn.Sequential(AddOne())
with use_kernel_mapping({{"AddOne": {{"cpu": LocalLayerRepository({str(layer_zoo_kernel())!r}, layer_name="Double")}}}}):
    kernelize(model, mode=Mode.INFERENCE, device="cpu", use_fallback=False)
print(model(torch.full((1,), 3.0)).item())
"""
    outputs = {}
    for value in ("0", "1"):
        proc = run_python(code, {"DISABLE_KERNEL_MAPPING": value})
        assert proc.returncode == 0, proc.stderr
        outputs[value] = float(proc.stdout.strip())
    assert outputs == {"0": DOUBLE, "1": ORIGINAL}


def test_get_kernel_dep_outside_kernel_loading():
    with pytest.raises(RuntimeError, match=r"^`get_kernel_dep` only works during kernel loading.$"):
        get_kernel_dep("org/k")


def test_kernel_lock():
    from kernels.locking import KernelDependency, KernelLock, KernelLocks, KernelVersion

    lock = KernelLock("a" * 40)
    assert lock.commit == "a" * 40
    assert KernelLock.from_json(lock.to_json()) == lock
    dependency = KernelDependency("org/k", KernelVersion.Version(1))
    assert KernelLocks.from_json(KernelLocks({dependency: lock}).to_json()).get(dependency) == lock
    with pytest.raises(ValueError, match=r"^Invalid git object id, expected 40 or 64 hexadecimal digits: abc$"):
        KernelLock("abc")


# --- Hub repositories ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def zoo_on_hub(hub, tmp_path_factory):
    commits = hub.publish("trusted-org/layer-zoo", tmp_path_factory.mktemp("zoo-publish"),
                          {"v1": layer_zoo_kernel()})
    return commits["v1"]


def test_layer_repository_from_the_hub(env_hub, cache, zoo_on_hub):
    repo = LayerRepository("trusted-org/layer-zoo", layer_name="Double", version=1)
    assert str(repo) == "`trusted-org/layer-zoo` (version: 1), layer `Double`"
    assert result(kernelized({"AddOne": {"cpu": repo}}, use_fallback=False)) == DOUBLE
    assert str(repo) == f"`trusted-org/layer-zoo` (revision: {zoo_on_hub}), layer `Double`"
    by_revision = LayerRepository("trusted-org/layer-zoo", layer_name="TripleNoCompile", revision=zoo_on_hub)
    assert result(kernelized({"AddOne": {"cpu": by_revision}}, use_fallback=False)) == TRIPLE


def test_locked_layer_repository(env_hub, cache, zoo_on_hub, tmp_path):
    lockfile = tmp_path / "kernels.lock"
    lockfile.write_text(json.dumps([{"repo_id": "trusted-org/layer-zoo", "sha": zoo_on_hub, "variants": {}}]))
    repo = LockedLayerRepository("trusted-org/layer-zoo", lockfile=lockfile, layer_name="Double")
    assert result(kernelized({"AddOne": {"cpu": repo}}, use_fallback=False)) == DOUBLE
    with pytest.raises(ValueError, match=r"^Kernel `trusted-org/other` is not locked. Please lock it with "
                                         r"`kernels lock <project>` and then reinstall the project.$"):
        LockedLayerRepository("trusted-org/other", lockfile=lockfile, layer_name="Double")


GOLDEN = Path(__file__).resolve().parent / "golden" / "kernelize_errors.txt"


def test_kernelize_error_texts_golden(capability):
    """Every no-match error with use_fallback=False: upstream's text, then a hint that names the
    layer, the device and the mode (KB_REFRESH_GOLDEN=1 rewrites the golden file)."""
    capability["capability"] = 90
    cases = [
        ("no mapping", {}, Mode.INFERENCE, "cpu"),
        ("no device", {"AddOne": {"cuda": zoo("Double")}}, Mode.INFERENCE, "cpu"),
        ("no capability range", {"AddOne": {Device("cuda", CUDAProperties(75, 89)): zoo("Double")}},
         Mode.INFERENCE, "cuda"),
        ("no mode", {"AddOne": {"cpu": {Mode.INFERENCE: zoo("Double")}}}, Mode.TRAINING, "cpu"),
        ("mode unsupported", {"AddOne": {"cpu": zoo("TripleNoCompile")}}, Mode.INFERENCE | Mode.TORCH_COMPILE, "cpu"),
    ]
    texts = []
    for label, mapping, mode, device in cases:
        with pytest.raises(ValueError) as error:
            kernelized(mapping, mode=mode, device=device, use_fallback=False)
        texts.append(f"## {label}\n{error.value}\n".replace(str(layer_zoo_kernel()), "<layer-zoo>"))
    actual = "\n".join(texts)
    if os.environ.get("KB_REFRESH_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(actual)
    assert actual == GOLDEN.read_text()
