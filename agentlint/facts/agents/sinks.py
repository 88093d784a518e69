"""Irreversible effects a tool reaches, and what stands before them (AGL203, `agentlint
tools`).

Read from a file's agent model: a tool's body (or its implementation) is walked in order,
with the helpers of the same module it calls (up to three calls deep). A call is a sink
when ``knowledge.irreversible`` says so (money moved, a message sent, data deleted, code
deployed); deletion counts only when what is deleted comes from a parameter the model
fills (followed through assignments and into helpers' parameters). Before a sink, two
things protect it: a deterministic guard (an `if` on state, a limit, a permission or an
allow-list that exits or encloses the sink; a call to a guard-named function) or a human's
decision asked in code (LangGraph `interrupt()`, ADK `request_confirmation()`, `input()`).
A test that only says the input is there or well formed (`if not to:`, `isinstance`, a
`confirm` flag the model sets itself) is no guard. What the framework declares
(`needs_approval=`, ...) is the tool's ``approval``; approvals wired for the whole module
(`interrupt_before=`, `human_input=True`) are ``module_approval``.
"""

from __future__ import annotations

import ast
import bisect
import re
import weakref
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

from agentlint.facts.ast_helpers import call_chain, callee_text, dotted, last_name, line_numbers, occurrences
from agentlint.facts.types import SinkFact
from agentlint.knowledge import frameworks as fw
from agentlint.knowledge import irreversible as irr
from agentlint.knowledge.guards import is_guard_name
from agentlint.knowledge.words import name_parts, name_words
from agentlint.lazy_regex import lazy_compile

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SKIP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_MAX_DEPTH = 3
_WHERE = lazy_compile(r"\bWHERE\b", re.I)
_APPROVAL_WORDS = ("interrupt", "input(", "confirm", "request_confirmation", "elicit", "wait_for_event")
_NAMED_APPROVAL_WORDS = ("interrupt_on", *fw.APPROVAL_NAME_LISTS)
_ASKS = lazy_compile(r"\binterrupt\(|\binput\(|confirm|request_confirmation|\belicit\(|wait_for_event|\.ask\(")
_ASK_TEXTS = ("interrupt(", "input(", "confirm", "elicit(", "wait_for_event", ".ask(")
"""A piece of text each match of ``_ASKS`` holds: ``_asking_lines`` finds them first, and
searches only the lines that hold one."""
_APPLICATION_NAMES = frozenset({"agents", "mcp"})
_TOOL_CALL_WORDS = frozenset({"tool_calls", "tool_call", "function_call", "function_calls"})
_FLAG_WORDS = irr.GUARD_CALL_WORDS | {"enabled", "enable", "dry", "readonly", "active", "locked", "verified",
                                       "status", "state", "is", "has", "live", "production", "sandbox", "confirmation",
                                       "confirmed"}


@dataclass(frozen=True)
class Sink:
    """An irreversible call a tool reaches."""

    kind: str
    """`payment`, `outgoing message`, `deletion`, `deploy or push`, or `configured call`."""
    text: str
    """How the sink call reads (`stripe.Refund.create`)."""
    line: int
    """The sink's line (in the tool or in the helper that makes it)."""
    at: ast.Call
    """The call in the tool's own body that reaches it (the sink itself, or a helper call)."""
    steps: tuple[str, ...] = ()
    """The helpers on the way (`_issue_refund`)."""
    protection: str = ""
    """The guard or the human's decision before it (guard `if amount > LIMIT` (line 12)), or ""."""

    def fact(self, column: int) -> SinkFact:
        """As a fact; ``column``: the 1-based character column of ``at``."""
        return SinkFact(self.kind, self.text, self.line, self.at.lineno, column, self.steps, self.protection)


class _State:
    def __init__(self, func: ast.AST, tainted: set[str], direct: frozenset[str], depth: int, seen: frozenset[int]):
        self.func = func
        self.tainted = tainted
        self.direct = direct
        self.depth = depth
        self.seen = seen
        self.out: list[Sink] = []


