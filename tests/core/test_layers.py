"""The front ends read the core through its actions and queries: no reaching into a session's backend, no handles
minted outside the core, and the TUI runs actions only through the registry. Import-linter cannot see attribute paths,
so this reads the source."""

from __future__ import annotations

import ast
import importlib
import re

from support import ROOT

FRONT_ENDS = ("tui", "mcp_bridge")
REACHING_IN = re.compile(r"session\.backend\b|\.handles\.(frame|var|value|mint)\b|\._(require_paused|ended_error)\(")


def reaching_in() -> list[str]:
    found = []
    for folder in FRONT_ENDS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if REACHING_IN.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    return found


def test_front_ends_do_not_reach_into_a_session():
    assert reaching_in() == []


# ----- the TUI runs actions only through the registry -----------------------------------------------------------------

TUI_PACKAGE = "pairdbg.tui"


def action_handlers() -> set[int]:
    """The identity of every debugging action's handler (the service actions' handlers are closures made per service
    instance: no module can import them, so `.handler` is their only way round the registry)."""
    from pairdbg.backends.actions.catalogue import ACTIONS

    return {id(action.handler) for action in ACTIONS}


def resolve(dotted: str) -> object | None:
    """The object a dotted name means (`pairdbg.backends.actions.sessions.start_debugging`), or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name, None)
            if found is None:
                return None
        return found
    return None


def dotted_name(node: ast.expr) -> list[str] | None:
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(names)]


def handler_uses(source: str, package: str = TUI_PACKAGE) -> list[str]:
    """Where a module's source reaches an action handler other than through Registry.run: a name that means, through
    the module's imports, a registered handler (called or passed on alike), or any `.handler` attribute (an
    Action's handler, called directly, skips the registry's policy, activity line and redaction)."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # a name the module's imports bind -> the dotted name it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    handlers = action_handlers()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "handler":
            found.append(f"line {node.lineno}: {ast.unparse(node)} (an Action's handler)")
            continue
        if not isinstance(node, ast.Attribute | ast.Name) or not isinstance(getattr(node, "ctx", None), ast.Load):
            continue
        names = dotted_name(node)
        if names is None or names[0] not in bound:
            continue
        if id(resolve(".".join([bound[names[0]], *names[1:]]))) in handlers:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_the_checker_finds_each_way_round_the_registry():
    """It must be able to fail: each way a module could call a handler directly is found; a renderer is not one."""
    planted = """
from pairdbg.backends.actions.sessions import start_debugging
from pairdbg.backends.actions import execution as ex
import pairdbg.backends.actions.inspection
from pairdbg.backends.actions.render import where

async def go(hub, registry, params):
    await start_debugging(hub, params, "human")
    await ex.run_to_line(hub, params, "human")
    await pairdbg.backends.actions.inspection.evaluate_expression(hub, params, "human")
    await registry.actions["continue_execution"].handler(hub, params, "human")
    where("a.py", 1)
"""
    found = handler_uses(planted)
    assert [line.split(":")[0] for line in found] == ["line 8", "line 9", "line 10", "line 11"], found


def test_no_tui_module_calls_an_action_handler_directly():
    """The person's actions go through Registry.run as the agents' do (policy, activity, redaction)."""
    found = []
    for path in sorted((ROOT / "tui").rglob("*.py")):
        package = TUI_PACKAGE + "".join(f".{p}" for p in path.relative_to(ROOT / "tui").parent.parts)
        found += [f"tui/{path.relative_to(ROOT / 'tui')}: {use}" for use in handler_uses(path.read_text(), package)]
    assert found == []
