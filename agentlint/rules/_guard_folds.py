"""AGL301's question to a guard, second half: where does a step's failure (or its
uncertainty) become one of the two verdicts (the steps are in ``_guard_steps``)?

A *fold* is where that happens:

- ``except``: a handler for the step's failure (broad, or named for it) that returns a
  literal verdict, assigns the one returned later, or falls through to one;
- ``missing``: `if not api_key: return True` on a lookup that may find nothing;
- ``collapse``: a model's answer compared with a label (`reply == "yes"`,
  `decision == Decision.BLOCK`, `score > threshold`) that decides the verdict;
- ``default``: `answer.get("safe", True)`: a missing field of the answer is a verdict.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Iterable

from agentlint.facts.ast_helpers import dotted
from agentlint.knowledge import guards
from agentlint.knowledge.recording import BROAD_EXCEPTIONS
from agentlint.knowledge.words import name_parts
from agentlint.rules._guard_steps import (
    Fallibility,
    Step,
    Taint,
    call_text,
    input_parameters,
    text_of,
)
from agentlint.rules._guard_verdicts import Body, Verdict, last, own_nodes

_PRIORITY = ("model", "fallible", "network", "subprocess", "file", "awaited", "config", "parse")

_STRUCTURE_CALLS = frozenset({"len", "isinstance", "type", "hasattr", "getattr", "id", "callable"})

_ANSWERED = frozenset({"model", "fallible", "state", "network", "awaited"})
"""Steps whose result is someone's answer: parsing it can fail for reasons of theirs."""

_TABLES = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.DictComp, ast.ListComp, ast.SetComp)
"""Module constants built from literals: a lookup in one cannot fail."""


@dataclass(frozen=True)
class Fold:
    """Where a step's failure or uncertainty becomes the verdict."""

    kind: str
    """`except`, `missing`, `collapse`, `default`."""
    node: ast.AST
    code: str
    """The fold as written: `except Exception:`, `if not api_key:`, `reply == "yes"`."""
    verdict: str
    """The literal verdict it hands out (`False`, `"approved": True`), or ""."""
    step: Step


# ---------------------------------------------------------------------------------------
# Folds
# ---------------------------------------------------------------------------------------


