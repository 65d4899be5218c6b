"""Finding a JavaScript/TypeScript function by name in a file's text (pure logic: backends/jsfunction.py).

The real-target side (Node, Bun, js-debug stopping there) is tests/inspector/test_js_function_breakpoints.py."""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from pairdbg.backends import jsfunction
from pairdbg.backends.errors import DebugError, ErrorCode

FORMS_JS = textwrap.dedent(
    """\
    'use strict';
    var re = /[{}]/g, ratio = a / b / c;
    var s = `tmpl ${ {a: 1}.a } }`; // a brace in a comment: {
    /* and in a block comment: { function fake() { */
    var quoted = "function notReal() {";
    var parseObject = function (chain, val, options) {
        var leaf = val;
        return leaf;
    };
    function parseValues(str, options) {
        'use strict';
        var obj = { __proto__: null };
        return obj;
    }
    exports.stringify = function stringify(o) { return o; };
    module.exports.parse = (str, opts) => str;
    Foo.prototype.bar = async function () {
      return 1;
    };
    const helpers = {
      merge: function (a, b) {
        return a;
      },
      compact(value) {
        return value;
      },
      async *walk(x) {
        yield x;
      },
      arrow: x =>
        x + 1,
    };
    class Server extends Base {
      #secret() { return 1; }
      static create(opts) {
        return new Server(opts);
      }
      get port() {
        return this._port;
      }
      handle = async (req) => {
        if (req) { return 1; }
      };
    }
    export default function main() {
      function inner() {
        return 2;
      }
      return inner();
    }
    function empty() {}
    """
)

FORMS_TS = textwrap.dedent(
    """\
    export class Repo<T extends object> implements Store<T> {
      private items: Map<string, T> = new Map();
      constructor(private readonly name: string) {
        this.items.clear();
      }
      @Get()
      find(id: string): T | undefined {
        return this.items.get(id);
      }
      save<K extends keyof T>(item: T, key: K): Promise<void>;
      save(item: T): Promise<void> {
        return Promise.resolve();
      }
      handler: (x: number) => number = (x: number): number => {
        return x * 2;
      };
    }
    export const parse = <T,>(text: string): T => {
      return JSON.parse(text) as T;
    };
    export async function load(path: string): Promise<{ ok: boolean }> {
      return { ok: true };
    }
    """
)


def where(text: str, name: str) -> tuple[int, int]:
    found, why = jsfunction.locate(text, name)
    assert found is not None, why
    return found.line, found.body_line


@pytest.mark.parametrize(
    ("name", "line", "body"),
    [
        ("parseObject", 6, 7),  # `var x = function (`
        ("parseValues", 10, 12),  # a "use strict" directive runs nothing: the next statement
        ("stringify", 15, 15),  # exports.x = function, body on the same line
        ("exports.stringify", 15, 15),
        ("parse", 16, 16),  # module.exports.x = arrow with an expression body
        ("Foo.bar", 17, 18),  # Foo.prototype.bar
        ("Foo.prototype.bar", 17, 18),
        ("helpers.merge", 21, 22),
        ("helpers.compact", 24, 25),
        ("helpers.walk", 27, 28),
        ("helpers.arrow", 30, 31),
        ("Server.#secret", 34, 34),
        ("Server.create", 35, 36),
        ("Server.port", 38, 39),  # a getter
        ("Server.handle", 41, 42),  # a class field holding an arrow
        ("main", 45, 46),
        ("inner", 46, 47),  # nested: found by its own name
        ("empty", 51, 51),  # an empty body stops at its closing brace
    ],
)
def test_javascript_forms(name, line, body):
    assert where(FORMS_JS, name) == (line, body)


def test_strings_comments_and_regexes_hide_their_braces_and_words():
    names = {f.name for f in jsfunction.functions(FORMS_JS)}
    assert not {"notReal", "fake"} & names
    assert {f.name for f in jsfunction.functions(FORMS_JS) if f.nested} == {"inner", "main.inner"}


@pytest.mark.parametrize(
    ("name", "line", "body"),
    [
        ("Repo.constructor", 3, 4),  # parameter properties
        ("Repo.find", 7, 8),  # after a decorator, with a return type
        ("Repo.save", 11, 12),  # the overload signature has no body: the implementation
        ("Repo.handler", 14, 15),  # a typed class field holding a typed arrow
        ("parse", 18, 19),  # a generic arrow
        ("load", 21, 22),  # an object type in the return type is not the body
    ],
)
def test_typescript_forms(name, line, body):
    assert where(FORMS_TS, name) == (line, body)


def test_a_method_name_alone_finds_its_one_class():
    assert where(FORMS_JS, "create") == (35, 36)
    assert where(FORMS_TS, "find") == (7, 8)


def test_names_not_found_or_ambiguous_say_why():
    found, why = jsfunction.locate(FORMS_JS, "nothere")
    assert found is None and why.startswith("no function nothere found by reading the file")
    assert "parseObject" in why, "it lists what the file defines"
    text = "class A { run() { return 1; } }\nclass B { run() { return 2; } }\n"
    found, why = jsfunction.locate(text, "run")
    assert found is None and "ambiguous" in why and "A.run" in why and "B.run" in why
    assert jsfunction.locate(text, "B.run")[0].line == 2


