"""The fifth layer of a file's agent model: its tools — decorated (also on a schema class,
or called as a function: `tool(fn)`), subclassed, wrapped, registered by a call
(`agent.tool(fn)`, `toolkit.add_tool(fn)`, a Toolkit's `self.register(self.m)`), passed
in a tool list (through variables, `a + [b]`, `a if c else b`, a local function returning
the list), JSON schemas — with the approval a tool is declared with. Every framework fact
comes from ``knowledge.frameworks``."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Iterable, Mapping

from agentlint.facts.agents.params import _dict_get, _generic_args
from agentlint.facts.agents.project import EXECUTE_METHODS, ProjectFrameworks
from agentlint.facts.agents.receivers import Tool, _last, _unsubscript
from agentlint.facts.ast_helpers import dotted, nodes_of
from agentlint.facts.types import ToolFact, ToolRefFact
from agentlint.knowledge import frameworks as fw

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CUSTOM_BASE_METHODS = ("_run", "_arun", "run", "arun", "forward", "_execute", "execute", "call", "__call__")
_SCHEMA_CALL_FRAMEWORKS = {k: v[0] for k, v in fw.SCHEMA_CALLS.items()}
_JSON_SCHEMA_ATTRIBUTES = ("input_schema", "parameters", "inputSchema")
_KEY_KINDS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Call, ast.Dict, ast.If,
              getattr(ast, "Match", ast.If))
"""The nodes a tool is declared by (defs, classes, calls, dicts) or dispatched under (`if`,
`match`), kept for the other finders of the model (``key_nodes``)."""
_CALL_TABLES = (fw.TOOL_WRAPPERS, fw.AGENT_CONSTRUCTORS, fw.TOOL_CONTAINERS, fw.SCHEMA_MODEL_CALLS, fw.SCHEMA_CALLS,
                fw.APPROVAL_MIDDLEWARE, fw.TOOL_DECORATORS)
_CALL_NAMES = frozenset(p.rpartition(":")[2].rpartition(".")[2] for table in _CALL_TABLES for p in table)
"""The final names of every call a tool table knows: any other call is skipped at once."""
_METHOD_NAMES = frozenset({"__init__", *fw.TOOLKIT_REGISTER_METHODS, *fw.RECEIVER_TOOL_METHODS,
                           *fw.ANY_RECEIVER_TOOL_DECORATORS, *fw.REGISTRATION_CALL_METHODS, *fw.AGENT_FACTORY_METHODS})
"""The methods whose call registers tools whatever the tables say (`agent.tool(fn)`,
`super().__init__(tools=...)` in a Toolkit, `llm.bind_tools([...])`)."""


class ToolFinder(ProjectFrameworks):
    """The module's tools and their parameters."""

    def call_nodes(self) -> list[ast.Call]:
        return self._all_calls

    def _find_tools(self) -> None:
        self._named_approvals: dict[str, str] = {}
        """Tool name -> the approval naming it (HITL middleware, a Toolkit's list)."""
        self._all_defs: list[ast.AST] = []
        self._all_calls: list[ast.Call] = []
        self.library_tools = 0
        """Tools a framework provides, given in a tool list (`tools=[DuckDuckGoTools()]`)."""
        self.key_nodes = nodes_of(self.tree, _KEY_KINDS)
        """The module's nodes of ``_KEY_KINDS`` in `ast.walk` order: one walk for every finder."""
        for node in self.key_nodes:
            if isinstance(node, _DEFS):
                self._all_defs.append(node)
                if node.decorator_list:
                    self._decorated_tool(node)
            elif isinstance(node, ast.ClassDef):
                self._class_tool(node)
            elif isinstance(node, ast.Call):
                self._all_calls.append(node)
                self._call_tools(node)
            elif isinstance(node, ast.Dict):
                self._schema_tool(node)
        self._link_implementations()
        if self._named_approvals:
            for tool in self.tools:
                how = self._named_approvals.get(tool.fact.name.rpartition(".")[2])
                if how and not tool.fact.approval:
                    tool.fact = replace(tool.fact, approval=how)

    def _link_implementations(self) -> None:
        """A JSON schema tool named N is implemented by a def of this module: one named N,
        the function a dispatcher calls under `if name == "N":` (or `case "N":`), the value
        of `"N"` in a dict, or the function paired with the schema (`{"schema": {...},
        "fn": f}`)."""
        schemas = {t.fact.name: t for t in self.tools if not isinstance(t.node, (*_DEFS, ast.ClassDef))
                   and t.fact.name != "<schema>"}
        if not schemas:
            return
        found: dict[str, ast.AST] = {}
        for name in schemas:
            if name in self.functions:
                found[name] = self.functions[name]
        for node in self.key_nodes:
            if type(node) is ast.Dict:
                keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
                for key, value in zip(keys, node.values):
                    if key in schemas and isinstance(value, ast.Name) and value.id in self.functions:
                        found.setdefault(key, self.functions[value.id])  # {"get_weather": get_weather_impl}
                held = [self.module_scope.values.get(v.id) if isinstance(v, ast.Name) else v for v in node.values]
                for tool in schemas.values():
                    if any(v is tool.node for v in held):
                        for key, value in zip(keys, node.values):
                            if key in _IMPLEMENTATION_KEYS and isinstance(value, ast.Name) and value.id in self.functions:
                                found.setdefault(tool.fact.name, self.functions[value.id])
            elif isinstance(node, ast.If):
                name = _dispatched_name(node.test)
                if name in schemas and name not in found:
                    impl = self._first_local_call(node.body)
                    if impl is not None:
                        found[name] = impl
            elif hasattr(ast, "Match") and isinstance(node, ast.Match):
                for case in node.cases:
                    pattern = getattr(case.pattern, "value", None)
                    name = pattern.value if isinstance(pattern, ast.Constant) else None
                    if isinstance(name, str) and name in schemas and name not in found:
                        impl = self._first_local_call(case.body)
                        if impl is not None:
                            found[name] = impl
        for name, impl in found.items():
            if id(impl) not in self._tool_ids:
                schemas[name].impl = impl

    def _first_local_call(self, body: list[ast.stmt]) -> ast.AST | None:
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.functions:
                    return self.functions[node.func.id]
        return None

    def _add(self, node: ast.AST, framework: str, how: str, owner: ast.ClassDef | None = None,
             injected: Mapping[str, str] | None = None, first_injected: str = "", schema: ast.AST | None = None,
             approval: str = "", guards: Mapping[str, str] | None = None) -> None:
        """``_add_tool``, and an approval or guard seen on a later declaration of a tool
        already found is added to it."""
        added = self._add_tool(node, framework, how, owner, injected, first_injected, schema, approval, guards)
        existing = self._tool_ids.get(id(node))
        if added is None and existing is not None and (approval or guards):
            fact = existing.fact
            if approval and not fact.approval:
                fact = replace(fact, approval=approval)
            if guards:
                fact = replace(fact, params=tuple(replace(p, guard=p.guard or guards.get(p.name, ""))
                                                  for p in fact.params))
            existing.fact = fact

    # -- declarations: approvals ------------------------------------------------------------
    def _approval(self, call: ast.Call | None) -> str:
        """The approval or input check a declaration's keywords give (`needs_approval=True`)."""
        if call is None:
            return ""
        for kw in call.keywords:
            if kw.arg in fw.APPROVAL_KEYWORDS:
                value = kw.value
                if kw.arg == "approval_mode":
                    text = value.value if isinstance(value, ast.Constant) else dotted(value) or ""
                    if isinstance(text, str) and text.lower().endswith("always_require"):
                        return f'approval_mode="{text.rpartition(".")[2].lower()}"'
                    if not isinstance(value, ast.Constant) and not (
                            isinstance(text, str) and text.lower().endswith("never_require")):
                        return f"approval_mode={text or 'a policy'}"  # set by the caller: a policy
                    continue
                if isinstance(value, ast.Constant):
                    if value.value:
                        return f"{kw.arg}={value.value!r}"
                    continue
                return f"{kw.arg}={dotted(value) or 'a policy'}"
            if kw.arg in fw.TOOL_GUARD_KEYWORDS and not (isinstance(kw.value, (ast.List, ast.Tuple))
                                                         and not kw.value.elts):
                return f"{kw.arg}=[...]"
        return ""

    def _decorator_approval(self, node: ast.AST) -> str:
        for decorator in node.decorator_list:  # type: ignore[attr-defined]
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = dotted(target)
            if name is not None and self.lookup(self.resolve(name), fw.APPROVAL_DECORATORS):
                return f"@{name}"
        return ""

    def _before_tool_guards(self, call: ast.Call) -> dict[str, str]:
        """`Agent(before_tool_callback=check, tools=[...])`: the parameters `check` reads
        from the model's arguments (`args["customer_id"]`, `args.get(...)`)."""
        out: dict[str, str] = {}
        for kw in call.keywords:
            if kw.arg not in fw.BEFORE_TOOL_KEYWORDS:
                continue
            for element in (kw.value.elts if isinstance(kw.value, (ast.List, ast.Tuple)) else [kw.value]):
                name = dotted(element)
                func = self.functions.get(name) if name is not None else None
                if func is None:
                    continue
                args = [a.arg for a in func.args.args]  # type: ignore[attr-defined]
                holder = "args" if "args" in args else (args[1] if len(args) > 1 else None)
                for node in ast.walk(func):
                    key = _key_read(node, holder)
                    if key is not None:
                        out.setdefault(key, f"re-validated by {kw.arg} `{name}`")
        return out

    # -- decorators ---------------------------------------------------------------------
    def _decorated_tool(self, node: ast.AST) -> None:
        approval = self._decorator_approval(node)
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
            found = self._decorator_framework(name)
            if found is not None:
                framework, how = found
                self._add(node, framework, how, owner, schema=schema, approval=approval or self._approval(call))
                return
            if "." not in name:
                continue
            receiver, _, method = name.rpartition(".")
            framework = self._receiver_tool_framework(receiver, method, node)
            if framework is not None:
                first = "first parameter of @agent.tool" if framework == "pydantic-ai" and method == "tool" else ""
                self._add(node, framework, f"@{name}", owner, first_injected=first, schema=schema,
                          approval=approval or self._approval(call))
                if "." not in receiver:
                    self._decorated_on[id(node)] = receiver
                return

    def _decorator_framework(self, name: str) -> tuple[str, str] | None:
        """(framework, how) when `@name` (or `name(fn)`) makes a function a tool: a
        framework's decorator, one from config, or the project's own."""
        qualified = self.resolve(name)
        if qualified in fw.NOT_TOOL_DECORATORS:
            return None
        framework = self.lookup(qualified, fw.TOOL_DECORATORS)
        if framework is not None:
            return framework, f"@{name}"
        if any(fw.matches(qualified, p) for p in self.knowledge.tool_decorators):
            return "config", f"@{name}"
        if name in self.own_decorators:
            return "project", f"@{name}, project-defined (inferred from {self.module}.{name})"
        if qualified in self.knowledge.inferred_decorators:
            return "project", f"@{name}, project-defined (inferred from {self.knowledge.inferred_decorators[qualified]})"
        return None

    def _receiver_tool_framework(self, receiver: str, method: str, node: ast.AST) -> str | None:
        if method in fw.IMPORTING_RECEIVER_TOOL_DECORATORS:
            framework = fw.IMPORTING_RECEIVER_TOOL_DECORATORS[method]
            return framework if framework in self.frameworks else None
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

    # -- classes ------------------------------------------------------------------------
    def _class_tool(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = dotted(target)
            found = self._decorator_framework(name) if name is not None else None
            if found is not None and self.is_schema_class(node):
                self._add(node, found[0], f"{found[1]} on a schema class")  # `@tool class Done(BaseModel)`
                return
        found = self._tool_base(node, 0)
        schema = None
        for item in node.body:
            target = item.targets[0] if isinstance(item, ast.Assign) and len(item.targets) == 1 else (
                item.target if isinstance(item, ast.AnnAssign) else None)
            if isinstance(target, ast.Name) and target.id in fw.SCHEMA_KEYWORDS and item.value is not None:  # type: ignore[union-attr]
                schema = item.value  # type: ignore[union-attr]
        if found is None:
            json_schema = _json_schema_attribute(node)
            if json_schema is None:
                return
            # a class carrying a JSON tool schema (`name = "..."`, `input_schema = {...}`)
            found, schema = ("project", _CUSTOM_BASE_METHODS, "project-defined (a tool schema on the class)"), json_schema
        framework, methods, how = found
        if schema is None and framework == "autogen":
            schema = _generic_args(node)  # `BaseTool[Args, Result]`: the model fills Args
        for item in node.body:
            if isinstance(item, _DEFS) and item.name in methods:
                self._add(item, framework, how or f"{item.name} of a {framework} tool class", node, schema=schema)

    def _tool_base(self, node: ast.ClassDef, depth: int) -> tuple[str, tuple[str, ...], str] | None:
        """(framework, model-facing methods, how) when a base of ``node`` is a tool base."""
        if depth > 4:
            return None
        for base in node.bases:
            name = dotted(base.value if isinstance(base, ast.Subscript) else base)
            if name is None:
                continue
            qualified = self.resolve(name)
            for pattern, (framework, methods) in fw.TOOL_BASE_CLASSES.items():
                if self.framework_pattern(qualified, pattern):
                    return framework, methods, ""
            for entry in self.knowledge.tool_base_classes:
                base_name, _, method = entry.partition(":") if ":" in entry else (entry, "", "")
                if not method and "." in entry and entry.rpartition(".")[2].lstrip("_")[:1].islower():
                    base_name, _, method = entry.rpartition(".")
                if fw.matches(qualified, base_name) or _last(qualified) == _last(base_name):
                    return "config", (method,) if method else _CUSTOM_BASE_METHODS, ""
            inferred = self.knowledge.inferred_bases.get(qualified)
            if inferred is not None:
                return "project", inferred[1], f"project-defined (inferred from {inferred[0]})"
            if name in self.own_bases:
                return "project", self.own_bases[name], f"project-defined (inferred from {self.module}.{name})"
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
                        return framework, tool_methods, ""
        return None

    def _toolkit_of(self, call: ast.Call) -> tuple[ast.ClassDef, str] | None:
        """The Toolkit subclass (agno, phidata) whose method makes ``call``, and its framework."""
        func = self._enclosing_function(call)
        cls = self.parents.get(id(func)) if func is not None else None
        depth = 0
        while cls is not None and depth < 4:
            for base in cls.bases:
                name = dotted(base)
                if name is None:
                    continue
                framework = self.lookup(self.resolve(name), fw.TOOLKIT_BASES)
                if framework is not None:
                    return self.parents[id(func)], framework  # type: ignore[index]
            local = [self.classes[n] for n in (dotted(b) for b in cls.bases) if n in self.classes]
            cls = local[0] if local else None
            depth += 1
        return None

    # -- calls --------------------------------------------------------------------------
    def _call_tools(self, call: ast.Call) -> None:
        if call.keywords and any(kw.arg in fw.DECLARATION_LIST_KEYWORDS for kw in call.keywords):
            self._declaration_list(call)
        if call.keywords and any(kw.arg in fw.APPROVAL_NAME_LISTS for kw in call.keywords):
            self._approval_names(call)
        func = call.func
        if type(func) is ast.Attribute and func.attr not in self._method_names():
            # most calls are of methods no table knows (resolving a dotted name keeps its
            # last part, so no import can make one a tool's)
            return
        if self._registration_call(call):
            return
        name = dotted(_unsubscript(call.func))
        qualified = self.resolve(name) if name else None
        if qualified is not None and qualified.rpartition(".")[2] not in self._call_names():
            qualified = None  # no table knows a call of that name
        if qualified is not None:
            framework = self.lookup(qualified, fw.TOOL_WRAPPERS)
            if framework is not None:
                target = _function_argument(call)
                if target is not None:
                    self._tool_from_expr(target, framework, f"{_last(name or '')}(...)", _partial_params(call),
                                         first_injected=_takes_ctx(call, framework), approval=self._approval(call))
                return
            agent_framework = self.lookup(qualified, fw.AGENT_CONSTRUCTORS)
            if agent_framework is not None:
                if agent_framework in fw.BUILT_IN_TOOLS:
                    self.library_tools += 1
                position = self.lookup(qualified, fw.TOOL_LIST_POSITIONS)
                self._tools_list(call, agent_framework, f"tools=[...] of {_last(name or '')}", position,
                                 self._before_tool_guards(call))
                return
            container = self.lookup(qualified, fw.TOOL_CONTAINERS)
            if container is not None:
                self._tools_list(call, container, f"tools=[...] of {_last(name or '')}")
                return
            model_schema = self.lookup(qualified, fw.SCHEMA_MODEL_CALLS)
            if model_schema is not None:
                self._schema_from_call(call, qualified, model_schema)
                return
            schema = self.lookup(qualified, _SCHEMA_CALL_FRAMEWORKS)
            if schema is not None:
                self._schema_call(call, qualified, schema)
                return
            middleware = self.lookup(qualified, fw.APPROVAL_MIDDLEWARE)
            if middleware is not None:
                self._middleware_approvals(call, middleware, _last(qualified))
                return
            found = self._decorator_framework(name) if name is not None and call.args else None
            if found is not None:
                # a tool decorator called on a function or a schema class: `tool(fn)`
                how = f"{_last(name or '')}(...)" + ("," + found[1].partition(",")[2] if found[0] == "project" else "")
                self._tool_from_expr(call.args[0], found[0], how, {}, approval=self._approval(call))
                return
        if isinstance(call.func, ast.Attribute) and call.func.attr in fw.AGENT_FACTORY_METHODS:
            framework = fw.AGENT_FACTORY_METHODS[call.func.attr]
            if framework in self.frameworks or call.func.attr == "bind_tools":
                self._tools_list(call, framework, f"tools=[...] of .{call.func.attr}()")

    def _call_names(self) -> frozenset[str]:
        names = getattr(self, "_known_call_names", None)
        if names is None:
            extra = {p.replace(":", ".").rpartition(".")[2] for p in self.knowledge.tool_decorators}
            extra |= {d.rpartition(".")[2] for d in (*self.own_decorators, *self.knowledge.inferred_decorators)}
            names = self._known_call_names = _CALL_NAMES | extra
        return names

    def _method_names(self) -> frozenset[str]:
        """The last names of the method calls that can declare or register a tool."""
        names = getattr(self, "_known_method_names", None)
        if names is None:
            names = self._known_method_names = self._call_names() | _METHOD_NAMES
        return names

    def _registration_call(self, call: ast.Call) -> bool:
        """A function registered as a tool by a call: `agent.tool(fn)` (as `@agent.tool`),
        `toolkit.add_tool(fn)`, and in a Toolkit subclass `self.register(self.m)` or
        `super().__init__(tools=[self.a, self.b])`."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return False
        if (func.attr == "__init__" and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
                and func.value.func.id == "super"):
            toolkit = self._toolkit_of(call)
            if toolkit is not None:
                self._tools_list(call, toolkit[1], f"tools=[...] of a {fw.FRAMEWORK_NAMES.get(toolkit[1])} Toolkit")
                self._approval_names(call)
            return toolkit is not None
        if not call.args:
            return False
        name = dotted(func)
        if name is None:
            return False
        receiver, _, method = name.rpartition(".")
        if method in fw.TOOLKIT_REGISTER_METHODS and receiver == "self":
            toolkit = self._toolkit_of(call)
            if toolkit is not None:
                self._tool_from_expr(call.args[0], toolkit[1], f"self.{method}(...) in a Toolkit", {})
                return True
        if method in fw.RECEIVER_TOOL_METHODS or method in fw.ANY_RECEIVER_TOOL_DECORATORS:
            framework = self._receiver_tool_framework(receiver, method, call)
            if framework is not None and isinstance(call.args[0], (ast.Name, ast.Attribute)):
                first = "first parameter of @agent.tool" if framework == "pydantic-ai" and method == "tool" else ""
                self._tool_from_expr(call.args[0], framework, f"{name}(fn)", {}, first_injected=first,
                                     approval=self._approval(call))
                return True
        frameworks = fw.REGISTRATION_CALL_METHODS.get(method, ())
        framework = next((f for f in frameworks if f in self.frameworks), None)
        if framework is not None:
            for arg in call.args:
                for element in (self._elements(arg) if method.endswith("s") else [arg]):
                    self._tool_from_expr(element, framework, f".{method}(...)", {}, approval=self._approval(call))
            return True
        if name in self.own_decorators or self.resolve(name) in self.knowledge.inferred_decorators:
            found = self._decorator_framework(name)
            if found is not None:
                self._tool_from_expr(call.args[0], found[0], f"{name}(fn),{found[1].partition(',')[2]}", {})
                return True
        return False

    def _approval_names(self, call: ast.Call) -> None:
        """`ShellTools(requires_confirmation_tools=["run_shell_command"])`."""
        for kw in call.keywords:
            if kw.arg in fw.APPROVAL_NAME_LISTS and isinstance(kw.value, (ast.List, ast.Tuple)):
                for elt in kw.value.elts:
                    if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                        self._named_approvals.setdefault(elt.value, f"{kw.arg}=[...]")

    def _middleware_approvals(self, call: ast.Call, keyword: str, what: str) -> None:
        """`HumanInTheLoopMiddleware(interrupt_on={"refund": True, "search": False})`."""
        for kw in call.keywords:
            if kw.arg == keyword and isinstance(kw.value, ast.Dict):
                for key, value in zip(kw.value.keys, kw.value.values):
                    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                        continue
                    if isinstance(value, ast.Constant) and not value.value:
                        continue
                    self._named_approvals.setdefault(key.value, f"{what}({keyword}=...)")

    def _tools_list(self, call: ast.Call, framework: str, how: str, position: int | None = None,
                    guards: Mapping[str, str] | None = None) -> None:
        values = [kw.value for kw in call.keywords if kw.arg in fw.TOOL_LIST_KEYWORDS]
        if position is not None and len(call.args) > position:
            values.append(call.args[position])
        if isinstance(call.func, ast.Attribute) and call.func.attr == "bind_tools" and call.args:
            values.append(call.args[0])
        for value in values:
            for element in self._elements(value):
                self._tool_from_expr(element, framework, how, {}, guards=guards)

    def _elements(self, value: ast.AST, depth: int = 0) -> list[ast.AST]:
        """The items of a tool list: a literal, `*a`, `a + [b]`, `a if c else b`, a name
        bound to one, or a call to a function of this module returning one."""
        if depth > 4:
            return []
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            out: list[ast.AST] = []
            for elt in value.elts:
                if isinstance(elt, ast.Starred):
                    out += self._elements(elt.value, depth + 1)
                else:
                    out.append(elt)
            return out
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return self._elements(value.left, depth + 1) + self._elements(value.right, depth + 1)
        if isinstance(value, ast.IfExp):
            return self._elements(value.body, depth + 1) + self._elements(value.orelse, depth + 1)
        if isinstance(value, ast.Call):
            if self._from_framework(value.func):
                self.library_tools += 1  # `*SearchToolkit().get_tools()`
                return []
            return [e for ret in self._returned_lists(value) for e in self._elements(ret, depth + 1)]
        if isinstance(value, ast.Name):
            assigned = self.module_scope.values.get(value.id)
            if assigned is None:
                assigned = self._find_assignment(value)
            if assigned is None:
                for scope in self._scopes.values():
                    if value.id in scope.values:
                        assigned = scope.values[value.id]
                        break
            if assigned is not None and assigned is not value and not isinstance(assigned, _DEFS):
                return self._elements(assigned, depth + 1)
        return []

    def _returned_lists(self, call: ast.Call) -> list[ast.AST]:
        """What a local function (`get_tools()`), a method (`self.get_tools()`) or a method
        of a local class's instance (`SearchToolkit().get_tools()`) returns."""
        func = call.func
        target: ast.AST | None = None
        if isinstance(func, ast.Name) and func.id not in self.imports:
            target = self.functions.get(func.id)
        elif isinstance(func, ast.Attribute):
            owner: ast.ClassDef | None = None
            if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                enclosing = self._enclosing_function(call)
                owner = self.parents.get(id(enclosing)) if enclosing is not None else None
            else:
                built = func.value
                if isinstance(built, ast.Name):
                    built = self.module_scope.values.get(built.id) or self._find_assignment(built) or built
                if isinstance(built, ast.Call) and dotted(built.func) in self.classes:
                    owner = self.classes[dotted(built.func)]  # type: ignore[index]
            if owner is not None:
                target = self._method_of(owner, func.attr)
        if target is None or not isinstance(target, _DEFS):
            return []
        scope = self.scope_of(target)
        out: list[ast.AST] = []
        for node in ast.walk(target):
            if isinstance(node, ast.Return) and node.value is not None:
                value = node.value
                if isinstance(value, ast.Name) and value.id in scope.values:
                    value = scope.values[value.id]
                out.append(value)
        return out

    def _find_assignment(self, name: ast.Name) -> ast.AST | None:
        """The value assigned to ``name`` in the function holding it."""
        func = self._enclosing_function(name)
        if func is not None:
            return self.scope_of(func).values.get(name.id)
        return None

    def _from_framework(self, expr: ast.AST) -> bool:
        """Is ``expr`` (`search`, `toolkit.search_web`, `SearchToolkit().get_tools`) built
        by a framework: its head an instance of a framework class, or imported from one?"""
        while isinstance(expr, (ast.Attribute, ast.Call)):
            expr = expr.value if isinstance(expr, ast.Attribute) else expr.func
        if not isinstance(expr, ast.Name):
            return False
        if expr.id in self.imports:
            return fw.framework_of(self.imports[expr.id]) is not None
        return fw.framework_of(self._local_type(expr.id, self._scope_at(expr)) or "") is not None

    def _scope_at(self, node: ast.AST):
        enclosing = self._enclosing_function(node)
        return self.scope_of(enclosing) if enclosing is not None else None

    def _closure(self, expr: ast.AST, name: str) -> ast.AST | None:
        """A def named ``name`` nested in the function that holds ``expr``."""
        func = self._enclosing_function(expr)
        if func is None:
            return None
        for node in ast.walk(func):
            if isinstance(node, _DEFS) and node is not func and node.name == name:
                return node
        return None

    def _tool_from_expr(self, expr: ast.AST, framework: str, how: str, injected: Mapping[str, str],
                        first_injected: str = "", approval: str = "", guards: Mapping[str, str] | None = None) -> None:
        if isinstance(expr, ast.Call):
            name = dotted(expr.func) or ""
            if _last(name) == "partial" and expr.args:
                bound = {kw.arg: "bound by functools.partial" for kw in expr.keywords if kw.arg}
                self._tool_from_expr(expr.args[0], framework, how, {**injected, **bound}, approval=approval,
                                     guards=guards)
            elif name and fw.framework_of(self.resolve(name)) is not None:
                self.library_tools += 1  # `DuckDuckGoTools()`, `WebSearchTool()`
            return
        name = dotted(expr)
        if name is None:
            return
        target: ast.AST | None = None
        owner = None
        if name in self.classes and self.is_schema_class(self.classes[name]):
            self._add(self.classes[name], framework, f"{how} (a schema class)", approval=approval)
            return
        closure = self._closure(expr, name) if "." not in name else None
        if closure is not None:
            target = closure
        elif name in self.functions:
            target = self.functions[name]
        elif name.startswith(("self.", "cls.")) and name.count(".") == 1:
            method = name.partition(".")[2]
            enclosing = self._enclosing_function(expr)
            holder = self.parents.get(id(enclosing)) if enclosing is not None else None
            target = self._method_of(holder, method) if holder is not None else None
            if target is not None:
                owner = self.parents.get(id(target), holder)
            else:
                for (cls_name, meth), node in self.methods.items():
                    if meth == method:
                        target, owner = node, self.classes[cls_name]
                        break
        elif "." in name:
            cls_name, _, method = name.partition(".")
            if cls_name not in self.classes:
                # `drafter.draft` with `drafter = Drafter(...)`: a method of a class of this module
                enclosing = self._enclosing_function(expr)
                type_ = self._local_type(cls_name, self.scope_of(enclosing) if enclosing is not None else None) or ""
                if type_.startswith(f"{self.module}.") and type_[len(self.module) + 1:] in self.classes:
                    cls_name = type_[len(self.module) + 1:]
            if cls_name in self.classes and "." not in method:
                target = self._method_of(self.classes[cls_name], method)
                owner = self.parents.get(id(target)) if target is not None else None
        if target is not None:
            self._add(target, framework, how, owner, injected, first_injected, approval=approval, guards=guards)
        elif self._from_framework(expr):
            self.library_tools += 1  # `search = SerpApiTools(...)` then `tools=[search]`, `toolkit.search`
        elif name.partition(".")[0] in self.imports:
            # a function of another module of the project: the project phase makes it a
            # tool there (``tool_refs`` in the facts)
            qualified = self.resolve(name)
            if fw.framework_of(qualified) is None:
                self.tool_refs.append(ToolRefFact(
                    qualified, framework, how, tuple(sorted(injected.items())), first_injected,
                    expr.lineno, self.column(expr.lineno, expr.col_offset),  # type: ignore[attr-defined]
                    approval, tuple(sorted((guards or {}).items())),
                ))

    # -- facts -------------------------------------------------------------------------
    def tool_facts(self) -> tuple[ToolFact, ...]:
        return tuple(sorted((t.fact for t in self.tools), key=lambda f: (f.line, f.column)))

    def declare_tools(self, refs: "Iterable[ToolRefFact]") -> list[Tool]:
        """Make the functions (and schema classes) of this module that other modules pass
        as tools (``refs``, resolved to this module) tools here too; returns the new tools."""
        added = []
        for ref in refs:
            name = ref.qualified.rpartition(".")[2]  # resolved to this module (maybe by its path)
            target: ast.AST | None = self.functions.get(name)
            if target is None and name in self.classes and self.is_schema_class(self.classes[name]):
                target = self.classes[name]
            if target is None or id(target) in self._tool_ids:
                continue
            self._add(target, ref.framework, f"{ref.how} in another module", None, dict(ref.injected),
                      ref.first_injected, approval=ref.approval, guards=dict(ref.guards))
            added.append(self._tool_ids[id(target)])
        return added


_IMPLEMENTATION_KEYS = frozenset({"fn", "func", "function", "handler", "callable", "implementation", "impl", "callback"})


def _dispatched_name(test: ast.AST) -> str | None:
    """`tool_name == "get_weather"`, `block.name == "get_weather"`: the name compared."""
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, str)):
        left = test.left
        word = left.attr if isinstance(left, ast.Attribute) else left.id if isinstance(left, ast.Name) else ""
        if "name" in word.lower() or word.lower() in ("tool", "function", "fn"):
            return test.comparators[0].value
    return None


def _key_read(node: ast.AST, holder: str | None) -> str | None:
    """`args["customer_id"]` or `args.get("customer_id")`, ``holder`` being `args`."""
    if holder is None:
        return None
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == holder
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        return node.slice.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop")
            and isinstance(node.func.value, ast.Name) and node.func.value.id == holder and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return node.args[0].value
    return None


def _json_schema_attribute(node: ast.ClassDef) -> ast.AST | None:
    """`name = "..."` and `input_schema = {"type": "object", "properties": {...}}` (or
    `parameters`, `inputSchema`) in a class body that also defines an execute-like method."""
    names: set[str] = set()
    found = None
    for item in node.body:
        if isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    if target.id in _JSON_SCHEMA_ATTRIBUTES and _dict_get(item.value, "properties") is not None:
                        found = item.value
    methods = {i.name for i in node.body if isinstance(i, _DEFS)}
    return found if "name" in names and methods & set(EXECUTE_METHODS) else None


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
