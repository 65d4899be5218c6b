"""Where a JavaScript/TypeScript function breakpoint's function is: `module:name` -> the file and the first line of
the function's body, found by reading the file (nothing runs in the program).

Node's and Bun's inspectors and js-debug have no function breakpoints, so pairdbg binds `qs/lib/parse.js:parseObject`
as a line breakpoint on the function's first body line: it is pending until the module loads and stops like any
line breakpoint after. The module is a path relative to the program's folder or the project, or a name Node resolves
from the program's folder (`require.resolve`, see modules.resolve_node).

The file is read by a small tokenizer (strings, template literals, comments and regular expressions are skipped so
their braces do not count), not a parser: pairdbg installs no JavaScript parser. It finds `function name(`,
`name = function`, `name = (...) =>` and `name = x =>` (also `a.b.name = ...`, `exports.name = ...`), class methods
`name(...) {` (static, async, get/set, generators, TypeScript modifiers), class fields `name = (...) =>` and object
literal members (`name: function`, `name: (...) =>`, `name(...) {`). Qualified names follow classes and object
literals assigned to a name (`Class.method`, `obj.fn`); `Foo.prototype.bar` also answers to `Foo.bar`, a function
inside another to `outer.inner`; of a name defined twice the last definition binds (a getter and its setter: the
setter). It misses functions made at run time (`obj[name] = ...`, factories, `Object.assign` of another module's),
computed names, and a TypeScript return type that is an object type after an operator it does not know. A regular
expression after `)` or `}` is read as a division (the usual tokenizer compromise): a brace inside one can shift the
scopes of the code after it.
"""

from __future__ import annotations

import asyncio
import os
import re
import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Awaitable, Callable
from typing import NamedTuple

from .base import FunctionLocation, ProgramRuntime
from .errors import DebugError, ErrorCode
from .modules import resolve_node
from .project import project_root

IDENT = re.compile(r"[A-Za-z_$][\w$]*")
NAME = re.compile(r"^[A-Za-z_$#][\w$]*(\.[A-Za-z_$#][\w$]*)*$")
PUNCT = re.compile(
    r"===|!==|==|!=|<=|>=|=>|&&=|\|\|=|\?\?=|&&|\|\||\?\?|\*\*|\+\+|--|[-+*/%&|^]=|\.\.\.|\?\."
    r"|[{}()\[\];,<>+\-*/%&|^!~?:=.@#]"
)
# After these a `/` starts a regular expression, not a division.
REGEX_AFTER_WORDS = frozenset({"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case",
                               "do", "else", "yield", "await"})
MODIFIERS = frozenset({"static", "async", "get", "set", "public", "private", "protected", "readonly", "override",
                       "abstract", "declare", "export", "default", "accessor"})
NOT_METHODS = frozenset({"if", "for", "while", "switch", "catch", "with", "function", "return", "typeof", "new",
                         "await", "super", "import", "yield", "void", "delete", "throw"})
STATEMENT_START = frozenset({";", "{", "}", ")", ","})
SOURCE_EXTENSIONS = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx")


class Token(NamedTuple):  # a tuple: a 9 MB bundle has 1.2 million of them
    kind: str  # "name", "punct", "string", "other"
    text: str
    line: int


@dataclass(frozen=True)
class Found:
    name: str  # qualified: Class.method, obj.fn, or the bare name
    line: int  # where it is defined
    body_line: int  # the first line of its body that runs
    nested: bool  # defined inside another function (its name is then not reachable from outside)
    outer: str = ""  # the named functions it is inside, dotted ("createStore" for its inner dispatch)
    # A function whose body starts on a line where other code runs first (`x = (a) => a + 1`, a minified bundle): a
    # line breakpoint there stops when that line runs (the assignment), not when the function is called.
    shares_line: bool = False


# One regex step per token or run of blanks; strings, templates and regexes are finished by hand (escapes, `${}`
# holes, the regex-or-division question). Group names are the kinds.
SCAN = re.compile(
    r"(?P<blank>[ \t\r\f\v\ufeff\n]+)|(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))|(?P<name>[A-Za-z_$][\w$]*)"
    r"|(?P<other>\d[\w.]*|\.\d\w*)|(?P<quote>['\"`/])|(?P<punct>" + PUNCT.pattern + ")",
    re.S,
)


