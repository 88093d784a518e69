"""The third layer of a file's agent model: a tool's parameters — which the model fills,
which the framework injects and why, what the tool's author says each one is — and the
tools declared as schemas (pydantic models, JSON schema dicts and calls). Every framework
fact comes from ``knowledge.frameworks``."""

from __future__ import annotations

import ast
from typing import Mapping

from agentlint.facts.agents.calls import ModelCalls
from agentlint.facts.agents.receivers import Tool, _last
from agentlint.facts.ast_helpers import char_column, dotted
from agentlint.facts.source import parse_quietly
from agentlint.facts.types import ParamFact, ToolFact
from agentlint.knowledge import frameworks as fw
from agentlint.lazy_regex import lazy_compile

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCHEMA_CLASS_BASES = frozenset({"BaseModel", "TypedDict", "RootModel"})
_NOT_FIELDS = frozenset({"model_config", "Config"})
_ARG_LINE = lazy_compile(r"^\s*(?::param\s+)?\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(\S.*)$")


class ToolParams(ModelCalls):
    """Tools as facts: their parameters, injected or model-filled, and schema tools."""

    def column(self, line: int, byte_offset: int) -> int:
        """1-based character column of an `ast` byte offset."""
        return char_column(self.lines, line, byte_offset)

    def _add_tool(self, node: ast.AST, framework: str, how: str, owner: ast.ClassDef | None = None,
                  injected: Mapping[str, str] | None = None, first_injected: str = "",
                  schema: ast.AST | None = None, approval: str = "",
                  guards: Mapping[str, str] | None = None) -> Tool | None:
        """Make ``node`` (a def, or a schema class) a tool, unless it is one already."""
        if id(node) in self._tool_ids:
            return None
        if isinstance(node, ast.ClassDef):
            name = node.name
            schema = schema if schema is not None else ast.Name(id=node.name)
        else:
            name = f"{owner.name}.{node.name}" if owner is not None else node.name  # type: ignore[attr-defined]
        schema_text = ""
        if schema is not None:
            schema_text = dotted(schema) or "inline"
            params = self._schema_params(schema)
            if isinstance(node, _DEFS) and owner is None and not isinstance(schema, ast.Dict):
                params = self._on_def(params, node)  # `@tool(args_schema=M) def f(x)`: at `x`
        else:
            params = self._params(node, framework, owner is not None, injected or {}, first_injected)
        if guards:
            params = [ParamFact(p.name, p.line, p.column, p.injected, p.annotation, guards.get(p.name, p.guard))
                      for p in params]
        fact = ToolFact(
            name=name,
            framework=framework,
            how=how,
            line=node.lineno,  # type: ignore[attr-defined]
            end_line=node.end_lineno or node.lineno,  # type: ignore[attr-defined]
            column=self.column(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            params=tuple(params),
            schema=schema_text,
            approval=approval,
        )
        tool = Tool(fact, node, owner, self._descriptions(node, schema))
        self._tool_ids[id(node)] = tool
        self.tools.append(tool)
        return tool

    # -- parameters of a def --------------------------------------------------------------
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
                reason = self._injected_by_annotation(arg.annotation, framework)
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

    def _injected_by_annotation(self, ann: ast.AST | None, framework: str = "") -> str:
        if ann is None:
            return ""
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = parse_quietly(ann.value, mode="eval").body
            except SyntaxError:
                return ""
        types = fw.INJECTED_ANNOTATIONS | self.knowledge.injected_types | fw.INJECTED_TYPES_BY_FRAMEWORK.get(
            framework, frozenset())
        if isinstance(ann, ast.Subscript):
            head = dotted(ann.value) or ""
            elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if _last(head) == "Annotated":
                for meta in elts[1:]:
                    marker = dotted(meta.func if isinstance(meta, ast.Call) else meta) or ""
                    if _last(marker) in fw.INJECTED_MARKERS:
                        return f"annotation Annotated[..., {_last(marker)}]"
                return self._injected_by_annotation(elts[0], framework) if elts else ""
            if _last(head) in ("Optional", "Union"):
                for elt in elts:
                    reason = self._injected_by_annotation(elt, framework)
                    if reason:
                        return reason
                return ""
            if _last(head) in types:
                return f"annotation {_last(head)}"
            return ""
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return self._injected_by_annotation(ann.left, framework) or self._injected_by_annotation(ann.right, framework)
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

    # -- schemas --------------------------------------------------------------------------
    def is_schema_class(self, cls: ast.ClassDef, depth: int = 0) -> bool:
        """A pydantic model or a TypedDict (directly, or through a class of this module)."""
        for base in cls.bases:
            name = dotted(base.value if isinstance(base, ast.Subscript) else base) or ""
            if _last(name) in _SCHEMA_CLASS_BASES:
                return True
            if name in self.classes and self.classes[name] is not cls and depth < 4:
                if self.is_schema_class(self.classes[name], depth + 1):
                    return True
        return False

    def _schema_fields(self, cls: ast.ClassDef, depth: int = 0) -> list[ast.AnnAssign]:
        """A schema class's fields, those inherited from classes of this module first
        (a field redefined by the subclass counts once, where the subclass defines it)."""
        inherited: list[ast.AnnAssign] = []
        if depth < 4:
            for base in cls.bases:
                name = dotted(base.value if isinstance(base, ast.Subscript) else base) or ""
                if name in self.classes and self.classes[name] is not cls:
                    inherited += self._schema_fields(self.classes[name], depth + 1)
        own = [s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
               and not s.target.id.startswith("_") and s.target.id not in _NOT_FIELDS
               and _last(dotted(_unsubscripted(s.annotation)) or "") != "ClassVar"]
        names = {s.target.id for s in own}  # type: ignore[union-attr]
        return [s for s in inherited if s.target.id not in names] + own  # type: ignore[union-attr]

    def _schema_params(self, schema: ast.AST) -> list[ParamFact]:
        """Fields of a schema class defined in this module, or the keys of an inline
        JSON schema's `properties`; [] when the schema lives elsewhere."""
        name = dotted(schema)
        if name is not None and name in self.classes:
            return [ParamFact(s.target.id, s.lineno, self.column(s.lineno, s.col_offset),  # type: ignore[union-attr]
                              annotation=_unparse(s.annotation))
                    for s in self._schema_fields(self.classes[name])]
        if isinstance(schema, ast.Dict):
            return self._properties(_dict_get(schema, "properties"))
        return []

    def _on_def(self, params: list[ParamFact], node: ast.AST) -> list[ParamFact]:
        """A schema field that is also a parameter of the def is that parameter: it is
        reported where the def takes it."""
        args = node.args  # type: ignore[attr-defined]
        by_name = {a.arg: a for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        return [ParamFact(p.name, by_name[p.name].lineno, self.column(by_name[p.name].lineno, by_name[p.name].col_offset),
                          p.injected, p.annotation, p.guard) if p.name in by_name else p for p in params]

    def _properties(self, props: ast.AST | None) -> list[ParamFact]:
        if not isinstance(props, ast.Dict):
            return []
        out = []
        for key in props.keys:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                out.append(ParamFact(key.value, key.lineno, self.column(key.lineno, key.col_offset)))
        return out

    def _descriptions(self, node: ast.AST, schema: ast.AST | None) -> dict[str, str]:
        """What the author says each parameter is: the def's docstring (`Args:` lines,
        `:param x:`), a schema field's `Field(description=...)`, a JSON property's
        `"description"`."""
        out: dict[str, str] = {}
        if isinstance(node, _DEFS):
            for line in (ast.get_docstring(node) or "").splitlines():
                match = _ARG_LINE.match(line)
                if match:
                    out.setdefault(match.group(1), match.group(2)[:200])
        name = dotted(schema) if schema is not None else None
        if name is not None and name in self.classes:
            for stmt in self._schema_fields(self.classes[name]):
                text = _field_description(stmt)
                if text:
                    out[stmt.target.id] = text  # type: ignore[union-attr]
        props = _dict_get(schema, "properties") if isinstance(schema, ast.Dict) else None
        if isinstance(node, ast.Dict):
            props = _schema_properties(node)
        if isinstance(props, ast.Dict):
            for key, value in zip(props.keys, props.values):
                text = _dict_get(value, "description")
                if isinstance(key, ast.Constant) and isinstance(text, ast.Constant) and isinstance(text.value, str):
                    out[str(key.value)] = text.value[:200]
        return out

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
            holder = _dict_get(node, "function") if framework == "openai" and "function" in keys else node
            title = _dict_get(holder, "name") if isinstance(holder, ast.Dict) else None
            if props is None:
                # a schema without `properties` (`additionalProperties: true`): a tool
                # with no named parameters, when it reads as one (a name, an object schema)
                schema = _dict_get(holder, path[-2]) if isinstance(holder, ast.Dict) else None
                if not (isinstance(schema, ast.Dict) and _is_str(title) and _dict_get(schema, "type") is not None):
                    continue
            name = title.value if _is_str(title) else "<schema>"  # type: ignore[union-attr]
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
                tool = Tool(fact, node, descriptions=self._descriptions(node, None))
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
        name = title.value if _is_str(title) else "<schema>"  # type: ignore[union-attr]
        fact = ToolFact(name, framework, f"{_last(qualified)}(...)", call.lineno, call.end_lineno or call.lineno,
                        self.column(call.lineno, call.col_offset),
                        tuple(self._properties(_dict_get(schema, "properties"))), "inline")
        if id(call) not in self._tool_ids:
            tool = Tool(fact, call, descriptions=self._descriptions(call, schema))
            self._tool_ids[id(call)] = tool
            self.tools.append(tool)

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
                tool = Tool(fact, element, descriptions=self._descriptions(_dict_get(element, "parameters"), None))
                self._tool_ids[id(element)] = tool
                self.tools.append(tool)

    def _schema_from_call(self, call: ast.Call, qualified: str, framework: str) -> None:
        """`pydantic_function_tool(Model)`, `FunctionTool(params_json_schema={...})`."""
        schema = next((kw.value for kw in call.keywords if kw.arg in ("params_json_schema", "model")), None)
        if schema is None and call.args:
            schema = call.args[0]
        if schema is None:
            return
        title = next((kw.value for kw in call.keywords if kw.arg in ("name", "name_override")), None)
        name = title.value if _is_str(title) else (dotted(schema) or "<schema>")  # type: ignore[union-attr]
        fact = ToolFact(name, framework, f"{_last(qualified)}(...)", call.lineno, call.end_lineno or call.lineno,
                        self.column(call.lineno, call.col_offset), tuple(self._schema_params(schema)), "inline")
        if id(call) not in self._tool_ids:
            tool = Tool(fact, call, descriptions=self._descriptions(call, schema))
            self._tool_ids[id(call)] = tool
            self.tools.append(tool)


def _is_str(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _schema_properties(node: ast.Dict) -> ast.AST | None:
    """The `properties` of a JSON tool schema dict, whichever shape it has."""
    for _framework, _required, path in fw.SCHEMA_DICT_SHAPES:
        props: ast.AST | None = node
        for key in path:
            props = _dict_get(props, key) if isinstance(props, ast.Dict) else None
        if isinstance(props, ast.Dict):
            return props
    return None


def _field_description(stmt: ast.AnnAssign) -> str:
    """`x: str = Field(description="...")`, `x: Annotated[str, Field(description=...)]`,
    `x: Annotated[str, "..."]`."""
    candidates: list[ast.AST] = [stmt.value] if stmt.value is not None else []
    if isinstance(stmt.annotation, ast.Subscript) and _last(dotted(stmt.annotation.value) or "") == "Annotated":
        elts = stmt.annotation.slice.elts if isinstance(stmt.annotation.slice, ast.Tuple) else []
        candidates += elts[1:]
    for value in candidates:
        if _is_str(value):
            return value.value[:200]  # type: ignore[attr-defined]
        if isinstance(value, ast.Call):
            for kw in value.keywords:
                if kw.arg == "description" and _is_str(kw.value):
                    return kw.value.value[:200]  # type: ignore[attr-defined]
    return ""


def _unsubscripted(node: ast.AST) -> ast.AST:
    return node.value if isinstance(node, ast.Subscript) else node


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
