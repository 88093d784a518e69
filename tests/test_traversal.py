"""The shared LibCST traversal (``rules.traversal.run_rules``): rules that visit only
`except` clauses are not walked through expressions and simple statements, and still
see every clause, in the same order, with the same ancestors."""

import sys

import libcst as cst
import pytest

from agentlint.rules import traversal

SOURCE = """\
import os

try:
    import fast
except Exception:
    fast = None


@decorator(lambda: 1)
class Store(Base, metaclass=Meta):
    def load(self, key=default()):
        if key:
            try:
                return self.read(key)
            except KeyError:
                return None
        elif other:
            for item in items:
                try: item.run()
                except Exception as exc: pass
            else:
                while pending:
                    try:
                        step()
                    except BaseException:
                        raise
                    else:
                        done()
                    finally:
                        close()
                else:
                    pass
        else:
            with lock() as held, other():
                try:
                    held.write()
                except Exception:
                    try:
                        undo()
                    except Exception:
                        pass

    async def fetch(self):
        async with session() as s:
            async for row in s.rows():
                try:
                    await row.save()
                except Exception:
                    continue


def route(command):
    match command:
        case {"go": where}:
            try:
                go(where)
            except Exception:
                pass
        case _:
            pass
"""

STAR = "try:\n    run()\nexcept* ValueError:\n    pass\n"


class HandlersOnly:
    def __init__(self, ancestors: list) -> None:
        self.ancestors = ancestors
        self.seen: list[tuple] = []

    def visit_ExceptHandler(self, node) -> None:
        self.seen.append((node, tuple(self.ancestors)))

    visit_ExceptStarHandler = visit_ExceptHandler


class HandlersAndNames(HandlersOnly):
    """A rule that also visits names: the traversal must walk every node for it."""

    def visit_Name(self, node) -> None:
        pass


def walk(module, rule_class, monkeypatch) -> tuple[list, int]:
    walked = []
    real = traversal.children
    monkeypatch.setattr(traversal, "children", lambda node: walked.append(node) or real(node))
    ancestors: list = []
    rule = rule_class(ancestors)
    traversal.run_rules(module, [rule], ancestors, lambda rule, exc: pytest.fail(repr(exc)))
    return rule.seen, len(walked)


@pytest.mark.parametrize(
    "source",
    [SOURCE, pytest.param(STAR, marks=pytest.mark.skipif(sys.version_info < (3, 11), reason="`except*` syntax"))],
)
def test_a_rule_of_except_clauses_sees_every_clause_with_its_ancestors(source, monkeypatch):
    module = cst.parse_module(source)
    pruned, pruned_nodes = walk(module, HandlersOnly, monkeypatch)
    full, full_nodes = walk(module, HandlersAndNames, monkeypatch)
    assert len(full) == source.count("except")
    assert [(node, chain) for node, chain in pruned] == [(node, chain) for node, chain in full]
    assert pruned_nodes < full_nodes / 2, "the walk went through expressions and simple statements"
