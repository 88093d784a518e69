"""The shared `ast` walks give what `ast.walk` gives, in its order: the agent model's
finders depend on the order of the nodes they see (the first declaration of a tool wins).
The anchored text search gives what `re.finditer` gives, and the line split what the
regular expression over line ends gives."""

import ast
import re
from pathlib import Path

import pytest

from agentlint.facts import cost
from agentlint.facts.ast_helpers import match_starts, nodes_of
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
