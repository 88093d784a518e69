"""The second layer of a file's agent model: model calls and agent runs (which calls
are one, through which receivers), and which of them a function makes every time it runs
(directly or through a helper of this module)."""

from __future__ import annotations

import ast
from typing import Iterator, Sequence

from agentlint.facts.agents.receivers import AgentReceivers, LlmCall
from agentlint.facts.ast_helpers import callee_text, dotted, nodes_of
from agentlint.knowledge import frameworks as fw
from agentlint.knowledge import model_calls as mc

_AGENT_RUN_METHODS = frozenset({"run", "run_sync", "run_stream", "arun", "kickoff", "kickoff_async", "akickoff",
                                "invoke", "ainvoke", "ask", "initiate_chat", "a_initiate_chat", "get_response",
                                "run_async", "iter", "run_streamed"})
_LLM_FUNCTION_PATTERNS = ("litellm:completion", "litellm:acompletion", "agents:Runner.run", "agents:Runner.run_sync",
                          "agents:Runner.run_streamed")
_LLM_FUNCTION_TABLE = {p: "x" for p in _LLM_FUNCTION_PATTERNS}
_LLM_CLIENT_WORDS = frozenset({
    "client", "clients", "aclient", "anthropic", "claude", "llm", "llms", "openai", "oai", "gemini", "genai", "ai",
    "model", "models", "groq", "together", "mistral", "azure", "bedrock", "vertex", "deepseek", "xai", "ollama",
    "chat", "completion", "completions", "lm",
})


