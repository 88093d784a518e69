"""The agent model of one file: its tools, the parameters a model fills, its agents and
how they nest, and the model calls inside tools. Read from the stdlib ``ast`` tree that
the facts already parsed; every framework fact comes from ``frameworks.py``.

Resolution is import-aware (the facts' import table) and follows simple receivers:
``agent = Agent(...)`` then ``@agent.tool``; ``client = OpenAI()`` (module level, in the
function, or ``self.client = OpenAI()`` in any method of the class) then
``client.chat.completions.create(...)``; ``llm = ChatOpenAI()`` then ``chain = prompt |
llm`` then ``chain.invoke(...)``. A function passed by name in ``tools=[...]`` (directly
or through a list variable) or wrapped with ``FunctionTool(fn)`` is a tool.

``Knowledge`` carries the user's additions from config (``tool-decorators``,
``tool-base-classes``, ``injected-types``, ``injected-names``, ``llm-call-patterns``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

from agentlint.knowledge import frameworks as fw
from agentlint.facts.ast_helpers import char_column, dotted
from agentlint.facts.source import parse_quietly
from agentlint.facts.types import AgentEdgeFact, AgentFact, FileFacts, ParamFact, ToolFact, ToolRefFact

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
_CUSTOM_BASE_METHODS = ("_run", "_arun", "run", "arun", "forward", "_execute", "execute", "call", "__call__")


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


class FileModel:
    """Everything agent-related in one module."""

    def __init__(self, tree: ast.Module, facts: FileFacts, source: str, knowledge: Knowledge = DEFAULT_KNOWLEDGE):
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
        self._find_tools()
        self._find_agents()

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

    # -- tools -----------------------------------------------------------------------
    def _add_tool(self, node: ast.AST, framework: str, how: str, owner: ast.ClassDef | None = None,
                  injected: Mapping[str, str] | None = None, first_injected: str = "",
                  schema: ast.AST | None = None) -> None:
        existing = self._tool_ids.get(id(node))
        if existing is not None:
            return
        name = f"{owner.name}.{node.name}" if owner is not None else node.name  # type: ignore[attr-defined]
        schema_text = ""
        if schema is not None:
            schema_text = dotted(schema) or "inline"
            params = self._schema_params(schema)
        else:
            params = self._params(node, framework, owner is not None, injected or {}, first_injected)
        fact = ToolFact(
            name=name,
            framework=framework,
            how=how,
            line=node.lineno,  # type: ignore[attr-defined]
            end_line=node.end_lineno or node.lineno,  # type: ignore[attr-defined]
            column=self.column(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            params=tuple(params),
            schema=schema_text,
        )
        tool = Tool(fact, node, owner)
        self._tool_ids[id(node)] = tool
        self.tools.append(tool)

    def column(self, line: int, byte_offset: int) -> int:
        """1-based character column of an `ast` byte offset."""
        return char_column(self.lines, line, byte_offset)

    def _params(self, node: ast.AST, framework: str, is_method: bool, injected: Mapping[str, str],
                first_injected: str) -> list[ParamFact]:
        args = node.args  # type: ignore[attr-defined]
        positional = [*args.posonlyargs, *args.args]
        defaults: dict[str, ast.AST] = {}
        for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
            defaults[arg.arg] = default
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            if default is not None:
                defaults[arg.arg] = default
        if is_method and positional and positional[0].arg in ("self", "cls"):
            positional = positional[1:]
        reserved = fw.INJECTED_NAMES.get(framework, fw.INJECTED_NAMES["*"]) | self.knowledge.injected_names
        out = []
        for index, arg in enumerate([*positional, *args.kwonlyargs]):
            reason = injected.get(arg.arg, "")
            if not reason and index == 0 and first_injected:
                reason = first_injected
            if not reason:
                reason = self._injected_by_annotation(arg.annotation)
            if not reason and arg.arg in defaults:
                reason = self._injected_by_default(defaults[arg.arg])
            if not reason and arg.arg in reserved:
                reason = "reserved name"
            out.append(ParamFact(
                name=arg.arg,
                line=arg.lineno,
                column=self.column(arg.lineno, arg.col_offset),
                injected=reason,
                annotation=_unparse(arg.annotation),
            ))
        return out

    def _injected_by_annotation(self, ann: ast.AST | None) -> str:
        if ann is None:
            return ""
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = parse_quietly(ann.value, mode="eval").body
            except SyntaxError:
                return ""
        types = fw.INJECTED_ANNOTATIONS | self.knowledge.injected_types
        if isinstance(ann, ast.Subscript):
            head = dotted(ann.value) or ""
            elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if _last(head) == "Annotated":
                for meta in elts[1:]:
                    marker = dotted(meta.func if isinstance(meta, ast.Call) else meta) or ""
                    if _last(marker) in fw.INJECTED_MARKERS:
                        return f"annotation Annotated[..., {_last(marker)}]"
                return self._injected_by_annotation(elts[0]) if elts else ""
            if _last(head) in ("Optional", "Union"):
                for elt in elts:
                    reason = self._injected_by_annotation(elt)
                    if reason:
                        return reason
                return ""
            if _last(head) in types:
                return f"annotation {_last(head)}"
            return ""
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return self._injected_by_annotation(ann.left) or self._injected_by_annotation(ann.right)
        name = dotted(ann)
        if name and _last(name) in types:
            return f"annotation {_last(name)}"
        return ""

    def _injected_by_default(self, default: ast.AST) -> str:
        if isinstance(default, ast.Call):
            name = dotted(default.func) or ""
            if _last(name) in fw.INJECTED_DEFAULTS:
                return f"default {_last(name)}(...)"
        return ""

    def _schema_params(self, schema: ast.AST) -> list[ParamFact]:
        """Fields of a schema class defined in this module, or the keys of an inline
        JSON schema's `properties`; [] when the schema lives elsewhere."""
        name = dotted(schema)
        if name is not None and name in self.classes:
            out = []
            for stmt in self.classes[name].body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    out.append(ParamFact(stmt.target.id, stmt.lineno, self.column(stmt.lineno, stmt.col_offset),
                                         annotation=_unparse(stmt.annotation)))
            return out
        if isinstance(schema, ast.Dict):
            return self._properties(_dict_get(schema, "properties"))
        return []

    def _properties(self, props: ast.AST | None) -> list[ParamFact]:
        if not isinstance(props, ast.Dict):
            return []
        out = []
        for key in props.keys:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                out.append(ParamFact(key.value, key.lineno, self.column(key.lineno, key.col_offset)))
        return out

    def _find_tools(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, _DEFS):
                self._decorated_tool(node)
            elif isinstance(node, ast.ClassDef):
                self._class_tool(node)
            elif isinstance(node, ast.Call):
                self._call_tools(node)
            elif isinstance(node, ast.Dict):
                self._schema_tool(node)

    def _decorated_tool(self, node: ast.AST) -> None:
        for decorator in node.decorator_list:  # type: ignore[attr-defined]
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call is not None else decorator
            name = dotted(target)
            if name is None:
                continue
            owner = self.parents.get(id(node))
            schema = None
            if call is not None:
                for kw in call.keywords:
                    if kw.arg in fw.SCHEMA_KEYWORDS:
                        schema = kw.value
            qualified = self.resolve(name)
            if qualified in fw.NOT_TOOL_DECORATORS:
                continue
            framework = self.lookup(qualified, fw.TOOL_DECORATORS)
            if framework is None and any(fw.matches(qualified, p) for p in self.knowledge.tool_decorators):
                framework = "config"
            if framework is not None:
                how = f"@{name}"
                first = ""
                self._add_tool(node, framework, how, owner, first_injected=first, schema=schema)
                return
            if "." not in name:
                continue
            receiver, _, method = name.rpartition(".")
            framework = self._receiver_tool_framework(receiver, method, node)
            if framework is not None:
                first = "first parameter of @agent.tool" if framework == "pydantic-ai" and method == "tool" else ""
                self._add_tool(node, framework, f"@{name}", owner, first_injected=first, schema=schema)
                if "." not in receiver:
                    self._decorated_on[id(node)] = receiver
                return

    def _receiver_tool_framework(self, receiver: str, method: str, node: ast.AST) -> str | None:
        if method in fw.ANY_RECEIVER_TOOL_DECORATORS:
            return fw.ANY_RECEIVER_TOOL_DECORATORS[method]
        if method not in fw.RECEIVER_TOOL_METHODS:
            return None
        head = receiver.partition(".")[0]
        type_ = None
        if "." not in receiver:
            enclosing = self._enclosing_function(node)
            if enclosing is not None:
                type_ = self.scope_of(enclosing).types.get(receiver)
            if type_ is None:
                type_ = self.module_scope.types.get(receiver)
        if type_ is not None:
            for framework, patterns in fw.RECEIVER_TOOL_DECORATORS.items():
                if any(fw.matches(type_, p) for p in patterns):
                    return framework
            return None
        imported = self.imports.get(head)
        if imported is not None and fw.framework_of(imported) is not None:
            return None  # a framework module's own attribute, not a receiver we know
        receiver_frameworks = [f for f in fw.RECEIVER_TOOL_DECORATORS if f in self.frameworks]
        lowered = _last(receiver).lower()
        for word, framework in fw.RECEIVER_NAME_HINTS.items():
            if word in lowered:
                if word == "mcp":
                    return "fastmcp" if "fastmcp" in self.frameworks else "mcp"
                if framework in self.frameworks:
                    return framework
                if receiver_frameworks and word != "mcp":
                    return receiver_frameworks[0]
        return None

    def _enclosing_function(self, node: ast.AST) -> ast.AST | None:
        """The innermost def (module-level function or method) holding ``node``."""
        best = None
        line = node.lineno  # type: ignore[attr-defined]
        for func in [*self.functions.values(), *self.methods.values()]:
            if func is node:
                continue
            if func.lineno < line <= (func.end_lineno or func.lineno):  # type: ignore[attr-defined]
                if best is None or func.lineno > best.lineno:  # type: ignore[attr-defined]
                    best = func
        return best

    def _class_tool(self, node: ast.ClassDef) -> None:
        found = self._tool_base(node, 0)
        if found is None:
            return
        framework, methods = found
        schema = None
        for item in node.body:
            target = item.targets[0] if isinstance(item, ast.Assign) and len(item.targets) == 1 else (
                item.target if isinstance(item, ast.AnnAssign) else None)
            if isinstance(target, ast.Name) and target.id in fw.SCHEMA_KEYWORDS and item.value is not None:  # type: ignore[union-attr]
                schema = item.value  # type: ignore[union-attr]
        if schema is None and framework == "autogen":
            schema = _generic_args(node)  # `BaseTool[Args, Result]`: the model fills Args
        for item in node.body:
            if isinstance(item, _DEFS) and item.name in methods:
                self._add_tool(item, framework, f"{item.name} of a {framework} tool class", node, schema=schema)

    def _tool_base(self, node: ast.ClassDef, depth: int) -> tuple[str, tuple[str, ...]] | None:
        if depth > 4:
            return None
        for base in node.bases:
            name = dotted(base.value if isinstance(base, ast.Subscript) else base)
            if name is None:
                continue
            qualified = self.resolve(name)
            for pattern, (framework, methods) in fw.TOOL_BASE_CLASSES.items():
                if self.framework_pattern(qualified, pattern):
                    return framework, methods
            for entry in self.knowledge.tool_base_classes:
                base_name, _, method = entry.partition(":") if ":" in entry else (entry, "", "")
                if not method and "." in entry and entry.rpartition(".")[2].lstrip("_")[:1].islower():
                    base_name, _, method = entry.rpartition(".")
                if fw.matches(qualified, base_name) or _last(qualified) == _last(base_name):
                    return "config", (method,) if method else _CUSTOM_BASE_METHODS
            if name in self.classes and self.classes[name] is not node:
                found = self._tool_base(self.classes[name], depth + 1)
                if found is not None:
                    return found
                continue
            # a project's own base imported from another module (`AmadeusBaseTool`,
            # `BaseBrowserTool`): named as a tool base, in a file of a framework whose
            # tool classes use the method the class defines
            if _last(qualified).endswith("Tool") and qualified not in self.classes:
                methods = {item.name for item in node.body if isinstance(item, _DEFS)}
                for pattern, (framework, tool_methods) in fw.TOOL_BASE_CLASSES.items():
                    if framework in self.frameworks and methods & set(tool_methods):
                        return framework, tool_methods
        return None

    def _declaration_list(self, call: ast.Call) -> None:
        """`types.Tool(function_declarations=[decl])`, `create(functions=[decl])`: the
        dicts in the list (or module-level names of dicts) are tool declarations."""
        for kw in call.keywords:
            if kw.arg not in fw.DECLARATION_LIST_KEYWORDS:
                continue
            framework = "openai" if kw.arg == "functions" else "google-genai"
            for element in self._elements(kw.value):
                if isinstance(element, ast.Name):
                    element = self.module_scope.values.get(element.id, element)
                if not isinstance(element, ast.Dict) or id(element) in self._tool_ids:
                    continue
                props = _dict_get(_dict_get(element, "parameters"), "properties")
                title = _dict_get(element, "name")
                if not isinstance(props, ast.Dict) or not isinstance(title, ast.Constant):
                    continue
                fact = ToolFact(str(title.value), framework, f"{kw.arg}=[...]", element.lineno,
                                element.end_lineno or element.lineno, self.column(element.lineno, element.col_offset),
                                tuple(self._properties(props)), "inline")
                tool = Tool(fact, element)
                self._tool_ids[id(element)] = tool
                self.tools.append(tool)

    def _call_tools(self, call: ast.Call) -> None:
        if call.keywords and any(kw.arg in fw.DECLARATION_LIST_KEYWORDS for kw in call.keywords):
            self._declaration_list(call)
        name = dotted(_unsubscript(call.func))
        qualified = self.resolve(name) if name else None
        if qualified is not None:
            framework = self.lookup(qualified, fw.TOOL_WRAPPERS)
            if framework is not None:
                target = _function_argument(call)
                if target is not None:
                    self._tool_from_expr(target, framework, f"{_last(name or '')}(...)",
                                         _partial_params(call), first_injected=_takes_ctx(call, framework))
                return
            agent_framework = self.lookup(qualified, fw.AGENT_CONSTRUCTORS)
            if agent_framework is not None:
                position = self.lookup(qualified, fw.TOOL_LIST_POSITIONS)
                self._tools_list(call, agent_framework, f"tools=[...] of {_last(name or '')}", position)
                return
            model_schema = self.lookup(qualified, fw.SCHEMA_MODEL_CALLS)
            if model_schema is not None:
                self._schema_from_call(call, qualified, model_schema)
                return
            schema = self.lookup(qualified, _SCHEMA_CALL_FRAMEWORKS)
            if schema is not None:
                self._schema_call(call, qualified, schema)
                return
        if isinstance(call.func, ast.Attribute) and call.func.attr in fw.AGENT_FACTORY_METHODS:
            framework = fw.AGENT_FACTORY_METHODS[call.func.attr]
            if framework in self.frameworks or call.func.attr == "bind_tools":
                self._tools_list(call, framework, f"tools=[...] of .{call.func.attr}()")

    def _schema_from_call(self, call: ast.Call, qualified: str, framework: str) -> None:
        """`pydantic_function_tool(Model)`, `FunctionTool(params_json_schema={...})`."""
        schema = next((kw.value for kw in call.keywords if kw.arg in ("params_json_schema", "model")), None)
        if schema is None and call.args:
            schema = call.args[0]
        if schema is None:
            return
        title = next((kw.value for kw in call.keywords if kw.arg in ("name", "name_override")), None)
        name = title.value if isinstance(title, ast.Constant) and isinstance(title.value, str) else (dotted(schema) or "<schema>")
        fact = ToolFact(name, framework, f"{_last(qualified)}(...)", call.lineno, call.end_lineno or call.lineno,
                        self.column(call.lineno, call.col_offset), tuple(self._schema_params(schema)), "inline")
        if id(call) not in self._tool_ids:
            tool = Tool(fact, call)
            self._tool_ids[id(call)] = tool
            self.tools.append(tool)

    def _tools_list(self, call: ast.Call, framework: str, how: str, position: int | None = None) -> None:
        values = [kw.value for kw in call.keywords if kw.arg in fw.TOOL_LIST_KEYWORDS]
        if position is not None and len(call.args) > position:
            values.append(call.args[position])
        if isinstance(call.func, ast.Attribute) and call.func.attr == "bind_tools" and call.args:
            values.append(call.args[0])
        for value in values:
            for element in self._elements(value):
                self._tool_from_expr(element, framework, how, {})

    def _elements(self, value: ast.AST, depth: int = 0) -> list[ast.AST]:
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            out: list[ast.AST] = []
            for elt in value.elts:
                if isinstance(elt, ast.Starred):
                    out += self._elements(elt.value, depth + 1) if depth < 3 else []
                else:
                    out.append(elt)
            return out
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and depth < 3:
            return self._elements(value.left, depth + 1) + self._elements(value.right, depth + 1)
        if isinstance(value, ast.Name) and depth < 3:
            assigned = self.module_scope.values.get(value.id)
            if assigned is None:
                for scope in self._scopes.values():
                    if value.id in scope.values:
                        assigned = scope.values[value.id]
                        break
            if assigned is None:
                assigned = self._find_assignment(value)
            if assigned is not None and assigned is not value:
                return self._elements(assigned, depth + 1)
        return []

    def _find_assignment(self, name: ast.Name) -> ast.AST | None:
        """The value assigned to ``name`` in the function holding it."""
        for func in list(self.functions.values()) + list(self.methods.values()):
            if func.lineno <= name.lineno <= (func.end_lineno or func.lineno):  # type: ignore[attr-defined]
                scope = self.scope_of(func)
                return scope.values.get(name.id)
        return None

    def _tool_from_expr(self, expr: ast.AST, framework: str, how: str, injected: Mapping[str, str],
                        first_injected: str = "") -> None:
        if isinstance(expr, ast.Call):
            name = dotted(expr.func) or ""
            if _last(name) == "partial" and expr.args:
                bound = {kw.arg: "bound by functools.partial" for kw in expr.keywords if kw.arg}
                self._tool_from_expr(expr.args[0], framework, how, {**injected, **bound})
            return
        name = dotted(expr)
        if name is None:
            return
        target: ast.AST | None = None
        owner = None
        if name in self.functions:
            target = self.functions[name]
        elif name.startswith(("self.", "cls.")) and name.count(".") == 1:
            method = name.partition(".")[2]
            for (cls_name, meth), node in self.methods.items():
                if meth == method:
                    target, owner = node, self.classes[cls_name]
                    break
        elif "." in name:
            cls_name, _, method = name.partition(".")
            if cls_name in self.classes and (cls_name, method) in self.methods:
                target, owner = self.methods[(cls_name, method)], self.classes[cls_name]
        if target is not None:
            self._add_tool(target, framework, how, owner, injected, first_injected)
        elif name.partition(".")[0] in self.imports:
            # a function of another module of the project: the project phase makes it a
            # tool there (``tool_refs`` in the facts)
            qualified = self.resolve(name)
            if fw.framework_of(qualified) is None:
                self.tool_refs.append(ToolRefFact(
                    qualified, framework, how, tuple(sorted(injected.items())), first_injected,
                    expr.lineno, self.column(expr.lineno, expr.col_offset),  # type: ignore[attr-defined]
                ))

    def _schema_tool(self, node: ast.Dict) -> None:
        keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        for framework, required, path in fw.SCHEMA_DICT_SHAPES:
            if not set(required) <= keys:
                continue
            if framework == "openai":
                kind = _dict_get(node, "type")
                if not (isinstance(kind, ast.Constant) and kind.value == "function"):
                    continue
            props: ast.AST | None = node
            for key in path:
                props = _dict_get(props, key) if isinstance(props, ast.Dict) else None
            if props is None:
                continue
            holder = _dict_get(node, "function") if framework == "openai" and "function" in keys else node
            title = _dict_get(holder, "name") if isinstance(holder, ast.Dict) else None
            name = title.value if isinstance(title, ast.Constant) and isinstance(title.value, str) else "<schema>"
            fact = ToolFact(
                name=name,
                framework=framework,
                how="JSON tool schema",
                line=node.lineno,
                end_line=node.end_lineno or node.lineno,
                column=self.column(node.lineno, node.col_offset),
                params=tuple(self._properties(props)),
                schema="inline",
            )
            if id(node) not in self._tool_ids:
                tool = Tool(fact, node)
                self._tool_ids[id(node)] = tool
                self.tools.append(tool)
            return

    def _schema_call(self, call: ast.Call, qualified: str, framework: str) -> None:
        keyword = next(v[1] for k, v in fw.SCHEMA_CALLS.items() if fw.matches(qualified, k))
        schema = next((kw.value for kw in call.keywords if kw.arg == keyword), None)
        title = next((kw.value for kw in call.keywords if kw.arg == "name"), None)
        if isinstance(schema, ast.Call):
            # `parameters=types.Schema(type=..., properties={...})`
            properties = next((kw.value for kw in schema.keywords if kw.arg == "properties"), None)
            schema = ast.Dict(keys=[ast.Constant("properties")], values=[properties]) if properties is not None else None
        if not isinstance(schema, ast.Dict):
            return
        name = title.value if isinstance(title, ast.Constant) and isinstance(title.value, str) else "<schema>"
        fact = ToolFact(name, framework, f"{_last(qualified)}(...)", call.lineno, call.end_lineno or call.lineno,
                        self.column(call.lineno, call.col_offset),
                        tuple(self._properties(_dict_get(schema, "properties"))), "inline")
        if id(call) not in self._tool_ids:
            tool = Tool(fact, call)
            self._tool_ids[id(call)] = tool
            self.tools.append(tool)

    # -- model calls -------------------------------------------------------------------
    def llm_call(self, call: ast.Call, func: ast.AST | None) -> LlmCall | None:
        """Is ``call`` (inside ``func``) a model call or an agent run?"""
        name = dotted(call.func)
        if name is not None:
            qualified = self.resolve(name)
            if qualified in fw.LLM_FUNCTIONS or self.lookup(qualified, _LLM_FUNCTION_TABLE):
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
                    agent = self._agent_id_of(receiver, func) if tail in _AGENT_RUN_METHODS else None
                    return LlmCall(call, _describe(call.func), agent)
                return None
        text = _describe(call.func)
        for tail, root in fw.LLM_CHAIN_TAILS.items():
            if text.endswith("." + tail) and root in self.imported_roots:
                owner = text[: -len(tail) - 1].rpartition(".")[2]
                if _llm_like(owner):
                    return LlmCall(call, text)
        return None

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
                    return [(_describe(call.func), LlmCall(call, _describe(call.func))), *path]
        return None

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

    # -- agents ------------------------------------------------------------------------
    def _find_agents(self) -> None:
        for owner, body, prefix in self._bodies():
            for stmt in body:
                value = stmt.value if isinstance(stmt, (ast.Assign, ast.Return)) else (
                    stmt.value if isinstance(stmt, ast.AnnAssign) else None)
                if not isinstance(value, ast.Call):
                    continue
                framework = self._agent_constructor(value)
                if framework is None:
                    continue
                if isinstance(stmt, ast.Return):
                    if owner is None:
                        continue
                    agent_id = f"{self.module}.{owner.name}()"  # type: ignore[attr-defined]
                else:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]  # type: ignore[union-attr]
                    names = [t.id for t in targets if isinstance(t, ast.Name)]
                    if not names:
                        continue
                    agent_id = f"{prefix}{names[0]}"
                children = tuple(self._children(value, owner))
                if owner is None and isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                    children += tuple(self._decorated_children(agent_id.rpartition(".")[2]))
                self.agents.append(AgentFact(agent_id, framework, stmt.lineno, children))

    def _decorated_children(self, receiver: str) -> Iterator[AgentEdgeFact]:
        """Agents run by the tools decorated on this agent (`@billing.tool` whose body
        runs `refunds.run(...)`: pydantic-ai's agent delegation)."""
        for tool in self.tools:
            if self._decorated_on.get(id(tool.node)) != receiver:
                continue
            for call, _always in self.calls_in(tool.node.body):  # type: ignore[attr-defined]
                found = self.llm_call(call, tool.node)
                if found is not None and found.agent is not None:
                    yield AgentEdgeFact(found.agent, f"tool `{tool.fact.name}` runs it", call.lineno,
                                        self.column(call.lineno, call.col_offset))

    def _bodies(self) -> Iterator[tuple[ast.AST | None, list[ast.stmt], str]]:
        yield None, list(walk_statements(self.tree.body)), f"{self.module}."
        for func in list(self.functions.values()):
            yield func, list(walk_statements(func.body)), f"{self.module}.{func.name}:"  # type: ignore[attr-defined]

    def _agent_constructor(self, call: ast.Call) -> str | None:
        name = dotted(_unsubscript(call.func))
        if name is None:
            if isinstance(call.func, ast.Attribute) and call.func.attr == "as_agent":
                return "agent-framework" if "agent-framework" in self.frameworks else None
            return None
        qualified = self.resolve(name)
        if _last(qualified) in fw.NOT_AGENT_RESULT:
            return None
        framework = self.lookup(qualified, fw.AGENT_CONSTRUCTORS)
        if framework is None and _last(name) == "as_agent" and "agent-framework" in self.frameworks:
            framework = "agent-framework"
        return framework

    def _children(self, call: ast.Call, owner: ast.AST | None) -> Iterator[AgentEdgeFact]:
        for kw in call.keywords:
            if kw.arg in fw.TOOL_LIST_KEYWORDS:
                for element in self._elements(kw.value):
                    yield from self._tool_children(element, owner)
            elif kw.arg in fw.NESTED_AGENT_KEYWORDS:
                for element in self._elements(kw.value):
                    target = self._agent_id_of(element, owner)
                    if target is not None:
                        yield AgentEdgeFact(target, f"{kw.arg}=[...]", element.lineno,
                                            self.column(element.lineno, element.col_offset))

    def _tool_children(self, element: ast.AST, owner: ast.AST | None, depth: int = 0) -> Iterator[AgentEdgeFact]:
        line, column = element.lineno, self.column(element.lineno, element.col_offset)  # type: ignore[attr-defined]
        if isinstance(element, ast.Name) and depth < 2:
            value = (self.scope_of(owner).values.get(element.id) if owner is not None else None) or \
                self.module_scope.values.get(element.id)
            if isinstance(value, ast.Call):
                for edge in self._tool_children(value, owner, depth + 1):
                    yield AgentEdgeFact(edge.target, edge.how, line, column)
                return
        if isinstance(element, ast.Call):
            func = element.func
            if isinstance(func, ast.Attribute) and func.attr in fw.AGENT_AS_TOOL_METHODS:
                target = self._agent_id_of(func.value, owner)
                if target is not None:
                    yield AgentEdgeFact(target, f".{func.attr}()", line, column)
                return
            name = dotted(func)
            qualified = self.resolve(name) if name else ""
            if qualified and self.lookup(qualified, fw.TOOL_WRAPPERS) is not None and depth < 2:
                target = _function_argument(element)
                if target is not None:
                    for edge in self._tool_children(target, owner, depth + 1):
                        yield AgentEdgeFact(edge.target, edge.how, line, column)
                return
            keyword = self.lookup(qualified, fw.AGENT_TOOL_WRAPPERS) if qualified else None
            if keyword is not None:
                arg = element.args[0] if element.args else next(
                    (k.value for k in element.keywords if k.arg == keyword), None)
                target = self._agent_id_of(arg, owner)
                if target is not None:
                    yield AgentEdgeFact(target, f"{_last(qualified)}(...)", line, column)
            return
        name = dotted(element)
        if name is not None and name in self.functions:
            tool_func = self.functions[name]
            for call, _always in self.calls_in(tool_func.body):  # type: ignore[attr-defined]
                found = self.llm_call(call, tool_func)
                if found is not None and found.agent is not None:
                    yield AgentEdgeFact(found.agent, f"tool `{name}` runs it", line, column)

    # -- facts -------------------------------------------------------------------------
    def tool_facts(self) -> tuple[ToolFact, ...]:
        return tuple(sorted((t.fact for t in self.tools), key=lambda f: (f.line, f.column)))

    def declare_tools(self, refs: "Iterable[ToolRefFact]") -> list[Tool]:
        """Make the functions of this module that other modules pass as tools
        (``refs``, resolved to this module) tools here too; returns the new tools."""
        added = []
        for ref in refs:
            name = ref.qualified[len(self.module) + 1:]
            target = self.functions.get(name)
            if target is None or id(target) in self._tool_ids:
                continue
            self._add_tool(target, ref.framework, f"{ref.how} in another module", None, dict(ref.injected),
                           ref.first_injected)
            added.append(self._tool_ids[id(target)])
        return added