def tokens(text: str) -> list[Token]:
    """The file's tokens without whitespace and comments; a string, template literal or regex is one token."""
    out: list[Token] = []
    i, line, n = 0, 1, len(text)
    if text.startswith("#!"):
        i = text.find("\n") if "\n" in text else n
    while i < n:
        match = SCAN.match(text, i)
        if match is None:
            out.append(Token("other", text[i], line))
            i += 1
            continue
        kind, end = match.lastgroup or "other", match.end()
        if kind in ("blank", "comment"):
            line += text.count("\n", i, end)
            i = end
            continue
        if kind == "quote":
            c = text[i]
            if c == "/" and not _regex_may_start(out):
                out.append(Token("punct", "/=" if text.startswith("/=", i) else "/", line))
                i += len(out[-1].text)
                continue
            end = _template_end(text, i) if c == "`" else _regex_end(text, i) if c == "/" else _string_end(text, i, c)
            out.append(Token("string", text[i:end], line))
            line += text.count("\n", i, end)
            i = end
            continue
        out.append(Token(kind, match.group(), line))
        i = end
    return out


def _string_end(text: str, i: int, quote: str) -> int:
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote or text[j] == "\n":
            return j + 1
        j += 1
    return len(text)


def _template_end(text: str, i: int) -> int:
    """The end of a template literal, across `${ ... }` holes (which may hold strings and templates)."""
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
        elif c == "`":
            return j + 1
        elif text.startswith("${", j):
            j = _hole_end(text, j + 2)
        else:
            j += 1
    return len(text)


def _hole_end(text: str, j: int) -> int:
    depth = 1
    while j < len(text):
        c = text[j]
        if c in "'\"":
            j = _string_end(text, j, c)
            continue
        if c == "`":
            j = _template_end(text, j)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(text)


def _regex_may_start(out: list[Token]) -> bool:
    if not out:
        return True
    last = out[-1]
    if last.kind == "name":
        return last.text in REGEX_AFTER_WORDS
    if last.kind in ("string", "other"):
        return False
    return last.text not in (")", "]", "}")


def _regex_end(text: str, i: int) -> int:
    j, in_class = i + 1, False
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            return j  # not a regex after all: stop at the line's end
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            j += 1
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1  # flags
            return j
        j += 1
    return len(text)


@dataclass
class _Scope:
    kind: str  # "class", "object", "function", "block"
    name: str | None  # a class's or named object literal's: its members' prefix; a function's: its inner ones' outer


