# Import check of a built variant (docs/building.md): imports the variant directory as a
# package under its ops id, from outside sys.path, the way the loader does.
# Usage: import_check.py <variant dir> <ops id> [<module>,...]
#        import_check.py --wait   (started while the variant compiles: imports torch, then reads
#                                  "<variant dir>\t<ops id>\t<module>,..." from stdin; exits
#                                  quietly on EOF)
# <module>,...: the modules the variant's python-depends provide.
# Exit status 3: the variant imports a module that is not installed; the last line of the output is
# then a JSON object, either {"missing": [<python-depends modules not installed>]} when that module
# is one of them, or {"undeclared": <module>} when no python-depends entry provides it.
import importlib.util
import json
import os
import sys
from pathlib import Path

# `python -c` puts the working directory first on sys.path: a folder there named like a module
# the variant imports (a checkout of the `einops` kernel next to the project, say) would shadow it.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

if sys.argv[1:] == ["--wait"]:
    import torch  # noqa: F401 - what a torch variant's package imports first; most of the check's time

    line = sys.stdin.readline().rstrip("\n")
    if not line:
        sys.exit(0)
    variant_dir_text, ops_id, modules_text = (line.split("\t") + [""])[:3]
    variant_dir = Path(variant_dir_text).resolve()
else:
    variant_dir = Path(sys.argv[1]).resolve()
    ops_id = sys.argv[2]
    modules_text = sys.argv[3] if len(sys.argv) > 3 else ""


def report_missing(report):
    sys.stderr.flush()
    print(json.dumps(report), flush=True)
    sys.exit(3)


declared = [name for name in modules_text.split(",") if name]
spec = importlib.util.spec_from_file_location(
    ops_id, variant_dir / "__init__.py", submodule_search_locations=[str(variant_dir)]
)
module = importlib.util.module_from_spec(spec)
sys.modules[ops_id] = module
try:
    spec.loader.exec_module(module)
except ModuleNotFoundError as error:
    top = (error.name or "").split(".")[0]
    if not top or top == ops_id or importlib.util.find_spec(top) is not None:
        raise
    if top in declared:
        report_missing({"missing": [name for name in declared if importlib.util.find_spec(name) is None]})
    import traceback

    traceback.print_exc()
    report_missing({"undeclared": top})

# A module that carries its own copy of the C++ runtime (libstdc++.a linked in, e.g. by a compiler
# driver configured for static runtimes) breaks the exceptions torch catches from TORCH_CHECK:
# messages come out truncated or the process crashes. The dynamic linker tells which file defines
# the module's `__cxa_throw`; it must be the shared libstdc++, not the module.
if sys.platform.startswith("linux"):
    import ctypes

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