class Folds:
    """The folds of one guard, best first (``except``, ``missing``, ``collapse``, ``default``)."""

    def __init__(self, fallibility: Fallibility, func: ast.AST, body: Body, verdict: Verdict) -> None:
        self.fallibility = fallibility
        self.model = fallibility.model
        self.func = func
        self.body = body
        self.verdict = verdict
        self._taint: Taint | None = None

    @property
    def taint(self) -> Taint:
        if self._taint is None:
            # a state key written from a model's answer by another node counts for a
            # verdict stored in the state only: routers that read the state decide no verdict
            self._taint = Taint(self.fallibility, self.func, self.body, with_state=self.verdict.form == "state")
        return self._taint

    def first(self) -> Fold | None:
        for finder in (self._except, self._missing, self._collapse):
            found = finder()
            if found is not None:
                return found
        return None

    # -- except ------------------------------------------------------------------------------
    def _except(self) -> Fold | None:
        for try_ in self.body.tries:
            step, parses = self._try_steps(try_)
            if step is None:
                continue
            for handler in try_.handlers:
                catches = self._catches(handler, step, parses)
                if not catches or _escapes(handler, self.model):
                    continue
                verdict = self._handler_verdict(handler, try_)
                if verdict:
                    return Fold("except", handler, _except_clause(handler), verdict, step)
        return None

    def _try_steps(self, try_: ast.Try) -> tuple[Step | None, bool]:
        """The most telling step in the `try` body, and whether it parses an answer."""
        found: list[Step] = []
        parses = False
        for stmt in try_.body:
            for node in own_nodes(stmt):
                if isinstance(node, ast.Call):
                    step = self.fallibility.step(node, self.func)
                    if step is not None and step.kind != "config":  # `os.environ.get` never fails
                        found.append(step)
                    elif self._parses_answer(node):
                        parses = True
                        found.append(Step("parse", call_text(node), node.lineno))
                elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                        and self.model.resolve(dotted(node.value) or "") == "os.environ":
                    found.append(Step("config", text_of(node), node.lineno))
        if not found:
            return None, parses
        found.sort(key=lambda s: (_PRIORITY.index(s.kind) if s.kind in _PRIORITY else len(_PRIORITY), s.line))
        return found[0], parses

    def _parses_answer(self, call: ast.Call) -> bool:
        """`json.loads(reply)`, `response.json()`: parsing what a model or a server
        answered (parsing a file under judgment is the check's answer, not a failure)."""
        written = dotted(call.func) or ""
        qualified = self.model.resolve(written) if written else ""
        if qualified in guards.PARSE_CALLS or written in guards.PARSE_CALLS:
            subjects = list(call.args)
        elif isinstance(call.func, ast.Attribute) and call.func.attr in guards.PARSE_METHODS:
            subjects = [call.func.value, *call.args]
        else:
            return False
        for subject in subjects:
            origin = self.taint.origin(subject)
            if origin is not None and origin.kind in _ANSWERED:
                return True
        return False

    def _catches(self, handler: ast.ExceptHandler, step: Step, parses: bool) -> str | None:
        """`broad`, `failure` (named for the step's failure), `parse` or None."""
        if handler.type is None:
            return "broad"
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for expr in types:
            written = dotted(expr)
            if written is None:
                continue
            qualified = self.model.resolve(written)
            if qualified in BROAD_EXCEPTIONS or last(qualified) in ("Exception", "BaseException"):
                return "broad"
            lowered = last(qualified).lower()
            if any(stem in lowered for stem in guards.EVALUATION_FAILURE_STEMS):
                return "failure"
            if step.kind == "config" and last(qualified) == "KeyError":
                return "failure"
            # a malformed answer of a model (or of a server, when it is parsed) is a failure too
            answered = parses or step.kind in ("parse", "model", "fallible")
            if answered and any(stem in lowered for stem in guards.PARSE_FAILURE_STEMS):
                return "parse"
        return None

    def _handler_verdict(self, handler: ast.ExceptHandler, try_: ast.Try) -> str:
        verdict, body = self.verdict, self.body
        returns = [n for s in handler.body for n in own_nodes(s) if isinstance(n, ast.Return)]
        for ret in returns:
            text = verdict.literal(ret.value, body)
            if text:
                return text
        if returns:
            return ""
        # `ok = False` in the handler, `return ok` later
        for stmt in handler.body:
            for node in own_nodes(stmt):
                if isinstance(node, ast.Assign):
                    literal = _literal_constant(node.value, verdict) if isinstance(node.value, ast.Constant) \
                        else verdict.literal(node.value)
                    if not literal:
                        continue
                    for target in node.targets:
                        if isinstance(target, ast.Name) and self._returned(target.id):
                            return f"{target.id} = {literal}" if isinstance(node.value, ast.Constant) else literal
                        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                                and target.slice.value == verdict.key and verdict.form == "state":
                            return f'"{verdict.key}": {literal}'
        # falls through (`pass`, a log line) to `return False` right after the `try`
        after = body.after.get(id(try_))
        if isinstance(after, ast.Return) and not any(isinstance(s, (ast.Continue, ast.Break)) for s in handler.body):
            return verdict.literal(after.value, body) or ""
        return ""

    def _returned(self, name: str) -> bool:
        for ret in self.body.returns:
            if ret.value is None:
                continue
            for part in self.verdict.part(ret.value):
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(part)):
                    return True
        return False

    # -- missing data ------------------------------------------------------------------------
    def _missing(self) -> Fold | None:
        if not self.body.ifs:
            return None
        lookups = self._lookups()
        for if_ in self.body.ifs:
            subject = _missing_subject(if_.test)
            if subject is None:
                continue
            found = lookups.get(subject) or self._configured(subject, if_.lineno)
            if found is None:
                continue
            step, permissive_only = found
            ret = next((s for s in if_.body if isinstance(s, ast.Return)), None)
            text = self.verdict.literal(ret.value, self.body) if ret is not None else None
            if not text or not self._used_after(subject, if_):
                continue
            if permissive_only and not passes(text, self.verdict):
                continue
            return Fold("missing", if_, f"if {text_of(if_.test)}:", text, step)
        return None

    def _configured(self, subject: str, line: int) -> tuple[Step, bool] | None:
        """A module constant or an attribute of the instance that holds configuration:
        `API_KEY = os.getenv(...)`, `self.secret = os.environ.get(...)`, an optional
        evaluator (`self.consent_callback`) or a secret (`self.api_key`)."""
        head, _, attr = subject.partition(".")
        if not attr:
            value = self.model.module_scope.values.get(head)
            if value is not None and self._config_lookup(value):
                return Step("config", _lookup_text(value), value.lineno), False
            return None
        if head != "self" or "." in attr:
            return None
        owner = self.model.parents.get(id(self.func))
        value = self.model.class_scope(owner).values.get(attr) if owner is not None else None
        if value is not None and self._config_lookup(value):
            return Step("config", _lookup_text(value), value.lineno), False
        if _ends_with(attr, guards.OPTIONAL_HOOK_WORDS):
            return Step("hook", subject, line), False
        if _ends_with(attr, guards.SECRET_WORDS):
            return Step("secret", subject, line), False
        return None

    def _config_lookup(self, value: ast.AST) -> bool:
        if isinstance(value, ast.Subscript):
            return self.model.resolve(dotted(value.value) or "") == "os.environ"
        if not isinstance(value, ast.Call):
            return False
        written = dotted(value.func) or ""
        return bool(written) and (written in guards.CONFIG_LOOKUPS or self.model.resolve(written) in guards.CONFIG_LOOKUPS)

    def _lookups(self) -> dict[str, tuple[Step, bool]]:
        """Local names bound to a lookup that may find nothing -> (the step, whether only a
        permissive verdict on it is a fold)."""
        out: dict[str, tuple[Step, bool]] = {}
        inputs = input_parameters(self.func)
        literal_bound = {name for name, value in self.model.module_scope.values.items() if isinstance(value, _TABLES)}
        for stmt in self.body.statements:
            if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if len(targets) != 1 or not isinstance(targets[0], ast.Name):
                continue
            value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
            if isinstance(value, ast.Subscript) and self.model.resolve(dotted(value.value) or "") == "os.environ":
                out[targets[0].id] = (Step("config", text_of(value), stmt.lineno), False)
                continue
            if not isinstance(value, ast.Call):
                continue
            written = dotted(value.func) or ""
            qualified = self.model.resolve(written) if written else ""
            if qualified in guards.CONFIG_LOOKUPS or written in guards.CONFIG_LOOKUPS:
                default = value.args[1] if len(value.args) > 1 else None
                if isinstance(default, ast.Constant) and default.value not in (None, ""):
                    continue  # `os.getenv("LIMIT", "100")`: never missing
                out[targets[0].id] = (Step("config", call_text(value), stmt.lineno), False)
            elif written == "getattr" and len(value.args) == 3 and isinstance(value.args[2], ast.Constant) \
                    and value.args[2].value is None and isinstance(value.args[1], ast.Constant) \
                    and _ends_with(str(value.args[1].value), guards.OPTIONAL_HOOK_WORDS):
                out[targets[0].id] = (Step("hook", text_of(value), stmt.lineno), False)
            elif isinstance(value.func, ast.Attribute) and value.func.attr in guards.STORE_LOOKUP_METHODS:
                receiver = value.func.value
                root = receiver
                while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
                    root = root.func if isinstance(root, ast.Call) else root.value
                if isinstance(root, ast.Name) and (root.id in inputs or root.id in literal_bound):
                    continue  # a lookup on the input under judgment, or on a constant table
                if value.func.attr == "get" and len(value.args) >= 2:
                    continue  # `x.get(k, default)`: never None
                step = self.fallibility.step(value, self.func)
                out[targets[0].id] = (step or Step("lookup", call_text(value), stmt.lineno), step is None)
        return out

    def _used_after(self, subject: str, if_: ast.If) -> bool:
        end = getattr(if_, "end_lineno", if_.lineno)
        for stmt in self.body.statements:
            if stmt.lineno <= end:
                continue
            for node in own_nodes(stmt):
                if isinstance(node, (ast.Compare, ast.Call)):
                    for leaf in ast.walk(node):
                        if isinstance(leaf, (ast.Name, ast.Attribute)) and dotted(leaf) == subject:
                            return True
        return False

    # -- collapse ----------------------------------------------------------------------------
    def _collapse(self) -> Fold | None:
        for stmt in self.body.statements:
            for node in _shallow(stmt):
                if isinstance(node, ast.Compare):
                    found = self._label_compare(node)
                elif isinstance(node, ast.Call):
                    found = self._defaulted(node)
                else:
                    continue
                if found is None:
                    continue
                kind, step = found
                how = self._flows(node)
                if how is not None:
                    return Fold(kind, node, text_of(node, 70), how, step)
        return None

    def _label_compare(self, node: ast.Compare) -> tuple[str, Step] | None:
        if any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            return None
        sides = [node.left, *node.comparators]
        if any(isinstance(s, ast.Call) and last(dotted(s.func)) in _STRUCTURE_CALLS for s in sides):
            return None  # `len(reply) > 0`: whether there is an answer, not what it says
        answered = [(s, None if _metadata(s) else self.taint.answer(s)) for s in sides]
        steps = [step for _, step in answered if step is not None]
        others = [s for s, step in answered if step is None]
        if not steps or not others:
            return None
        if any(_bool_or_none(s) for s in others):
            return None
        ordering = all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops)
        if ordering or any(_label(s) for s in others):
            return "collapse", steps[0]
        return None

    def _defaulted(self, call: ast.Call) -> tuple[str, Step] | None:
        """`answer.get("safe", True)`, `getattr(answer, "is_safe", True)`."""
        default = None
        subject: ast.AST | None = None
        if isinstance(call.func, ast.Attribute) and call.func.attr == "get" and len(call.args) == 2:
            default, subject = call.args[1], call.func.value
        elif isinstance(call.func, ast.Name) and call.func.id == "getattr" and len(call.args) == 3:
            default, subject = call.args[2], call.args[0]
        if subject is None or not (isinstance(default, ast.Constant) and isinstance(default.value, bool)):
            return None
        step = self.taint.answer(subject)
        return ("default", step) if step is not None else None

    def _flows(self, node: ast.AST) -> str | None:
        """How ``node`` decides the verdict: "" when it is (part of) a returned verdict,
        the literal every other answer gets through an `if` on it (`=` and the literal
        when only the matching branch returns one), or None."""
        carriers: set[str] = set()
        for _ in range(3):
            before = len(carriers)
            for stmt in self.body.statements:
                if isinstance(stmt, ast.Assign) and (_holds(stmt.value, node) or _uses(stmt.value, carriers)):
                    for target in stmt.targets:
                        carriers |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            if len(carriers) == before:
                break
        for ret in self.body.returns:
            if ret.value is None:
                continue
            for part in self.verdict.part(ret.value, self.body):
                if _holds(part, node) or _uses(part, carriers):
                    return ""
        for if_ in self.body.ifs:
            if _holds(if_.test, node) or _uses(if_.test, carriers):
                after = self.body.after.get(id(if_))
                # the branch every other answer takes first: `else`, or what follows the `if`
                others = [*if_.orelse, *([after] if after is not None and not if_.orelse else [])]
                for branch, prefix in ((others, ""), (if_.body, "=")):
                    for stmt in branch:
                        if isinstance(stmt, ast.Return):
                            text = self.verdict.literal(stmt.value, self.body)
                            if text:
                                return prefix + text
        return None


