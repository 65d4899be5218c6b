"""Installed modules by name, resolved the way the debuggee would import them: Python's by the program's own
interpreter (its finders, its sys.path) without running the module's or its parent packages' code; Node's by the
program's node (`require.resolve` from the project)."""

from __future__ import annotations

import json
import os
import re

from .errors import DebugError, ErrorCode
from .process import run_briefly

DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
NODE_NAME = re.compile(r"^(@[\w.-]+/)?[\w.-]+(/[\w./-]+)?$")
RESOLVE_TIMEOUT_S = 10.0

# Run by the program's interpreter: each finder on sys.meta_path is asked for every part of the name in turn, with
# the parent's search locations, which is what `import` does minus executing the parents' __init__ (find_spec would
# import `yaml` to find `yaml.constructor`). Answers one JSON object.
_LOCATE = r"""
def locate(name):
    import json, sys
    def find(fullname, path):
        for finder in sys.meta_path:
            spec = getattr(finder, "find_spec", None) and finder.find_spec(fullname, path)
            if spec is not None:
                return spec
        return None
    parts, path, spec = name.split("."), None, None
    for i in range(len(parts)):
        fullname = ".".join(parts[: i + 1])
        if fullname in sys.builtin_module_names:
            return json.dumps({"builtin": True})
        spec = find(fullname, path)
        if spec is None:
            return json.dumps({"missing": fullname})
        path = spec.submodule_search_locations
        if i < len(parts) - 1 and path is None:
            return json.dumps({"missing": ".".join(parts[: i + 2]), "not_package": fullname})
    origin = spec.origin if spec.has_location else None
    return json.dumps({"origin": origin, "locations": list(spec.submodule_search_locations or [])})
"""
_PYTHON_FINDER = (
    _LOCATE
    + r"""
import sys
if sys.argv[2]:
    sys.path.insert(0, sys.argv[2])
print(locate(sys.argv[1]))
"""
)


def locate_expression(name: str) -> str:
    """An expression that, evaluated in a paused Python program, answers `locate(name)` as JSON text (for a program
    pairdbg did not launch: its own interpreter, wherever it runs)."""
    name = check_name(name, "python")
    return f"(lambda ns: (exec({_LOCATE!r}, ns), ns['locate']({name!r}))[1])({{}})"


_NODE_RESOLVER = "process.stdout.write(require.resolve(process.argv[1], {paths: [process.argv[2]]}))"


def check_name(name: str, language: str) -> str:
    name = name.strip()
    pattern = DOTTED if language == "python" else NODE_NAME
    if not pattern.match(name):
        example = "json.decoder" if language == "python" else "lodash or @scope/pkg/file"
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS, f"{name!r} is not a module name", hint=f"type a module name, e.g. {example}"
        )
    return name


async def _run(argv: list[str], cwd: str | None, env: dict[str, str] | None) -> tuple[int, str, str]:
    try:
        code, out, err = await run_briefly(
            argv, RESOLVE_TIMEOUT_S, cwd=cwd if cwd and os.path.isdir(cwd) else None, env={**os.environ, **(env or {})}
        )
    except OSError as exc:
        raise DebugError(ErrorCode.CONNECTION_FAILED, f"could not run {argv[0]}: {exc}") from None
    except TimeoutError:
        raise DebugError(ErrorCode.TIMEOUT, f"{argv[0]} did not answer within {RESOLVE_TIMEOUT_S:g}s") from None
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


async def resolve_python(python: str, name: str, program_dir: str | None, cwd: str | None, env: dict | None) -> str:
    """The source file of Python module `name` for `python` (a package's __init__.py)."""
    name = check_name(name, "python")
    code, out, err = await _run([python, "-c", _PYTHON_FINDER, name, program_dir or ""], cwd, env)
    try:
        answer = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise DebugError(
            ErrorCode.PROTOCOL_ERROR, f"{python} could not look up {name}: {(err or out).strip()[-200:]}"
        ) from None
    return source_of(name, answer, python)


def source_of(name: str, answer: dict, python: str) -> str:
    """The file a `locate` answer names, or PATH_NOT_FOUND saying why there is none."""
    if answer.get("builtin"):
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"{name} is built into {python}: it has no source file")
    if "missing" in answer:
        hint = f"{answer['not_package']} is a module, not a package" if answer.get("not_package") else None
        raise DebugError(
            ErrorCode.PATH_NOT_FOUND,
            f"no module named {answer['missing']} for {python}",
            hint=hint or "check the spelling, or that it is installed for the program's interpreter",
        )
    origin = answer.get("origin")
    if not origin:  # a namespace package: no file of its own
        where = ", ".join(answer.get("locations") or []) or "several folders"
        raise DebugError(
            ErrorCode.PATH_NOT_FOUND,
            f"{name} is a namespace package (in {where}): open one of its modules",
            hint=f"type {name}.<module>",
        )
    if not origin.endswith((".py", ".pyw")):
        source = os.path.splitext(origin)[0] + ".py"
        if os.path.isfile(source):
            return source
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"{name} is compiled code ({origin}): no Python source to show")
    return origin


async def resolve_node(node: str, name: str, root: str) -> str:
    """The file `require(name)` loads from `root` (a package's main file)."""
    name = check_name(name, "javascript")
    code, out, err = await _run([node, "-e", _NODE_RESOLVER, name, root], root, None)
    if code != 0 or not out:
        raise DebugError(
            ErrorCode.PATH_NOT_FOUND,
            f"no module named {name} from {root}",
            hint="check the spelling, or that it is installed in the project (npm install)",
        )
    if not os.path.isabs(out):
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"{name} is built into node: it has no source file")
    return out