_NOT_TYPES = frozenset({"Any", "object", "Optional", "Union", "str", "int", "float", "bool", "dict", "list"})

_SAME_TYPE_METHODS = frozenset({
    "with_structured_output", "bind_tools", "bind", "with_retry", "with_config", "with_fallbacks",
    "with_types", "with_listeners", "configurable_fields", "configurable_alternatives",
})
"""LangChain methods returning the same kind of runnable (`llm.bind_tools(t).invoke(...)`)."""

_AGENT_RUN_METHODS = frozenset({"run", "run_sync", "run_stream", "arun", "kickoff", "kickoff_async", "akickoff",
                                "invoke", "ainvoke", "ask", "initiate_chat", "a_initiate_chat", "get_response",
                                "run_async", "iter", "run_streamed"})

_LLM_FUNCTION_PATTERNS = ("litellm:completion", "litellm:acompletion", "agents:Runner.run", "agents:Runner.run_sync",
                          "agents:Runner.run_streamed")
_LLM_FUNCTION_TABLE = {p: "x" for p in _LLM_FUNCTION_PATTERNS}
_METHODS_CACHE: dict[tuple[str, bool], tuple[str, ...]] = {}
"""(receiver type, file imports openai-agents) -> its model-calling methods."""
_SCHEMA_CALL_FRAMEWORKS = {k: v[0] for k, v in fw.SCHEMA_CALLS.items()}