class ModelCalls(AgentReceivers):
    """Model calls and agent runs in the module's functions."""

    def call_nodes(self) -> list[ast.Call]:
        """Every call of the module (the tool finder keeps them from its own walk)."""
        return nodes_of(self.tree, (ast.Call,))  # type: ignore[return-value]

    # -- model calls -------------------------------------------------------------------
    def llm_call(self, call: ast.Call, func: ast.AST | None) -> LlmCall | None:
        """Is ``call`` (inside ``func``) a model call or an agent run?"""
        name = dotted(call.func)
        if name is not None:
            qualified = self.resolve(name)
            if qualified in mc.LLM_FUNCTIONS or self.lookup(qualified, _LLM_FUNCTION_TABLE):
                return LlmCall(call, name, self._agent_argument(call, func))
            for pattern in self.knowledge.llm_call_patterns:
                if _pattern_matches(pattern, qualified, name):
                    return LlmCall(call, name)
        if isinstance(call.func, ast.Name):
            # a model object called directly: smolagents `model(messages)`
            type_ = self.receiver_type(call.func, func)
            if type_ is not None and "__call__" in self.model_methods(type_):
                return LlmCall(call, call.func.id)
            return None
        if not isinstance(call.func, ast.Attribute):
            return None
        root = mc.LLM_ARGUMENT_METHODS.get(call.func.attr)
        if root is not None and root in self.imported_roots and call.args:
            # the model is an argument: `page.must_get_element_by_prompt("submit", llm)`
            return LlmCall(call, callee_text(call.func))
        if isinstance(call.func.value, ast.Name) and call.func.value.id in ("self", "cls"):
            # a model object kept on the instance and called: `self.summarise(text=...)`
            type_ = self.receiver_type(call.func, func)
            if type_ is not None and "__call__" in self.model_methods(type_):
                return LlmCall(call, callee_text(call.func))
        # split the callee into receiver + method chain: client.chat.completions.create
        chain: list[str] = []
        receiver: ast.AST = call.func
        while isinstance(receiver, ast.Attribute):
            chain.append(receiver.attr)
            receiver = receiver.value
            type_ = self.receiver_type(receiver, func) if not isinstance(receiver, ast.Attribute) or (
                isinstance(receiver.value, ast.Name) and receiver.value.id in ("self", "cls")) else None
            if type_ is None and isinstance(receiver, ast.Call):
                type_ = self.expr_type(receiver, self.scope_of(func) if func is not None else None)
            if type_ is not None:
                tail = ".".join(reversed(chain))
                if tail in self.model_methods(type_):
                    agent = None
                    if tail in _AGENT_RUN_METHODS and self.is_agent_type(type_):
                        agent = self._agent_id_of(receiver, func)
                    return LlmCall(call, callee_text(call.func), agent)
                return None
        text = callee_text(call.func)
        roots = mc.NAMED_RECEIVER_METHODS.get(call.func.attr, ())
        if roots and any(r in self.imported_roots for r in roots) and isinstance(call.func.value, (ast.Name, ast.Attribute)):
            words = {w for w in callee_text(call.func.value).rpartition(".")[2].lower().split("_") if w}
            if words & mc.MODEL_RECEIVER_WORDS and not words & mc.NOT_MODEL_RECEIVER_WORDS:
                return LlmCall(call, text)  # `self.llm.invoke(...)`, `summary_chain.ainvoke(...)`
        for tail, root in mc.LLM_CHAIN_TAILS.items():
            if text.endswith("." + tail) and root in self.imported_roots:
                owner = text[: -len(tail) - 1].rpartition(".")[2]
                if _llm_like(owner):
                    return LlmCall(call, text)
        return None

    def is_agent_type(self, type_: str) -> bool:
        """Is a receiver of this type an agent (not a chat model, a client or a pipeline)?"""
        if type_.startswith("|pipe:") or mc.family_methods(type_):
            return False
        return not any(self.framework_pattern(type_, p) for p in mc.NOT_AGENT_RECEIVERS)

    def _agent_argument(self, call: ast.Call, func: ast.AST | None) -> str | None:
        """`Runner.run(agent, ...)`: the agent run."""
        target = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("agent", "starting_agent")), None)
        return self._agent_id_of(target, func) if target is not None else None

    def _agent_id_of(self, expr: ast.AST | None, func: ast.AST | None) -> str | None:
        if isinstance(expr, ast.Name):
            if func is not None and expr.id in self.scope_of(func).values:
                return f"{self.module}.{func.name}:{expr.id}"  # type: ignore[attr-defined]
            return self.resolve(expr.id) if ("." in self.resolve(expr.id)) else None
        if isinstance(expr, ast.Call):
            name = dotted(expr.func)
            if name is not None and name in self.functions:
                return f"{self.module}.{name}()"
            if name is not None and self.imports.get(name.partition(".")[0]):
                return self.resolve(name) + "()"
        return None

    def calls_in(self, body: Sequence[ast.stmt]) -> Iterator[tuple[ast.Call, bool]]:
        """Every call in ``body`` (nested defs and lambdas excluded) with whether it runs
        on every execution of the body (not under if/while/except/match/ternary/and-or)."""
        yield from _calls(body, True)

    def always_calls_model(self, func: ast.AST, depth: int = 0, seen: set[int] | None = None) -> list[tuple[str, LlmCall]] | None:
        """The path to a model call that ``func`` always makes: [(step text, call)]."""
        seen = seen if seen is not None else set()
        if id(func) in seen or depth > 3:
            return None
        seen.add(id(func))
        for call, always in self.calls_in(func.body):  # type: ignore[attr-defined]
            if not always:
                continue
            found = self.llm_call(call, func)
            if found is not None:
                return [(found.text, found)]
            helper = self.helper_of(call, func)
            if helper is not None:
                path = self.always_calls_model(helper, depth + 1, seen)
                if path:
                    return [(callee_text(call.func), LlmCall(call, callee_text(call.func))), *path]
            remote = self.imported_helper(call)
            if remote is not None:
                return [(callee_text(call.func), LlmCall(call, callee_text(call.func))), (remote, LlmCall(call, remote))]
        return None

    def imported_helper(self, call: ast.Call) -> str | None:
        """The model call a function of another module of the project always makes, when
        ``call`` calls it (the project phase tells: ``Knowledge.imported_helpers``)."""
        if not self.knowledge.imported_helpers:
            return None
        name = dotted(call.func)
        if name is None or name.partition(".")[0] not in self.imports:
            return None
        return self.knowledge.imported_helpers.get(self.resolve(name))

    def helper_of(self, call: ast.Call, func: ast.AST) -> ast.AST | None:
        """The function of this module that ``call`` reaches, when that is simple to tell."""
        callee = call.func
        if isinstance(callee, ast.Name):
            if callee.id in self.imports:
                return None
            return self.functions.get(callee.id)
        if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id in ("self", "cls"):
            owner = self.parents.get(id(func))
            if owner is not None:
                return self._method(owner, callee.attr, 0)
        return None

    def _method(self, cls: ast.ClassDef, name: str, depth: int) -> ast.AST | None:
        if (cls.name, name) in self.methods:
            return self.methods[(cls.name, name)]
        if depth < 3:
            for base in cls.bases:
                base_name = dotted(base)
                if base_name in self.classes:
                    found = self._method(self.classes[base_name], name, depth + 1)
                    if found is not None:
                        return found
        return None


def _llm_like(name: str) -> bool:
    """`client`, `self._async_client`, `anthropic_client`, `openai`: a receiver named like
    a model client (so `self.twilio.messages.create` is not taken for Anthropic's)."""
    words = {w for w in name.lower().strip("_").split("_") if w}
    return bool(words & _LLM_CLIENT_WORDS)


