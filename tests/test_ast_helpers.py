"""The shared `ast` walks give what `ast.walk` gives, in its order: the agent model's
finders depend on the order of the nodes they see (the first declaration of a tool wins).
The anchored text search gives what `re.finditer` gives, and the line split what the
regular expression over line ends gives."""

import ast
import re
from pathlib import Path

import pytest

from agentlint.facts import cost
from agentlint.facts.ast_helpers import match_starts, nodes_of, walk_statements
from agentlint.facts.source import split_lines

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
KINDS = [
    (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Call, ast.Dict, ast.If, ast.Match),
    (ast.Name, ast.Constant, ast.alias),  # leaves, which the walk does not queue unless asked for
    (ast.arg, ast.keyword, ast.comprehension, ast.ExceptHandler, ast.Lambda),
]


def _trees():
    for path in sorted(FIXTURES.rglob("*.py")):
        try:
            yield path, ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue


@pytest.mark.parametrize("kinds", KINDS, ids=["declarations", "leaves", "inner"])
def test_nodes_of_is_ast_walk_filtered(kinds):
    checked = 0
    for path, tree in _trees():
        expected = [node for node in ast.walk(tree) if isinstance(node, kinds)]
        assert nodes_of(tree, kinds) == expected, path
        checked += bool(expected)
    assert checked > 100


def test_nodes_of_reaches_nested_code():
    tree = ast.parse("class A:\n    def f(self):\n        return [g(x) for x in h(lambda: k())]\n")
    assert [n.func.id for n in nodes_of(tree, (ast.Call,))] == ["g", "h", "k"]


def _statements_by_recursion(body, cases=True):
    """The definition: each statement, then the statements of its blocks, in order."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list):
                yield from _statements_by_recursion(inner, cases)
        for handler in getattr(stmt, "handlers", ()):
            yield from _statements_by_recursion(handler.body, cases)
        for case in getattr(stmt, "cases", ()) if cases else ():
            yield from _statements_by_recursion(case.body, cases)


@pytest.mark.parametrize("cases", [True, False], ids=["with-cases", "without-cases"])
def test_walk_statements_is_the_recursive_walk(cases):
    checked = 0
    for path, tree in _trees():
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                assert list(walk_statements(body, cases=cases)) == list(_statements_by_recursion(body, cases)), path
                checked += 1
    assert checked > 1000
    source = "def f(x):\n    match x:\n        case 1:\n            return a\n    return b\n"
    found = [type(s).__name__ for s in walk_statements(ast.parse(source).body[0].body, cases=cases)]
    assert found == (["Match", "Return", "Return"] if cases else ["Match", "Return"])


ANCHORED = [
    (cost._TOKEN_LINE, cost._TOKEN_ANCHORS),
    (cost._NONE_LINE, cost._NONE_ANCHORS),
    (cost._MODEL_KEY_LINE, cost._MODEL_KEY_ANCHORS),
]


@pytest.mark.parametrize("pattern, anchors", ANCHORED, ids=["tokens", "none", "model-key"])
def test_match_starts_is_finditer_on_every_fixture(pattern, anchors):
    """The cost extractor's candidate lines come from ``match_starts``: on every fixture
    (lower-cased, as the extractor reads it) it finds the matches `finditer` finds."""
    found = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        low = path.read_text(encoding="utf-8", errors="replace").lower()
        expected = [m.start() for m in pattern.finditer(low)]
        assert match_starts(pattern, low, anchors) == expected, path
        found += len(expected)
    assert found > 0


def test_match_starts_resumes_after_a_match_as_finditer_does():
    # `_usd=none` also matches, but it lies inside the match that starts at `cost`
    pattern = re.compile(r"cost\w*=\s*none|_usd\w*=none")
    text = "x = 1\ncost_usd=none\n_usd_total=none tokens"
    assert match_starts(pattern, text, ("cost", "_usd")) == [m.start() for m in pattern.finditer(text)] == [6, 20]
    # overlapping anchors: each offset is tried once, in order
    assert match_starts(re.compile(r"aa"), "aaaa", ("a", "aa")) == [0, 2]


@pytest.mark.parametrize("text", [
    "", "a", "a\n", "a\nb\n\n", "a\r\nb\rc\n", "\r", "\r\n\n\r",
    "x = 1\x0c\ny = 2\x0bz\x1c\u2028w\n",  # form feeds and the like end no line
])
def test_split_lines_is_the_line_end_split(text):
    assert split_lines(text) == re.split(r"\r\n|\r|\n", text)
