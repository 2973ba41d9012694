# Import check of a built variant (build-output.md §9 step 6): imports the variant directory as a
# package under its ops id, from outside sys.path, the way the loader does.
# Usage: import_check.py <variant dir> <ops id>
#        import_check.py --wait   (started while the variant compiles: imports torch, then reads
#                                  "<variant dir>\t<ops id>" from stdin; exits quietly on EOF)
import importlib.util
import sys
from pathlib import Path

if sys.argv[1:] == ["--wait"]:
    import torch  # noqa: F401 - what a torch variant's package imports first; most of the check's time

    line = sys.stdin.readline().rstrip("\n")
    if not line:
        sys.exit(0)
    variant_dir_text, ops_id = line.split("\t")
    variant_dir = Path(variant_dir_text).resolve()
else:
    variant_dir = Path(sys.argv[1]).resolve()
    ops_id = sys.argv[2]
spec = importlib.util.spec_from_file_location(
    ops_id, variant_dir / "__init__.py", submodule_search_locations=[str(variant_dir)]
)
module = importlib.util.module_from_spec(spec)
sys.modules[ops_id] = module
spec.loader.exec_module(module)

# A module that carries its own copy of the C++ runtime (libstdc++.a linked in, e.g. by a compiler
# driver configured for static runtimes) breaks the exceptions torch catches from TORCH_CHECK:
# messages come out truncated or the process crashes. The dynamic linker tells which file defines
# the module's `__cxa_throw`; it must be the shared libstdc++, not the module.
if sys.platform.startswith("linux"):
    import ctypes
    import os

    class _DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    libc = ctypes.CDLL(None)
    for library in sorted(variant_dir.rglob("*.so")):
        handle = ctypes.CDLL(str(library))
        try:
            address = ctypes.cast(handle.__cxa_throw, ctypes.c_void_p).value
        except AttributeError:
            continue
        info = _DlInfo()
        if not libc.dladdr(ctypes.c_void_p(address), ctypes.byref(info)) or not info.dli_fname:
            continue
        if os.path.realpath(os.fsdecode(info.dli_fname)) == os.path.realpath(library):
            print(f"{library.name} contains its own copy of libstdc++ (it defines __cxa_throw): exceptions "
                  "raised by its ops would not reach Python intact. Link libstdc++ dynamically: use a "
                  "compiler whose driver links the shared libstdc++.so.6 (check with "
                  "`readelf -d` that the module needs libstdc++.so.6) and drop -static-libstdc++ "
                  "from cxx-flags or CXXFLAGS/LDFLAGS.", file=sys.stderr)
            sys.exit(1)