def _pattern_matches(pattern: str, qualified: str, written: str) -> bool:
    if pattern.startswith("*."):
        tail = pattern[1:]
        return written.endswith(tail) or qualified.endswith(tail)
    return fw.matches(qualified, pattern)




_NO_LOOP: frozenset[str] = frozenset()


def _calls(body: Sequence[ast.stmt], always: bool, loop: frozenset[str] = _NO_LOOP) -> Iterator[tuple[ast.Call, bool]]:
    """``loop``: the targets of the loops around ``body`` (an `if` that only checks that
    the item has something, `if page.text:`, filters items: it is no decision)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            filters = always and _presence_test(stmt.test, loop)
            yield from _expr_calls(stmt.test, always, loop)
            yield from _calls(stmt.body, filters, loop)
            yield from _calls(stmt.orelse, filters, loop)
        elif isinstance(stmt, ast.While):
            forever = isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
            yield from _expr_calls(stmt.test, always, loop)
            yield from _calls(stmt.body, always and forever, loop)
            yield from _calls(stmt.orelse, False, loop)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            yield from _expr_calls(stmt.iter, always, loop)
            yield from _calls(stmt.body, always, loop | _names(stmt.target))
            yield from _calls(stmt.orelse, False, loop)
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            yield from _calls(stmt.body, always, loop)
            for handler in stmt.handlers:
                yield from _calls(handler.body, False, loop)
            yield from _calls(stmt.orelse, False, loop)
            yield from _calls(stmt.finalbody, always, loop)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                yield from _expr_calls(item.context_expr, always, loop)
            yield from _calls(stmt.body, always, loop)
        elif hasattr(ast, "Match") and isinstance(stmt, ast.Match):
            yield from _expr_calls(stmt.subject, always, loop)
            for case in stmt.cases:
                yield from _calls(case.body, False, loop)
        else:
            yield from _expr_calls(stmt, always, loop)


def _expr_calls(node: ast.AST, always: bool, loop: frozenset[str] = _NO_LOOP) -> Iterator[tuple[ast.Call, bool]]:
    if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    if isinstance(node, ast.IfExp):
        filters = always and _presence_test(node.test, loop)
        yield from _expr_calls(node.test, always, loop)
        yield from _expr_calls(node.body, filters, loop)
        yield from _expr_calls(node.orelse, filters, loop)
        return
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        inner = loop
        for generator in node.generators:
            yield from _expr_calls(generator.iter, always, inner)
            inner = inner | _names(generator.target)
            for test in generator.ifs:
                yield from _expr_calls(test, always, inner)
        parts = (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)
        for part in parts:
            yield from _expr_calls(part, always, inner)
        return
    if isinstance(node, ast.BoolOp):
        yield from _expr_calls(node.values[0], always, loop)
        for value in node.values[1:]:
            yield from _expr_calls(value, False, loop)
        return
    if isinstance(node, ast.Call):
        yield node, always
    for child in ast.iter_child_nodes(node):
        yield from _expr_calls(child, always, loop)


def _names(target: ast.AST) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _presence_test(test: ast.AST, loop: frozenset[str]) -> bool:
    """Does ``test`` only check that a loop item has something (`page.text`, `not
    r.get("raw_content")`, `item is not None`, `len(row.cells)`)? A comparison with a
    value (`call.name == "search"`) is a decision, not a filter."""
    if not loop:
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _presence_test(test.operand, loop)
    if isinstance(test, ast.BoolOp):
        return all(_presence_test(v, loop) for v in test.values)
    if isinstance(test, ast.Compare):
        if len(test.ops) != 1 or not isinstance(test.comparators[0], ast.Constant):
            return False
        value = test.comparators[0].value
        if isinstance(test.ops[0], (ast.Is, ast.IsNot)) and value is None:
            return _item_part(test.left, loop)
        op = test.ops[0]
        if type(value) is int and ((isinstance(op, (ast.Gt, ast.NotEq)) and value == 0)
                                   or (isinstance(op, ast.GtE) and value == 1)):
            return _length(test.left, loop)
        return False
    return _item_part(test, loop) or _length(test, loop)


def _length(node: ast.AST, loop: frozenset[str]) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("len", "bool")
            and len(node.args) == 1 and _item_part(node.args[0], loop))


def _item_part(node: ast.AST, loop: frozenset[str]) -> bool:
    """The loop item itself, an attribute or a constant key of it, or `.get("key")`."""
    while True:
        if isinstance(node, ast.Name):
            return node.id in loop
        if isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            node = node.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and len(node.args) in (1, 2) and isinstance(node.args[0], ast.Constant) and not node.keywords):
            node = node.func.value
        else:
            return False
