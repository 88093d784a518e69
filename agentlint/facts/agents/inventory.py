"""The model calls of one module, for the inventory (`agentlint calls`) and AGL106: every
model call and agent run that ``calls.ModelCalls.llm_call`` recognises, with the place
and the function holding it, its provider, and how that function accounts for what the
call used (it reads the response's usage, computes or records a cost, passes a usage
callback, or is a helper whose only callers in the module do one of those).

Which calls escape the project's accounting is a question about the whole project; it
is answered from these facts in the project phase (``rules.cost_calls``).
"""

from __future__ import annotations

import ast
import builtins
from typing import Callable, Iterator

from agentlint.facts.agents.calls import ModelCalls
from agentlint.facts.agents.receivers import Knowledge
from agentlint.facts.ast_helpers import MODULE_SCOPE, dotted, holds_candidate, last_name, node_span
from agentlint.facts.imports import module_level_names
from agentlint.facts.types import FileFacts, ModelCallFact
from agentlint.knowledge import frameworks as fw
from agentlint.knowledge import model_calls as mc
from agentlint.lazy_regex import lazy_compile

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_USAGE_ATTRS = frozenset({
    "usage", "usage_metadata", "token_usage", "usage_details", "models_usage", "prompt_tokens",
    "completion_tokens", "input_tokens", "output_tokens", "total_tokens", "prompt_token_count",
    "candidates_token_count", "total_token_count",
})
"""Attributes (and string keys) that read what a model call used."""
_COST_WORDS = frozenset({"cost", "costs", "spend", "spending", "billing", "bill", "charge", "charges"})
_USAGE_WORDS = frozenset({"usage", "usages", "tokens"})
_RECORD_VERBS = frozenset({
    "track", "record", "log", "add", "update", "report", "accumulate", "meter", "tally", "count", "emit",
    "store", "save", "increment", "inc", "register", "on",
})
_CALLBACK_KEYWORDS = frozenset({"callbacks", "callback", "cost_callback", "usage_callback", "on_usage"})
_CALLBACK_CONTEXTS = frozenset({"get_openai_callback", "get_usage_metadata_callback", "get_bedrock_anthropic_callback"})
_RAW_PROVIDERS = frozenset({"openai", "anthropic", "litellm", "google-genai"})
_AGENT_RUNS = frozenset({
    "run", "run_sync", "run_stream", "run_streamed", "arun", "kickoff", "kickoff_async", "akickoff",
    "initiate_chat", "a_initiate_chat", "print_response", "aprint_response", "run_async", "run_debug",
    "step", "astep", "process_task", "iter", "execute", "execute_sync", "kickoff_for_each",
    "kickoff_for_each_async", "invoke_async", "stream_async", "on_messages", "generate_reply",
    "a_generate_reply",
})
_BUILTINS = frozenset(dir(builtins))
_TAIL_PROVIDERS = {"openai": "openai", "anthropic": "anthropic", "google": "google-genai"}
_CAMEL = lazy_compile(r"([a-z0-9])([A-Z])")


def _words(name: str) -> set[str]:
    return {w for w in _CAMEL.sub(r"\1_\2", name).lower().split("_") if w}


