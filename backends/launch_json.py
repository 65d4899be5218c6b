"""Reads VS Code `.vscode/launch.json` configurations and turns them into pairdbg start arguments.

launch.json is JSON with comments and trailing commas; `${workspaceFolder}`-style variables are substituted.
Supported: Python (`python`, `debugpy`) and JavaScript (`node`, `pwa-node`, `bun`) launch configurations, and
`attach` ones that name a host and port. Anything else is refused with a message that says what is supported.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from .errors import DebugError, ErrorCode

VARIABLE = re.compile(r"\$\{([^}]+)\}")


def strip_jsonc(text: str) -> str:
    """Remove // and /* */ comments and trailing commas, leaving strings untouched (line numbers kept)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
        elif ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))  # keep line numbers for error messages
            i = end
        else:
            out.append(ch)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def load_configurations(workspace: str) -> list[dict[str, Any]]:
    path = Path(workspace) / ".vscode" / "launch.json"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise DebugError(
            ErrorCode.PATH_NOT_FOUND,
            f"no launch.json at {path}",
            hint="pass the workspace folder that contains .vscode/launch.json",
        ) from None
    try:
        data = json.loads(strip_jsonc(text))
    except json.JSONDecodeError as exc:
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}",
            hint="fix the file (comments and trailing commas are fine)",
        ) from None
    configs = data.get("configurations") if isinstance(data, dict) else None
    if not isinstance(configs, list):
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f'{path} has no "configurations" list')
    return [c for c in configs if isinstance(c, dict)]


def substitute(value: Any, workspace: str, environment: bool = True) -> Any:
    """${workspaceFolder}, ${workspaceFolderBasename}, ${cwd}, ${userHome}, ${env:NAME}, ${pathSeparator}.

    With environment=False, ${env:NAME} stays as written: pairdbg's own environment is not shown to agents."""
    if isinstance(value, list):
        return [substitute(v, workspace, environment) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, workspace, environment) for k, v in value.items()}
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "workspaceFolder" or name == "workspaceRoot":
            return workspace
        if name == "workspaceFolderBasename":
            return os.path.basename(workspace.rstrip("/"))
        if name == "cwd":
            return os.getcwd()
        if name == "userHome":
            return os.path.expanduser("~")
        if name == "pathSeparator":
            return os.sep
        if name.startswith("env:"):
            return os.environ.get(name[4:], "") if environment else match.group(0)
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"launch.json variable ${{{name}}} is not supported here",
            hint="supported: workspaceFolder, workspaceFolderBasename, cwd, userHome, env:NAME",
        )

    return VARIABLE.sub(one, value)


def to_action(config: dict[str, Any], workspace: str, environment: bool = True) -> tuple[str, dict[str, Any]]:
    """(action name, its arguments) for one configuration; `environment` as in `substitute`."""
    config = substitute(config, os.path.abspath(workspace), environment)
    kind = str(config.get("type", ""))
    request = config.get("request", "launch")
    language = {
        "python": "python",
        "debugpy": "python",
        "node": "javascript",
        "pwa-node": "javascript",
        "bun": "javascript",
    }.get(kind)
    if language is None:
        raise DebugError(
            ErrorCode.CAPABILITY_UNSUPPORTED,
            f"launch.json type {kind!r} is not supported",
            hint="supported types: python, debugpy, node, pwa-node, bun",
        )
    if request == "attach":
        connect = config.get("connect") or {}
        host = connect.get("host") or config.get("address") or config.get("host") or "127.0.0.1"
        port = connect.get("port") or config.get("port")
        if not port:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"attach configuration {config.get('name')!r} has no port")
        attach = {"target": f"{host}:{port}", "language": language}
        if language == "python" and "justMyCode" in config:
            attach["just_my_code"] = bool(config["justMyCode"])
        if language == "python" and isinstance(config.get("pathMappings"), list):
            attach["path_mappings"] = [
                {
                    "localRoot": os.path.join(workspace, str(m.get("localRoot") or ".")),  # relative: to the workspace
                    "remoteRoot": str(m.get("remoteRoot") or ""),
                }
                for m in config["pathMappings"]
                if isinstance(m, dict)
            ]
        if language == "javascript" and config.get("localRoot") and config.get("remoteRoot"):
            local = os.path.join(workspace, str(config["localRoot"]))  # relative: to the workspace
            attach["path_mappings"] = [{"localRoot": local, "remoteRoot": str(config["remoteRoot"])}]
        return "attach", attach
    if request != "launch":
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"request {request!r} must be launch or attach")
    program = config.get("program")
    module = config.get("module")
    if not program and not module:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"configuration {config.get('name')!r} has no program")
    args: dict[str, Any] = {
        "program": program or module,
        "language": language,
        "args": [str(a) for a in config.get("args") or []],
        "stop_on_entry": bool(config.get("stopOnEntry", False)),
    }
    if module:
        args["module"] = True
    if program and str(program).endswith((".ts", ".mts", ".cts")):
        args["language"] = "typescript"
    if config.get("cwd"):
        args["cwd"] = config["cwd"]
    if isinstance(config.get("env"), dict):
        args["env"] = {str(k): str(v) for k, v in config["env"].items()}
    if language == "python" and config.get("python"):
        args["executable_path"] = config["python"]
    if language == "python" and "justMyCode" in config:
        args["just_my_code"] = bool(config["justMyCode"])
    if kind == "bun" or config.get("runtimeExecutable") == "bun":
        args["runtime"] = "bun"
    return "start_debugging", args


def find(workspace: str, name: str) -> dict[str, Any]:
    configs = load_configurations(workspace)
    for config in configs:
        if config.get("name") == name:
            return config
    names = ", ".join(repr(c.get("name")) for c in configs) or "none"
    raise DebugError(ErrorCode.PATH_NOT_FOUND, f"no launch configuration named {name!r} (have: {names})")
