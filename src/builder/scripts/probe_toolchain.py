# Prints, as one JSON object on stdout, what kernel-builder needs to know about the torch
# installation of this interpreter (src/builder/toolchain.cpp reads it; keep keys in sync).
#
# With the argument `guess`, it prints what it expects the probe to find without importing torch
# (tens of milliseconds instead of seconds): torch's version and backends from its version.py,
# its paths from where its package lies, its nvcc flags from cpp_extension.py's source. The builder
# compiles on that guess while the real probe runs, and builds again if the two differ
# (docs/build-engine.md, "The first build on a machine").
import json
import platform
import site
import sys
import sysconfig

# `python -c` puts the working directory first on sys.path: without it, what the probe finds does
# not depend on where the build was started (the builder caches the result per interpreter).
if sys.path and sys.path[0] == "":
    del sys.path[0]

out = {
    "format_version": 1,
    "python_version": "%d.%d.%d" % sys.version_info[:3],
    "python_include": sysconfig.get_paths()["include"],
    "machine": platform.machine(),
    "system": platform.system(),
    # Where packages are installed: a pip install/uninstall (e.g. a new torch in the same venv)
    # changes these directories, which invalidates the builder's probe cache.
    "site_dirs": [d for d in site.getsitepackages() + [site.getusersitepackages()] if d],
}


def guess_torch(out):
    """The torch keys of the probe, read from torch's files (no import); False when it cannot tell."""
    import ast
    import importlib.util
    import os

    def package_dir(name):
        spec = importlib.util.find_spec(name)
        return spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else None

    def load(path):
        """A module of a package, run on its own (its imports are the standard library's)."""
        spec = importlib.util.spec_from_file_location("_kb_guess_" + os.path.basename(path)[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    torch_dir = package_dir("torch")
    if torch_dir is None or platform.system() != "Linux":
        return False  # the probe says why; elsewhere the C++11 ABI flag is not a given
    version = load(os.path.join(torch_dir, "version.py"))
    with open(os.path.join(torch_dir, "utils", "cpp_extension.py")) as file:
        module = ast.parse(file.read())
    nvcc_flags = []
    for node in module.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "COMMON_NVCC_FLAGS" for t in node.targets):
            nvcc_flags = ast.literal_eval(node.value)
    include = os.path.join(torch_dir, "include")
    out.update({
        "torch_version": version.__version__,
        "cxx11_abi": True,  # every torch the builder accepts on Linux; the probe refuses the others
        "cuda": getattr(version, "cuda", None),
        "hip": getattr(version, "hip", None),
        "xpu": getattr(version, "xpu", None),
        "cmake_prefix_path": os.path.join(torch_dir, "share", "cmake"),
        "include_dirs": [include, os.path.join(include, "torch", "csrc", "api", "include")],
        "library_dirs": [os.path.join(torch_dir, "lib")],
        "torch_dir": torch_dir,
        "nvcc_flags": list(nvcc_flags),
    })
    tvm_dir = package_dir("tvm_ffi")
    if tvm_dir is not None:  # importing it imports torch: its libinfo and _version on their own
        libinfo = load(os.path.join(tvm_dir, "libinfo.py"))
        out["tvm_ffi_version"] = load(os.path.join(tvm_dir, "_version.py")).__version__
        out.update(tvm_ffi_keys(libinfo))
    return True


def tvm_ffi_keys(libinfo):
    # What `python -m tvm_ffi.config --includedir --dlpack-includedir --libfiles --cmakedir` prints.
    return {
        "tvm_ffi_include_dirs": list(dict.fromkeys([libinfo.find_include_path(), libinfo.find_dlpack_include_path()])),
        "tvm_ffi_library": libinfo.find_libtvm_ffi(),
        "tvm_ffi_cmake_dir": libinfo.find_cmake_path(),
    }


if sys.argv[1:] == ["guess"]:
    try:
        guessed = guess_torch(out)
    except Exception:  # noqa: BLE001 - an unusual torch: no guess, the probe decides
        guessed = False
    json.dump(out if guessed else {"no_guess": True}, sys.stdout)
    sys.exit(0)

try:
    import torch
    import torch.utils
    import torch.utils.cpp_extension as cpp_extension
except Exception as error:  # noqa: BLE001 - any import failure means "no usable torch"
    out["torch_error"] = "%s: %s" % (type(error).__name__, error)
else:
    out["torch_version"] = torch.__version__
    out["cxx11_abi"] = bool(torch._C._GLIBCXX_USE_CXX11_ABI)
    out["cuda"] = torch.version.cuda
    out["hip"] = getattr(torch.version, "hip", None)
    out["xpu"] = getattr(torch.version, "xpu", None)
    out["cmake_prefix_path"] = torch.utils.cmake_prefix_path
    out["include_dirs"] = cpp_extension.include_paths()
    out["library_dirs"] = cpp_extension.library_paths()
    out["torch_dir"] = torch.__path__[0]
    # torch's own nvcc flags (COMMON_NVCC_FLAGS); the builder drops the __CUDA_NO_HALF* defines.
    out["nvcc_flags"] = list(getattr(cpp_extension, "COMMON_NVCC_FLAGS", []))
try:
    import tvm_ffi
    from tvm_ffi import libinfo

    out["tvm_ffi_version"] = tvm_ffi.__version__
    out.update(tvm_ffi_keys(libinfo))
except Exception:  # noqa: BLE001 - optional
    pass
json.dump(out, sys.stdout)
