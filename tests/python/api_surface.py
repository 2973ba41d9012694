"""Prints, as JSON, the public callables of the `kernels` package importable in this interpreter:
for each module of `MODULES`, every callable its `__all__` lists (every public name when it has
none) that the package itself defines, with its parameters (name, kind, default) and, for classes,
those of its public methods. Annotations are left out: they are not part of how a call binds.
Run once with upstream's package on the path and once with ours (test_api_signatures.py)."""
import builtins
import importlib
import inspect
import json
import sys

MODULES = ["kernels", "kernels.layer", "kernels.variants", "kernels.locking", "kernels.verify", "kernels.benchmark"]


def parameters(obj):
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # a builtin without a text signature
        return None
    out = []
    for i, p in enumerate(signature.parameters.values()):
        if i == 0 and p.name == "self":
            continue  # how `self` binds does not change a call
        out.append([p.name, p.kind.name, None if p.default is p.empty else repr(p.default)])
    return out


def is_package_own(module, name: str, obj) -> bool:
    owner = getattr(obj, "__module__", None) or ""
    if owner == "kernels" or owner.startswith("kernels."):
        return True
    # A compiled extension's classes may report `builtins`: they count when the package's own
    # extension module exports them.
    if owner == "builtins" and getattr(builtins, name, None) is not obj:
        return any(getattr(m, name, None) is obj for key, m in sys.modules.items()
                   if key.startswith("kernels.") and getattr(m, "__file__", "") and
                   not m.__file__.endswith(".py"))
    return False


def describe(obj):
    entry = {"kind": "class" if inspect.isclass(obj) else "function", "parameters": parameters(obj)}
    if inspect.isclass(obj):
        methods = {}
        for name in dir(obj):
            if name.startswith("_"):
                continue
            attr = inspect.getattr_static(obj, name)
            if isinstance(attr, (staticmethod, classmethod)):
                methods[name] = parameters(getattr(obj, name))
            elif inspect.isclass(attr) or callable(attr):
                methods[name] = parameters(getattr(obj, name))
        entry["methods"] = methods
    return entry


def surface():
    out = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        listed = getattr(module, "__all__", None)
        names = listed if listed is not None else [n for n in dir(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name, None)
            if obj is None or not callable(obj):
                continue
            if listed is None and not is_package_own(module, name, obj):
                continue  # an import of the module's (Path, dataclass, HfApi, ...)
            out[f"{module_name}.{name}"] = describe(obj)
    return out


if __name__ == "__main__":
    json.dump(surface(), sys.stdout, indent=1, sort_keys=True)