def _metadata(expr: ast.AST) -> bool:
    """`response.usage.total_tokens`, `message["role"]`: a field about the call."""
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(expr, ast.Attribute) and expr.attr in guards.ANSWER_METADATA:
            return True
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) \
                and expr.slice.value in guards.ANSWER_METADATA:
            return True
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return False


def _lookup_text(value: ast.AST) -> str:
    return call_text(value) if isinstance(value, ast.Call) else text_of(value)


def _ends_with(name: str, words: frozenset[str]) -> bool:
    """`consent_callback` ends with `callback`; `cached_token_refresh_at` does not end with `token`."""
    parts = name_parts(name)
    return bool(parts) and parts[-1] in words


def _shallow(stmt: ast.stmt) -> Iterable[ast.AST]:
    """The expression nodes of one statement (not of the statements nested in it)."""
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, ast.AST):
                yield from own_nodes(item)


def _holds(expr: ast.AST, node: ast.AST) -> bool:
    return any(n is node for n in own_nodes(expr))


def _uses(expr: ast.AST, names: set[str]) -> bool:
    return bool(names) and any(isinstance(n, ast.Name) and n.id in names for n in own_nodes(expr))


def _bool_or_none(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Constant) and (expr.value is None or isinstance(expr.value, bool))


def _label(expr: ast.AST) -> bool:
    """A label constant: `"yes"`, `0.5`, `("low", "medium")`, `Decision.BLOCK`, `BLOCK`."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (str, int, float)) and not isinstance(expr.value, bool)
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return bool(expr.elts) and all(_label(e) for e in expr.elts)
    if isinstance(expr, ast.Attribute):
        if expr.attr in ("value", "name") and isinstance(expr.value, ast.Attribute):
            return expr.value.attr.isupper()  # `Severity.HIGH.value`
        return expr.attr.isupper()
    if isinstance(expr, ast.Name):
        return expr.id.isupper() and len(expr.id) > 1
    return False


def _literal_constant(value: ast.Constant, verdict: Verdict) -> str | None:
    if isinstance(value.value, bool):
        return repr(value.value)
    if isinstance(value.value, str) and value.value.strip().lower() in verdict.members:
        return repr(value.value)
    return None


def _missing_subject(test: ast.expr) -> str | None:
    """`not x`, `x is None`, `x == ""`, `not x or ...`: the name tested for absence."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        for value in test.values:
            found = _missing_subject(value)
            if found is not None:
                return found
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return dotted(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        right = test.comparators[0]
        if isinstance(right, ast.Constant) and (right.value is None or right.value == ""):
            if isinstance(test.ops[0], (ast.Is, ast.Eq)):
                return dotted(test.left)
    return None


def _escapes(handler: ast.ExceptHandler, model: Any) -> bool:
    """The handler lets the failure out: it raises or exits."""
    for stmt in handler.body:
        for node in own_nodes(stmt):
            if isinstance(node, ast.Raise):
                return True
            if isinstance(node, ast.Call):
                written = dotted(node.func)
                if written and (written in guards.EXIT_CALLS or model.resolve(written) in guards.EXIT_CALLS):
                    return True
    return False


def _except_clause(handler: ast.ExceptHandler) -> str:
    if handler.type is None:
        return "except:"
    return f"except {text_of(handler.type)}:"


def passes(literal: str, verdict: Verdict) -> bool | None:
    """Whether the literal verdict ``literal`` means "pass" (None: cannot tell, as for
    `ok = False` whose use later may negate it)."""
    if " = " in literal:
        return None
    value = literal.rpartition("=")[2].rpartition(": ")[2].strip("(). ")
    if value.startswith("True"):
        return not verdict.rejects_on_true
    if value.startswith("False"):
        return verdict.rejects_on_true
    if value.startswith("PassResult"):
        return True
    if value.startswith("FailResult"):
        return False
    text = value.strip("'\"").strip().lower()
    if verdict.form in ("string",) or text in verdict.members:
        if text in guards.REJECT_STRINGS:
            return False
        if verdict.form == "string":
            return True
    return None
