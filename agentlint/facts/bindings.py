"""Receiver types: what a local, a parameter, `self.x` or a function's result holds,
written as a type expression the graph evaluates, recorded as bindings.

A type expression (a string) describes a value by how it was obtained, with names
resolved through the module's imports:

- ``pkg.mod.Foo``: the object that name names (a class stands for its instances as a
  declared type: `x: Foo` is a Foo or a subclass; a variable for its value);
- ``pkg.mod.Foo()``: what calling it gives (an instance of exactly that class, or
  what a function returns);
- ``X.attr``, ``X()``, ``X[key]`` / ``X[]``: an attribute, a call, an element (by a
  constant string key, or any element) of what ``X`` is;
- ``[key]X`` / ``[]X``: a container (a dict, a list) whose elements are ``X``;
- ``{Cls.method:2:editor}``: what callers pass for that parameter (its position among
  the parameters, `self` included, and its name); for a dataclass or pydantic field
  ``{Cls:2:editor}``, what constructors pass for it;
- ``self`` / ``cls``: the class the expression is read in;
- ``X.cmd_*`` and ``X.name?``: an attribute looked up by a name built at run time
  (`getattr(self, f"cmd_{name}")`) or taken from a table of names, matched by
  prefix or exactly;
- ``pkg.plugins.*``: a module loaded by a name built at run time
  (`importlib.import_module(f"pkg.plugins.{name}")`): any module of `pkg.plugins`
  (``pkg.plugins.run_*``: those whose name starts so).
"""

from __future__ import annotations

import ast
import builtins

from agentlint.facts.ast_helpers import MODULE_SCOPE, SELF_NAMES, STDLIB, dotted
from agentlint.facts.imports import ImportTable
from agentlint.facts.scopes import UNSET, ClassBody, Types, joined, parse_annotation, target_names
from agentlint.facts.types import BindingFact

_Attribute, _Name, _Call, _Await, _Subscript = ast.Attribute, ast.Name, ast.Call, ast.Await, ast.Subscript
_Constant, _JoinedStr, _BinOp = ast.Constant, ast.JoinedStr, ast.BinOp
_List, _Tuple, _Set, _Dict, _Starred = ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Starred
NOT_A_RECEIVER_TYPE = frozenset(dir(builtins)) | {"Any", "None", "typing.Any"}
_WRAPPERS = frozenset({"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"})
_CONTAINERS = frozenset({
    "list", "List", "set", "Set", "frozenset", "FrozenSet", "tuple", "Tuple", "Sequence", "MutableSequence",
    "Iterable", "Iterator", "Collection", "AbstractSet", "AsyncIterable", "AsyncIterator", "Generator",
})
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict"})
_COPIES = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed"})
"""Builtins that give a container of their argument's elements."""
_GETTERS = frozenset({"get", "pop", "setdefault", "__getitem__"})
"""Methods of a mapping that give one of its elements."""
_VIEWS = frozenset({"values", "copy"})
_ADDERS = frozenset({"append", "add", "insert", "appendleft"})
"""Methods that put their (last) argument into a container."""
MAX_TYPES = 8
"""Type expressions kept per value (a container keeps up to MAX_ELEMENTS)."""
MAX_ELEMENTS = 32
_MAX_LENGTH = 240


def element_of(te: str, key: str | None) -> str | None:
    """The type expression of ``te[key]`` (``key`` None: any element): the element of a
    container expression, or an element operation appended."""
    if te[:1] == "[":
        close = te.find("]")
        held = te[1:close]
        if key is None or not held or held == key:
            return te[close + 1 :]
        return None
    return f"{te}[{key or ''}]" if len(te) < _MAX_LENGTH else None


def constant_key(node: ast.AST | None) -> str | None:
    """A dict key or subscript usable in a type expression: a short constant string."""
    if type(node) is _Constant and type(node.value) is str:  # type: ignore[union-attr]
        text = node.value  # type: ignore[union-attr]
        if 0 < len(text) <= 40 and text.replace("_", "").replace("-", "").isalnum():
            return text
    return None


