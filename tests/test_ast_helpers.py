"""The shared `ast` walks give what `ast.walk` gives, in its order: the agent model's
finders depend on the order of the nodes they see (the first declaration of a tool wins)."""

import ast
from pathlib import Path

import pytest

from agentlint.facts.ast_helpers import nodes_of

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
