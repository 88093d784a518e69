"""The first layer of a file's agent model: the module's functions, classes and methods,
and the receivers it can type (`agent = Agent(...)`, `self.client = OpenAI()`, a
parameter annotated with a framework class), read from the stdlib ``ast`` tree.

``Knowledge`` carries the user's additions from config (``tool-decorators``,
``tool-base-classes``, ``injected-types``, ``injected-names``, ``llm-call-patterns``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

from agentlint.facts.ast_helpers import dotted
from agentlint.facts.source import parse_quietly
from agentlint.facts.types import AgentFact, FileFacts, ToolFact, ToolRefFact
from agentlint.knowledge import frameworks as fw

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Knowledge:
    """The framework tables plus what the user added in config."""

    tool_decorators: tuple[str, ...] = ()
    tool_base_classes: tuple[str, ...] = ()
    """`Base` (methods `_run`, `_arun`, `run`, `forward`, `_execute`, `execute`) or
    `Base.method`."""
    injected_types: frozenset[str] = frozenset()
    injected_names: frozenset[str] = frozenset()
    llm_call_patterns: tuple[str, ...] = ()

    @staticmethod
    def from_settings(settings: Mapping[str, Sequence[str]] | None) -> "Knowledge":
        settings = settings or {}
        return Knowledge(
            tool_decorators=tuple(settings.get("tool-decorators", ())),
            tool_base_classes=tuple(settings.get("tool-base-classes", ())),
            injected_types=frozenset(t.rpartition(".")[2] for t in settings.get("injected-types", ())),
            injected_names=frozenset(settings.get("injected-names", ())),
            llm_call_patterns=tuple(settings.get("llm-call-patterns", ())),
        )


DEFAULT_KNOWLEDGE = Knowledge()


@dataclass
class Tool:
    fact: ToolFact
    node: ast.AST
    """The def (or the schema dict / call)."""
    owner: ast.ClassDef | None = None


@dataclass
class LlmCall:
    node: ast.Call
    text: str
    """How the call reads (`client.chat.completions.create`)."""
    agent: str | None = None
    """The agent id it runs, when it runs one of this project's agents."""


@dataclass
class Scope:
    """Receiver types and assigned values of one function (or the module, or a class)."""

    types: dict[str, str] = field(default_factory=dict)
    values: dict[str, ast.AST] = field(default_factory=dict)


def _last(dotted: str) -> str:
    return dotted.rpartition(".")[2]


def frameworks_of(facts: FileFacts) -> tuple[str, ...]:
    """The agent frameworks a module imports (a project whose own package is named
    `agents` does not import the OpenAI Agents SDK by importing itself)."""
    found = {fw.framework_of(i.qualified) for i in facts.imports}
    found.discard(None)
    if facts.module == "agents" or facts.module.startswith("agents."):
        found.discard("openai-agents")
    return tuple(sorted(found))  # type: ignore[arg-type]


_NOT_TYPES = frozenset({"Any", "object", "Optional", "Union", "str", "int", "float", "bool", "dict", "list"})


_SAME_TYPE_METHODS = frozenset({
    "with_structured_output", "bind_tools", "bind", "with_retry", "with_config", "with_fallbacks",
    "with_types", "with_listeners", "configurable_fields", "configurable_alternatives",
})
"""LangChain methods returning the same kind of runnable (`llm.bind_tools(t).invoke(...)`)."""


_METHODS_CACHE: dict[tuple[str, bool], tuple[str, ...]] = {}
"""(receiver type, file imports openai-agents) -> its model-calling methods."""