class _Scan:
    """One pass over the tokens, keeping a stack of the braces' scopes to qualify the names found."""

    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.found: list[Found] = []
        self.stack: list[_Scope] = []
        self.pending: dict[int, _Scope] = {}  # index of a `{` -> the scope it opens (decided before reaching it)
        self._claimed: int | None = None  # the body `{` the definition being read claimed

    def run(self) -> list[Found]:
        toks = self.toks
        for i, tok in enumerate(toks):
            if tok.text == "{" and tok.kind == "punct":
                self.stack.append(self.pending.pop(i, None) or self._guess_scope(i))
                continue
            if tok.text == "}" and tok.kind == "punct":
                if self.stack:
                    self.stack.pop()
                continue
            if tok.kind != "name":
                continue
            self._claimed = None
            self._at_name(i)
        return self.found

    # ----- scopes ---------------------------------------------------------------------------------------------------

    def _prefix(self) -> str:
        names = [s.name for s in self.stack if s.kind in ("class", "object") and s.name]
        return ".".join(names) + "." if names else ""

    def _nested(self) -> bool:
        return any(s.kind == "function" for s in self.stack)

    def _outer(self) -> str:
        return ".".join(s.name for s in self.stack if s.kind == "function" and s.name)

    def _inside(self) -> str:
        return self.stack[-1].kind if self.stack else "top"

    def _guess_scope(self, i: int) -> _Scope:
        """A `{` no definition claimed: an object literal (named when assigned to a name or a key) or a block."""
        prev = self.toks[i - 1] if i else None
        block_before = (";", "{", "}", ")", "else", "do", "try", "finally")
        if prev is None or (prev.kind != "string" and prev.text in block_before):
            return _Scope("block", None)
        if prev.text in ("=", ":") and i >= 2:
            lhs = self._lhs(i - 1) if prev.text == "=" else self._key(i - 1)
            if lhs:
                return _Scope("object", _short(lhs))
        return _Scope("object", None)

    def _lhs(self, eq: int) -> str | None:
        """The dotted name assigned at `=` (toks[eq]): `a.b.c =`, `const x =`, TypeScript `const x: T =`."""
        j = eq - 1
        parts: list[str] = []
        while j >= 0 and self.toks[j].kind == "name":
            parts.append(self.toks[j].text)
            if j >= 1 and self.toks[j - 1].text == "." and self.toks[j - 1].kind == "punct":
                j -= 2
                continue
            break
        start = self.toks[j - 1] if j >= 1 else None  # what comes before the chain: a statement's start, or a type
        typed = not parts or (
            start is not None and start.text not in STATEMENT_START and start.text not in MODIFIERS
            and start.text not in ("const", "let", "var")
        )
        if parts and not typed:
            return ".".join(reversed(parts))
        return self._typed_name(eq)

    def _typed_name(self, eq: int) -> str | None:
        """`const x: Map<K, V> =` (or a class field `x: T =`): back over the type to the name."""
        depth = 0
        for k in range(eq - 1, max(eq - 40, 1), -1):
            t = self.toks[k]
            if t.text in (")", "]", ">", "}"):
                depth += 1
            elif t.text in ("(", "[", "<", "{"):
                depth -= 1
            elif t.text == ":" and depth == 0 and self.toks[k - 1].kind == "name":
                before = self.toks[k - 2].text if k >= 2 else ""
                if before in ("const", "let", "var") or self._inside() == "class":
                    return self.toks[k - 1].text
                return None
            if t.text in (";", "=") and depth <= 0:
                return None
        return None

    def _key(self, colon: int) -> str | None:
        """The key of an object member `key:` (a name or a quoted name)."""
        key = self.toks[colon - 1]
        if key.kind == "name":
            return key.text
        if key.kind == "string" and key.text[:1] in "'\"" and IDENT.fullmatch(key.text[1:-1]):
            return key.text[1:-1]
        return None

    # ----- definitions ----------------------------------------------------------------------------------------------

    def _at_name(self, i: int) -> None:
        toks = self.toks
        tok = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if tok.text == "function" and nxt is not None:
            j = i + 1
            if nxt.text == "*":
                j += 1
            if j < len(toks) and toks[j].kind == "name" and j + 1 < len(toks) and toks[j + 1].text in ("(", "<"):
                name = toks[j].text
                if i >= 2 and toks[i - 1].text in ("=", ":"):
                    return  # `x = function name(`: recorded under x by the assignment
                body = self._params_at(j + 1)
                self._define(self._prefix_for_declaration() + name, tok.line, body, code_before=self._code_before(i))
            return
        if tok.text == "class" and nxt is not None and nxt.kind == "name" and nxt.text not in ("extends", "implements"):
            self._open_class(i + 2, _short(self._prefix_for_declaration() + nxt.text))
            return
        if nxt is None:
            return
        if nxt.text == "=" and nxt.kind == "punct" and i + 2 < len(toks):
            self._assignment(i)
        elif nxt.text == ":" and self._inside() == "object" and not (i and toks[i - 1].text in ("?", "case")):
            value = i + 2
            if self._is_function_value(value):
                self._define(self._prefix() + tok.text, tok.line, self._value_body(value), expression=True)
            elif value < len(toks) and toks[value].text == "class":
                self._open_class(value + 1, _short(self._prefix() + tok.text))
        elif nxt.text == "=" or nxt.text == ":":
            return
        elif self._inside() in ("class", "object") and tok.text not in NOT_METHODS:
            self._method(i)

    def _prefix_for_declaration(self) -> str:
        return self._prefix() if self._inside() in ("class", "object") else ""

    def _assignment(self, i: int) -> None:
        toks = self.toks
        value = i + 2
        lhs = self._lhs(i + 1)
        if not lhs:
            return
        if i >= 1 and toks[i - 1].text == "." and toks[i - 1].kind == "punct":
            pass  # the dotted chain was read whole from its last part
        elif i >= 1 and toks[i - 1].kind == "name" and toks[i - 1].text not in ("const", "let", "var", "static",
                                                                                 "readonly", "public", "private",
                                                                                 "protected", "export", "declare",
                                                                                 "accessor", "override"):
            return  # not an assignment statement this scan understands
        prefix = self._prefix() if self._inside() == "class" else ""
        if value < len(toks) and toks[value].text == "class":
            self._open_class(value + 1, _short(prefix + lhs))
        elif self._is_function_value(value):
            self._define(prefix + lhs, toks[i].line, self._value_body(value), expression=True)

    def _is_function_value(self, j: int) -> bool:
        toks = self.toks
        if j >= len(toks):
            return False
        if toks[j].text == "async" and j + 1 < len(toks) and toks[j + 1].line == toks[j].line:
            j += 1
        t = toks[j]
        if t.text == "function":
            return True
        if t.kind == "name" and j + 1 < len(toks) and toks[j + 1].text == "=>":
            return True
        if t.text in ("(", "<"):
            close = self._close(j)
            if close is None or close + 1 >= len(toks):
                return False
            after = toks[close + 1]
            if after.text == "=>":
                return True
            if after.text == ":":  # TypeScript return type: an arrow follows it at this level
                for k in range(close + 2, min(len(toks), close + 40)):
                    if toks[k].text == "=>":
                        return True
                    if toks[k].text in (";", "{", "}", "="):
                        return False
            if t.text == "<" and after.text == "(":  # generic arrow `<T>(x: T) =>`
                return self._is_function_value(close + 1)
        return False

    def _value_body(self, j: int) -> int | None:
        """The first body line of the function value starting at toks[j] (and claim its `{` as a function scope)."""
        toks = self.toks
        if toks[j].text == "async":
            j += 1
        if toks[j].text == "function":
            k = j + 1
            while k < len(toks) and toks[k].text != "(":
                k += 1
            return self._params_at(k)
        if toks[j].kind == "name":  # x => ...
            return self._arrow_body(j + 1)
        close = self._close(j)
        if close is not None and toks[j].text == "<":
            close = self._close(close + 1)
        if close is None:
            return None
        k = close + 1
        while k < len(toks) and toks[k].text != "=>":
            k += 1
        return self._arrow_body(k)

    def _arrow_body(self, arrow: int) -> int | None:
        toks = self.toks
        if arrow + 1 >= len(toks):
            return None
        if toks[arrow + 1].text == "{":
            return self._body(arrow + 1)
        return toks[arrow + 1].line  # an expression body

    def _params_at(self, open_: int) -> int | None:
        """From the `(` (or `<` of type parameters) of a function's parameters: its body's first line."""
        toks = self.toks
        if open_ < len(toks) and toks[open_].text == "<":
            close = self._close(open_)
            open_ = close + 1 if close is not None else open_
        if open_ >= len(toks) or toks[open_].text != "(":
            return None
        close = self._close(open_)
        if close is None:
            return None
        k, depth = close + 1, 0
        while k < len(toks):  # a TypeScript return type between ) and { (generic and object types skipped)
            t = toks[k]
            if t.kind == "punct" and t.text in ("(", "[", "<"):
                depth += 1
            elif t.kind == "punct" and t.text in (")", "]", ">"):
                depth -= 1
            elif t.text == "{" and (depth > 0 or toks[k - 1].text in (":", "|", "&", ",")):
                k = self._close(k) or k  # an object type, not the body
            elif t.text == "{":
                return self._body(k)
            elif depth <= 0 and (t.text in (";", "=>", "}") or (t.text == "=" and t.kind == "punct")):
                return None  # an overload signature or a declaration: no body here
            k += 1
        return None

    def _body(self, brace: int) -> int:
        """Claim the `{` at toks[brace] as a function body; the line of its first statement (a "use strict" directive
        runs nothing; an empty body's closing brace is where it stops)."""
        toks = self.toks
        self.pending[brace] = _Scope("function", None)
        self._claimed = brace
        k = brace + 1
        while k < len(toks):
            after = toks[k + 1].text if k + 1 < len(toks) else ""
            if toks[k].text == ";":
                k += 1
            elif toks[k].kind == "string" and toks[k].text[:1] in "'\"" and after in (";", "}"):
                k += 2 if after == ";" else 1  # a directive ("use strict")
            else:
                break
        return toks[min(k, len(toks) - 1)].line

    def _method(self, i: int) -> None:
        """`name(...) {` (with modifiers, `*`, `#private`, type parameters) directly in a class or object literal."""
        toks = self.toks
        prev = toks[i - 1] if i else None
        # In a class body every `name(` is a method (decorators `@Get()` may precede it); in an object literal a
        # member starts after `{` or `,`.
        if self._inside() == "object" and prev is not None and not (
            prev.text in ("{", ",", "*") or prev.text in MODIFIERS
        ):
            return
        if prev is not None and prev.text in ("@", "."):
            return  # a decorator `@Get()` (or `@a.b()`), not a method
        name = "#" + toks[i].text if prev is not None and prev.text == "#" else toks[i].text
        if name in MODIFIERS and i + 1 < len(toks) and toks[i + 1].kind == "name":
            return  # `static foo(`: the method is the next name
        j = i + 1
        if j < len(toks) and toks[j].text == "?":
            j += 1  # optional method (TypeScript)
        if j >= len(toks) or toks[j].text not in ("(", "<"):
            return
        body = self._params_at(j)
        if body is not None:
            self._define(self._prefix() + name, toks[i].line, body, code_before=self._code_before(i))

    def _open_class(self, j: int, name: str) -> None:
        """Claim the `{` of a class body (after extends/implements clauses) as a class scope."""
        toks = self.toks
        depth = 0
        for k in range(j, min(len(toks), j + 200)):
            t = toks[k].text
            if t in ("(", "[", "<"):
                depth += 1
            elif t in (")", "]", ">"):
                depth -= 1
            elif t == "{" and depth <= 0:
                self.pending[k] = _Scope("class", name)
                return
            elif t == ";":
                return

    def _close(self, open_: int) -> int | None:
        pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
        opener = self.toks[open_].text
        closer = pairs.get(opener)
        if closer is None:
            return None
        depth = 0
        for k in range(open_, min(len(self.toks), open_ + 2000)):
            t = self.toks[k]
            if t.kind != "punct":
                continue
            if t.text == opener:
                depth += 1
            elif t.text == closer:
                depth -= 1
                if depth == 0:
                    return k
            elif opener == "<" and t.text in (";", "{", "=>"):
                return None  # a comparison, not type parameters
        return None

    def _code_before(self, start: int) -> bool:
        """Whether code that runs comes before toks[start] on its line (`var x = 1; function f() {` in a bundle, or
        another function's closing brace): a line breakpoint binds there first."""
        line = self.toks[start].line
        k = start - 1
        while k >= 0 and self.toks[k].line == line:
            if self.toks[k].text not in MODIFIERS and self.toks[k].text not in ("*", "#", "{"):
                return True
            k -= 1
        return False

    def _define(
        self, name: str, line: int, body_line: int | None, expression: bool = False, code_before: bool = False
    ) -> None:
        """Record a function (its body's scope, when _body claimed one just now, is named after it). `expression`:
        a function value (assigned, a member's, a field's), whose defining line runs code of its own; `code_before`:
        other code before the definition on its line."""
        brace, self._claimed = self._claimed, None
        if body_line is None:
            return
        outer = self._outer()
        shares = body_line == line and (expression or code_before)
        self.found.append(Found(name, line, body_line, self._nested(), outer, shares))
        if brace is not None and brace in self.pending:
            self.pending[brace].name = f"{outer}.{name}" if outer else name