@lru_cache(maxsize=8)
def _sink_words(configured: tuple[str, ...]) -> "re.Pattern[bytes]":
    words = {name.rpartition(":")[2].rpartition(".")[2] for name in irr.QUALIFIED_SINKS}
    words |= {tail.rpartition(".")[2] for tail in irr.CHAIN_TAILS}
    words |= {name.rpartition(".")[2] for name in irr.COMMAND_RUNNERS}
    words |= set(irr.SQL_WRITES) | set(irr.ORM_DELETE_METHODS) | set(irr.CLOUD_MESSAGE_METHODS) | {"send"}
    words |= {f"{prefix}[A-Za-z_]*" for prefix in irr.CLOUD_DELETE_PREFIXES}
    words |= {f"{verb}[A-Za-z_]*" for verb in (*irr.PROJECT_MONEY_VERBS, *irr.PRICE_WRITE_VERBS)}
    words |= {re.escape(pattern.rpartition(":")[2].rpartition(".")[2]) for pattern in configured}
    plain = sorted(w for w in words if w.isidentifier())
    patterns = sorted(w for w in words if not w.isidentifier())
    return re.compile(rb"\b(?:" + b"|".join([*(re.escape(w).encode() for w in plain), *(p.encode() for p in patterns)]) + rb")\b")


def sink_words(knowledge: Any) -> "re.Pattern[bytes]":
    """A cheap test over a module's bytes: can it make an irreversible call at all?"""
    return _sink_words(tuple(getattr(knowledge, "irreversible_callables", ())))


def _asking_lines(source: str, lines: list[str]) -> list[int]:
    """The numbers of the ``lines`` that hold a match of ``_ASKS``, in order (``source``:
    the lines joined by `\\n`). Each match holds one of ``_ASK_TEXTS``, so only the lines
    where one of them is found are searched."""
    found = sorted(at for text in _ASK_TEXTS for at in occurrences(source, text))
    return [n for n in line_numbers(source, found) if _ASKS.search(lines[n - 1])]


