"""Reported positions are computed for one statement at a time; they must equal what
LibCST's whole-module PositionProvider says."""

import ast
import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from agentlint.engine.cst_pass import _anchor, _anchored_positions
from agentlint.rules.traversal import children

ROOT = Path(__file__).resolve().parent.parent

TRICKY = [
    "import os\n\n\n# comment\n@decorator\n@other(1)\nclass A(B):\n    '''doc'''\n    x = 1; y = 2\n\n    @property\n    def f(self):\n        try:\n            pass\n        except Exception as e:\n            return e\n",
    "def f():\n\tif x:\n\t\treturn g(\n\t\t\t1,\n\t\t)\n",
    "x = 1\r\ndef f():\r\n    try:\r\n        pass\r\n    except:\r\n        pass\r\n",
    pytest.param(
        "async def f():\n    async with a as b:\n        try:\n            await c()\n        except* Exception:\n            pass\n",
        marks=pytest.mark.skipif(sys.version_info < (3, 11), reason="`except*` is Python 3.11 syntax (the test parses it with ast)"),
    ),
    "class A: pass\nclass B:\n    def f(self): return 1\n    def g(self):\n        return [i for i in range(3)]\n",
    "if True:\n    def f():\n        try:\n            pass\n        except Exception:\n            pass\n",
    "\n\n\nx = '''\nmulti\nline\n'''\ndef f():\n    return x  # trailing\n",
    # blocks inside blocks: each clause of `if`/`for`/`while`/`try`, `elif` chains, a
    # body on its header's line, comments before a block's first statement
    "def f(a):\n    if a:  # one\n        # two\n\n        x = 1\n    elif b:\n        y = 2\n    else:\n        z = 3\n",
    "for i in a:\n    while i:\n        i -= 1\n    else:\n        pass\nelse:\n    try:\n        g()\n"
    "    except (A, B) as e:\n        h(e)\n    except C: pass\n    else:\n        k()\n    finally:\n        # done\n        m()\n",
    "class A:\n  def f(self):\n    with a() as b, c():\n      if b: return\n      if c:\n        return [\n          1,\n        ]\n",
    "def f():\n    if a:\n      try:\n        x = g(\n          1)\n      except E:\n              y = 2\n    else:\n     z = 3\n",
    "def f():\n    if a:\n        pass\n    else:\n        if b:\n            try:\n                pass\n            except E:\n                pass\n",
    # `except` clauses positioned alone: comments and blank lines before them, a body on
    # the header's line, a `try` in a handler, tabs
    "try:\n    a()\n# between\n\n    # indented\nexcept ValueError:\n    pass\nexcept (A,\n        Exception) as e: pass\n",
    "def f():\n\ttry:\n\t\ta()\n\texcept E:\n\t\ttry:\n\t\t\tb()\n\t\texcept Exception:  # c\n\t\t\tpass\n"
    "\telse:\n\t\tpass\n",
    pytest.param(
        "def f(x):\n    match x:\n        case 1:\n            try:\n                g()\n            except E:\n                pass\n",
        marks=pytest.mark.skipif(sys.version_info < (3, 10), reason="`match` is Python 3.10 syntax"),
    ),
]


def all_chains(node, ancestors=()):
    yield (*ancestors, node)
    for child in children(node):
        yield from all_chains(child, (*ancestors, node))


def check(source: str) -> int:
    module = cst.parse_module(source)
    tree = ast.parse(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    count = 0
    for chain in all_chains(module):
        if chain[-1] is module:
            continue
        got = _anchored_positions(module, tree, [chain])
        assert got[chain[-1]] == expected[chain[-1]], (type(chain[-1]).__name__, source)
        count += 1
    return count


@pytest.mark.parametrize("source", TRICKY)
def test_tricky_sources(source):
    assert check(source) > 0


def test_fixture_files():
    files = sorted((ROOT / "fixtures").rglob("*.py"))
    assert files
    checked = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        try:
            ast.parse(source)
        except SyntaxError:
            # a fixture in newer syntax (`except*`) than Python 3.10's `ast`, which this
            # test needs beside LibCST; agentlint itself reads it (tests/test_new_syntax.py)
            if sys.version_info >= (3, 11):
                raise
            continue
        check(source)
        checked += 1
    assert checked > len(files) // 2


def chain_to(module, wanted):
    return next(chain for chain in all_chains(module) if isinstance(chain[-1], wanted))


@pytest.mark.parametrize(("source", "line"), [
    ("def f():\n    if a:\n        try:\n            x()\n        except E:\n            y = g()\n", 6),
    ("class A:\n    def f(self):\n        for i in a:\n            pass\n        else:\n            y = 1\n", 6),
    ("def f():\n    with a:\n        while b:\n            try:\n                pass\n            finally:\n\n                y = 1\n", 8),
])
def test_only_the_innermost_statement_is_regenerated(source, line):
    """A report deep in a function is positioned from the statement that holds it, not
    from the whole function."""
    module, tree = cst.parse_module(source), ast.parse(source)
    chain = chain_to(module, cst.Assign)
    statement, first_line, _indents = _anchor(module, tree, chain, {})
    assert isinstance(statement, cst.SimpleStatementLine)
    assert first_line == line


def test_a_reported_except_clause_is_regenerated_alone():
    """A report on an `except` clause (AGL302) is positioned from that clause, not from
    the whole `try` statement with its body and its other clauses."""
    source = "def f():\n    try:\n        x()\n        y()\n\n    # why\n    except E:\n        pass\n"
    module, tree = cst.parse_module(source), ast.parse(source)
    statement, first_line, indents = _anchor(module, tree, chain_to(module, cst.ExceptHandler), {})
    assert isinstance(statement, cst.ExceptHandler) and first_line == 7 and len(indents) == 1


def test_an_elif_is_regenerated_with_the_if_it_continues():
    """Regenerated alone, an `elif` would be written `if`: the `if` above it is the anchor."""
    source = "def f():\n    if a:\n        pass\n    elif b:\n        y = 1\n"
    module, tree = cst.parse_module(source), ast.parse(source)
    statement, first_line, _indents = _anchor(module, tree, chain_to(module, cst.Assign), {})
    assert isinstance(statement, cst.If) and first_line == 2