_LLM_CLIENT_WORDS = frozenset({
    "client", "clients", "aclient", "anthropic", "claude", "llm", "llms", "openai", "oai", "gemini", "genai", "ai",
    "model", "models", "groq", "together", "mistral", "azure", "bedrock", "vertex", "deepseek", "xai", "ollama",
    "chat", "completion", "completions", "lm",
})


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


def _generic_args(node: ast.ClassDef) -> ast.AST | None:
    """`class T(BaseTool[Args, Result])`: the `Args` model (AutoGen's model-facing
    arguments), when the base is subscripted."""
    for base in node.bases:
        if isinstance(base, ast.Subscript):
            args = base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]
            if args and isinstance(args[0], (ast.Name, ast.Attribute)):
                return args[0]
    return None


def _unsubscript(expr: ast.AST) -> ast.AST:
    """`Agent[Ctx]` -> `Agent` (a generic constructor is still the constructor)."""
    return expr.value if isinstance(expr, ast.Subscript) else expr


def _describe(expr: ast.AST) -> str:
    text = dotted(expr)
    if text is not None:
        return text
    try:
        text = ast.unparse(expr)
    except Exception:  # pragma: no cover - unparse of odd trees
        return "<call>"
    return text if len(text) <= 60 else text[:57] + "..."