def _short(name: str) -> str:
    """`module.exports.x` and `exports.x` answer to x; `Foo.prototype.bar` to Foo.bar."""
    for head in ("module.exports.", "exports."):
        if name.startswith(head):
            name = name[len(head):]
    return name.replace(".prototype.", ".")


def functions(text: str) -> list[Found]:
    """Every function the scan finds in a file's text, each under its qualified and short names."""
    found = _Scan(tokens(text)).run()
    out: list[Found] = []
    for f in found:
        out.append(f)
        short = _short(f.name)
        if short != f.name:
            out.append(dataclasses.replace(f, name=short))
        if f.outer:  # a function inside another also answers to outer.inner (as Python's qualified names)
            out.append(dataclasses.replace(f, name=f"{f.outer}.{f.name}"))
    return out


def locate(text: str, name: str) -> tuple[Found | None, str]:
    """The function `name` (qualified with dots) in a file's text: (found, "") or (None, why not)."""
    return locate_in(functions(text), name)


def locate_in(found: list[Found], name: str) -> tuple[Found | None, str]:
    exact = [f for f in found if f.name == name]
    outer = [f for f in exact if not f.nested]
    if outer:
        return outer[-1], ""  # the last definition is the one a redefinition leaves
    if len({f.line for f in exact}) == 1:
        return exact[-1], ""
    if exact:  # only inside other functions, several times: which one is not a guess
        where = sorted({f"{f.outer}.{f.name}" if f.outer else f"{f.name} (line {f.line})" for f in exact})
        return None, f"{name} is defined inside several functions here: {', '.join(where[:6])}; give one of them"
    tail = [f for f in found if f.name.endswith("." + name) and not f.nested]
    names = sorted({f.name for f in tail})
    if len(names) == 1:
        return tail[-1], ""
    if names:
        return None, f"{name} is ambiguous here: {', '.join(names[:6])}; give one of them"
    near = sorted({f.name for f in found if f.name.rsplit(".", 1)[-1].lower() == name.rsplit(".", 1)[-1].lower()})
    shortest: dict[int, str] = {}  # one name per definition (exports.x and x are one), in the file's order
    for f in found:
        if not f.nested and (f.line not in shortest or len(f.name) < len(shortest[f.line])):
            shortest[f.line] = f.name
    known = near or list(dict.fromkeys(shortest.values()))
    listing = ", ".join(known[:12]) + (" …" if len(known) > 12 else "")
    return None, f"no function {name} found by reading the file" + (f" (it defines {listing})" if listing else "")