class ReceiverTypes(ImportTable):
    """The types of receivers (the second layer of the facts walk)."""

    def __init__(self, module: str, is_package: bool) -> None:
        super().__init__(module, is_package)
        self.bindings: list[BindingFact] = []
        self._binding_keys: set[tuple[str, str, str]] = set()
        self.klass: ClassBody | None = None
        self.locals: dict[str, Types] | None = None
        """Receiver types of the function being walked: name -> ((type, line, declared), ...)."""
        self.prefixes: dict[str, str] | None = None
        """Locals of the function being walked that hold a string with a known start
        (`name = f"cmd_{x}"`): name -> that start (for `getattr(self, name)`)."""
        self.string_tables: dict[str, tuple[str, ...]] = {}
        """Module-level dicts, lists and tuples of strings: name -> the strings (the
        values of a dict), for `getattr(obj, TABLE[key])`."""
        self.depth = 0
        """How many branches or loops of the current function the walk is inside."""
        self.self_param: str | None = None
        """In a method: the name of its instance parameter (`self`) ..."""
        self.cls_param: str | None = None
        """... or of its class parameter (`cls`, or the first one of a `@classmethod`)."""
        self.self_type: str | None = None
        """While reading a method's return annotation: the class `Self` names."""

    def collect_string_tables(self, body: list[ast.stmt]) -> None:
        """`MAPPING = {"outline": "generate_outline_prompt", ...}` at module level."""
        for stmt in body:
            if type(stmt) is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is _Name:
                value = stmt.value
                cls = type(value)
                items = value.values if cls is _Dict else value.elts if cls in (_List, _Tuple, _Set) else None  # type: ignore[attr-defined]
                if items and all(type(v) is _Constant and type(v.value) is str for v in items):
                    names = tuple(dict.fromkeys(v.value for v in items if v.value.isidentifier()))  # type: ignore[attr-defined]
                    if names and len(names) <= MAX_ELEMENTS:
                        self.string_tables[stmt.targets[0].id] = names  # type: ignore[attr-defined]

    # -- receiver types ---------------------------------------------------------------
    def _type_name(self, name: str | None) -> str | None:
        if not name or name in NOT_A_RECEIVER_TYPE:
            return None
        scoped = self.scoped
        if scoped:
            head = name.partition(".")[0]
            if scoped.get(head, UNSET) is None and head not in SELF_NAMES:
                return None  # a local: not a name the graph can look up
        resolved = self.resolve(name)
        if self.self_type is not None and resolved.rpartition(".")[2] == "Self":
            return self.self_type  # `-> Self` (typing or typing_extensions) in a method
        if resolved.startswith("typing.") or resolved in NOT_A_RECEIVER_TYPE:
            return None
        if resolved.partition(".")[0] in STDLIB and resolved.partition(".")[0] not in self._own_tops():
            return None  # `os.environ`, `logging.getLogger()`: nothing the project defines
        return resolved

    def _own_tops(self) -> tuple[str, ...]:
        return (self.module.partition(".")[0],)

    def _value_types(self, value: ast.AST | None, depth: int = 0) -> tuple[str, ...]:
        """The type expressions of a value (see the module docstring), at most
        MAX_TYPES (a container: MAX_ELEMENTS elements)."""
        cls = type(value)
        if cls is _Await or cls is ast.NamedExpr:
            value = value.value  # type: ignore[union-attr]
            cls = type(value)
        if depth > 4:
            return ()
        if cls is _Call:
            return self._call_types(value, depth)  # type: ignore[arg-type]
        if cls is _Name:
            name = value.id  # type: ignore[union-attr]
            known = self.locals.get(name) if self.locals else None
            if known is not None:
                return tuple(entry[0] for entry in known)
            if name in SELF_NAMES:
                # `self` in a method (or a function nested in one): the class, as the
                # graph reads it from the scope the expression is in.
                return (name,) if self.klass is not None and self.locals is not None else ()
            if self._visible(name):
                # `runner = DEFAULT_RUNNER`: the value of that variable, found by the graph.
                found = self._type_name(name)
                return (found,) if found else ()
            return ()
        if cls is _Attribute:
            name = dotted(value)  # type: ignore[arg-type]
            if name is not None:
                # A plain name chain, in one step: `self.a.b`, `x.a` with x typed, `mod.A`.
                head, _, rest = name.partition(".")
                if head in SELF_NAMES:
                    return (name,) if self.klass is not None and self.locals is not None else ()
                known = self.locals.get(head) if self.locals else None
                if known is not None:
                    return tuple(f"{entry[0]}.{rest}" for entry in known if entry[0][:1] != "[")[:MAX_TYPES]
                if self._visible(head):
                    found = self._type_name(name)
                    return (found,) if found else ()
                return ()
            attr = value.attr  # type: ignore[union-attr]
            return tuple(
                f"{te}.{attr}" for te in self._value_types(value.value, depth + 1)  # type: ignore[union-attr]
                if te[:1] != "[" and len(te) < _MAX_LENGTH
            )
        if cls is _Subscript:
            key = constant_key(value.slice)  # type: ignore[union-attr]
            return _kept(element_of(te, key) for te in self._value_types(value.value, depth + 1))  # type: ignore[union-attr]
        if cls is ast.BoolOp or cls is ast.IfExp:
            parts = value.values if cls is ast.BoolOp else (value.body, value.orelse)  # type: ignore[union-attr]
            return joined(self._value_types(part, depth + 1) for part in parts)[:MAX_TYPES]
        if cls is _List or cls is _Tuple or cls is _Set:
            out: list[str] = []
            for element in value.elts[:MAX_ELEMENTS]:  # type: ignore[union-attr]
                if type(element) is not _Starred:
                    out += ["[]" + te for te in self._value_types(element, depth + 1)]
            return tuple(dict.fromkeys(out))[:MAX_ELEMENTS]
        if cls is _Dict:
            out = []
            for key, element in zip(value.keys[:MAX_ELEMENTS], value.values):  # type: ignore[union-attr]
                if key is not None:
                    held = constant_key(key) or ""
                    out += [f"[{held}]{te}" for te in self._value_types(element, depth + 1)]
            return tuple(dict.fromkeys(out))[:MAX_ELEMENTS]
        if cls is ast.ListComp or cls is ast.SetComp or cls is ast.GeneratorExp or cls is ast.DictComp:
            element = value.value if cls is ast.DictComp else value.elt  # type: ignore[union-attr]
            if type(element) is _Call:
                return tuple("[]" + te for te in self._call_types(element, depth + 1))  # type: ignore[arg-type]
        return ()

    def _call_types(self, value: ast.Call, depth: int) -> tuple[str, ...]:
        func = value.func
        if value.args and (type(func) is _Attribute or type(func) is _Name):
            callee = dotted(func)
            if callee and callee.rpartition(".")[2] == "import_module" and self.resolve(callee) == "importlib.import_module":
                return self._imported_module(value)
        if type(func) is _Name:
            name = func.id  # type: ignore[attr-defined]
            builtin = name in NOT_A_RECEIVER_TYPE and self._unshadowed(name)
            if builtin:
                if name == "getattr":
                    return self._getattr_types(value, depth)
                if name in _COPIES and value.args:
                    return _kept(
                        "[]" + element for te in self._value_types(value.args[0], depth + 1)
                        if (element := element_of(te, None)) is not None
                    )
                return ()
        out = [f"{te}()" for te in self._value_types(func, depth + 1) if te[:1] != "[" and len(te) < _MAX_LENGTH]
        if type(func) is _Attribute and func.attr in _GETTERS or type(func) is _Attribute and func.attr in _VIEWS:
            attr = func.attr  # type: ignore[union-attr]
            held = self._value_types(func.value, depth + 1)  # type: ignore[union-attr]
            if attr in _GETTERS:
                key = constant_key(value.args[0]) if value.args else None
                out += [e for e in (element_of(te, key) for te in held) if e is not None]
            else:
                out += [te for te in held if te[:1] == "["]
        return tuple(dict.fromkeys(out))[:MAX_TYPES]

    def _imported_module(self, call: ast.Call) -> tuple[str, ...]:
        """`importlib.import_module("pkg.mod")`: that module; with a name built at run
        time from a constant start (`f"pkg.plugins.{name}"`, `"pkg.plugins." + name`,
        a local holding either), any module the start allows (``pkg.plugins.*``). A
        relative name (`package=`) or one with no constant package says nothing."""
        if any(kw.arg == "package" for kw in call.keywords):
            return ()
        node = call.args[0]
        cls = type(node)
        if cls is _Constant:
            name = node.value  # type: ignore[attr-defined]
            return (name,) if type(name) is str and _dotted_module(name) else ()
        start = self._built_start(node)
        if type(start) is not str or not _module_start(start):
            return ()
        return (start + "*",)

    def _unshadowed(self, name: str) -> bool:
        scoped = self.scoped
        return not (scoped and name in scoped) and name not in self.table and name not in self.module_names

    def _getattr_types(self, call: ast.Call, depth: int) -> tuple[str, ...]:
        """`getattr(obj, "name")` / `getattr(obj, f"cmd_{x}")`: that attribute of obj."""
        if len(call.args) < 2:
            return ()
        names = self.attribute_names(call.args[1])
        if not names:
            return ()
        held = self._value_types(call.args[0], depth + 1)
        return _kept(f"{te}.{name}" for te in held if te[:1] != "[" for name in names)

    def attribute_names(self, node: ast.AST) -> tuple[str, ...]:
        """The attribute names `getattr(obj, node)` may look up: a constant (`run`), a
        string with a constant start (`cmd_*`), or the strings of a module-level table
        (`name?` each)."""
        cls = type(node)
        if cls is _Constant:
            text = node.value  # type: ignore[attr-defined]
            return (text,) if type(text) is str and text.isidentifier() else ()
        prefix = self._built_start(node)
        if type(prefix) is str and prefix.isidentifier():
            return (prefix + "*",)
        table = None
        if cls is _Subscript:
            table = node.value  # type: ignore[attr-defined]
        elif cls is _Call and type(node.func) is _Attribute and node.func.attr == "get":  # type: ignore[attr-defined]
            table = node.func.value  # type: ignore[attr-defined]
        if type(table) is _Name and table.id in self.string_tables and self._unshadowed_local(table.id):  # type: ignore[attr-defined]
            return tuple(name + "?" for name in self.string_tables[table.id])  # type: ignore[attr-defined]
        return ()

    def _built_start(self, node: ast.AST) -> object:
        """The constant start of a string built at run time (``_constant_start``), also
        through a local holding one (`name = f"cmd_{x}"`, see ``note_prefix``)."""
        if type(node) is _Name:
            return self.prefixes.get(node.id) if self.prefixes else None  # type: ignore[attr-defined]
        return _constant_start(node)

    def _unshadowed_local(self, name: str) -> bool:
        scoped = self.scoped
        return not (scoped and scoped.get(name, UNSET) is None)

    def note_prefix(self, name: str, value: ast.AST) -> None:
        """`name = f"cmd_{x}"` / `"cmd_" + x` in a function: remember the start."""
        if self.prefixes is None:
            return
        start = _constant_start(value)
        if type(start) is str and (start.isidentifier() or _module_start(start)):
            # a name's start (`cmd_`), or a module path's (`pkg.plugins.`)
            self.prefixes[name] = start
        else:
            self.prefixes.pop(name, None)

    def _return_types(self, value: ast.AST, depth: int = 0) -> tuple[str, ...]:
        """The types `return value` gives in a function without a return annotation:
        as for any value (see ``_value_types``), except that `cls(...)` and `self` in a
        method are the enclosing class (as a declared type: a subclass may be
        constructed), and a module-level name is the object it names."""
        cls = type(value)
        if cls is _Await:
            value = value.value  # type: ignore[attr-defined]
            cls = type(value)
        if cls is _Call:
            func = value.func  # type: ignore[attr-defined]
            if type(func) is _Name and func.id == self.cls_param and self.klass is not None:
                return (f"{self.module}.{self.klass.name}",)
            return self._value_types(value)
        if cls is _Name:
            name = value.id  # type: ignore[attr-defined]
            if name == self.self_param and self.klass is not None:
                return (f"{self.module}.{self.klass.name}",)
            if name == self.cls_param:
                return ()  # the class itself, not an instance
            known = self.locals.get(name) if self.locals else None
            return tuple(entry[0] for entry in known) if known else ()
        if depth < 3 and (cls is ast.BoolOp or cls is ast.IfExp):
            parts = value.values if cls is ast.BoolOp else (value.body, value.orelse)  # type: ignore[attr-defined]
            return joined(self._return_types(part, depth + 1) for part in parts)
        return self._value_types(value)

    def _annotation_types(self, ann: ast.AST | None, depth: int = 0) -> tuple[str, ...]:
        """The receiver types an annotation names: `Foo`, `Optional[Foo]`, every member
        of `A | B` and `Union[A, B]`; none for a container (see ``_element_types``)."""
        if ann is None or depth > 3:
            return ()
        cls = type(ann)
        if cls is ast.Constant:
            if not isinstance(ann.value, str):  # type: ignore[attr-defined]
                return ()
            text = ann.value.strip()  # type: ignore[attr-defined]
            if text.replace(".", "").replace("_", "").isalnum():
                found = self._type_name(text)
                return (found,) if found else ()
            parsed = parse_annotation(text)
            return self._annotation_types(parsed, depth + 1) if parsed is not None else ()
        if cls is ast.Subscript:
            base = dotted(ann.value)  # type: ignore[attr-defined]
            last = base.rsplit(".", 1)[-1] if base else None
            inner = ann.slice  # type: ignore[attr-defined]
            if last == "Union":
                members = inner.elts if type(inner) is ast.Tuple else [inner]
                return joined(self._annotation_types(member, depth + 1) for member in members)
            if last in _WRAPPERS:
                if type(inner) is ast.Tuple and inner.elts:
                    inner = inner.elts[0]
                return self._annotation_types(inner, depth + 1)
            if last in _CONTAINERS or last in _MAPPINGS or last == "type" or last == "Type":
                return ()
            found = self._type_name(base)  # a generic class: `Runtime[Context]` is a Runtime
            return (found,) if found else ()
        if cls is ast.BinOp and type(ann.op) is ast.BitOr:  # type: ignore[attr-defined]
            return joined(
                self._annotation_types(side, depth + 1)
                for side in (ann.left, ann.right)  # type: ignore[attr-defined]
                if not (type(side) is ast.Constant and side.value is None)
            )
        found = self._type_name(dotted(ann))
        return (found,) if found else ()

    def _element_types(self, ann: ast.AST | None, depth: int = 0) -> tuple[str, ...]:
        """`Sequence[Foo]`, `list[Foo] | None`, `Optional[Iterable[Foo]]`, `list[A | B]`,
        `dict[str, Foo]` -> Foo / A, B."""
        if ann is None or depth > 3:
            return ()
        cls = type(ann)
        if cls is ast.Subscript:
            base = dotted(ann.value)  # type: ignore[attr-defined]
            last = base.rsplit(".", 1)[-1] if base else None
            inner = ann.slice  # type: ignore[attr-defined]
            if last == "Union":
                members = inner.elts if type(inner) is ast.Tuple else [inner]
                return joined(self._element_types(member, depth + 1) for member in members)
            if last in _MAPPINGS and type(inner) is ast.Tuple and len(inner.elts) == 2:
                return self._annotation_types(inner.elts[1], depth + 1)
            if type(inner) is ast.Tuple and inner.elts:
                inner = inner.elts[0]
            if last in _CONTAINERS:
                return self._annotation_types(inner, depth + 1)
            if last in _WRAPPERS:
                return self._element_types(inner, depth + 1)
            return ()
        if cls is ast.BinOp and type(ann.op) is ast.BitOr:  # type: ignore[attr-defined]
            return joined(self._element_types(side, depth + 1) for side in (ann.left, ann.right))  # type: ignore[attr-defined]
        if cls is ast.Constant and isinstance(ann.value, str):  # type: ignore[attr-defined]
            parsed = parse_annotation(ann.value.strip())  # type: ignore[attr-defined]
            return self._element_types(parsed, depth + 1) if parsed is not None else ()
        return ()

    def _set_local(self, name: str, types: tuple[str, ...], line: int) -> None:
        """`name = value` in the function: in its straight-line part the assigned types
        replace those known so far, in a branch or a loop they add to them (either
        branch may have run); declared types (annotations) stay."""
        locals_ = self.locals
        if locals_ is None:
            return
        known = locals_.get(name)
        if known is None:
            if types:
                locals_[name] = tuple((type_, line, False) for type_ in types)
            return
        if self.depth:
            kept = list(known)
        else:
            kept = [entry for entry in known if entry[2]]
        for type_ in types:
            if not any(entry[0] == type_ for entry in kept):
                kept.append((type_, line, False))
        if kept:
            locals_[name] = tuple(kept[:MAX_ELEMENTS])
        else:
            locals_.pop(name, None)

    def _declare_local(self, name: str, types: tuple[str, ...], line: int) -> None:
        """`name: Foo` in the function: Foo whatever is assigned later."""
        if self.locals is None or not types:
            return
        kept = list(self.locals.get(name, ()))
        for type_ in types:
            if not any(entry[0] == type_ for entry in kept):
                kept.append((type_, line, True))
        self.locals[name] = tuple(kept)

    def _note_target(self, target: ast.AST, types: tuple[str, ...], line: int, scope: str) -> None:
        """Remember the types bound to `x` or `self.x` by an assignment."""
        if type(target) is _Name:
            if scope == MODULE_SCOPE:
                for type_ in types:
                    self._binding(MODULE_SCOPE, target.id, type_, line)  # type: ignore[attr-defined]
            else:
                self._set_local(target.id, types, line)  # type: ignore[attr-defined]
        elif (
            type(target) is _Attribute
            and type(target.value) is _Name  # type: ignore[attr-defined]
            and target.value.id in SELF_NAMES  # type: ignore[attr-defined]
            and self.klass is not None
        ):
            for type_ in types:
                self.klass.note(target.attr, type_, line, True)  # type: ignore[attr-defined]

    def _note_element(self, container: ast.AST, key: str | None, value: ast.AST, line: int, scope: str) -> None:
        """`X[key] = V`, `X.append(V)`: V is an element of X."""
        types = self._value_types(value)
        if not types:
            return
        held = tuple(f"[{key or ''}]{te}" for te in types)
        if type(container) is _Name:
            name = container.id  # type: ignore[attr-defined]
            if self.locals is not None and self.scoped is not None and name in self.scoped:
                known = self.locals.get(name, ())
                kept = list(known)
                for te in held:
                    if not any(entry[0] == te for entry in kept):
                        kept.append((te, line, False))
                self.locals[name] = tuple(kept[:MAX_ELEMENTS])
            elif name in self.module_names and self._unshadowed_local(name):
                for te in held:
                    self._binding(MODULE_SCOPE, name, te, line)
        elif (
            type(container) is _Attribute
            and type(container.value) is _Name  # type: ignore[attr-defined]
            and container.value.id in SELF_NAMES  # type: ignore[attr-defined]
            and self.klass is not None
        ):
            for te in held:
                self.klass.note(container.attr, te, line, True)  # type: ignore[attr-defined]
        del scope

    def _loop_variable(self, target: ast.AST, source: ast.AST, line: int) -> None:
        """`for x in xs`: x is an element of xs (`xs: Sequence[Foo]`, a list of
        agents, a registry's `.values()`); `for k, v in xs.items()` and `for i, x in
        enumerate(xs)`: the second name is."""
        if self.locals is None:
            return
        if type(source) is ast.BoolOp and source.values:  # type: ignore[attr-defined]
            source = source.values[0]  # type: ignore[attr-defined]
        pair = False
        if type(source) is _Call:
            func = source.func  # type: ignore[attr-defined]
            if type(func) is _Attribute and func.attr in ("items", "values") and not source.args:  # type: ignore[attr-defined]
                pair = func.attr == "items"
                source = func.value
            elif type(func) is _Name and func.id in ("enumerate", "sorted", "reversed", "list") and source.args:  # type: ignore[attr-defined]
                pair = func.id == "enumerate"
                source = source.args[0]  # type: ignore[attr-defined]
        if pair:
            if type(target) is not _Tuple or len(target.elts) != 2:  # type: ignore[attr-defined]
                return
            target = target.elts[1]  # type: ignore[attr-defined]
        if type(target) is not _Name:
            for name in target_names(target):
                self._set_local(name, (), line)
            return
        elements = _kept(element_of(te, None) for te in self._value_types(source))
        self._set_local(target.id, elements, line)  # type: ignore[attr-defined]

    def _binding(self, scope: str, name: str, type_: str, line: int) -> None:
        key = (scope, name, type_)
        if key not in self._binding_keys:
            self._binding_keys.add(key)
            self.bindings.append(BindingFact(scope, name, type_, line))

    def _receiver(self, scope: str, head: str, known: Types) -> None:
        for type_, line, _declared in known:
            self._binding(scope, head, type_, line)


def _kept(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for item in items if item is not None))[:MAX_ELEMENTS]


def _constant_start(node: ast.AST) -> object:
    """The constant start of `f"cmd_{x}"` or `"cmd_" + x` (None for anything else)."""
    cls = type(node)
    if cls is _JoinedStr and node.values and type(node.values[0]) is _Constant:  # type: ignore[attr-defined]
        return node.values[0].value  # type: ignore[attr-defined]
    if cls is _BinOp and type(node.op) is ast.Add and type(node.left) is _Constant:  # type: ignore[attr-defined]
        return node.left.value  # type: ignore[attr-defined]
    return None


def _dotted_module(name: str) -> bool:
    """`pkg.mod`: identifiers joined by dots."""
    return bool(name) and all(part.isidentifier() for part in name.split("."))


def _module_start(start: str) -> bool:
    """`pkg.plugins.` or `pkg.plugins.run_`: a package, then the start of a module name."""
    package, dot, partial = start.rpartition(".")
    return bool(dot) and _dotted_module(package) and (not partial or partial.isidentifier())
