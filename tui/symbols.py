"""What the source pane knows of a file's code: its functions and classes (go to symbol), the names each line uses
(inline values) and the function a line is in. Python from its `ast`; JavaScript/TypeScript from the pygments
token stream (no JS parser is installed with pairdbg): `function name`, `class name`, methods `name(...) {` and
`name = (...) =>` / `name = function`, which is a tokenizer-level scan, not a parse."""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from functools import lru_cache

from pygments.token import Keyword, Name, Token

PYTHON = (".py", ".pyw")
SCRIPT = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
JS_WORDS = frozenset({"if", "for", "while", "switch", "catch", "return", "function", "typeof", "new", "await"})


@dataclass(frozen=True)
class Symbol:
    name: str  # qualified: Class.method
    kind: str  # "function" | "class" | "method"
    line: int  # 1-based
    end: int  # last line (the next symbol's line - 1 where a scan cannot tell)


@dataclass(frozen=True)
class Outline:
    symbols: tuple[Symbol, ...]
    names: dict[int, tuple[str, ...]]  # line -> names the line reads or assigns, in order, once each
    error: str | None = None  # why there is no outline (a syntax error, a language not known)


def outline(path: str | None, lines: tuple[str, ...]) -> Outline:
    return _outline(path or "", lines)


@lru_cache(maxsize=16)
def _outline(path: str, lines: tuple[str, ...]) -> Outline:
    ext = os.path.splitext(path)[1].lower()
    if ext in PYTHON:
        return _python(lines)
    if ext in SCRIPT:
        return _script(path, lines)
    return Outline((), {}, "go to symbol knows Python, JavaScript and TypeScript files")


def _python(lines: tuple[str, ...]) -> Outline:
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError) as exc:
        return Outline((), {}, f"the file does not parse: {exc.msg if isinstance(exc, SyntaxError) else exc}")
    symbols: list[Symbol] = []
    names: dict[int, list[str]] = {}

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                is_class = isinstance(child, ast.ClassDef)
                kind = "class" if is_class else ("method" if in_class else "function")
                qualified = f"{prefix}{child.name}"
                symbols.append(Symbol(qualified, kind, child.lineno, child.end_lineno or child.lineno))
                if not is_class:
                    for arg in (*child.args.posonlyargs, *child.args.args, *child.args.kwonlyargs):
                        names.setdefault(arg.lineno, []).append(arg.arg)
                    for arg in (child.args.vararg, child.args.kwarg):
                        if arg is not None:
                            names.setdefault(arg.lineno, []).append(arg.arg)
                visit(child, qualified + ".", is_class)
            else:
                if isinstance(child, ast.Name):
                    names.setdefault(child.lineno, []).append(child.id)
                visit(child, prefix, in_class)

    visit(tree, "", False)
    symbols.sort(key=lambda s: s.line)
    return Outline(tuple(symbols), {line: tuple(dict.fromkeys(found)) for line, found in names.items()})


def _script(path: str, lines: tuple[str, ...]) -> Outline:
    from .source_view import lexer_for

    lexer = lexer_for(path)
    if isinstance(lexer, str):
        return Outline((), {}, "no tokenizer for this file")
    line = 1
    tokens: list[tuple[object, str, int]] = []
    for kind, text in lexer.get_tokens("\n".join(lines)):
        if kind not in Token.Text.Whitespace and kind not in Token.Comment and text.strip():
            tokens.append((kind, text, line))
        line += text.count("\n")
    found: list[tuple[str, str, int]] = []
    names: dict[int, list[str]] = {}
    for i, (kind, text, at) in enumerate(tokens):
        following = tokens[i + 1] if i + 1 < len(tokens) else (None, "", at)
        if kind in Keyword and text in ("function", "class") and following[0] in Name:
            found.append((following[1], "class" if text == "class" else "function", at))
        elif kind in Name and kind not in Name.Builtin:
            if text not in JS_WORDS:
                names.setdefault(at, []).append(text)
            previous = tokens[i - 1][1] if i else ""
            if following[1] == "(" and previous in (
                "",
                "}",
                ";",
                "{",
                "async",
                "static",
                "get",
                "set",
                "public",
                "private",
                "protected",
            ):
                close = _closing(tokens, i + 1)
                if close is not None and close + 1 < len(tokens) and tokens[close + 1][1] in ("{", ":"):
                    found.append((text, "method", at))
            elif (
                following[1] == "="
                and i + 2 < len(tokens)
                and (tokens[i + 2][1] in ("function", "async") or (tokens[i + 2][1] == "(" and _arrow(tokens, i + 2)))
            ):
                found.append((text, "function", at))
    found.sort(key=lambda f: f[2])
    symbols = tuple(
        Symbol(name, kind, at, (found[n + 1][2] - 1) if n + 1 < len(found) else len(lines))
        for n, (name, kind, at) in enumerate(found)
    )
    return Outline(symbols, {at: tuple(dict.fromkeys(n)) for at, n in names.items()})


def _closing(tokens: list[tuple[object, str, int]], open_at: int) -> int | None:
    depth = 0
    for j in range(open_at, min(len(tokens), open_at + 400)):
        text = tokens[j][1]
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def _arrow(tokens: list[tuple[object, str, int]], open_at: int) -> bool:
    close = _closing(tokens, open_at)
    return close is not None and close + 1 < len(tokens) and tokens[close + 1][1] == "=>"


def enclosing(found: Outline, line: int) -> Symbol | None:
    """The innermost function or method holding `line`."""
    best = None
    for symbol in found.symbols:
        inside = symbol.kind != "class" and symbol.line <= line <= symbol.end
        if inside and (best is None or symbol.line >= best.line):
            best = symbol
    return best