def split_name(spec: str) -> tuple[str | None, str]:
    """`qs/lib/parse.js:parseObject` -> (module, function); a name without a module -> (None, name)."""
    spec = spec.strip()
    module, sep, name = spec.rpartition(":")
    if not sep:
        return None, spec
    if not NAME.match(name.strip()):
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"{name.strip()!r} is not a function name",
            hint="module:function, e.g. qs/lib/parse.js:parseObject or src/app.ts:Server.handle",
        )
    return module.strip() or None, name.strip()


def local_module(module: str, folders: list[str]) -> str | None:
    """A path relative to one of `folders` (the program's folder, the project): the file, trying the extensions
    a require or a TypeScript import leaves out and a folder's index."""
    candidates = [module] if os.path.isabs(module) else [os.path.join(f, module) for f in folders if f]
    for base in candidates:
        for path in (base, *(base + ext for ext in SOURCE_EXTENSIONS),
                     *(os.path.join(base, "index" + ext) for ext in SOURCE_EXTENSIONS)):
            if os.path.isfile(path):
                return os.path.abspath(path)
    return None


def loaded_modules(module: str, files: list[str]) -> list[str]:
    """The loaded files whose path ends with `module` (extensions a require leaves out tried)."""
    tails = [module, *(module + ext for ext in SOURCE_EXTENSIONS)]
    tails = ["/" + t.lstrip("./") for t in tails]
    return sorted({f for f in files if os.path.isabs(f) and any(f.endswith(t) for t in tails)})