class SinkFinder:
    """The irreversible sinks of one module's tools."""

    def __init__(self, model: Any) -> None:
        self.model = weakref.proxy(model)
        """The model that owns this finder (a proxy: a reference back would make the two,
        and the module's whole tree with them, garbage that only a collection frees)."""
        self.patterns = tuple(getattr(model.knowledge, "irreversible_callables", ()))
        self._helpers: dict[tuple[int, frozenset[str]], list[Sink]] = {}
        self._source = "\n".join(model.lines)
        self._asking = _asking_lines(self._source, model.lines)
        """The lines that may ask a human: only the defs holding one are read for it."""
        self._framework_code = _framework_code(model.module)
        self.module_approval = "" if self._framework_code else self._module_approval()

    # -- the tool --------------------------------------------------------------------------
    def tool_sinks(self, tool: Any) -> list[Sink]:
        func = tool.body_node
        if not isinstance(func, _DEFS):
            return []
        injected = {p.name for p in tool.fact.params if p.injected}
        params = frozenset(_param_names(func) - injected - {"self", "cls"})
        return self._function(func, set(params), params, 0, frozenset({id(func)}))

    def _function(self, func: ast.AST, tainted: set[str], direct: frozenset[str], depth: int,
                  seen: frozenset[int]) -> list[Sink]:
        state = _State(func, tainted, direct, depth, seen)
        self._block(func.body, state, "")  # type: ignore[attr-defined]
        return state.out

    def function_sinks(self, func: ast.AST) -> list[Sink]:
        """The unprotected irreversible calls a function of this module reaches when every
        parameter it takes comes from the model (for the tools of other modules calling it)."""
        params = frozenset(_param_names(func) - {"self", "cls"})
        return [s for s in self._function(func, set(params), params, 1, frozenset({id(func)})) if not s.protection]

    # -- statements ------------------------------------------------------------------------
    def _block(self, body: list[ast.stmt], st: _State, protection: str) -> tuple[bool, str]:
        """Scan ``body`` in order; (whether it always exits, the protection after it)."""
        for stmt in body:
            if isinstance(stmt, _SKIP):
                continue
            if isinstance(stmt, (ast.Return, ast.Raise)):
                self._calls(stmt, st, protection)
                return True, protection
            if isinstance(stmt, (ast.Continue, ast.Break)):
                return True, protection
            if isinstance(stmt, ast.If):
                if _never(stmt.test):
                    exits, protection = self._block(stmt.orelse, st, protection)
                    if exits:
                        return True, protection
                    continue
                self._calls(stmt.test, st, protection)
                found = self._guard(stmt.test, st) or self._approval_in(stmt.test)
                if found is None and _raises_approval(stmt.body):
                    found = f"approval `raise {_raised(stmt.body)}` (line {stmt.lineno})"
                inner = found or protection
                body_exits, _ = self._block(stmt.body, st, inner)
                else_exits, _ = self._block(stmt.orelse, st, inner)
                if found is None and body_exits:
                    # `if not ctx.tool_confirmation: ctx.request_confirmation(...); return`
                    found = next((a for a in map(self._approval_in, stmt.body) if a), None)
                if body_exits and else_exits:
                    return True, protection
                if found and (body_exits or else_exits):
                    protection = protection or found
                continue
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                head = stmt.test if isinstance(stmt, ast.While) else stmt.iter
                self._calls(head, st, protection)
                if not isinstance(stmt, ast.While) and _mentions(stmt.iter, st.tainted):
                    st.tainted |= _names(stmt.target)
                self._block(stmt.body, st, protection)
                self._block(stmt.orelse, st, protection)
                continue
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    self._calls(item.context_expr, st, protection)
                exits, protection = self._block(stmt.body, st, protection)
                if exits:
                    return True, protection
                continue
            if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                exits, after = self._block(stmt.body, st, protection)
                handlers_exit = all(self._block(h.body, st, protection)[0] for h in stmt.handlers)
                self._block(stmt.orelse, st, after)
                self._block(stmt.finalbody, st, protection)
                if exits and handlers_exit and stmt.handlers:
                    return True, protection
                protection = after
                continue
            if hasattr(ast, "Match") and isinstance(stmt, ast.Match):
                self._calls(stmt.subject, st, protection)
                for case in stmt.cases:
                    self._block(case.body, st, protection)
                continue
            # a simple statement
            self._calls(stmt, st, protection)
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None \
                    and _mentions(stmt.value, st.tainted):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    st.tainted |= _names(target)
            if not protection:
                value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
                if value is not None:
                    protection = self._approval_in(value) or self._guard_call(value, stmt.lineno) or ""
        return False, protection

    # -- calls -----------------------------------------------------------------------------
    def _calls(self, node: ast.AST, st: _State, protection: str) -> None:
        for call in _calls_of(node):
            found = self._sink(call, st)
            if found is not None:
                kind, text = found
                st.out.append(Sink(kind, text, call.lineno, call, (), protection))
                continue
            if st.depth >= _MAX_DEPTH:
                continue
            helper = self.model.helper_of(call, st.func)
            if helper is None or id(helper) in st.seen or not isinstance(helper, _DEFS):
                continue
            tainted = _tainted_params(call, helper, st.tainted)
            key = (id(helper), tainted)
            if key not in self._helpers:
                self._helpers[key] = []  # a cycle through another path reads as nothing
                self._helpers[key] = self._function(helper, set(tainted), tainted, st.depth + 1,
                                                    st.seen | {id(helper)})
            step = dotted(call.func) or helper.name
            for sink in self._helpers[key]:
                st.out.append(Sink(sink.kind, sink.text, sink.line, call, (step, *sink.steps),
                                   protection or sink.protection))

    def _sink(self, call: ast.Call, st: _State) -> tuple[str, str] | None:
        model = self.model
        func = call.func
        name = dotted(func)
        if name is not None:
            qualified = model.resolve(name)
            for pattern in self.patterns:
                if _pattern_matches(pattern, qualified, name):
                    return "configured call", name
            kind = model.lookup(qualified, irr.QUALIFIED_SINKS)
            if kind is not None:
                return self._tainted_kind(kind, call, st, name)
            imported = model.knowledge.imported_sinks.get(qualified) if name.partition(".")[0] in model.imports else None
            if imported is not None and (imported[0] != irr.DELETION or _mentions(call, st.tainted)):
                return imported[0], f"{name} → {imported[1]}"
            if qualified in irr.COMMAND_RUNNERS:
                kind = _command(call)
                return self._tainted_kind(kind, call, st, f"{name}(...)") if kind else None
        if not isinstance(func, ast.Attribute):
            return self._project_money(call, func, st)
        method = func.attr
        type_ = model.receiver_type(func.value, st.func)
        if type_ is not None:
            kind = model.lookup(f"{type_}.{method}", irr.QUALIFIED_SINKS)
            if kind is not None:
                return self._tainted_kind(kind, call, st, callee_text(func))
            if type_.split(".", 1)[0] in irr.CLOUD_ROOTS:
                if method.startswith(irr.CLOUD_DELETE_PREFIXES):
                    return self._tainted_kind(irr.DELETION, call, st, callee_text(func))
                if method in irr.CLOUD_MESSAGE_METHODS:
                    return irr.MESSAGE, callee_text(func)
        chain = _chain(func)
        for tail, (root, kind) in irr.CHAIN_TAILS.items():
            if (chain == tail or chain.endswith("." + tail)) and (not root or root in model.imported_roots):
                return kind, callee_text(func)
        if method in irr.SQL_EXECUTE_METHODS and call.args:
            return self._sql(call, st)
        if method in irr.ORM_DELETE_METHODS and _database_chain(func.value):
            return self._tainted_kind(irr.DELETION, call, st, callee_text(func))
        if method == "send" and not call.args and not call.keywords and isinstance(func.value, ast.Name) \
                and name_words(func.value.id) & irr.MESSAGE_RECEIVER_WORDS \
                and not model.imported_roots & irr.CHAT_UI_ROOTS \
                and (type_ is None or type_.split(".", 1)[0] not in irr.CHAT_UI_ROOTS):
            return irr.MESSAGE, callee_text(func)
        return self._project_money(call, func, st)

    def _tainted_kind(self, kind: str, call: ast.Call, st: _State, text: str) -> tuple[str, str] | None:
        if kind == irr.DELETION and not _mentions(call, st.tainted):
            return None
        return kind, text

    def _sql(self, call: ast.Call, st: _State) -> tuple[str, str] | None:
        sql = _leading_text(call.args[0])
        if sql is None:
            return None
        words = sql.split()
        verb = words[0].upper() if words else ""
        if verb not in irr.SQL_WRITES:
            return None
        text = f"{callee_text(call.func)}(\"{verb} ...\")"
        if verb in ("DELETE", "UPDATE") and _WHERE.search(_sql_text(call.args[0])):
            return self._tainted_kind(irr.DELETION, call, st, text) if verb == "DELETE" else None
        return irr.DELETION, text

    def _project_money(self, call: ast.Call, func: ast.AST, st: _State) -> tuple[str, str] | None:
        """`billing.refund(order_id, amount=amount)`: a call named for moving money (or
        writing a price) that passes a money amount, on something this module does not define."""
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name is None or self.model.helper_of(call, st.func) is not None:
            return None
        words = name_parts(name)
        if not words:
            return None
        money_verb = words[0] in irr.PROJECT_MONEY_VERBS
        price_write = words[0] in irr.PRICE_WRITE_VERBS and bool(set(words) & irr.PRICE_NOUNS)
        if not (money_verb or price_write) or not _passes_money(call):
            return None
        return irr.PAYMENT, callee_text(func)

    # -- protections -----------------------------------------------------------------------
    def _guard(self, test: ast.AST, st: _State) -> str | None:
        if _is_guard(test, st.direct):
            return f"guard `if {_short(test)}` (line {test.lineno})"  # type: ignore[attr-defined]
        return None

    def _guard_call(self, value: ast.AST, line: int) -> str | None:
        """`check_permission(user)`, `await self._ensure_allowed(order)`: a guard-named call
        as a statement (it raises when the check fails)."""
        if isinstance(value, ast.Await):
            value = value.value
        if not isinstance(value, ast.Call):
            return None
        name = last_name(value.func)
        if name and (is_guard_name(name) or name_parts(name)[:1] in (["ensure"], ["require"], ["assert"])):
            return f"guard `{callee_text(value.func)}(...)` (line {line})"
        return None

    def _approval_in(self, node: ast.AST) -> str | None:
        for call in _calls_of(node):
            name = dotted(call.func)
            if isinstance(call.func, ast.Name) and name in irr.APPROVAL_BUILTINS and name not in self.model.functions:
                return f"approval `{name}()` (line {call.lineno})"
            if name is not None:
                found = self.model.lookup(self.model.resolve(name), irr.APPROVAL_CALLS)
                if found is not None:
                    return f"approval {found} (line {call.lineno})"
            if isinstance(call.func, ast.Attribute) and call.func.attr in irr.APPROVAL_METHODS:
                return f"approval {irr.APPROVAL_METHODS[call.func.attr]} (line {call.lineno})"
        return None

    def approved_names(self) -> tuple[str, ...]:
        """The tools this module approves by name, for the tools of every module: the
        names (string constants) a function asking a human mentions (a graph node that
        interrupts before the tool calls it dispatches by name), the keys of LangChain's
        `interrupt_on={...}` and the names in Agno's `requires_confirmation_tools=[...]`."""
        # a def counts only where a line asks (``_may_ask``); the keyword lists need their names
        named = any(word in self._source for word in _NAMED_APPROVAL_WORDS)
        asks = bool(self._asking) and any(word in self._source for word in _APPROVAL_WORDS)
        if self._framework_code or not (asks or named):
            return ()
        out: set[str] = set()
        for node in self.model.key_nodes:
            if isinstance(node, _DEFS) and self._may_ask(node) and self._approval_in(node):
                out.update(_identifiers(node))
            elif isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "interrupt_on" and isinstance(kw.value, ast.Dict):
                        out.update(k.value for k, v in zip(kw.value.keys, kw.value.values)
                                   if isinstance(k, ast.Constant) and isinstance(k.value, str) and not _falsy(v))
                    elif kw.arg in fw.APPROVAL_NAME_LISTS:
                        out.update(_identifiers(kw.value))
        return tuple(sorted(out))

    def _module_approval(self) -> str:
        """An approval wired for every tool the project runs: `interrupt_before=["tools"]`,
        `human_input=True`, AutoGen's `human_input_mode="ALWAYS"`, MAF's
        `ToolApprovalMiddleware`, a Semantic Kernel function-invocation filter, or a
        function that dispatches the model's tool calls after asking a human (`if not
        click.confirm(...)`, `interrupt(...)`)."""
        words = (*irr.APPROVAL_WIRING_KEYWORDS, *(p.rpartition(":")[2] for p in irr.APPROVAL_WIRING_CALLS),
                 "human_input_mode", "FUNCTION_INVOCATION", "function_invocation")
        # a dispatcher that asks first needs a line that asks: without one, the common
        # words `tool_call` / `function_call` alone are no reason to walk the module
        dispatch = ("tool_call", "function_call") if self._asking else ()
        if not any(word in self._source for word in (*words, *dispatch)):
            return ""
        for node in self.model.key_nodes:
            if isinstance(node, _DEFS):
                found = self._dispatcher_approval(node) if self._may_ask(node) else ""
                if found:
                    return found
                continue
            if not isinstance(node, ast.Call):
                continue
            for kw in node.keywords:
                what = irr.APPROVAL_WIRING_KEYWORDS.get(kw.arg or "")
                if what and _configured(kw.value):
                    return f"{what} (line {node.lineno})"
                if kw.arg == "human_input_mode" and isinstance(kw.value, ast.Constant) and kw.value.value == "ALWAYS":
                    return f'AutoGen `human_input_mode="ALWAYS"` (line {node.lineno})'
            name = dotted(node.func)
            if name is not None:
                found = self.model.lookup(self.model.resolve(name), irr.APPROVAL_WIRING_CALLS)
                if found is not None:
                    return f"{found} (line {node.lineno})"
            if last_name(node.func) in ("filter", "add_filter") and any(
                    "function_invocation" in _short(a).lower() for a in [*node.args, *(k.value for k in node.keywords)]):
                return f"Semantic Kernel function-invocation filter (line {node.lineno})"
        return ""

    def _may_ask(self, func: ast.AST) -> bool:
        start, end = func.lineno, getattr(func, "end_lineno", None) or func.lineno  # type: ignore[attr-defined]
        index = bisect.bisect_left(self._asking, start)
        return index < len(self._asking) and self._asking[index] <= end

    def _dispatcher_approval(self, func: ast.AST) -> str:
        """`for call in message.tool_calls: if not confirm(...): continue; run(call)`: a
        function that reads the model's tool calls and asks a human in a condition (or
        interrupts the graph) before running them."""
        reads_calls = any(
            (isinstance(n, ast.Attribute) and n.attr in _TOOL_CALL_WORDS)
            or (isinstance(n, ast.Constant) and n.value in _TOOL_CALL_WORDS)
            for n in ast.walk(func))
        if not reads_calls:
            return ""
        for node, by_name in _walk_conditions(func.body, False):  # type: ignore[attr-defined]
            if by_name:
                continue  # asked only for the tools named there: `approved_names`
            if isinstance(node, (ast.If, ast.While)):
                found = self._approval_in(node.test)
                if found:
                    return f"{found}, before the tool calls `{func.name}` runs"  # type: ignore[attr-defined]
            elif isinstance(node, ast.Call):
                name = dotted(node.func)
                if name is not None and self.model.lookup(self.model.resolve(name), irr.APPROVAL_CALLS) \
                        == irr.APPROVAL_CALLS["langgraph:interrupt"]:
                    return f"LangGraph `interrupt()` (line {node.lineno}), before the tool calls `{func.name}` runs"  # type: ignore[attr-defined]
        return ""


