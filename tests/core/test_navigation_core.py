"""The pieces behind the person's navigation: the project's root and files (git and a .gitignore walk), modules
resolved by an interpreter without running them, the fuzzy ranking and the outline of Python and JS files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pairdbg.backends.errors import DebugError
from pairdbg.backends.modules import resolve_node, resolve_python
from pairdbg.backends.project import GitIgnore, list_files, project_root
from pairdbg.tui.fuzzy import rank
from pairdbg.tui.symbols import enclosing, outline
from support import ROOT
from support.core import missing_target


def tree(root: Path, files: dict[str, str]) -> None:
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")


def test_the_root_is_the_nearest_folder_with_a_marker(tmp_path: Path) -> None:
    tree(tmp_path, {"pyproject.toml": "", "pkg/sub/mod.py": "", "loose/x.py": ""})
    assert project_root(str(tmp_path / "pkg" / "sub" / "mod.py")) == str(tmp_path)
    (tmp_path / "pkg" / "package.json").write_text("{}")
    assert project_root(str(tmp_path / "pkg" / "sub" / "mod.py")) == str(tmp_path / "pkg")


def test_a_walk_honours_gitignore_and_skips_installed_code(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n/top.txt\n!keep.log\ndocs/*.tmp\n",
            "a.py": "",
            "debug.log": "",
            "keep.log": "",
            "top.txt": "",
            "sub/top.txt": "",
            "build/out.js": "",
            "docs/x.tmp": "",
            "docs/x.md": "",
            "node_modules/dep/index.js": "",
            ".venv/lib/site.py": "",
            "pkg/__pycache__/m.pyc": "",
        },
    )
    listing = list_files(str(tmp_path))
    assert listing.how == "walk"
    assert sorted(listing.files) == [".gitignore", "a.py", "docs/x.md", "keep.log", "sub/top.txt"]


def test_git_lists_tracked_and_untracked_but_not_ignored(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        missing_target("git is not installed")
    tree(tmp_path, {".gitignore": "*.log\n", "tracked.py": "", "new.py": "", "x.log": "", "node_modules/d/i.js": ""})
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "tracked.py", ".gitignore"], check=True)
    listing = list_files(str(tmp_path))
    assert listing.how == "git"
    assert sorted(listing.files) == [".gitignore", "new.py", "tracked.py"]


def test_gitignore_rules() -> None:
    rules = GitIgnore("# comment\n**/gen/\n*.pyc\n/dist\nsrc/*.bak\n")
    assert rules.ignored("a/b/gen", True) and not rules.ignored("a/b/gen", False)
    assert rules.ignored("x/y.pyc", False) and rules.ignored("dist", True) and not rules.ignored("x/dist", True)
    assert rules.ignored("src/a.bak", False) and not rules.ignored("other/a.bak", False)


@pytest.mark.asyncio
async def test_a_module_resolves_without_running_its_packages(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "shop/__init__.py": "raise SystemExit('the package ran')\n",
            "shop/prices.py": "raise SystemExit('the module ran')\n",
            "shop/data/__init__.py": "",
        },
    )
    found = await resolve_python(sys.executable, "shop.prices", str(tmp_path), str(tmp_path), None)
    assert found == str(tmp_path / "shop" / "prices.py")
    assert (await resolve_python(sys.executable, "shop", str(tmp_path), None, None)).endswith("shop/__init__.py")
    assert (await resolve_python(sys.executable, "json.decoder", None, None, None)).endswith("json/decoder.py")
    for name, says in [
        ("shop.nope", "no module named shop.nope"),
        ("sys", "built into"),
        ("shop.prices.x", "shop.prices is a module, not a package"),
        ("not a name", "is not a module name"),
    ]:
        with pytest.raises(DebugError) as caught:
            await resolve_python(sys.executable, name, str(tmp_path), None, None)
        assert says in f"{caught.value.message} {caught.value.hint}", name


@pytest.mark.asyncio
async def test_a_node_package_resolves_from_the_project() -> None:
    node = shutil.which("node")
    if node is None:
        missing_target("node is not installed")
    project = ROOT / "tests" / "js" / "tsproject"
    if not (project / "node_modules" / "semver").is_dir():
        missing_target("tests/js/tsproject has no node_modules (scripts/setup-targets.sh)")
    found = await resolve_node(node, "semver", str(project))
    assert Path(found).is_file() and "node_modules/semver" in found
    with pytest.raises(DebugError, match="no module named left-padz"):
        await resolve_node(node, "left-padz", str(project))
    with pytest.raises(DebugError, match="built into node"):
        await resolve_node(node, "fs", str(project))


def test_fuzzy_ranks_file_names_and_word_starts_first() -> None:
    paths = ["docs/session_notes.md", "backends/session.py", "tests/core/test_session.py", "tui/source_view.py"]
    assert [m.path for m in rank(paths, "session.py")][:2] == ["backends/session.py", "tests/core/test_session.py"]
    assert [m.path for m in rank(paths, "srcvw")] == ["tui/source_view.py"]
    assert rank(paths, "qqq") == []


def test_outline_of_python_and_javascript() -> None:
    py = tuple(
        textwrap.dedent(
            """\
            class Cart:
                def add(self, item, qty=1):
                    total = item * qty
                    return total

            async def main(*args):
                cart = Cart()
            """
        ).splitlines()
    )
    found = outline("x.py", py)
    assert [(s.name, s.kind, s.line) for s in found.symbols] == [
        ("Cart", "class", 1),
        ("Cart.add", "method", 2),
        ("main", "function", 6),
    ]
    assert found.names[2] == ("self", "item", "qty") and found.names[3] == ("total", "item", "qty")
    assert enclosing(found, 3).name == "Cart.add"
    assert outline("x.py", ("def (:",)).error.startswith("the file does not parse")

    js = tuple(
        textwrap.dedent(
            """\
            function twice(n) {
              return n * 2;
            }
            class Box {
              size(extra) {
                if (extra) { return 1; }
                return 0;
              }
            }
            const half = (n) => n / 2;
            const third = function (n) { return n / 3; };
            """
        ).splitlines()
    )
    found = outline("x.js", js)
    assert [(s.name, s.kind, s.line) for s in found.symbols] == [
        ("twice", "function", 1),
        ("Box", "class", 4),
        ("size", "method", 5),
        ("half", "function", 10),
        ("third", "function", 11),
    ]
    assert "n" in found.names[2] and "extra" in found.names[6]