def test_functions_inside_functions_answer_to_outer_inner_and_are_not_guessed_between():
    text = textwrap.dedent(
        """\
        function createStore() {
          function dispatch(action) {
            return action;
          }
          return { dispatch };
        }
        function applyMiddleware() {
          let dispatch = () => {
            throw new Error("not yet");
          };
          return dispatch;
        }
        """
    )
    assert where(text, "createStore.dispatch") == (2, 3)
    assert where(text, "applyMiddleware.dispatch") == (8, 9)
    found, why = jsfunction.locate(text, "dispatch")
    assert found is None and "applyMiddleware.dispatch, createStore.dispatch" in why


def test_a_redefinition_binds_where_the_last_one_is():
    text = "function f() {\n  return 1;\n}\nfunction f() {\n  return 2;\n}\n"
    assert where(text, "f") == (4, 5)


def test_split_name():
    assert jsfunction.split_name("qs/lib/parse.js:parseObject") == ("qs/lib/parse.js", "parseObject")
    assert jsfunction.split_name("@scope/pkg/x.js:A.b") == ("@scope/pkg/x.js", "A.b")
    assert jsfunction.split_name("describe") == (None, "describe")
    with pytest.raises(DebugError) as bad:
        jsfunction.split_name("src/app.ts:1x")
    assert bad.value.code == ErrorCode.INVALID_PARAMETERS


def test_module_paths_relative_to_the_program_or_project(tmp_path):
    (tmp_path / "src").mkdir()
    app = tmp_path / "src" / "app.ts"
    app.write_text("export function start(port: number): void {\n  listen(port);\n}\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "index.js").write_text("exports.x = () => 1;\n")
    (tmp_path / "package.json").write_text("{}")
    program = str(tmp_path / "src" / "main.js")
    folders = jsfunction.folders_of(program, None)
    assert jsfunction.local_module("src/app", folders) == str(app)  # extension left out, from the project root
    assert jsfunction.local_module("app.ts", folders) == str(app)  # from the program's folder
    assert jsfunction.local_module("lib", folders) == str(tmp_path / "lib" / "index.js")
    assert jsfunction.local_module("nope.js", folders) is None

    place = asyncio.run(jsfunction.function_location("src/app.ts:start", program, None, None))
    assert (place.file, place.line, place.problem) == (str(app), 2, None)
    missing = asyncio.run(jsfunction.function_location("nope/x.js:f", program, None, None))
    assert missing.file is None and "cannot find module nope/x.js" in missing.problem
    absent = asyncio.run(jsfunction.function_location("src/app.ts:stop", program, None, None))
    assert absent.file is None and "no function stop" in absent.problem and "start" in absent.problem


def test_a_bare_name_is_looked_up_in_the_program_and_a_loaded_file_by_its_tail(tmp_path):
    app = tmp_path / "app.js"
    app.write_text("function serve() {\n  return 1;\n}\n")
    place = asyncio.run(jsfunction.function_location("serve", str(app), None, None))
    assert (place.file, place.line) == (str(app), 2)
    files = ["/srv/node_modules/qs/lib/parse.js", "/srv/node_modules/qs/lib/utils.js", "node:internal/main"]
    assert jsfunction.loaded_modules("qs/lib/parse.js", files) == files[:1]
    assert jsfunction.loaded_modules("qs/lib/parse", files) == files[:1]  # the extension a require leaves out
    assert jsfunction.loaded_modules("arse.js", files) == []  # a whole path part, not any tail

    async def loaded():
        return [str(app)]

    found = asyncio.run(jsfunction.function_location("app.js:serve", None, None, None, loaded))
    assert (found.file, found.line) == (str(app), 2)

    # Two loaded files end with the name: not a guess, and not "pending" either (a later load cannot settle it).
    async def two():
        return [*files, "/other/lib/parse.js"]

    both = asyncio.run(jsfunction.function_location("lib/parse.js:parse", None, None, None, two))
    assert both.file is None and not both.awaits_load, both
    assert "names 2 files the program has loaded" in both.problem and "/other/lib/parse.js" in both.problem
    assert "more of the module's path" in both.hint

    # None yet: pending, saying that code which runs as the module loads may run before it binds.
    async def none():
        return files

    later = asyncio.run(jsfunction.function_location("src/late.js:run", None, None, None, none))
    assert later.file is None and later.awaits_load, later
    assert "pending: it binds when the program loads a file whose path ends with src/late.js" in later.problem
    assert "maybe after its first lines ran" in later.problem


def test_a_function_value_whose_body_is_on_its_defining_line_is_not_bound(tmp_path):
    """`exports.x = function (o) { return o; }`: a line breakpoint on that line stops when the assignment runs, not
    when x is called; a declaration or a method on one line has nothing else on its line that runs."""
    shares = {f.name: f.shares_line for f in jsfunction.functions(FORMS_JS)}
    assert shares["stringify"] and shares["parse"]  # an assignment; an arrow with an expression body
    assert not shares["Server.#secret"] and not shares["empty"] and not shares["parseObject"]
    lib = tmp_path / "lib.js"
    lib.write_text(FORMS_JS)
    place = asyncio.run(jsfunction.function_location("lib.js:stringify", str(tmp_path / "main.js"), None, None))
    assert place.file is None and "body starts on a line where other code runs first" in place.problem
    assert "line breakpoint" in place.hint
    bundle = 'var x = 1;function a(){return x}function b(){return 2}class C{m(){return 3}}\n'
    shares = {f.name: f.shares_line for f in jsfunction.functions(bundle)}
    assert shares == {"a": True, "b": True, "C.m": True}, "a minified line: the breakpoint would bind to x = 1"
    alone = jsfunction.functions("class C {\n  static m() { return 3; }\n}\nfunction f() { return 4; }\n")
    assert [(f.name, f.shares_line) for f in alone] == [("C.m", False), ("f", False)], "nothing else runs there"
