"""The fourth layer of a file's agent model: a project's own tool framework, read from its
code without configuration. Two forms are recognised:

- a **tool base class**: a class that declares a tool's name, description and argument
  schema (class attributes, or methods producing the schema) and leaves an execute-like
  method abstract (`@abstractmethod`, a body of `...`, `pass` or `raise
  NotImplementedError`); its subclasses that implement that method are tools once the
  project has at least two of them;
- a **registration decorator**: a module function (or a method of a module-level
  registry object) that hands the function it decorates to a framework's tool wrapper
  (`StructuredTool.from_function(fn)`), or stores it in a registry and describes it to a
  model (named for tools and reading its name, docstring or signature, or building a
  `parameters` schema from its signature), and returns it.

Candidates defined in this module and the uses of the project's other names that may be
such a framework (a base of a class implementing an execute-like method, a decorator, a
function given a def) go into the facts; the project phase decides across modules
(``engine.cross_module_tools``)."""

from __future__ import annotations

import ast
import sys

from agentlint.facts.agents.params import ToolParams
from agentlint.facts.ast_helpers import dotted, nodes_of, walk_statements
from agentlint.facts.types import ToolFrameworkFact, ToolUseFact
from agentlint.knowledge import frameworks as fw

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)

EXECUTE_METHODS = ("_run", "_arun", "run", "arun", "forward", "_execute", "execute", "aexecute", "execute_async",
                   "call", "acall", "__call__", "invoke", "ainvoke", "run_async", "_call")
"""Methods a tool class implements and a framework calls with the model's arguments."""

_SCHEMA_ATTRIBUTES = frozenset({
    "parameters", "input_schema", "inputSchema", "args_schema", "schema", "inputs", "arguments", "args",
    "parameters_schema", "json_schema", "input_model", "args_model", "params", "param_model", "function_schema",
    "tool_schema", "input_type", "argument_schema",
})
_SCHEMA_METHOD_PREFIXES = ("to_openai", "to_anthropic", "as_openai", "as_anthropic", "to_tool", "as_tool",
                           "to_function", "openai_", "anthropic_", "get_parameters", "get_definition", "definition",
                           "get_spec", "to_spec", "parameters", "input_schema")
_DESCRIPTION_ATTRIBUTES = frozenset({"description", "desc", "summary"})
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
_STORE_METHODS = frozenset({"append", "add", "register", "update", "setdefault", "insert", "extend"})
_SIGNATURE_CALLS = frozenset({"signature", "get_type_hints", "getfullargspec", "create_model", "validate_call",
                              "TypeAdapter"})
MIN_SUBCLASSES = 2
"""Subclasses implementing the execute-like method, across the project, before a
candidate base is taken for a tool base."""