def _unparse(node: ast.AST | None) -> str:
    if node is None:
        return ""
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover
        return ""


def _dict_get(node: ast.AST | None, key: str) -> ast.AST | None:
    if not isinstance(node, ast.Dict):
        return None
    for k, v in zip(node.keys, node.values):
        if isinstance(k, ast.Constant) and k.value == key:
            return v
    return None


def _function_argument(call: ast.Call) -> ast.AST | None:
    for kw in call.keywords:
        if kw.arg in fw.WRAPPER_FUNCTION_KEYWORDS:
            return kw.value
    return call.args[0] if call.args else None


def _partial_params(call: ast.Call) -> dict[str, str]:
    for kw in call.keywords:
        if kw.arg == "partial_params" and isinstance(kw.value, ast.Dict):
            return {
                k.value: "bound by partial_params"
                for k in kw.value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
    return {}


def _takes_ctx(call: ast.Call, framework: str) -> str:
    if framework != "pydantic-ai":
        return ""
    for kw in call.keywords:
        if kw.arg == "takes_ctx" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
            return "first parameter (takes_ctx=True)"
    return ""


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


def walk_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    for node in _walk_body(body):
        if isinstance(node, ast.stmt):
            yield node


def _calls(body: Sequence[ast.stmt], always: bool) -> Iterator[tuple[ast.Call, bool]]:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            yield from _expr_calls(stmt.test, always)
            yield from _calls(stmt.body, False)
            yield from _calls(stmt.orelse, False)
        elif isinstance(stmt, ast.While):
            forever = isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
            yield from _expr_calls(stmt.test, always)
            yield from _calls(stmt.body, always and forever)
            yield from _calls(stmt.orelse, False)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            yield from _expr_calls(stmt.iter, always)
            yield from _calls(stmt.body, always)
            yield from _calls(stmt.orelse, False)
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            yield from _calls(stmt.body, always)
            for handler in stmt.handlers:
                yield from _calls(handler.body, False)
            yield from _calls(stmt.orelse, False)
            yield from _calls(stmt.finalbody, always)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                yield from _expr_calls(item.context_expr, always)
            yield from _calls(stmt.body, always)
        elif hasattr(ast, "Match") and isinstance(stmt, ast.Match):
            yield from _expr_calls(stmt.subject, always)
            for case in stmt.cases:
                yield from _calls(case.body, False)
        else:
            yield from _expr_calls(stmt, always)


def _expr_calls(node: ast.AST, always: bool) -> Iterator[tuple[ast.Call, bool]]:
    if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    if isinstance(node, ast.IfExp):
        yield from _expr_calls(node.test, always)
        yield from _expr_calls(node.body, False)
        yield from _expr_calls(node.orelse, False)
        return
    if isinstance(node, ast.BoolOp):
        yield from _expr_calls(node.values[0], always)
        for value in node.values[1:]:
            yield from _expr_calls(value, False)
        return
    if isinstance(node, ast.Call):
        yield node, always
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.comprehension):
            yield from _expr_calls(child.iter, always)
            for test in child.ifs:
                yield from _expr_calls(test, always)
            continue
        yield from _expr_calls(child, always)


def build(tree: ast.Module, facts: FileFacts, source: str, knowledge: Knowledge = DEFAULT_KNOWLEDGE) -> FileModel:
    return FileModel(tree, facts, source, knowledge)


_PREFILTER_WORDS = (b"tool", b"Tool", b"Agent", b"agent", b"input_schema", b"properties", b"kernel_function",
                    b"register_function", b"Crew", b"FunctionDeclaration")


def worth_modelling(content: bytes, knowledge: Knowledge) -> bool:
    """Cheap test: can this file hold a tool or an agent at all?"""
    if any(word in content for word in _PREFILTER_WORDS):
        return True
    extra = [*knowledge.tool_decorators, *knowledge.tool_base_classes]
    return any(_last(e.replace(":", ".")).encode() in content for e in extra)