def _accounting(func: ast.AST) -> str:
    """How the body of ``func`` accounts for usage: `cost`, `callback`, `usage` or ''."""
    found: set[str] = set()
    for node in ast.walk(func):
        cls = type(node)
        if cls is ast.Name:
            if "usage" in _words(node.id):  # type: ignore[attr-defined]
                found.add("usage")  # `usage_data = ...`, passed on to whatever meters it
        elif cls is ast.Attribute:
            if node.attr in _USAGE_ATTRS:  # type: ignore[attr-defined]
                found.add("usage")
        elif cls is ast.Subscript:
            key = node.slice  # type: ignore[attr-defined]
            if type(key) is ast.Constant and key.value in _USAGE_ATTRS:
                found.add("usage")
        elif cls is ast.Call:
            name = last_name(node.func) or ""  # type: ignore[attr-defined]
            words = _words(name)
            if name in _CALLBACK_CONTEXTS:
                found.add("callback")
            elif words & _COST_WORDS:
                found.add("cost")
            elif words & _USAGE_WORDS and words & _RECORD_VERBS:
                found.add("usage")
            elif name == "get" and node.args and type(node.args[0]) is ast.Constant and node.args[0].value in _USAGE_ATTRS:  # type: ignore[attr-defined]
                found.add("usage")
            for kw in node.keywords:  # type: ignore[attr-defined]
                if kw.arg and "usage" in _words(kw.arg):
                    found.add("usage")
                if kw.arg in _CALLBACK_KEYWORDS:
                    value = " ".join(_words(dotted(kw.value) or "")) if type(kw.value) is not ast.List else " ".join(
                        " ".join(_words((last_name(e.func) or "") if type(e) is ast.Call else dotted(e) or ""))
                        for e in kw.value.elts  # type: ignore[attr-defined]
                    )
                    if kw.arg != "callbacks" or set(value.split()) & (_COST_WORDS | _USAGE_WORDS | {"token", "counter"}):
                        found.add("callback")
        elif cls is ast.Assign or cls is ast.AugAssign or cls is ast.AnnAssign:
            targets = node.targets if cls is ast.Assign else [node.target]  # type: ignore[attr-defined]
            for target in targets:
                words = _words(last_name(target) or (dotted(target.value) or "" if type(target) is ast.Subscript else ""))  # type: ignore[attr-defined]
                if words & _COST_WORDS:
                    found.add("cost")
    for how in ("cost", "callback", "usage"):
        if how in found:
            return how
    return ""