class ProjectFrameworks(ToolParams):
    """Tool base classes and registration decorators defined by this module, and the
    uses of the project's names that may be ones."""

    def _find_project_frameworks(self) -> None:
        self._project_imports: set[str] | None = None
        self.tool_frameworks: list[ToolFrameworkFact] = []
        self.own_bases: dict[str, tuple[str, ...]] = {}
        """Class name -> execute-like methods, for the confirmed tool bases of this module."""
        self.own_decorators: set[str] = set()
        """`register_tool`, `registry.register`: confirmed registration decorators of this module."""
        for cls in self.classes.values():
            fact = self._base_candidate(cls)
            if fact is not None:
                self.tool_frameworks.append(fact)
                if "confident" in fact.evidence and fact.subclasses >= MIN_SUBCLASSES:
                    self.own_bases[cls.name] = fact.methods
        for name, func in self.functions.items():
            if self._registers(func, name):
                self.own_decorators.add(name)
                self.tool_frameworks.append(ToolFrameworkFact(f"{self.module}.{name}", "decorator", func.lineno))
        for target, value in self.module_scope.values.items():
            cls = self._local_class_of(value)
            if cls is None:
                continue
            for item in cls.body:
                if isinstance(item, _DEFS) and self._registers(item, f"{target}.{item.name}", cls):
                    self.own_decorators.add(f"{target}.{item.name}")
                    self.tool_frameworks.append(
                        ToolFrameworkFact(f"{self.module}.{target}.{item.name}", "decorator", item.lineno))

    # -- base classes -----------------------------------------------------------------
    def _base_candidate(self, cls: ast.ClassDef) -> ToolFrameworkFact | None:
        qualified = f"{self.module}.{cls.name}"
        if fw.framework_of(qualified) is not None:
            return None  # a framework's own classes are in its table, or internal
        abstract = [item.name for item in cls.body if isinstance(item, _DEFS) and item.name in EXECUTE_METHODS
                    and _is_abstract(item)]
        if not abstract:
            return None
        declared = _class_names(cls)
        evidence = []
        if "name" in declared:
            evidence.append("name")
        if declared & _DESCRIPTION_ATTRIBUTES:
            evidence.append("description")
        methods = {item.name for item in cls.body if isinstance(item, _DEFS)}
        if declared & _SCHEMA_ATTRIBUTES or any("schema" in m or m.startswith(_SCHEMA_METHOD_PREFIXES) for m in methods):
            evidence.append("schema")
        evidence.append(f"abstract {abstract[0]}")
        if not evidence[:-1]:
            return None  # an abstract `run` alone is any interface
        subclasses = sum(1 for other in self.classes.values()
                         if other is not cls and self._derives(other, cls.name, 0) and _implements(other, abstract))
        if {"name", "description", "schema"} <= set(evidence):
            evidence.append("confident")
        return ToolFrameworkFact(qualified, "base", cls.lineno, tuple(abstract), tuple(evidence), subclasses)

    def _derives(self, cls: ast.ClassDef, base: str, depth: int) -> bool:
        for item in cls.bases:
            name = dotted(item.value if isinstance(item, ast.Subscript) else item)
            if name == base:
                return True
            if name in self.classes and self.classes[name] is not cls and depth < 4:
                if self._derives(self.classes[name], base, depth + 1):
                    return True
        return False

    # -- registration decorators ------------------------------------------------------------
    def _local_class_of(self, value: ast.AST) -> ast.ClassDef | None:
        if isinstance(value, ast.Call):
            name = dotted(value.func)
            if name in self.classes:
                return self.classes[name]
        return None

    def _registers(self, func: ast.AST, name: str, cls: ast.ClassDef | None = None) -> bool:
        """Does ``func`` (used as `@name`) store the function it decorates and return it?"""
        args = func.args  # type: ignore[attr-defined]
        params = [a.arg for a in [*args.posonlyargs, *args.args]]
        if cls is not None and params[:1] == ["self"]:
            params = params[1:]
        candidates: list[tuple[ast.AST, str]] = []
        if params:
            candidates.append((func, params[0]))
        for node in func.body:  # type: ignore[attr-defined]
            # a decorator factory: `def tool(name=None): def wrap(fn): ...; return wrap`
            if isinstance(node, _DEFS) and node.args.args:
                candidates.append((node, node.args.args[0].arg))
        words = name.lower() + " " + (cls.name.lower() if cls is not None else "")
        for body_owner, fn in candidates:
            if not _returns_decorated(body_owner, fn):
                continue  # a decorator returns the function, a wrapper of it, or the inner decorator
            found = self._evidence(func, fn)
            if "wraps" in found:
                return True  # `TOOLS.append(StructuredTool.from_function(fn)); return fn`
            if "stores" not in found:
                continue
            named_for_tools = "tool" in words or "tool" in found["stores"].lower()
            # a tool registry describes the function to a model: its name, docstring or
            # signature (a registry of builders keyed by a type name is not one)
            if named_for_tools and ("describes" in found or "signature" in found):
                return True
            if "signature" in found and "schema" in found:
                return True
        return False

    def _evidence(self, func: ast.AST, fn: str) -> dict[str, str]:
        """What a decorator's body does with the function ``fn``, in one walk: hands it to
        a framework's tool wrapper (`wraps`), stores it (`stores`: the container's name),
        reads its name or docstring (`describes`), its signature (`signature`), or
        writes a JSON schema (`schema`)."""
        out: dict[str, str] = {}
        for node in nodes_of(func, (ast.Call, ast.Assign, ast.Attribute, ast.Constant)):
            if isinstance(node, ast.Call):
                callee = dotted(node.func) or ""
                last = callee.rpartition(".")[2]
                values = [*node.args, *(k.value for k in node.keywords)]
                if any(isinstance(a, ast.Name) and a.id == fn for a in values) and callee:
                    qualified = self.resolve(callee)
                    if self.lookup(qualified, fw.TOOL_WRAPPERS) or self.lookup(qualified, fw.TOOL_DECORATORS):
                        out["wraps"] = callee
                if (isinstance(node.func, ast.Attribute) and last in _STORE_METHODS
                        and any(_mentions(a, fn) for a in values)):
                    out.setdefault("stores", dotted(node.func.value) or "")
                if last in _SIGNATURE_CALLS:
                    out["signature"] = last
                if last == "getdoc":
                    out["describes"] = last
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and _mentions(node.value, fn):
                        out.setdefault("stores", dotted(target.value) or "")
            elif isinstance(node, ast.Attribute):
                if node.attr in ("__name__", "__doc__", "__qualname__") and _mentions(node.value, fn):
                    out["describes"] = node.attr
                elif node.attr in ("__annotations__", "__signature__"):
                    out["signature"] = node.attr
            elif isinstance(node, ast.Constant) and node.value in ("parameters", "properties", "input_schema",
                                                                    "inputSchema"):
                out["schema"] = str(node.value)
        return out

    # -- uses of the project's names -----------------------------------------------------------
    def _project_name(self, name: str | None) -> str | None:
        """The qualified name of an imported name that may be the project's own (not a
        framework's, not the standard library's)."""
        if name is None or name.partition(".")[0] not in self._project_locals():
            return None
        qualified = self.resolve(name)
        root = qualified.partition(".")[0]
        if fw.framework_of(qualified) is not None or root in _STDLIB or root in ("typing_extensions", "pydantic"):
            return None
        return qualified

    def _find_uses(self, defs: list[ast.AST], calls: list[ast.Call]) -> list[ToolUseFact]:
        """``defs`` and ``calls``: every def and call of the module (the tools walk's)."""
        out: dict[tuple[str, str], ToolUseFact] = {}
        if not self._project_locals():
            return []
        for cls in self.classes.values():
            if not any(isinstance(i, _DEFS) and i.name in EXECUTE_METHODS for i in cls.body):
                continue
            for base in cls.bases:
                qualified = self._project_name(dotted(base.value if isinstance(base, ast.Subscript) else base))
                if qualified is not None:  # one per class: the project phase counts subclasses
                    out.setdefault((qualified, f"base:{cls.lineno}"), ToolUseFact(qualified, "base", cls.lineno))
        for node in defs:
            for decorator in node.decorator_list:  # type: ignore[attr-defined]
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                qualified = self._project_name(dotted(target))
                if qualified is not None:
                    out.setdefault((qualified, "decorator"), ToolUseFact(qualified, "decorator", node.lineno))  # type: ignore[attr-defined]
        for node in calls:
            if node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in self.functions:
                qualified = self._project_name(dotted(node.func))
                if qualified is not None:
                    out.setdefault((qualified, "call"), ToolUseFact(qualified, "call", node.lineno))
            if self.tools:
                used = self._receiver_use(node.func)
                if used is not None:
                    out.setdefault((used, "receiver"), ToolUseFact(used, "receiver", node.lineno))
        return list(out.values())

    def _project_locals(self) -> set[str]:
        """The local names this module imports from neither a framework nor the
        standard library: where a project's own tool framework can come from."""
        if self._project_imports is None:
            self._project_imports = {local for local, qualified in self.imports.items()
                                     if fw.framework_of(qualified) is None
                                     and qualified.partition(".")[0] not in _STDLIB}
        return self._project_imports

    def _receiver_use(self, func: ast.AST) -> str | None:
        """`summariser.run(...)` -> the imported `summariser`; `make_llm()` -> `make_llm()`."""
        if isinstance(func, ast.Name):
            qualified = self._project_name(func.id)
            return f"{qualified}()" if qualified is not None else None
        while isinstance(func, ast.Attribute):
            func = func.value
        if isinstance(func, ast.Call):
            return self._receiver_use(func.func)
        if isinstance(func, ast.Name):
            return self._project_name(func.id)
        return None