# -- guards -------------------------------------------------------------------------------
def _is_guard(test: ast.AST, direct: frozenset[str]) -> bool:
    """Is ``test`` a deterministic check of state, a limit, a permission or an allow-list
    (not a presence, type or format check of the model's input, nor a flag it sets)?"""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _is_guard(test.operand, direct)
    if isinstance(test, ast.BoolOp):
        return any(_is_guard(v, direct) for v in test.values)
    if isinstance(test, ast.Compare):
        left = test.left
        for op, right in zip(test.ops, test.comparators):
            if isinstance(op, (ast.Lt, ast.Gt, ast.LtE, ast.GtE)):
                if not (_is_length(left) or _is_length(right)):
                    return True
            elif isinstance(op, (ast.In, ast.NotIn)):
                if not _only(right, direct) and not isinstance(right, ast.Constant):
                    return True
            elif not (_empty(right) or _empty(left)):
                if _state(left, direct) or _state(right, direct):
                    return True
            left = right
        return False
    if isinstance(test, ast.Call):
        name = last_name(test.func)
        if name is None or name in irr.PRESENCE_CALLS:
            return False
        return is_guard_name(name) or bool(name_words(name) & irr.GUARD_CALL_WORDS)
    if isinstance(test, (ast.Attribute, ast.Subscript)):
        if _root(test) in direct:
            return False
        leaf = test.attr if isinstance(test, ast.Attribute) else _const_key(test)
        return bool(leaf) and bool(name_words(leaf) & _FLAG_WORDS)
    if isinstance(test, ast.Name):
        if test.id in direct:
            return False
        return bool(name_words(test.id) & _FLAG_WORDS)  # `allowed`, `DRY_RUN`, `ALLOW_SEND`
    return False