class _Inventory:
    def __init__(self, model: ModelCalls) -> None:
        self.model = model
        self.out: list[ModelCallFact] = []
        self._accounted: dict[int, str] = {}
        self._lines: list[int] | None = None
        self._index: tuple[dict[str, list[ast.AST]], dict[str, list[tuple[ast.AST, ast.Call, bool]]]] | None = None
        self._names = mc.MODEL_METHOD_NAMES | {p.rpartition(".")[2].rpartition(":")[2] for p in model.knowledge.llm_call_patterns}

    # -- the walk ------------------------------------------------------------------
    def run(self) -> tuple[ModelCallFact, ...]:
        # Only statements holding a call whose final name can be a model call are walked:
        # `x.create(...)` by its attribute, a plain name by what it resolves to
        # (``_name_candidates``), a call of a call or a subscript (`tools[name](...)`,
        # `getattr(self, m)(...)`) always.
        names = self._names
        by_name = self._name_candidates()
        lines: list[int] = []
        for call in self.model.call_nodes():
            func = call.func
            if type(func) is ast.Attribute:
                candidate = func.attr in names
            elif type(func) is ast.Name:
                candidate = by_name(func.id)
            else:
                candidate = True
            if candidate:
                lines.append(call.lineno)
        lines = sorted(set(lines))
        if lines:
            self._lines = lines
            self._body(self.model.tree.body, MODULE_SCOPE, None, None)
        return tuple(self.out)

    def _name_candidates(self) -> "Callable[[str], bool]":
        """Whether a call of a plain name can be a model call: its final name once
        resolved is in the vocabulary (an import's, the module's own `mod.f`), or it
        stays a plain name (a parameter or a local: anything but a builtin)."""
        names = self._names
        imported: dict[str, bool] = {}
        for fact in self.model.facts.imports:
            qualified = fact.qualified
            if qualified.rpartition(".")[2] in names or ("." not in qualified and qualified not in _BUILTINS):
                imported[fact.local] = True
            else:
                imported.setdefault(fact.local, False)
        module_names = module_level_names(self.model.tree)

        def candidate(name: str) -> bool:
            if name in names:
                return True
            found = imported.get(name)
            if found is not None:
                return found
            return name not in module_names and name not in _BUILTINS

        return candidate

    def _body(self, body: list[ast.stmt], place: str, klass: str | None, func: ast.AST | None) -> None:
        for stmt in body:
            if not holds_candidate(self._lines, stmt):
                continue
            if isinstance(stmt, _DEFS):
                top = place == MODULE_SCOPE or (klass is not None and place == klass)
                inner = (stmt.name if place == MODULE_SCOPE else f"{place}.{stmt.name}") if top else place
                for expr in [*stmt.decorator_list, *stmt.args.defaults]:
                    self._calls(expr, place, func)
                self._body(stmt.body, inner, None, stmt)
            elif isinstance(stmt, ast.ClassDef):
                top = place == MODULE_SCOPE or (klass is not None and place == klass)
                inner = (stmt.name if place == MODULE_SCOPE else f"{place}.{stmt.name}") if top else place
                self._body(stmt.body, inner, inner if top else None, func)
            else:
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    inner_body = getattr(stmt, field, None)
                    if isinstance(inner_body, list):
                        for item in inner_body:
                            if isinstance(item, ast.stmt):
                                self._body([item], place, klass, func)
                            elif isinstance(item, (ast.ExceptHandler, getattr(ast, "match_case", ast.ExceptHandler))):
                                self._body(item.body, place, klass, func)
                for field, value in ast.iter_fields(stmt):
                    if field in ("body", "orelse", "finalbody", "handlers", "cases"):
                        continue
                    if isinstance(value, ast.AST):
                        self._calls(value, place, func)
                    elif isinstance(value, list):
                        for item in value:
                            if isinstance(item, ast.AST):
                                self._calls(item, place, func)

    def _calls(self, expr: ast.AST, place: str, func: ast.AST | None) -> None:
        for node in _expr_calls(expr):
            callee = node.func
            name = callee.attr if type(callee) is ast.Attribute else callee.id if type(callee) is ast.Name else ""  # type: ignore[attr-defined]
            if not name or (name not in self._names and type(callee) is ast.Attribute):
                continue
            try:
                found = self.model.llm_call(node, func)
            except RecursionError:
                found = None
            if found is None:
                continue
            provider, client = self._receiver(node, func)
            # an agent run: the project's agent, a run method of an agent framework, a
            # compiled LangGraph graph (its nodes make the model calls)
            kind = "agent" if (
                found.agent is not None or provider == "langgraph"
                or (name in _AGENT_RUNS and provider not in _RAW_PROVIDERS)
            ) else "model"
            function = func.name if func is not None else ""  # type: ignore[attr-defined]
            self.out.append(
                ModelCallFact(place, function, found.text, provider, kind, self._how(func),
                              *node_span(self.model.lines, node), client=client)
            )

    # -- what the call is ----------------------------------------------------------
    def _receiver(self, call: ast.Call, func: ast.AST | None) -> tuple[str, str]:
        """(provider, the receiver's type as a dotted name) of a model call."""
        model = self.model
        name = dotted(call.func)
        if name is not None:
            found = fw.framework_of(model.resolve(name))
            if found:
                return found, ""
        receiver = call.func.value if type(call.func) is ast.Attribute else None  # type: ignore[attr-defined]
        while receiver is not None:
            try:
                type_ = model.receiver_type(receiver, func)
            except RecursionError:
                type_ = None
            if type_:
                if type_.startswith("|pipe:"):
                    return "langchain", ""  # `prompt | llm | parser`
                client = type_.replace(":", ".")
                return fw.framework_of(client) or _TAIL_PROVIDERS.get(client.partition(".")[0], ""), client
            receiver = receiver.value if type(receiver) is ast.Attribute else None  # type: ignore[attr-defined]
        text = name or ""
        for tail, root in mc.LLM_CHAIN_TAILS.items():
            if text.endswith("." + tail) and root in model.imported_roots:
                return _TAIL_PROVIDERS.get(root, root), ""
        if type(call.func) is ast.Attribute and call.func.attr in mc.NAMED_RECEIVER_METHODS:  # type: ignore[attr-defined]
            return "langchain", ""
        # `litellm.completion(...)` through the project's own re-export of the SDK
        return fw.framework_of(text.partition(".")[0]) or "", ""

    # -- how its place accounts for usage ------------------------------------------
    def _how(self, func: ast.AST | None) -> str:
        if func is None:
            return ""
        how = self._accounted_by(func)
        if how:
            return how
        callers = list(self._callers(func))
        if callers and all(self._accounted_by(c) for c in callers):
            names = sorted({c.name for c in callers})  # type: ignore[attr-defined]
            return "via " + ", ".join(names[:2]) + (", ..." if len(names) > 2 else "")
        return ""

    def _accounted_by(self, func: ast.AST) -> str:
        key = id(func)
        if key not in self._accounted:
            self._accounted[key] = _accounting(func)
        return self._accounted[key]

    def _callers(self, func: ast.AST) -> Iterator[ast.AST]:
        """The defs of this module that call ``func``: by its name (a module function);
        through `self.`/`cls.` (a method, from its class), or on any receiver elsewhere
        in the module when no unrelated class of the module has a method of that name."""
        model = self.model
        owner = model.parents.get(id(func))
        name = func.name  # type: ignore[attr-defined]
        by_name, by_attr = self._call_index()
        if owner is None:
            if model.functions.get(name) is func:
                yield from (c for c in by_name.get(name, ()) if c is not func)
            return
        unique = all(cls == owner.name or _related(model, cls, owner.name) for cls, m in model.methods if m == name)
        seen: set[int] = set()
        for candidate, node, on_self in by_attr.get(name, ()):
            if candidate is func or id(candidate) in seen:
                continue
            inside = model.parents.get(id(candidate)) is owner
            if (inside and on_self) or (not inside and unique and not _held(node)):
                seen.add(id(candidate))
                yield candidate

    def _call_index(self) -> tuple[dict[str, list[ast.AST]], dict[str, list[tuple[ast.AST, ast.Call, bool]]]]:
        """Callee name -> the module's defs calling it (one walk, on first use)."""
        if self._index is None:
            by_name: dict[str, list[ast.AST]] = {}
            by_attr: dict[str, list[tuple[ast.AST, ast.Call, bool]]] = {}
            for candidate in [*self.model.functions.values(), *self.model.methods.values()]:
                for node in ast.walk(candidate):
                    if type(node) is not ast.Call:
                        continue
                    callee = node.func  # type: ignore[attr-defined]
                    if type(callee) is ast.Name:
                        by_name.setdefault(callee.id, []).append(candidate)
                    elif type(callee) is ast.Attribute:
                        on_self = type(callee.value) is ast.Name and callee.value.id in ("self", "cls")
                        by_attr.setdefault(callee.attr, []).append((candidate, node, on_self))  # type: ignore[arg-type]
            self._index = (by_name, by_attr)
        return self._index


