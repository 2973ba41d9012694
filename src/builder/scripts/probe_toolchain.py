# Prints, as one JSON object on stdout, what kernel-builder needs to know about the torch
# installation of this interpreter (src/builder/toolchain.cpp reads it; keep keys in sync).
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
    # What `python -m tvm_ffi.config --includedir --dlpack-includedir --libfiles --cmakedir` prints.
    out["tvm_ffi_include_dirs"] = list(dict.fromkeys([libinfo.find_include_path(), libinfo.find_dlpack_include_path()]))
    out["tvm_ffi_library"] = libinfo.find_libtvm_ffi()
    out["tvm_ffi_cmake_dir"] = libinfo.find_cmake_path()
except Exception:  # noqa: BLE001 - optional
    pass
json.dump(out, sys.stdout)
