"""AGL204 approval-checked-once: pending tool approvals answered once (in an `if`) instead of
in a loop until none is left, or answered in a new session or thread.

Reads the file's `ast` tree (through its agent model): in each function, an `if` on a run
result's pending approvals (Microsoft Agent Framework `response.user_input_requests`,
OpenAI Agents SDK `result.interruptions`, directly or through a name bound to them) whose
body answers them (`to_function_approval_response`, `state.approve`, ...) and runs the
agent again.
"""

from __future__ import annotations

import ast
from typing import Any, Iterator, Mapping, Sequence

from agentlint.facts.ast_helpers import last_name, nodes_of
from agentlint.facts.types import FileFacts
from agentlint.knowledge import irreversible as irr
from agentlint.rules.api import ModelRule
from agentlint.rules.catalog.tools import APPROVAL_CHECKED_ONCE
from agentlint.rules.diagnostics import Diagnostic


class ApprovalCheckedOnce(ModelRule):
    meta = APPROVAL_CHECKED_ONCE
    about_tools = False

    @staticmethod
    def wants_file(tree: Any, facts: FileFacts, source: str, settings: Mapping[str, Any]) -> bool:
        return any(name in source for name in irr.PENDING_APPROVALS)

    def check(self) -> Sequence[Diagnostic]:
        tree = self.context.model.tree
        if not any(name in self.context.source for name in irr.PENDING_APPROVALS):
            return self.found
        for scope, body in _scopes(tree):
            self._scope(scope, body)
        return self.found

    def _scope(self, scope: ast.AST | None, body: list[ast.stmt]) -> None:
        bound = _bound_to_pending(body)
        own_name = getattr(scope, "name", None)
        for stmt, looped in _statements(body, False):
            if not isinstance(stmt, (ast.If, ast.While)):
                continue
            attribute = _pending_read(stmt.test, bound)
            if attribute is None:
                continue
            runs = [c for c in _calls(stmt.body) if _is_run(c)]
            answered = any(_answers(c) for c in _calls(stmt.body)) or _answers_bound(stmt.body, bound)
            if not runs or not answered:
                continue
            for run in runs:
                fresh = _new_session(run)
                if fresh is not None:
                    self.report_node(
                        run,
                        f"The pending approvals (`{attribute}`) are answered in a new session or thread "
                        f"(`{fresh}`): the answers match no pending request; send them in the session that asked",
                    )
            if isinstance(stmt, ast.While) or looped or _loops_inside(stmt.body) or (own_name and any(_calls_name(c, own_name) for c in runs)):
                continue
            if own_name and any(_calls_name(c, own_name) for c in _calls(stmt.body)):
                continue
            if scope is not None and _hands_back(scope, stmt.body, runs):
                continue  # the caller gets the new result, and may check it again
            self.report_node(
                stmt.test,
                f"The pending approvals (`{attribute}`) are answered once, in an `if`: the run that carries the "
                "answers can stop for another approval; check again after every run, in a loop until none is left",
            )


def _scopes(tree: ast.Module) -> Iterator[tuple[ast.AST | None, list[ast.stmt]]]:
    yield None, tree.body
    for node in nodes_of(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield node, node.body  # type: ignore[attr-defined]


def _statements(body: list[ast.stmt], looped: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """Every statement of ``body`` (nested defs excluded) with whether a loop that can run
    again encloses it (`while`, or `for` over `range(...)`)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield stmt, looped
        inner = looped
        if isinstance(stmt, ast.While):
            inner = True
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            inner = looped or _is_range(stmt.iter)
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(stmt, field, []) or [], inner)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _statements(handler.body, inner)
        for case in getattr(stmt, "cases", []) or []:
            yield from _statements(case.body, inner)


def _is_range(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


def _bound_to_pending(body: list[ast.stmt]) -> dict[str, str]:
    """Names bound to a read of the pending approvals (`pending = response.user_input_requests`,
    `approvals = [r for r in result.interruptions if ...]`)."""
    out: dict[str, str] = {}
    for stmt, _ in _statements(body, False):
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            attribute = _pending_read(stmt.value, out)
            if attribute is None:
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    out[target.id] = attribute
    return out


def _pending_read(node: ast.AST, bound: Mapping[str, str]) -> str | None:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in irr.PENDING_APPROVALS:
            value = sub.value
            owner = value.id if isinstance(value, ast.Name) else "..."
            return f"{owner}.{sub.attr}"
        if isinstance(sub, ast.Name) and sub.id in bound:
            return bound[sub.id]
    return None


def _calls(body: list[ast.stmt]) -> Iterator[ast.Call]:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                yield node


def _is_run(call: ast.Call) -> bool:
    return last_name(call.func) in irr.RUN_METHODS


def _answers(call: ast.Call) -> bool:
    return last_name(call.func) in irr.APPROVAL_ANSWERS


def _answers_bound(body: list[ast.stmt], bound: Mapping[str, str]) -> bool:
    """The body hands the pending requests to a helper that answers them
    (`answers = await ask_operator(pending)`) before running again."""
    return any(isinstance(a, ast.Name) and a.id in bound for c in _calls(body) if not _is_run(c) for a in c.args)


def _new_session(call: ast.Call) -> str | None:
    for kw in call.keywords:
        if kw.arg in irr.SESSION_KEYWORDS and isinstance(kw.value, ast.Call):
            name = last_name(kw.value.func)
            if name in irr.NEW_SESSION_CALLS:
                return f"{kw.arg}={ast.unparse(kw.value)}"
    return None


def _loops_inside(body: list[ast.stmt]) -> bool:
    """A `while` inside the `if` that runs the agent again (`if pending: while pending: ...`)."""
    for stmt, _ in _statements(body, False):
        if isinstance(stmt, ast.While) and any(_is_run(c) for c in _calls(stmt.body)):
            return True
    return False


def _hands_back(func: ast.AST, body: list[ast.stmt], runs: list[ast.Call]) -> bool:
    """The function returns the result of the run that carries the answers, whole
    (`return response`, `return await agent.run(...)`): checking it again is the caller's."""
    held = set()
    for stmt, _ in _statements(body, False):
        if isinstance(stmt, ast.Assign) and any(r in list(ast.walk(stmt.value)) for r in runs):
            held |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    for stmt, _ in _statements(func.body, False):  # type: ignore[attr-defined]
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
            if (isinstance(value, ast.Name) and value.id in held) or value in runs:
                return True
    return False


def _calls_name(call: ast.Call, name: str) -> bool:
    return last_name(call.func) == name
