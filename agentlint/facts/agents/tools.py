"""The third layer of a file's agent model: its tools (decorated, subclassed, wrapped,
passed in `tools=[...]`, JSON schemas) and, for each, the parameters the model fills
and those the framework injects. Every framework fact comes from
``knowledge.frameworks``."""

from __future__ import annotations

import ast
from typing import Iterable, Mapping

from agentlint.facts.agents.calls import ModelCalls
from agentlint.facts.agents.receivers import Tool, _last, _unsubscript
from agentlint.facts.ast_helpers import char_column, dotted
from agentlint.facts.source import parse_quietly
from agentlint.facts.types import ParamFact, ToolFact, ToolRefFact
from agentlint.knowledge import frameworks as fw

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CUSTOM_BASE_METHODS = ("_run", "_arun", "run", "arun", "forward", "_execute", "execute", "call", "__call__")
_SCHEMA_CALL_FRAMEWORKS = {k: v[0] for k, v in fw.SCHEMA_CALLS.items()}


class ToolFinder(ModelCalls):
    """The module's tools and their parameters."""

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


def _generic_args(node: ast.ClassDef) -> ast.AST | None:
    """`class T(BaseTool[Args, Result])`: the `Args` model (AutoGen's model-facing
    arguments), when the base is subscripted."""
    for base in node.bases:
        if isinstance(base, ast.Subscript):
            args = base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]
            if args and isinstance(args[0], (ast.Name, ast.Attribute)):
                return args[0]
    return None


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
