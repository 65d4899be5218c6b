"""Where a Python function breakpoint's function is: its file and first body line (run in the program's Python).

pydevd matches a function breakpoint by a frame's bare code name and only in code it traces, so under justMyCode a
breakpoint on a library function (`yaml.safe_load`) was reported verified and never stopped. pairdbg instead finds
the function's file and first body line and binds a line breakpoint there, which hits like any breakpoint set on
purpose in a library file. This file is a script for the program's interpreter (before the program starts) and the
source of an expression evaluated in the running program; it uses only the standard library, on Python 3.8+.

Answer: ("ok", file, line, how) or ("error", why). Nothing is imported to find a function: a module the program has
imported is read from memory (precise: decorators unwrapped, re-exports followed by the objects themselves); any other
is found on the path and read as source.
"""

import ast
import dis
import importlib.machinery
import inspect
import os
import sys

MAX_HOPS = 8  # re-exports followed (`from .environment import Template`)


def resolve(name):
    parts = name.strip().split(".")
    if len(parts) < 2 or not all(p.isidentifier() for p in parts):
        return ("error", "not a qualified name (module.function or module.Class.method)")
    found = from_memory(parts)
    return found if found is not None else from_source(parts)


def from_memory(parts):
    """The function of an imported module, through the objects; None when no prefix of the name is imported."""
    for cut in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is None:
            continue
        obj = module
        for attr in parts[cut:]:
            try:
                obj = inspect.getattr_static(obj, attr)
            except AttributeError:
                return None  # not there yet (set later, or in a submodule not imported): read the source instead
            obj = getattr(obj, "__func__", obj)  # classmethod, staticmethod
        obj = getattr(obj, "fget", obj)  # a property: its getter
        try:
            obj = inspect.unwrap(obj)
        except ValueError:
            pass
        code = getattr(obj, "__code__", None)
        if code is None:
            kind = "a class: name one of its methods" if inspect.isclass(obj) else "not Python code (built-in or data)"
            return ("error", ".".join(parts) + " is " + kind)
        if not os.path.isfile(code.co_filename):
            return ("error", ".".join(parts) + " has no source file here (" + code.co_filename + ")")
        return ("ok", os.path.abspath(code.co_filename), first_code_line(code), "imported")
    return None


def first_code_line(code):
    """The first line of the function's body that runs (its docstring runs nothing)."""
    lines = [line for _, line in dis.findlinestarts(code) if line and line > code.co_firstlineno]
    return min(lines) if lines else code.co_firstlineno


def from_source(parts):
    """The function found by reading source files on the path; nothing is imported."""
    spec, used = None, 0
    search = None
    for i in range(len(parts) - 1):
        found = importlib.machinery.PathFinder.find_spec(".".join(parts[: i + 1]), search)
        if found is None:
            break
        spec, used = found, i + 1
        if found.submodule_search_locations is None:
            break
        search = list(found.submodule_search_locations)
    if spec is None:
        return ("error", "no module " + parts[0] + " on the program's path")
    return in_module(spec, parts[used:], 0)


def in_module(spec, rest, hops):
    origin = spec.origin or ""
    if not origin.endswith(".py"):
        return ("error", spec.name + " is not Python source (" + (os.path.basename(origin) or "no file") + ")")
    with open(origin, "rb") as fh:
        tree = ast.parse(fh.read(), origin)
    package = spec.name if spec.submodule_search_locations is not None else spec.name.rpartition(".")[0]
    body = tree.body
    for depth, wanted in enumerate(rest):
        node = next((n for n in reversed(body) if defines(n, wanted)), None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and depth == len(rest) - 1:
            return ("ok", os.path.abspath(origin), first_statement(node), "source")
        if isinstance(node, ast.ClassDef) and depth < len(rest) - 1:
            body = node.body
            continue
        if isinstance(node, ast.ImportFrom) and depth == 0 and hops < MAX_HOPS:
            return re_exported(node, wanted, rest[1:], package, hops)
        where = spec.name + ("." + ".".join(rest[:depth]) if depth else "")
        if isinstance(node, ast.ClassDef):
            return ("error", ".".join(rest) + " in " + where + " is a class: name one of its methods")
        if node is None:
            return ("error", "no function or class " + wanted + " in " + where + " (" + origin + ")")
        return ("error", ".".join(rest[: depth + 1]) + " in " + where + " is not a def pairdbg can read")
    return ("error", spec.name + " is a module: name a function in it")


def defines(node, name):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.ImportFrom):
        return any((alias.asname or alias.name) == name for alias in node.names)
    return False


def re_exported(node, wanted, rest, package, hops):
    """`from .environment import Template` in a package's __init__: look in that module."""
    original = next(alias.name for alias in node.names if (alias.asname or alias.name) == wanted)
    base = package
    for _ in range(max(node.level - 1, 0)):
        base = base.rpartition(".")[0]
    module = ((base + ".") if node.level and base else "") + (node.module or "")
    if not module:
        return ("error", wanted + " is a module imported from " + package + ": name a function in it")
    spec, search = None, None
    names = module.split(".")
    for i in range(len(names)):
        spec = importlib.machinery.PathFinder.find_spec(".".join(names[: i + 1]), search)
        if spec is None:
            return ("error", "cannot find module " + module + " that " + package + " imports " + wanted + " from")
        search = list(spec.submodule_search_locations or [])
    return in_module(spec, [original, *rest], hops + 1)


def first_statement(node):
    body = node.body
    docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
    if docstring and isinstance(body[0].value.value, str) and len(body) > 1:
        return body[1].lineno
    return body[0].lineno


def main():
    # Run as a script for a program about to start: its folder (or, for -m, its cwd) comes first on the path.
    sys.path[0] = sys.argv[1]
    try:
        print(repr(resolve(sys.argv[2])))
    except Exception as exc:  # a file that does not parse, one that cannot be read: said, not a traceback
        print(repr(("error", type(exc).__name__ + ": " + str(exc))))


if __name__ == "__main__":
    main()