def _state(node: ast.AST, direct: frozenset[str]) -> bool:
    """Something read from state, not the model's input: `order.status`, `user["role"]`, a
    local set from a lookup (`status`), a constant (`MODE`)."""
    if isinstance(node, ast.Constant):
        return False
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        return _root(node) not in direct
    if isinstance(node, ast.Name):
        return node.id not in direct
    if isinstance(node, ast.Call):
        name = last_name(node.func)
        return name is not None and name not in irr.PRESENCE_CALLS and not _only(node, direct)
    return False


def _is_length(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def _empty(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in (None, "", 0, False, True)


def _only(node: ast.AST, names: frozenset[str]) -> bool:
    """Does ``node`` read only ``names`` (and constants)?"""
    found = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    return bool(found) and all(n in names for n in found)


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _const_key(node: ast.Subscript) -> str:
    key = node.slice
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""


def _never(test: ast.AST) -> bool:
    """`if False:`, `if 0:`, `if TYPE_CHECKING:`: a branch that never runs."""
    if isinstance(test, ast.Constant):
        return not test.value
    name = dotted(test)
    return name is not None and name.rpartition(".")[2] == "TYPE_CHECKING"


def _raises_approval(body: list[ast.stmt]) -> bool:
    return _raised(body) in irr.APPROVAL_EXCEPTIONS


def _raised(body: list[ast.stmt]) -> str:
    for stmt in body:
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            return last_name(exc) or ""
    return ""


def _configured(node: ast.AST) -> bool:
    """A value an application writes to switch an approval on: a true constant, a
    non-empty literal list (`interrupt_before=["tools"]`), a function (`approval_func=ask`).
    A name passed through (`interrupt_before=interrupt_before`, a framework's own code
    forwarding its caller's choice) is not."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return bool(node.elts)
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = node.id if isinstance(node, ast.Name) else node.attr
        return bool(name_words(name) - {"interrupt", "before", "human", "input", "approval", "func"})
    return isinstance(node, ast.Lambda)


def _falsy(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return not node.value
    return isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)) and not (
        node.keys if isinstance(node, ast.Dict) else node.elts)


# -- sinks --------------------------------------------------------------------------------
def _command(call: ast.Call) -> str | None:
    """The kind of a shell command run with a literal program and first argument."""
    if not call.args:
        return None
    first = call.args[0]
    words: list[str] = []
    if isinstance(first, (ast.List, ast.Tuple)):
        for elt in first.elts[:2]:
            if not (isinstance(elt, ast.Constant) and isinstance(elt.value, str)):
                break
            words.append(elt.value)
        if len(words) < 2 and len(call.args) > 1 and isinstance(call.args[0], ast.Constant):
            words = [a.value for a in call.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    elif isinstance(first, ast.Constant) and isinstance(first.value, str) and len(call.args) > 1:
        words = [a.value for a in call.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    else:
        text = _leading_text(first)
        words = text.split()[:2] if text else []
    if len(words) < 2:
        return None
    return irr.COMMANDS.get((words[0].rpartition("/")[2], words[1]))


def _leading_text(node: ast.AST) -> str | None:
    """The literal start of a string argument: a constant, an f-string's first part, or
    the text passed to SQLAlchemy's `text("...")`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.strip()
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return str(node.values[0].value).strip()
    if isinstance(node, ast.Call) and last_name(node.func) == "text" and node.args:
        return _leading_text(node.args[0])
    return None


def _sql_text(node: ast.AST) -> str:
    """Every literal part of a SQL argument (a constant, an f-string, `text(...)`)."""
    if isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    return " ".join(n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str))


def _database_chain(receiver: ast.AST) -> bool:
    for part in _chain_names(receiver):
        if name_words(part) & irr.DELETE_RECEIVER_WORDS:
            return True
    return False


def _passes_money(call: ast.Call) -> bool:
    for kw in call.keywords:
        if kw.arg and name_words(kw.arg) & irr.MONEY_WORDS:
            return True
    for arg in call.args:
        name = last_name(arg)
        if name and name_words(name) & irr.MONEY_WORDS:
            return True
    return False


def _chain(func: ast.AST) -> str:
    """The attribute names of a callee, calls skipped, receiver root left out:
    `service.users().messages().send` -> `users.messages.send`."""
    return ".".join(_chain_names(func)[1:])


def _chain_names(node: ast.AST) -> list[str]:
    """``call_chain`` with an empty first name when the chain does not start at one."""
    parts, rooted = call_chain(node)
    return parts if rooted else ["", *parts]


def _pattern_matches(pattern: str, qualified: str, written: str) -> bool:
    if pattern.startswith("*."):
        tail = pattern[1:]
        return written.endswith(tail) or qualified.endswith(tail)
    return fw.matches(qualified, pattern)


# -- small helpers -------------------------------------------------------------------------
def _calls_of(node: ast.AST) -> Iterator[ast.Call]:
    """The calls in ``node``, nested defs and lambdas excluded (inner calls first)."""
    stack = [node]
    found: list[ast.Call] = []
    while stack:
        current = stack.pop()
        if current is not node and isinstance(current, _SKIP):
            continue
        if isinstance(current, ast.Call):
            found.append(current)
        stack.extend(ast.iter_child_nodes(current))
    found.sort(key=lambda c: (c.lineno, c.col_offset))
    return iter(found)


def _walk_conditions(body: list[ast.stmt], by_name: bool) -> Iterator[tuple[ast.AST, bool]]:
    """Every node under ``body`` (nested defs excluded) with whether an `if` on a tool
    call's name encloses it (`if call["name"] in ("send_email",):`)."""
    for stmt in body:
        if isinstance(stmt, _SKIP):
            continue
        yield stmt, by_name
        inner = by_name or (isinstance(stmt, ast.If) and _tests_name(stmt.test))
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                yield from _walk_conditions([child], inner)
            elif isinstance(child, ast.excepthandler) or type(child).__name__ == "match_case":
                yield from _walk_conditions(child.body, inner)  # type: ignore[attr-defined]
            elif not isinstance(child, _SKIP):
                for sub in ast.walk(child):
                    yield sub, by_name if child is getattr(stmt, "test", None) else inner


def _tests_name(test: ast.AST) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and node.attr == "name":
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "name":
            return True
    return False


def _framework_code(module: str) -> bool:
    """A framework's own module (`langgraph.pregel.main`, `agent_framework._harness._agent`):
    the approval machinery it defines or passes along approves no application's tools.
    `agents` and `mcp` are also names an application gives its own package."""
    root = module.split(".", 1)[0]
    return root in fw.FRAMEWORK_ROOTS and root not in _APPLICATION_NAMES


def _identifiers(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and n.value.isidentifier()}


def _param_names(func: ast.AST) -> set[str]:
    args = func.args  # type: ignore[attr-defined]
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    names = {a.arg for a in every}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return names


def _tainted_params(call: ast.Call, helper: ast.AST, tainted: set[str]) -> frozenset[str]:
    """The parameters of ``helper`` that receive something the model filled."""
    args = helper.args  # type: ignore[attr-defined]
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if positional and positional[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        positional = positional[1:]
    out: set[str] = set()
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            if _mentions(arg, tainted):
                out.update(positional[index:])
                if args.vararg:
                    out.add(args.vararg.arg)
            break
        if index < len(positional) and _mentions(arg, tainted):
            out.add(positional[index])
        elif index >= len(positional) and args.vararg and _mentions(arg, tainted):
            out.add(args.vararg.arg)
    for kw in call.keywords:
        if not _mentions(kw.value, tainted):
            continue
        if kw.arg is None:
            out.update(_param_names(helper) - {"self", "cls"})
        else:
            out.add(kw.arg if kw.arg in _param_names(helper) or not args.kwarg else args.kwarg.arg)
    return frozenset(out)


def _mentions(node: ast.AST, names: set[str] | frozenset[str]) -> bool:
    return bool(names) and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _short(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover
        return "..."
    return text if len(text) <= 50 else text[:47] + "..."