class Place(NamedTuple):
    """Where a program's module names are looked up: its main file, its working folder, its runtime."""

    program: str | None
    cwd: str | None
    runtime: ProgramRuntime | None


def folders_of(program: str | None, cwd: str | None) -> list[str]:
    """Where a module path is looked for: the program's folder, its project's root and the working folder."""
    folders: list[str] = []
    if program and os.path.isabs(program) and "://" not in program:
        folders += [os.path.dirname(program), project_root(program)]
    if cwd:
        folders.append(cwd)
    return list(dict.fromkeys(folders))


@lru_cache(maxsize=32)
def _functions_of(path: str, mtime_ns: int, size: int) -> tuple[Found, ...]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return tuple(functions(fh.read()))


def _locate_in_file(path: str, name: str) -> tuple[Found | None, str]:
    stat = os.stat(path)
    found = _functions_of(path, stat.st_mtime_ns, stat.st_size)
    return locate_in(list(found), name)


async def function_location(
    spec: str,
    program: str | None,
    cwd: str | None,
    runtime: ProgramRuntime | None,
    loaded: Callable[[], Awaitable[list[str]]] | None = None,
) -> FunctionLocation:
    """Where `module:function` binds as a line breakpoint, or why it cannot (the breakpoint then stays unverified
    with that reason). A bad name is an error. `loaded` lists the files the program has loaded: where no folder or
    runtime finds the module (an attached program), a loaded file whose path ends with it is the one."""
    module, name = split_name(spec)
    if not NAME.match(name):
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"{spec!r} is not module:function",
            hint="e.g. qs/lib/parse.js:parseObject, src/app.ts:Server.handle, or a function of the program's own file",
        )
    hint = "give module:function (a path relative to the program's folder or project, or a package path such as "
    hint += "qs/lib/parse.js), or set a line breakpoint in the function"
    folders = folders_of(program, cwd)
    if module is None:
        if not program or not os.path.isfile(program):
            return FunctionLocation(problem=f"cannot find {name}: no module given and no program file", hint=hint)
        path = os.path.abspath(program)
    else:
        path = local_module(module, folders)
        unresolved = None  # what Node said of a package path it could not resolve
        if path is None and runtime is not None and not module.startswith((".", "/")):
            try:
                path = await resolve_node(runtime.executable, module, runtime.program_dir or folders[0])
            except DebugError as exc:
                unresolved = exc.message
        if path is None and loaded is not None:
            found = loaded_modules(module, await loaded())
            if len(found) > 1:
                return FunctionLocation(
                    problem=f"module {module} names {len(found)} files the program has loaded: "
                    + ", ".join(found[:3]) + (", ..." if len(found) > 3 else ""),
                    hint="give more of the module's path, so that it names one of them",
                )  # fmt: skip
            path = found[0] if found else None
        if path is None:
            where = (", ".join(folders) or "no folder known") + (f"; {unresolved}" if unresolved else "")
            if loaded is None:
                return FunctionLocation(problem=f"cannot find module {module} (looked in {where})", hint=hint)
            # Bound when the engine reports the file parsed, by which time the module may have started to run.
            return FunctionLocation(
                problem=f"cannot find module {module} (looked in {where}, and among the files the program has "
                f"loaded); pending: it binds when the program loads a file whose path ends with {module}, maybe "
                "after its first lines ran",
                hint=hint,
                awaits_load=True,
            )
    try:
        found, why = await asyncio.to_thread(_locate_in_file, path, name)
    except OSError as exc:
        return FunctionLocation(problem=f"cannot read {path}: {exc.strerror or exc}", hint=hint)
    if found is None:
        return FunctionLocation(
            problem=f"{why} ({path}); pairdbg reads JavaScript with a tokenizer, not a parser, and misses functions "
            "made at run time",
            hint="set a line breakpoint in the function instead",
        )
    if found.shares_line:
        return FunctionLocation(
            problem=f"{name}'s body starts on a line where other code runs first ({path}:{found.line}): a line "
            "breakpoint there stops when that line runs, not when the function is called (pairdbg binds JavaScript "
            "functions to lines, not columns)",
            hint="set a line breakpoint on a line inside the function, or on the line that calls it",
        )
    return FunctionLocation(file=path, line=found.body_line)