class AgentReceivers:
    """What one module defines and the receivers it can type."""

    def __init__(self, tree: ast.Module, facts: FileFacts, source: str, knowledge: Knowledge = DEFAULT_KNOWLEDGE) -> None:
        self.tree = tree
        self.facts = facts
        self.module = facts.module
        self.lines = source.splitlines()
        self.knowledge = knowledge
        self.imports = {i.local: i.qualified for i in facts.imports if i.local != "*"}
        self.frameworks = frameworks_of(facts)
        self.imported_roots = {i.qualified.split(".", 1)[0] for i in facts.imports}
        self.functions: dict[str, ast.AST] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.methods: dict[tuple[str, str], ast.AST] = {}
        self.parents: dict[int, ast.AST] = {}
        """id(def) -> the class holding it (methods only)."""
        for stmt in tree.body:
            self._index(stmt)
        self.module_scope = Scope()
        self._scan_scope(tree.body, self.module_scope)
        self.class_scopes: dict[str, Scope] = {}
        self._scopes: dict[int, Scope] = {}
        self.tools: list[Tool] = []
        self._tool_ids: dict[int, Tool] = {}
        self.agents: list[AgentFact] = []
        self.tool_refs: list[ToolRefFact] = []
        """Functions of other modules passed as tools here (`tools=[imported_fn]`)."""
        self._decorated_on: dict[int, str] = {}
        """id(def) -> the receiver of its tool decorator (`@billing.tool` -> billing)."""


    # -- indexing ------------------------------------------------------------------
    def _index(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, _DEFS):
            self.functions[stmt.name] = stmt
        elif isinstance(stmt, ast.ClassDef):
            self.classes[stmt.name] = stmt
            for item in stmt.body:
                if isinstance(item, _DEFS):
                    self.methods[(stmt.name, item.name)] = item
                    self.parents[id(item)] = stmt
        elif isinstance(stmt, (ast.If, ast.Try)):
            for body in (stmt.body, getattr(stmt, "orelse", [])):
                for inner in body:
                    self._index(inner)

    def resolve(self, name: str) -> str:
        """Dotted name with its head resolved through the imports, or prefixed with this
        module when defined here."""
        head, _, rest = name.partition(".")
        target = self.imports.get(head)
        if target is None:
            if head in self.functions or head in self.classes or head in self.module_scope.values:
                target = f"{self.module}.{head}"
            else:
                return name
        return f"{target}.{rest}" if rest else target

    def framework_pattern(self, qualified: str, pattern: str) -> bool:
        if pattern.startswith("agents:") and "openai-agents" not in self.frameworks:
            return False
        return fw.matches(qualified, pattern)

    def lookup(self, qualified: str, table: Mapping[str, str]) -> str | None:
        for pattern, value in fw.by_last_segment(table).get(qualified.rpartition(".")[2], ()):
            if self.framework_pattern(qualified, pattern):
                return value  # type: ignore[return-value]
        return None

    # -- scopes and receivers ----------------------------------------------------------
    def _scan_scope(self, body: Iterable[ast.stmt], scope: Scope, self_attrs: Scope | None = None) -> None:
        """Record `x = Ctor(...)`, `x: Ctor`, `with Ctor() as x` in a body (not nested defs)."""
        for node in _walk_body(body):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._note(target, node.value, scope, self_attrs)
            elif isinstance(node, ast.AnnAssign):
                if node.value is not None:
                    self._note(node.target, node.value, scope, self_attrs)
                type_ = self._annotation_type(node.annotation)
                if type_ and isinstance(node.target, ast.Name) and _last(type_) not in _NOT_TYPES:
                    scope.types[node.target.id] = type_  # `llm: BaseChatModel = Field(...)`: the annotation says
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._note(item.optional_vars, item.context_expr, scope, self_attrs)

    def _note(self, target: ast.AST, value: ast.AST, scope: Scope, self_attrs: Scope | None) -> None:
        if isinstance(target, ast.Name):
            key, into = target.id, scope
        elif (
            self_attrs is not None
            and isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            key, into = target.attr, self_attrs
        else:
            return
        into.values[key] = value
        type_ = self.expr_type(value, scope)
        if type_:
            into.types[key] = type_

    def _annotation_type(self, ann: ast.AST | None) -> str | None:
        if ann is None:
            return None
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = parse_quietly(ann.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(ann, ast.Subscript):
            head = dotted(ann.value)
            if head and _last(head) in ("Optional", "Annotated"):
                inner = ann.slice.elts[0] if isinstance(ann.slice, ast.Tuple) else ann.slice
                return self._annotation_type(inner)
            ann = ann.value
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return self._annotation_type(ann.left) or self._annotation_type(ann.right)
        name = dotted(ann)
        return self.resolve(name) if name else None

    def expr_type(self, expr: ast.AST, scope: Scope | None = None, depth: int = 0) -> str | None:
        """What builds ``expr``: the resolved constructor (`openai.OpenAI`), a method on
        a typed receiver (`langgraph.graph.StateGraph().compile`), `|pipe:<type>` for a
        LangChain pipeline holding a model."""
        if depth > 6:
            return None
        if isinstance(expr, ast.Await):
            expr = expr.value
        if isinstance(expr, ast.Call):
            func = _unsubscript(expr.func)
            name = dotted(func)
            if name is not None:
                head = name.partition(".")[0]
                if head in ("self", "cls"):
                    return None
                local = self._local_type(head, scope)
                if local is not None and "." in name:
                    rest = name.partition(".")[2]
                    if rest in _SAME_TYPE_METHODS:
                        return local
                    return f"{local}().{rest}"
                return self.resolve(name)
            if isinstance(func, ast.Attribute):
                inner = self.expr_type(func.value, scope, depth + 1)
                if inner is not None:
                    return inner if func.attr in _SAME_TYPE_METHODS else f"{inner}().{func.attr}"
            return None
        if isinstance(expr, ast.Name):
            return self._local_type(expr.id, scope)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            for side in (expr.left, expr.right):
                type_ = self.expr_type(side, scope, depth + 1)
                if type_ and (type_.startswith("|pipe:") or self.model_methods(type_)):
                    return type_ if type_.startswith("|pipe:") else f"|pipe:{type_}"
        return None

    def _local_type(self, name: str, scope: Scope | None) -> str | None:
        if scope is not None and name in scope.types:
            return scope.types[name]
        if name in self.module_scope.types:
            return self.module_scope.types[name]
        return None

    def scope_of(self, func: ast.AST) -> Scope:
        scope = self._scopes.get(id(func))
        if scope is None:
            scope = self._scopes[id(func)] = Scope()
            args = func.args  # type: ignore[attr-defined]
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                type_ = self._annotation_type(arg.annotation)
                if type_:
                    scope.types[arg.arg] = type_
            self._scan_scope(func.body, scope)  # type: ignore[attr-defined]
        return scope

    def class_scope(self, cls: ast.ClassDef) -> Scope:
        scope = self.class_scopes.get(cls.name)
        if scope is None:
            scope = self.class_scopes[cls.name] = Scope()
            self._scan_scope([s for s in cls.body if not isinstance(s, _DEFS)], scope)
            for item in cls.body:
                if isinstance(item, _DEFS):
                    self._scan_scope(item.body, Scope(), self_attrs=scope)
        return scope

    def receiver_type(self, expr: ast.AST, func: ast.AST | None, depth: int = 0) -> str | None:
        """The type of a call's receiver: a local, a module global, `self.x`, or a
        same-type method on one (`self.llm.with_structured_output(M)`)."""
        if isinstance(expr, ast.Await):
            expr = expr.value
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in _SAME_TYPE_METHODS
            and depth < 4
        ):
            return self.receiver_type(expr.func.value, func, depth + 1)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
            owner = self.parents.get(id(func)) if func is not None else None
            if owner is not None:
                return self.class_scope(owner).types.get(expr.attr)
            return None
        scope = self.scope_of(func) if func is not None else None
        return self.expr_type(expr, scope)

    def model_methods(self, type_: str) -> tuple[str, ...]:
        found = _METHODS_CACHE.get((type_, "openai-agents" in self.frameworks))
        if found is None:
            found = _METHODS_CACHE[(type_, "openai-agents" in self.frameworks)] = self._model_methods(type_)
        return found

    def _model_methods(self, type_: str) -> tuple[str, ...]:
        if type_.startswith("|pipe:"):
            return fw.LANGCHAIN_PIPE_METHODS
        out: list[str] = []
        for pattern, methods in fw.LLM_RECEIVERS:
            if self.framework_pattern(type_, pattern):
                out += methods
        out += fw.family_methods(type_)
        for pattern in ("langgraph:StateGraph().compile", "langgraph:create_react_agent", "langchain:create_agent",
                        "langchain:create_react_agent", "langgraph:RemoteGraph", "langgraph:Graph().compile",
                        "langgraph:MessageGraph().compile"):
            if fw.matches(type_, pattern):
                out += fw.LANGCHAIN_PIPE_METHODS
        return tuple(out)


def _unsubscript(expr: ast.AST) -> ast.AST:
    """`Agent[Ctx]` -> `Agent` (a generic constructor is still the constructor)."""
    return expr.value if isinstance(expr, ast.Subscript) else expr


def _walk_body(body: Iterable[ast.stmt]) -> Iterator[ast.AST]:
    """Statements of a body and of its nested blocks, not entering defs or classes."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list):
                yield from _walk_body(inner)
        for handler in getattr(stmt, "handlers", ()):
            yield from _walk_body(handler.body)
        for case in getattr(stmt, "cases", ()):
            yield from _walk_body(case.body)