def _class_names(cls: ast.ClassDef) -> set[str]:
    """Names a class body declares: attributes (with or without a value), properties and
    methods, and `self.X = ...` in its `__init__`."""
    out: set[str] = set()
    for item in cls.body:
        if isinstance(item, ast.Assign):
            out.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            out.add(item.target.id)
        elif isinstance(item, _DEFS):
            out.add(item.name)
            if item.name == "__init__":
                for node in ast.walk(item):
                    if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                            and isinstance(node.value, ast.Name) and node.value.id == "self"):
                        out.add(node.attr)
    return out


def _is_abstract(func: ast.AST) -> bool:
    for decorator in func.decorator_list:  # type: ignore[attr-defined]
        if (dotted(decorator) or "").rpartition(".")[2] in ("abstractmethod", "abc.abstractmethod"):
            return True
    body = list(func.body)  # type: ignore[attr-defined]
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(
            body[0].value.value, str):
        body = body[1:]
    if not body:
        return True
    if len(body) != 1:
        return False
    stmt = body[0]
    if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                                      and stmt.value.value is Ellipsis):
        return True
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return (dotted(exc) or "") == "NotImplementedError"
    return False


def _implements(cls: ast.ClassDef, methods: list[str]) -> bool:
    return any(isinstance(i, _DEFS) and i.name in methods and not _is_abstract(i) for i in cls.body)


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _returns_decorated(func: ast.AST, fn: str) -> bool:
    """Among the body's statements (nested defs not entered), a `return fn`, a return of
    a call given `fn` (`return Tool(fn)`), or of a def nested here (a wrapper, or a
    decorator factory's inner decorator)."""
    nested = {n.name for n in func.body if isinstance(n, _DEFS)}  # type: ignore[attr-defined]
    for stmt in walk_statements(func.body, cases=False):  # type: ignore[attr-defined]
        if not isinstance(stmt, ast.Return) or stmt.value is None:
            continue
        value = stmt.value
        if isinstance(value, ast.Name) and (value.id == fn or value.id in nested):
            return True
        if isinstance(value, ast.Call) and _mentions(value, fn):
            return True
    return False
