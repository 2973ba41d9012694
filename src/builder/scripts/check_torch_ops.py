# Op-registration lint (docs/build-output.md): every top-level function, async function or class
# decorated with a Torch library registration call must name its op through
# add_op_namespace_prefix(...). Usage: check_torch_ops.py <file>...; prints one violation per
# line as "<file>:<line> <function|async function|class> <name>" (file as given).
import ast
import sys

REGISTRATIONS = {"custom_op", "triton_op", "register_kernel", "register_fake", "register_vmap",
                 "register_torch_dispatch"}


def called_name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def violations(path):
    with open(path, "rb") as handle:
        source = handle.read()
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError:
        return []
    found = []
    for node in tree.body:
        if isinstance(node, ast.AsyncFunctionDef):
            kind = "async function"
        elif isinstance(node, ast.FunctionDef):
            kind = "function"
        elif isinstance(node, ast.ClassDef):
            kind = "class"
        else:
            continue
        for decorator in node.decorator_list:
            if not isinstance(decorator, ast.Call) or called_name(decorator.func) not in REGISTRATIONS:
                continue
            if not decorator.args:
                continue
            first = decorator.args[0]
            if isinstance(first, ast.Call) and called_name(first.func) == "add_op_namespace_prefix":
                continue
            found.append("%s:%d %s %s" % (path, node.lineno, kind, node.name))
            break
    return found


def main():
    for path in sys.argv[1:]:
        for line in violations(path):
            print(line)


main()
