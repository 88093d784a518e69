"""Module-level patterns are compiled on first use (``agentlint.lazy_regex``): they
answer as the compiled pattern does, cost nothing extra once used, and no module of
the package compiles one at import."""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import pytest

from agentlint.lazy_regex import LazyPattern, lazy_compile

PACKAGE = Path(__file__).resolve().parent.parent / "agentlint"


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    text = "Alpha beta\nGAMMA delta"
    for pattern, flags in ((r"(\w+) (\w+)", 0), (r"^g\w+", re.IGNORECASE | re.MULTILINE), (rb"b(e)ta", 0)):
        lazy, real = lazy_compile(pattern, flags), re.compile(pattern, flags)
        subject = text.encode() if isinstance(pattern, bytes) else text
        assert lazy.pattern == real.pattern and lazy.flags == real.flags and lazy.groups == real.groups
        assert [m.span() for m in lazy.finditer(subject)] == [m.span() for m in real.finditer(subject)]
        assert lazy.findall(subject) == real.findall(subject)
        assert bool(lazy.search(subject)) == bool(real.search(subject))
        assert lazy.split(subject) == real.split(subject)
        assert lazy.compiled == real


def test_it_compiles_once_and_then_costs_nothing_extra(monkeypatch) -> None:
    compiled: list[str] = []
    real_compile = re.compile
    monkeypatch.setattr(re, "compile", lambda p, f=0: compiled.append(p) or real_compile(p, f))
    lazy = lazy_compile(r"a+b")
    assert compiled == []  # nothing at creation
    assert lazy.match("aab") and lazy.search("xab") and not lazy.fullmatch("b")
    assert compiled == ["a+b"]  # once, whatever was read
    # once compiled, the stand-in holds the compiled pattern's own bound methods and
    # its class has no __getattr__ (which would slow every read): no wrapper between
    assert lazy.__dict__["search"] == lazy.compiled.search and lazy.sub("-", "xaab") == "x-"
    assert type(lazy.search) is type(real_compile("x").search)
    assert not hasattr(type(lazy), "__getattr__") and lazy.groups == 0 and lazy.pattern == "a+b"
    assert compiled == ["a+b"]


def test_it_is_no_pattern_for_the_re_module_but_its_compiled_one_is() -> None:
    lazy = lazy_compile(r"\d")
    assert isinstance(lazy, LazyPattern) and not isinstance(lazy, re.Pattern)  # not used yet
    assert re.sub(lazy.compiled, "#", "a1b2") == "a#b#"
    assert copy.copy(lazy).search("x1")  # copying does not trip over the stand-in
    assert "lazy_compile" in repr(lazy) and r"\d" in repr(lazy)
    with pytest.raises(AttributeError):
        lazy.no_such_attribute  # noqa: B018


def _module_level_compiles(path: Path) -> list[int]:
    """Lines of `re.compile(...)` run when the module is imported (module and class level)."""
    found: list[int] = []

    def scan(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                scan(node.body)
            elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                            and inner.func.attr == "compile" and isinstance(inner.func.value, ast.Name)
                            and inner.func.value.id == "re"):
                        found.append(inner.lineno)

    scan(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def test_no_module_compiles_a_pattern_at_import() -> None:
    eager = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "lazy_regex.py"
        for line in _module_level_compiles(path)
    ]
    assert not eager, "use lazy_compile for patterns made at import:\n" + "\n".join(eager)


def test_the_check_finds_an_eager_pattern(tmp_path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import re\nA = re.compile('a')\nclass C:\n    B = [re.compile('b')]\n    def f(self):\n        return re.compile('c')\n")
    assert _module_level_compiles(module) == [2, 4]

