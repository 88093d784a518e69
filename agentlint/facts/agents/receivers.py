"""The first layer of a file's agent model: the module's functions, classes and methods,
and the receivers it can type (`agent = Agent(...)`, `self.client = OpenAI()`, a
parameter annotated with a framework class), read from the stdlib ``ast`` tree.

``Knowledge`` carries the user's additions from config (``tool-decorators``,
``tool-base-classes``, ``injected-types``, ``injected-names``, ``llm-call-patterns``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Sequence

from agentlint.facts.ast_helpers import dotted, walk_statements
from agentlint.facts.source import parse_quietly
from agentlint.facts.types import AgentFact, FileFacts, ToolFact, ToolRefFact
from agentlint.knowledge import frameworks as fw
from agentlint.knowledge import model_calls as mc

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True, eq=False)
class Knowledge:
    """The framework tables plus what the user added in config."""

    tool_decorators: tuple[str, ...] = ()
    tool_base_classes: tuple[str, ...] = ()
    """`Base` (methods `_run`, `_arun`, `run`, `forward`, `_execute`, `execute`) or
    `Base.method`."""
    injected_types: frozenset[str] = frozenset()
    injected_names: frozenset[str] = frozenset()
    llm_call_patterns: tuple[str, ...] = ()
    inferred_bases: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    """Project-defined tool bases found by the project phase, as this file names them ->
    (the base's own qualified name, its model-facing methods)."""
    inferred_decorators: Mapping[str, str] = field(default_factory=dict)
    """Project-defined registration decorators, as this file names them -> their own
    qualified name."""
    imported_types: Mapping[str, str] = field(default_factory=dict)
    """Model receivers and factories of the project's other modules, as this file names
    them (`app.llm.client`, `app.llm.make_llm()` for a factory's result) -> their type."""
    imported_helpers: Mapping[str, str] = field(default_factory=dict)
    """Functions of the project's other modules that always call a model, as this file
    names them -> the model call they make (`llm.invoke (app.summary, line 12)`)."""

    irreversible_callables: tuple[str, ...] = ()
    """Calls with an effect that cannot be taken back, added by the user (`myapp.billing.charge`,
    `*.send_invoice`)."""
    imported_sinks: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Functions of the project's other modules that reach an irreversible call with nothing
    before it, as this file names them -> (its kind, how it reads with where it is)."""

    def with_inferred(self, bases: Mapping[str, tuple[str, tuple[str, ...]]], decorators: Mapping[str, str],
                      imported_types: Mapping[str, str] | None = None,
                      imported_helpers: Mapping[str, str] | None = None,
                      imported_sinks: Mapping[str, tuple[str, str]] | None = None) -> "Knowledge":
        return replace(self, inferred_bases=dict(bases), inferred_decorators=dict(decorators),
                       imported_types=dict(imported_types or {}), imported_helpers=dict(imported_helpers or {}),
                       imported_sinks=dict(imported_sinks or {}))

    @staticmethod
    def from_settings(settings: Mapping[str, Sequence[str]] | None) -> "Knowledge":
        settings = settings or {}
        return Knowledge(
            tool_decorators=tuple(settings.get("tool-decorators", ())),
            tool_base_classes=tuple(settings.get("tool-base-classes", ())),
            injected_types=frozenset(t.rpartition(".")[2] for t in settings.get("injected-types", ())),
            injected_names=frozenset(settings.get("injected-names", ())),
            llm_call_patterns=tuple(settings.get("llm-call-patterns", ())),
            irreversible_callables=tuple(settings.get("irreversible-callables", ())),
        )


DEFAULT_KNOWLEDGE = Knowledge()


@dataclass
class Tool:
    fact: ToolFact
    node: ast.AST
    """The def (or the schema dict / call)."""
    owner: ast.ClassDef | None = None
    descriptions: dict[str, str] = field(default_factory=dict)
    """Parameter -> what the tool's author says it is (docstring `Args:`, a schema
    field's `description`), for the parameters that have one."""
    impl: ast.AST | None = None
    """For a JSON schema tool: the def of this module that implements it (the body the
    model's call runs), when the module says which."""

    @property
    def body_node(self) -> ast.AST:
        """The def whose body runs when the model calls the tool (the tool itself, or a
        schema's implementation)."""
        return self.impl if self.impl is not None else self.node


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
    owner: ast.ClassDef | None = None
    """The class of a method's scope (`self.make_llm()` is a method of it)."""


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
        self.class_scopes: dict[str, Scope] = {}
        self._scopes: dict[int, Scope] = {}
        self._returns: dict[int, str | None] = {}
        """id(def) -> the type it returns (a factory), once asked."""
        self._local_methods: dict[str, tuple[str, ...]] = {}
        self._following = 0
        """Factories being followed right now (a chain of them is cut after a few)."""
        self.module_scope = Scope()
        self._scan_scope(tree.body, self.module_scope)
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
        for node in walk_statements(body):
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
                    owner = scope.owner if scope is not None else None
                    method = self._method_of(owner, name.partition(".")[2]) if owner is not None else None
                    return self.returned_type(method, depth) if method is not None else None
                factory = self._factory(name, scope)
                if factory is not None:
                    returned = self.returned_type(factory, depth)
                    if returned is not None:
                        return returned
                if name.count(".") == 1 and name.endswith(".get"):
                    held = self._held_type(head, scope, depth)
                    if held is not None:
                        return held
                local = self._local_type(head, scope)
                if local is not None and "." in name:
                    rest = name.partition(".")[2]
                    if rest in _SAME_TYPE_METHODS:
                        return local
                    return f"{local}().{rest}"
                qualified = self.resolve(name)
                return self.knowledge.imported_types.get(qualified + "()", qualified)
            if isinstance(func, ast.Attribute):
                inner = self.expr_type(func.value, scope, depth + 1)
                if inner is not None:
                    return inner if func.attr in _SAME_TYPE_METHODS else f"{inner}().{func.attr}"
            return None
        if isinstance(expr, ast.Name):
            return self._local_type(expr.id, scope)
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
            return self._held_type(expr.value.id, scope, depth)
        if isinstance(expr, ast.IfExp):
            # `llm = fast if cheap else strong`: one type on both sides
            left = self.expr_type(expr.body, scope, depth + 1)
            return left if left is not None and left == self.expr_type(expr.orelse, scope, depth + 1) else None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            owner = scope.owner if scope is not None else None
            return self.class_scope(owner).types.get(expr.attr) if owner is not None else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            for side in (expr.left, expr.right):
                type_ = self.expr_type(side, scope, depth + 1)
                if type_ and (type_.startswith("|pipe:") or self.model_methods(type_)):
                    return type_ if type_.startswith("|pipe:") else f"|pipe:{type_}"
        return None

    def _factory(self, name: str, scope: Scope | None) -> ast.AST | None:
        """The def of this module that a call of ``name`` runs: a module function, or a
        def nested in the function whose scope this is."""
        if "." in name:
            return None
        if scope is not None and isinstance(scope.values.get(name), _DEFS):
            return scope.values[name]
        if name in self.imports:
            return None
        return self.functions.get(name)

    def _method_of(self, cls: ast.ClassDef, name: str, depth: int = 0) -> ast.AST | None:
        if (cls.name, name) in self.methods:
            return self.methods[(cls.name, name)]
        if depth < 3:
            for base in cls.bases:
                base_name = dotted(base)
                if base_name in self.classes and self.classes[base_name] is not cls:
                    found = self._method_of(self.classes[base_name], name, depth + 1)
                    if found is not None:
                        return found
        return None

    def returned_type(self, func: ast.AST, depth: int = 0) -> str | None:
        """What a factory of this module builds: `def make_llm(): return ChatOpenAI()`,
        `llm = Agent(...); return llm`, `return self._client` (followed through its own
        returns, a few calls deep)."""
        if id(func) in self._returns:
            return self._returns[id(func)]
        if depth > 4 or self._following > 4:
            return None  # (not remembered: a shallower question may still find it)
        self._returns[id(func)] = None  # a factory calling itself returns nothing known
        self._following += 1
        try:
            scope = self.scope_of(func)
            found: str | None = None
            for node in walk_statements(func.body):  # type: ignore[attr-defined]
                if isinstance(node, ast.Return) and node.value is not None:
                    type_ = self.expr_type(node.value, scope, depth + 1)
                    if type_ is not None and (not type_.startswith(f"{self.module}.")
                                              or type_[len(self.module) + 1:] in self.classes):
                        found = type_  # not the name of a local function whose result is unknown
                        break
        finally:
            self._following -= 1
        self._returns[id(func)] = found
        return found

    def _held_type(self, name: str, scope: Scope | None, depth: int) -> str | None:
        """`AGENTS = {"a": agent_a, "b": agent_b}` then `AGENTS.get(k)` / `AGENTS[k]`:
        the one type of every value the container holds."""
        value = (scope.values.get(name) if scope is not None else None) or self.module_scope.values.get(name)
        if isinstance(value, ast.Dict):
            items: list[ast.AST] = [v for v in value.values if v is not None]
        elif isinstance(value, (ast.List, ast.Tuple)):
            items = list(value.elts)
        else:
            return None
        if not items or depth > 4:
            return None
        types = {self.expr_type(item, scope, depth + 1) for item in items}
        found = types.pop() if len(types) == 1 else None
        return found if found is not None and self.model_methods(found) else None

    def _local_type(self, name: str, scope: Scope | None) -> str | None:
        if scope is not None and name in scope.types:
            return scope.types[name]
        if name in self.module_scope.types:
            return self.module_scope.types[name]
        if name in self.imports and self.knowledge.imported_types:
            return self.knowledge.imported_types.get(self.imports[name])  # a model built in another module
        return None

    def scope_of(self, func: ast.AST) -> Scope:
        scope = self._scopes.get(id(func))
        if scope is None:
            scope = self._scopes[id(func)] = Scope(owner=self.parents.get(id(func)))
            args = func.args  # type: ignore[attr-defined]
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                type_ = self._annotation_type(arg.annotation)
                if type_:
                    scope.types[arg.arg] = type_
            self._scan_scope(func.body, scope)  # type: ignore[attr-defined]
            for node in walk_statements(func.body):  # type: ignore[attr-defined]
                if isinstance(node, _DEFS):
                    scope.values.setdefault(node.name, node)  # a nested def: a closure or a local factory
        return scope

    def class_scope(self, cls: ast.ClassDef) -> Scope:
        scope = self.class_scopes.get(cls.name)
        if scope is None:
            scope = self.class_scopes[cls.name] = Scope(owner=cls)
            self._scan_scope([s for s in cls.body if not isinstance(s, _DEFS)], scope)
            for item in cls.body:
                if isinstance(item, _DEFS):
                    self._scan_scope(item.body, self.scope_of(item), self_attrs=scope)
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
        scope = self.scope_of(func) if func is not None and isinstance(func, _DEFS) else None
        return self.expr_type(expr, scope)

    def model_methods(self, type_: str) -> tuple[str, ...]:
        if type_.startswith(f"{self.module}.") and type_[len(self.module) + 1:] in self.classes:
            return self._class_methods(type_[len(self.module) + 1:])
        found = _METHODS_CACHE.get((type_, "openai-agents" in self.frameworks))
        if found is None:
            found = _METHODS_CACHE[(type_, "openai-agents" in self.frameworks)] = self._model_methods(type_)
        return found

    def _class_methods(self, name: str, depth: int = 0) -> tuple[str, ...]:
        """A class of this module subclassing a model or agent class (`class Summarise(
        dspy.Module)`, `class Helper(ChatAgent)`) has that class's model-calling methods."""
        found = self._local_methods.get(name)
        if found is not None:
            return found
        self._local_methods[name] = ()
        out: list[str] = []
        for base in self.classes[name].bases:
            base_name = dotted(_unsubscript(base))
            if base_name is None or depth > 4:
                continue
            if base_name in self.classes and base_name != name:
                out += self._class_methods(base_name, depth + 1)
            else:
                out += self.model_methods(self.resolve(base_name))
        self._local_methods[name] = tuple(out)
        return self._local_methods[name]

    def _model_methods(self, type_: str) -> tuple[str, ...]:
        if type_.startswith("|pipe:"):
            return mc.LANGCHAIN_PIPE_METHODS
        out: list[str] = []
        for pattern, methods in mc.LLM_RECEIVERS:
            if self.framework_pattern(type_, pattern):
                out += methods
        out += mc.family_methods(type_)
        for pattern in ("langgraph:StateGraph().compile", "langgraph:create_react_agent", "langchain:create_agent",
                        "langchain:create_react_agent", "langgraph:RemoteGraph", "langgraph:Graph().compile",
                        "langgraph:MessageGraph().compile"):
            if fw.matches(type_, pattern):
                out += mc.LANGCHAIN_PIPE_METHODS
        return tuple(out)


def _unsubscript(expr: ast.AST) -> ast.AST:
    """`Agent[Ctx]` -> `Agent` (a generic constructor is still the constructor)."""
    return expr.value if isinstance(expr, ast.Subscript) else expr