def _held(call: ast.Call) -> bool:
    """`self.user_agent.step()`: a call on an object the instance holds, not on the
    instance (a subclass running its framework agent, not this method)."""
    receiver = call.func.value  # type: ignore[attr-defined]
    return type(receiver) is ast.Attribute and type(receiver.value) is ast.Name and receiver.value.id in ("self", "cls")  # type: ignore[attr-defined]


def _related(model: ModelCalls, one: str, other: str) -> bool:
    """One class of the module derives from the other (directly or through one more)."""
    def bases(name: str) -> set[str]:
        cls = model.classes.get(name)
        return {dotted(b) or "" for b in cls.bases} if cls is not None else set()

    return other in bases(one) or one in bases(other) or bool(bases(one) & bases(other) - {"", "object"})


def _expr_calls(expr: ast.AST) -> Iterator[ast.Call]:
    """The calls in an expression, lambdas included (they run where they are called)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is ast.Call:
            yield node  # type: ignore[misc]
        stack.extend(ast.iter_child_nodes(node))


def model_calls(model: ModelCalls) -> tuple[ModelCallFact, ...]:
    """The model calls of the module ``model`` reads."""
    return _Inventory(model).run()


def file_model_calls(tree: ast.Module, facts: FileFacts, source: str, knowledge: Knowledge) -> tuple[ModelCallFact, ...]:
    """The model calls of a file the agent model is not built for (no tool or agent
    vocabulary): only the receivers and model calls are read."""
    return _Inventory(ModelCalls(tree, facts, source, knowledge)).run()
