"""Per-file facts: definitions, imports, calls, references and receiver bindings, as plain data.

Facts are read from the standard library's ``ast`` tree, which carries line numbers for
free and costs a few percent of a LibCST parse; LibCST (with its exact source
positions for reports and fixes) is parsed only for files in which a selected rule can
fire. See docs/architecture.md for the measurements behind this split.

The walk is the hot loop of every `check` (it runs on every file), so it visits node
fields through a per-type table instead of ``ast.iter_child_nodes`` and never descends
into a name chain (`a.b.c`) once the chain has been read as a whole.

What the facts hold, beyond the obvious (see ``agentlint.facts.types`` for the shapes):

- class-level assignments and annotated fields are definitions of kind ``attribute``
  (``Cls.PROMPT``, a pydantic or dataclass field ``Cls.model``); reads through ``self.X`` / ``cls.X`` inside the class are references
  to ``module.Cls.X`` when ``X`` is assigned or defined in the class body or is spelled
  like a constant (inherited class constants), so ``explain`` can follow them;
- instance attributes are definitions of kind ``attribute`` too: the first
  ``self.X = ...`` / ``self.X: T = ...`` (source order) in the class's own methods and
  the functions nested in them, when the class body does not define ``X``, spanning
  exactly that statement's lines; a read ``self.X`` (not ``cls.X``) in the class is then
  a reference to ``module.Cls.X``. A cheap scan of the methods' statements (not their
  expressions) finds them before the methods are walked;
- functions and methods carry the types they return (``DefinitionFact.returns``): the
  classes the return annotation names (as for a parameter; ``Self`` is the enclosing
  class), or, without an annotation, what their own ``return`` statements give as typed
  for receivers (``return Foo(...)``, a local of a known type), ``return cls(...)`` and
  ``return self`` in a method (the enclosing class); at most 8;
- ``super().m()`` is a call to ``super().m``; ``Foo().m()`` (``Foo`` imported or defined
  at module level) a call to ``pkg.mod.Foo().m``;
- names are resolved with Python's scoping: a name bound anywhere in a function
  (a parameter, an assignment or loop target, ``with ... as``, ``except ... as``, a walrus,
  a nested ``def``/``class``, an import) is local in the whole function and in the
  functions nested in it (unless declared ``global``), so its uses stay unresolved (a
  local receiver) instead of naming the module-level definition or import of the same
  name; lambda parameters and comprehension variables shadow inside their expression; a
  function-level import resolves in that function and those nested in it only, from
  the import statement on, branch by branch (``try: from a import f`` /
  ``except ImportError: from b import f``: `a.f` in the ``try``, `b.f` in the handler,
  a call of either after it);
- bindings record the types of a receiver where they are simple to know: ``x = Foo()`` /
  ``x: Foo`` / ``with Foo() as x`` / ``for x in xs`` with ``xs: Sequence[Foo]`` inside a
  function (recorded only when ``x.m()`` is then called or ``x.attr`` read, which is then
  also a reference ``x.attr``), ``x = Foo()`` at module level, ``self.x = Foo()`` in a
  method, class-level ``x: Foo`` fields used as ``self.x.m()`` or ``self.x.attr`` (a read
  ``self.x.attr`` is a reference ``self.x.attr``), and class-level ``x = Foo()``. A
  receiver may have several types, one binding each: every member of ``A | B`` /
  ``Union[A, B]``, the operands of ``a or Foo()`` and ``Foo() if c else a``, and the
  classes assigned in different branches (an annotation ``x: Base`` stays with the
  assigned types; an assignment in the straight-line part of the function replaces the
  assigned types known so far, one inside a branch or loop adds to them);
- ``if __name__ == "__main__":`` blocks at module level (line ranges);
- which references sit in a variable's type annotation (``x: Foo = ...``): they stay in
  ``references``, and are listed again in ``annotation_references``.

Bump ``FACTS_VERSION`` whenever the extracted facts change: it is part of the cache key.
"""

from __future__ import annotations

import ast
import builtins
import os

from agentlint.facts.types import BindingFact, CallFact, DefinitionFact, FileFacts, ImportFact, ReferenceFact

FACTS_VERSION = 11
"""Version of what the extractor produces; part of the settings fingerprint (cache key)."""

MODULE_SCOPE = "<module>"
SELF_NAMES = frozenset({"self", "cls"})

_Attribute, _Name, _Call, _Load, _Await = ast.Attribute, ast.Name, ast.Call, ast.Load, ast.Await
_comprehension = ast.comprehension
_AST = ast.AST
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SKIP_FIELDS = frozenset({"ctx", "op", "ops", "kind", "type_comment"})
"""Fields that never hold anything a fact is made of (expression contexts, operators)."""
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_NOT_A_RECEIVER_TYPE = frozenset(dir(builtins)) | {"Any", "None", "typing.Any"}
_WRAPPERS = frozenset({"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"})
_CONTAINERS = frozenset({
    "list", "List", "set", "Set", "frozenset", "FrozenSet", "tuple", "Tuple", "Sequence", "MutableSequence",
    "Iterable", "Iterator", "Collection", "AbstractSet", "AsyncIterable", "AsyncIterator", "Generator",
})
_ELEMENTS = "[]"
"""Prefix of the local-types key holding the element type of a container (`[]xs`)."""
_MAX_RETURNS = 8
"""How many types ``DefinitionFact.returns`` holds at most."""
_Return = ast.Return


def _fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _SKIP_FIELDS)
    return fields


_NAMESPACE_DEPTH = 3
"""How many folders without `__init__.py` in a row may sit inside a regular package."""


def module_name_for(path: str) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`, climbing while the folder is a package: a
    regular one (`__init__.py`), or a folder without one inside a regular package (an
    implicit namespace portion: `app/processor/image/generate.py` with `app/__init__.py`
    and `app/processor/__init__.py` is `app.processor.image.generate`)."""
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = filename[:-3] if filename.endswith(".py") else filename
    parts = [] if stem == "__init__" else [stem]
    isfile, split, join = os.path.isfile, os.path.split, os.path.join
    while True:
        if not isfile(join(directory, "__init__.py")):
            # Folders named like identifiers, up to a regular package: their names count.
            probe, inside = directory, False
            for _ in range(_NAMESPACE_DEPTH):
                parent, name = split(probe)
                if not name or not name.isidentifier() or parent == probe:
                    break
                if isfile(join(parent, "__init__.py")):
                    inside = True
                    break
                probe = parent
            if not inside:
                break
        directory, package = split(directory)
        parts.append(package)
        if not package:
            break
    return ".".join(reversed(parts)) or stem


def dotted(expr: ast.AST) -> str | None:
    parts: list[str] = []
    while type(expr) is _Attribute:
        parts.append(expr.attr)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is not _Name:
        return None
    if not parts:
        return expr.id  # type: ignore[attr-defined]
    parts.append(expr.id)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def char_column(lines: list[str], line: int, byte_offset: int) -> int:
    """The 1-based character column of an `ast` offset (a UTF-8 byte offset) on
    ``line`` (1-based) of ``lines``."""
    if 0 < line <= len(lines):
        text = lines[line - 1]
        if not text.isascii():
            return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "ignore")) + 1
    return byte_offset + 1


def node_span(lines: list[str], node: ast.AST) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) of an `ast` node, columns in characters."""
    line = node.lineno  # type: ignore[attr-defined]
    start = char_column(lines, line, node.col_offset)  # type: ignore[attr-defined]
    end_line = getattr(node, "end_lineno", None) or line
    end_col = getattr(node, "end_col_offset", None)
    return line, start, end_line, char_column(lines, end_line, end_col) if end_col is not None else start


class _Class:
    """What the walk knows about the class whose body (or methods) it is in."""

    __slots__ = ("name", "names", "instance", "scanned", "attr_types", "used", "lines")

    def __init__(self, name: str, node: ast.ClassDef) -> None:
        self.name = name
        names: set[str] = set()
        instance: dict[str, tuple[int, int]] = {}
        scanned: dict[ast.AST, tuple[set[str], set[str], set[str]]] = {}
        for stmt in node.body:
            if isinstance(stmt, _DEFS):
                names.add(stmt.name)
                if type(stmt) is not ast.ClassDef:
                    # The method's locals, and its `self.NAME = ...`, in one pass.
                    scanned[stmt] = _function_locals(stmt, instance)  # type: ignore[arg-type]
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    names.update(_target_names(target))
            elif isinstance(stmt, ast.AnnAssign) and type(stmt.target) is _Name:
                names.add(stmt.target.id)
        self.names = names
        for known in names.intersection(instance):
            del instance[known]
        self.instance = instance
        """Instance attributes: `self.NAME = ...` in the methods (and the functions nested
        in them) with NAME not in the class body -> the lines of the first such statement."""
        self.scanned = scanned
        """Method -> its ``_function_locals``, for when the walk gets to it."""
        self.attr_types: dict[str, list[tuple[str, int, bool]]] = {}
        """`self.x` -> [(type, line, always)]: always for explicit `self.x = Foo()` and
        class-level `x = Foo()`."""
        self.used: set[str] = set()
        """Attributes used as receivers: `self.x.m()`, `self.x.attr`."""

    def note(self, attr: str, type_: str, line: int, always: bool) -> None:
        known = self.attr_types.setdefault(attr, [])
        for i, (seen, _line, seen_always) in enumerate(known):
            if seen == type_:
                if always and not seen_always:
                    known[i] = (seen, _line, True)
                return
        known.append((type_, line, always))


_Types = tuple  # of (type, line, declared): the types a local receiver may have
_UNSET = object()


class _Extractor:
    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.imports: list[ImportFact] = []
        self._import_keys: set[tuple[str, str, int]] = set()
        self.table: dict[str, str] = {}
        """Module-level imports: local name -> qualified name."""
        self._inner_imports: dict[str, str] = {}
        """Imports in functions and class bodies, first wins (see ``resolve_any``)."""
        self.definitions: list[DefinitionFact] = []
        self.calls: list[CallFact] = []
        self.references: list[ReferenceFact] = []
        self.annotation_references: list[ReferenceFact] = []
        self.bindings: list[BindingFact] = []
        self._binding_keys: set[tuple[str, str, str]] = set()
        self.main_blocks: list[tuple[int, int]] = []
        self.module_names: set[str] = set()
        self.klass: _Class | None = None
        self.locals: dict[str, _Types] | None = None
        """Receiver types of the function being walked: name -> ((type, line, declared), ...)."""
        self.scoped: dict[str, tuple[str, ...] | None] | None = None
        """Names bound in the functions being walked (None outside functions): a name
        bound by a function-level import -> the qualified names it may have there (one,
        or several after `if`/`try` branches importing it from different places; see
        ``_walk_branches``), any other local -> None (unresolved). Copied, not changed,
        when an import binds a name, so a branch can start again from the state before."""
        self.depth = 0
        """How many branches or loops of the current function the walk is inside."""
        self.returning: list[str] | None = None
        """The types the `return` statements of the function being walked return (None
        when it has a return annotation, or outside functions)."""
        self.self_param: str | None = None
        """In a method: the name of its instance parameter (`self`) ..."""
        self.cls_param: str | None = None
        """... or of its class parameter (`cls`, or the first one of a `@classmethod`)."""
        self.self_type: str | None = None
        """While reading a method's return annotation: the class `Self` names."""

    # -- names --------------------------------------------------------------------
    def resolve(self, name: str) -> str:
        head, _, rest = name.partition(".")
        scoped = self.scoped
        target = scoped.get(head, _UNSET) if scoped else _UNSET
        if target is _UNSET:
            target = self.table.get(head)
            if target is None and head in self.module_names:
                target = f"{self.module}.{head}"
        elif target is not None:
            target = target[0]  # type: ignore[index]
        if target is None:
            return name
        return f"{target}.{rest}" if rest else target  # type: ignore[str-bytes-safe]

    def _each(self, targets: tuple[str, ...], name: str) -> list[str]:
        """``name`` resolved through each of the imports its head may come from."""
        _head, _, rest = name.partition(".")
        return [f"{target}.{rest}" if rest else target for target in targets]

    def resolve_any(self, name: str) -> str:
        """Resolution without scopes, as the prompt extractor reads module-level names
        (function-level imports count, after the module's)."""
        head, _, rest = name.partition(".")
        target = self.table.get(head) or self._inner_imports.get(head)
        if target is None and head in self.module_names:
            target = f"{self.module}.{head}"
        if target is None:
            return name
        return f"{target}.{rest}" if rest else target

    def _visible(self, head: str) -> bool:
        """Does ``head`` resolve to something qualified here (an import or a module-level name)?"""
        scoped = self.scoped
        if scoped:
            target = scoped.get(head, _UNSET)
            if target is not _UNSET:
                return target is not None
        return head in self.table or head in self.module_names

    def _absolute(self, module: str | None, level: int) -> str:
        if not level:
            return module or ""
        base = self.module.split(".")
        if not self.is_package:
            base = base[:-1]
        if level > 1:
            base = base[: len(base) - (level - 1)]
        return ".".join([*base, module] if module else base)

    # -- collection ----------------------------------------------------------------
    def collect_module_names(self, tree: ast.Module) -> None:
        for stmt in _top_level(tree.body):
            if isinstance(stmt, _DEFS):
                self.module_names.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    self.module_names.update(_target_names(target))
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
                self.module_names.add(stmt.target.id)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.add_import(stmt, self.table)

    def add_import(self, stmt: ast.Import | ast.ImportFrom, table: dict[str, str]) -> None:
        """Record the import and bind its names in ``table`` (first wins)."""
        for local, qualified in self._import_names(stmt):
            table.setdefault(local, qualified)
            if table is not self.table:
                self._inner_imports.setdefault(local, qualified)

    def _function_import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        """An import in a function: its names are these modules' from here on."""
        scoped = dict(self.scoped)  # type: ignore[arg-type]
        for local, qualified in self._import_names(stmt):
            scoped[local] = (qualified,)
            self._inner_imports.setdefault(local, qualified)
        self.scoped = scoped

    def _import_names(self, stmt: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
        """Record the import's facts; (local, qualified) of the names it binds."""
        pairs: list[tuple[str, str]] = []
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    local, qualified = alias.asname, alias.name
                else:
                    local = qualified = alias.name.split(".")[0]
                pairs.append((local, qualified))
        else:
            base = self._absolute(stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    pairs.append(("*", base))
                    continue
                qualified = f"{base}.{alias.name}" if base else alias.name
                pairs.append((alias.asname or alias.name, qualified))
        for local, qualified in pairs:
            key = (local, qualified, stmt.lineno)
            if key not in self._import_keys:
                self._import_keys.add(key)
                self.imports.append(ImportFact(local, qualified, stmt.lineno))
        return [pair for pair in pairs if pair[0] != "*"]

    # -- receiver types ---------------------------------------------------------------
    def _type_name(self, name: str | None) -> str | None:
        if not name or name in _NOT_A_RECEIVER_TYPE:
            return None
        scoped = self.scoped
        if scoped:
            head = name.partition(".")[0]
            if scoped.get(head, _UNSET) is None and head not in SELF_NAMES:
                return None  # a local: not a name the graph can look up
        resolved = self.resolve(name)
        if self.self_type is not None and resolved.rpartition(".")[2] == "Self":
            return self.self_type  # `-> Self` (typing or typing_extensions) in a method
        if resolved.startswith("typing.") or resolved in _NOT_A_RECEIVER_TYPE:
            return None
        return resolved

    def _value_types(self, value: ast.AST | None, depth: int = 0) -> tuple[str, ...]:
        """The types a value may have: `Foo()`, a typed local, a module-level variable,
        and the operands of `a or Foo()` / `Foo() if c else a`."""
        cls = type(value)
        if cls is _Await:
            value = value.value  # type: ignore[union-attr]
            cls = type(value)
        if cls is _Call:
            found = self._type_name(dotted(value.func))  # type: ignore[union-attr]
            return (found,) if found else ()
        if cls is _Name:
            name = value.id  # type: ignore[union-attr]
            known = self.locals.get(name) if self.locals else None
            if known is not None:
                return tuple(entry[0] for entry in known)
            if self._visible(name):
                # `runner = DEFAULT_RUNNER`: the type of that variable, found by the graph.
                found = self._type_name(name)
                return (found,) if found else ()
            return ()
        if depth < 3 and (cls is ast.BoolOp or cls is ast.IfExp):
            parts = value.values if cls is ast.BoolOp else (value.body, value.orelse)  # type: ignore[union-attr]
            out: list[str] = []
            for part in parts:
                for found in self._value_types(part, depth + 1):
                    if found not in out:
                        out.append(found)
            return tuple(out)
        return ()

    def _return_types(self, value: ast.AST, depth: int = 0) -> tuple[str, ...]:
        """The types `return value` gives in a function without a return annotation:
        `Foo(...)` (as typed for receivers), a local of a known type, `cls(...)` and
        `self` in a method (the enclosing class); the operands of `a or b` / `a if c else b`."""
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
            # Only a local whose type is known: a module-level name may be a class
            # (`return Foo` returns the class, not an instance).
            known = self.locals.get(name) if self.locals else None
            return tuple(entry[0] for entry in known) if known else ()
        if depth < 3 and (cls is ast.BoolOp or cls is ast.IfExp):
            parts = value.values if cls is ast.BoolOp else (value.body, value.orelse)  # type: ignore[attr-defined]
            return _joined(self._return_types(part, depth + 1) for part in parts)
        return ()

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
            parsed = _parse_annotation(text)
            return self._annotation_types(parsed, depth + 1) if parsed is not None else ()
        if cls is ast.Subscript:
            base = dotted(ann.value)  # type: ignore[attr-defined]
            last = base.rsplit(".", 1)[-1] if base else None
            inner = ann.slice  # type: ignore[attr-defined]
            if last == "Union":
                members = inner.elts if type(inner) is ast.Tuple else [inner]
                return _joined(self._annotation_types(member, depth + 1) for member in members)
            if last in _WRAPPERS:
                if type(inner) is ast.Tuple and inner.elts:
                    inner = inner.elts[0]
                return self._annotation_types(inner, depth + 1)
            if last in _CONTAINERS:
                return ()
            found = self._type_name(base)  # a generic class: `Runtime[Context]` is a Runtime
            return (found,) if found else ()
        if cls is ast.BinOp and type(ann.op) is ast.BitOr:  # type: ignore[attr-defined]
            return _joined(
                self._annotation_types(side, depth + 1)
                for side in (ann.left, ann.right)  # type: ignore[attr-defined]
                if not (type(side) is ast.Constant and side.value is None)
            )
        found = self._type_name(dotted(ann))
        return (found,) if found else ()

    def _element_types(self, ann: ast.AST | None, depth: int = 0) -> tuple[str, ...]:
        """`Sequence[Foo]`, `list[Foo] | None`, `Optional[Iterable[Foo]]`, `list[A | B]` -> Foo / A, B."""
        if ann is None or depth > 3:
            return ()
        cls = type(ann)
        if cls is ast.Subscript:
            base = dotted(ann.value)  # type: ignore[attr-defined]
            last = base.rsplit(".", 1)[-1] if base else None
            inner = ann.slice  # type: ignore[attr-defined]
            if last == "Union":
                members = inner.elts if type(inner) is ast.Tuple else [inner]
                return _joined(self._element_types(member, depth + 1) for member in members)
            if type(inner) is ast.Tuple and inner.elts:
                inner = inner.elts[0]
            if last in _CONTAINERS:
                return self._annotation_types(inner, depth + 1)
            if last in _WRAPPERS:
                return self._element_types(inner, depth + 1)
            return ()
        if cls is ast.BinOp and type(ann.op) is ast.BitOr:  # type: ignore[attr-defined]
            return _joined(self._element_types(side, depth + 1) for side in (ann.left, ann.right))  # type: ignore[attr-defined]
        if cls is ast.Constant and isinstance(ann.value, str):  # type: ignore[attr-defined]
            parsed = _parse_annotation(ann.value.strip())  # type: ignore[attr-defined]
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
            locals_[name] = tuple(kept)
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

    def _loop_variable(self, target: ast.AST, source: ast.AST, line: int) -> None:
        """`for x in xs` / `for x in xs or []` with `xs: Sequence[Foo]`: x is a Foo."""
        if type(source) is ast.BoolOp and source.values:  # type: ignore[attr-defined]
            source = source.values[0]  # type: ignore[attr-defined]
        if type(target) is _Name and type(source) is _Name and self.locals:
            element = self.locals.get(_ELEMENTS + source.id)  # type: ignore[attr-defined]
            if element is not None:
                self._set_local(target.id, tuple(entry[0] for entry in element), line)  # type: ignore[attr-defined]

    def _binding(self, scope: str, name: str, type_: str, line: int) -> None:
        key = (scope, name, type_)
        if key not in self._binding_keys:
            self._binding_keys.add(key)
            self.bindings.append(BindingFact(scope, name, type_, line))

    def _receiver(self, scope: str, head: str, known: _Types) -> None:
        for type_, line, _declared in known:
            self._binding(scope, head, type_, line)

    # -- the walk ------------------------------------------------------------------------
    def walk_body(self, body: list[ast.stmt], scope: str, in_class: bool) -> None:
        for stmt in body:
            self.walk_stmt(stmt, scope, in_class)

    def walk_stmt(self, stmt: ast.stmt, scope: str, in_class: bool) -> None:
        cls = type(stmt)
        if cls in _DEF_TYPES:
            self.walk_definition(stmt, scope, in_class)  # type: ignore[arg-type]
            return
        if cls is ast.Import or cls is ast.ImportFrom:
            if scope != MODULE_SCOPE:
                if self.scoped is not None and not in_class:
                    # Bound in this function (and those nested in it), from here on.
                    self._function_import(stmt)  # type: ignore[arg-type]
                else:
                    self.add_import(stmt, self.table)  # type: ignore[arg-type]
            return
        if cls is ast.Assign or cls is ast.AnnAssign:
            self._assignment(stmt, scope, in_class)  # type: ignore[arg-type]
        elif cls is ast.If and scope == MODULE_SCOPE and _is_main_test(stmt.test):  # type: ignore[attr-defined]
            self.main_blocks.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
        elif (cls is ast.For or cls is ast.AsyncFor) and self.locals:
            # `for x in xs:` with `xs: Sequence[Foo]`: x is a Foo.
            self._loop_variable(stmt.target, stmt.iter, stmt.lineno)  # type: ignore[attr-defined]
        elif (cls is ast.With or cls is ast.AsyncWith) and self.locals is not None:
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    self._note_target(item.optional_vars, self._value_types(item.context_expr), stmt.lineno, scope)
        elif cls is _Return and self.returning is not None and stmt.value is not None:  # type: ignore[attr-defined]
            returning = self.returning
            for type_ in self._return_types(stmt.value):  # type: ignore[attr-defined]
                # `return self.make()`, or a local assigned from it: not a name the
                # graph can look up.
                if type_ not in returning and type_.partition(".")[0] not in SELF_NAMES:
                    returning.append(type_)
        branches = cls in _BRANCHING
        if branches:
            if self.scoped is not None and not in_class:
                self.depth += 1
                self._walk_branches(stmt, cls, scope)
                self.depth -= 1
                return
            self.depth += 1
        for field in _fields(cls):
            value = getattr(stmt, field, None)
            if value is None:
                continue
            if field == "annotation" and cls is ast.AnnAssign:
                # Still references (other rules read them as such), but a type
                # annotation runs nothing: explain does not treat it as a use.
                start = len(self.references)
                self.walk_expr(value, scope)
                self.annotation_references += self.references[start:]
                continue
            if type(value) is list:
                for child in value:
                    if isinstance(child, ast.stmt):
                        self.walk_stmt(child, scope, in_class)
                    elif type(child) is ast.ExceptHandler:
                        if child.type is not None:
                            self.walk_expr(child.type, scope)
                        self.walk_body(child.body, scope, in_class)
                    elif type(child) is ast.match_case:
                        self.walk_expr(child.pattern, scope)
                        if child.guard is not None:
                            self.walk_expr(child.guard, scope)
                        self.walk_body(child.body, scope, in_class)
                    elif isinstance(child, _AST):
                        self.walk_expr(child, scope)
            elif isinstance(value, _AST):
                self.walk_expr(value, scope)
        if branches:
            self.depth -= 1

    def _walk_branches(self, stmt: ast.stmt, cls: type, scope: str) -> None:
        """An `if`, a loop, a `try` or a `match` in a function: each branch starts from
        the names imported before it, and after the statement a name may come from any
        branch that ran (``try: from a import f`` / ``except ImportError: from b import f``:
        `f` is `a.f` in the `try`, `b.f` in the handler, either after)."""
        start = self.scoped
        if cls is ast.If:
            self.walk_expr(stmt.test, scope)  # type: ignore[attr-defined]
            body = self._run(stmt.body, start, scope)  # type: ignore[attr-defined]
            if stmt.orelse:  # type: ignore[attr-defined]
                orelse = self._run(stmt.orelse, start, scope)  # type: ignore[attr-defined]
                self.scoped = body if body is orelse else _join(body, orelse)
            else:
                self.scoped = body if body is start else _join(body, start)
        elif cls is ast.For or cls is ast.AsyncFor or cls is ast.While:
            if cls is ast.While:
                self.walk_expr(stmt.test, scope)  # type: ignore[attr-defined]
            else:
                self.walk_expr(stmt.target, scope)  # type: ignore[attr-defined]
                self.walk_expr(stmt.iter, scope)  # type: ignore[attr-defined]
            body = self._run(stmt.body, start, scope)  # type: ignore[attr-defined]
            joined = start if body is start else _join(start, body)
            self.scoped = self._run(stmt.orelse, joined, scope) if stmt.orelse else joined  # type: ignore[attr-defined]
        elif cls is ast.Match:
            self.walk_expr(stmt.subject, scope)  # type: ignore[attr-defined]
            ends = [start]
            for case in stmt.cases:  # type: ignore[attr-defined]
                self.scoped = start
                self.walk_expr(case.pattern, scope)
                if case.guard is not None:
                    self.walk_expr(case.guard, scope)
                ends.append(self._run(case.body, start, scope))
            self.scoped = _join(*ends)
        else:  # try
            body = self._run(stmt.body, start, scope)  # type: ignore[attr-defined]
            ends = [self._run(stmt.orelse, body, scope)]  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                # A handler runs when the body stopped early (often: its import failed).
                self.scoped = start
                if handler.type is not None:
                    self.walk_expr(handler.type, scope)
                ends.append(self._run(handler.body, start, scope))
            self.scoped = self._run(stmt.finalbody, _join(*ends), scope)  # type: ignore[attr-defined]

    def _run(self, body: list[ast.stmt], start: dict | None, scope: str) -> dict | None:
        self.scoped = start
        walk = self.walk_stmt
        for stmt in body:
            walk(stmt, scope, False)
        return self.scoped

    def _assignment(self, stmt: ast.Assign | ast.AnnAssign, scope: str, in_class: bool) -> None:
        targets = stmt.targets if type(stmt) is ast.Assign else [stmt.target]  # type: ignore[union-attr]
        line, end = stmt.lineno, stmt.end_lineno or stmt.lineno
        if scope == MODULE_SCOPE:
            for target in targets:
                for name in _target_names(target):
                    self.definitions.append(DefinitionFact(name, "variable", line, end))
        elif in_class and (stmt.value is not None or type(stmt) is ast.AnnAssign):
            for target in targets:
                for name in _target_names(target):
                    self.definitions.append(DefinitionFact(f"{scope}.{name}", "attribute", line, end))
        if len(targets) != 1:
            return
        target = targets[0]
        declared: tuple[str, ...] = ()
        if type(stmt) is ast.AnnAssign:
            # The annotation, when it names a class, says more than the value
            # (`llm: BaseLLM = Field(...)`).
            declared = self._annotation_types(stmt.annotation)
            types = declared or self._value_types(stmt.value)
        else:
            types = self._value_types(stmt.value)
        if in_class and self.klass is not None and type(target) is _Name:
            # Class level: `x: Foo` counts when used as `self.x.m()`; `x = Foo()`
            # always (a method of a base class may read it through `self`).
            always = type(stmt) is ast.Assign and types and type(stmt.value) is not _Name
            for type_ in types:
                self.klass.note(target.id, type_, line, bool(always))
            return
        if declared and type(target) is _Name and scope != MODULE_SCOPE:
            self._declare_local(target.id, declared, line)
            return
        if type(target) is _Name or type(target) is _Attribute:
            self._note_target(target, types, line, scope)

    def walk_definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: str, in_class: bool
    ) -> None:
        name = node.name if scope == MODULE_SCOPE else f"{scope}.{node.name}"
        for decorator in node.decorator_list:
            self.walk_expr(decorator, scope)
        decorators = tuple(
            self.resolve(d) for d in (dotted(_callee(dec)) for dec in node.decorator_list) if d
        )
        if type(node) is ast.ClassDef:
            for expr in [*node.bases, *(k.value for k in node.keywords)]:
                self.walk_expr(expr, scope)
            # A generic base (`Base[T]`) is that base.
            bases = tuple(
                self.resolve(b) for b in (dotted(e.value if type(e) is ast.Subscript else e) for e in node.bases) if b
            )
            self.definitions.append(
                DefinitionFact(name, "class", node.lineno, node.end_lineno or node.lineno, decorators, bases)
            )
            start = len(self.definitions)
            outer_class, outer_locals, outer_depth = self.klass, self.locals, self.depth
            outer_returning = self.returning
            self.klass, self.locals, self.depth = _Class(name, node), None, 0
            self.returning = None
            self.walk_body(node.body, name, True)
            klass = self.klass
            self.klass, self.locals, self.depth = outer_class, outer_locals, outer_depth
            self.returning = outer_returning
            if klass.instance:
                # Instance attributes, unless the class body defines the name after all
                # (in an `if` of the class body).
                taken = {d.name for d in self.definitions[start:]}
                for attr, (line, end) in klass.instance.items():
                    qualified = f"{name}.{attr}"
                    if qualified not in taken:
                        self.definitions.append(DefinitionFact(qualified, "attribute", line, end))
            for attr, entries in klass.attr_types.items():
                used = attr in klass.used
                for type_, line, always in entries:
                    if always or used:
                        self._binding(name, f"self.{attr}", type_, line)
            return
        args = node.args
        for expr in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.walk_expr(expr, scope)
        kind = "method" if in_class else "function"
        klass = self.klass if in_class else None
        returns: tuple[str, ...] = ()
        annotation = node.returns
        if annotation is not None and not (
            # `-> None`, `-> str`: the common cases, nothing to read.
            type(annotation) is _Name and annotation.id in _NOT_A_RECEIVER_TYPE  # type: ignore[attr-defined]
            or type(annotation) is _Constant and annotation.value is None  # type: ignore[attr-defined]
        ):
            # Read in the enclosing scope, as Python evaluates it.
            if klass is not None:
                self.self_type = f"{self.module}.{klass.name}"
            returns = self._annotation_types(annotation)[:_MAX_RETURNS]
            self.self_type = None
        index = len(self.definitions)
        self.definitions.append(
            DefinitionFact(name, kind, node.lineno, node.end_lineno or node.lineno, decorators, (), returns)
        )
        outer_returning, outer_self, outer_cls = self.returning, self.self_param, self.cls_param
        self.returning = self.self_param = self.cls_param = None
        if annotation is None:
            # Without an annotation, the `return` statements tell.
            self.returning = []
            if klass is not None:
                first = args.posonlyargs[0] if args.posonlyargs else args.args[0] if args.args else None
                if first is not None and "staticmethod" not in decorators:
                    if first.arg == "cls" or "classmethod" in decorators:
                        self.cls_param = first.arg
                    else:
                        self.self_param = first.arg
        outer_locals, outer_scoped, outer_depth = self.locals, self.scoped, self.depth
        scanned = self.klass.scanned.pop(node, None) if in_class and self.klass is not None else None
        bound, globals_, nonlocals = scanned or _function_locals(node)
        # A nested function sees the types of its enclosing function's locals, except
        # of the names it binds itself.
        local_types: dict[str, _Types] = (
            {k: v for k, v in outer_locals.items() if k.removeprefix(_ELEMENTS) not in bound} if outer_locals else {}
        )
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if arg.annotation is not None:
                types = self._annotation_types(arg.annotation)
                if types:
                    local_types[arg.arg] = tuple((type_, arg.lineno, True) for type_ in types)
                else:
                    elements = self._element_types(arg.annotation)
                    if elements:
                        local_types[_ELEMENTS + arg.arg] = tuple((type_, arg.lineno, True) for type_ in elements)
        scoped: dict[str, tuple[str, ...] | None] = dict.fromkeys(bound)
        if outer_scoped:
            scoped = {**outer_scoped, **scoped}
        for local in globals_:
            scoped.pop(local, None)  # the module's
        for local in nonlocals:
            if outer_scoped and local in outer_scoped:
                scoped[local] = outer_scoped[local]  # the enclosing function's
            else:
                scoped.pop(local, None)
        self.locals, self.scoped, self.depth = local_types, scoped, 0
        self.walk_body(node.body, name, False)
        self.locals, self.scoped, self.depth = outer_locals, outer_scoped, outer_depth
        if self.returning:
            returns = tuple(self.returning[:_MAX_RETURNS])
            self.definitions[index] = DefinitionFact(
                name, kind, node.lineno, node.end_lineno or node.lineno, decorators, (), returns
            )
        self.returning, self.self_param, self.cls_param = outer_returning, outer_self, outer_cls

    def _walk_shadowed(self, node: ast.AST, scope: str, bound: list[str]) -> None:
        """A lambda or a comprehension whose variables hide names visible around it."""
        outer = self.scoped
        inner = dict(outer) if outer else {}
        for name in bound:
            inner[name] = None
        if type(node) is ast.Lambda:
            args = node.args  # type: ignore[attr-defined]
            for expr in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
                self.walk_expr(expr, scope)
            self.scoped = inner
            self.walk_expr(node.body, scope)  # type: ignore[attr-defined]
            self.scoped = outer
            return
        generators = node.generators  # type: ignore[attr-defined]
        self.walk_expr(generators[0].iter, scope)  # evaluated outside the comprehension
        self.scoped = inner
        first = generators[0]
        if self.locals:
            self._loop_variable(first.target, first.iter, first.target.lineno)
        for condition in first.ifs:
            self.walk_expr(condition, scope)
        for generator in generators[1:]:
            self.walk_expr(generator, scope)
        if type(node) is ast.DictComp:
            self.walk_expr(node.key, scope)  # type: ignore[attr-defined]
            self.walk_expr(node.value, scope)  # type: ignore[attr-defined]
        else:
            self.walk_expr(node.elt, scope)  # type: ignore[attr-defined]
        self.scoped = outer

    def walk_expr(self, node: ast.AST, scope: str) -> None:
        stack = [node]
        pop, push = stack.pop, stack.append
        table, names, scoped = self.table, self.module_names, self.scoped
        calls, references = self.calls, self.references
        while stack:
            current = pop()
            cls = type(current)
            if cls is _Call:
                func = current.func  # type: ignore[attr-defined]
                callee = dotted(func)
                if callee is not None:
                    head, dot, rest = callee.partition(".")
                    target = scoped.get(head, _UNSET) if scoped else _UNSET
                    if target is not None and target is not _UNSET and len(target) > 1:  # type: ignore[arg-type]
                        for each in self._each(target, callee):  # type: ignore[arg-type]
                            calls.append(CallFact(scope, each, current.lineno))  # type: ignore[attr-defined]
                    else:
                        calls.append(CallFact(scope, self.resolve(callee), current.lineno))  # type: ignore[attr-defined]
                    if dot:
                        if target is None or (target is _UNSET and head not in table and head not in names):
                            # A receiver: `self.x.m()`, `x.m()` with x local or unknown.
                            klass = self.klass
                            if head in SELF_NAMES and klass is not None:
                                attr, dot, _ = rest.partition(".")
                                if dot:
                                    klass.used.add(attr)
                                    if (
                                        attr in klass.names
                                        or attr.isupper()
                                        or (head == "self" and attr in klass.instance)
                                    ):
                                        references.append(
                                            ReferenceFact(scope, f"{self.module}.{klass.name}.{attr}", current.lineno)  # type: ignore[attr-defined]
                                        )
                                # `self.m()`: the call is the fact; `self.m` is not also a read.
                            elif self.locals:
                                known = self.locals.get(head)
                                if known is not None:
                                    self._receiver(scope, head, known)
                            # The callee is a plain name chain: nothing more to find in it.
                            stack.extend(current.args)  # type: ignore[attr-defined]
                            stack.extend(current.keywords)  # type: ignore[attr-defined]
                            continue
                elif type(func) is _Attribute and type(func.value) is _Call:
                    inner = func.value.func
                    if type(inner) is _Name and inner.id == "super":
                        calls.append(CallFact(scope, f"super().{func.attr}", current.lineno))  # type: ignore[attr-defined]
                    else:
                        # `Foo().m()`: a method of a fresh instance of an imported or module-level name.
                        made = dotted(inner)
                        if made is not None and self._visible(made.partition(".")[0]):
                            calls.append(CallFact(scope, f"{self.resolve(made)}().{func.attr}", current.lineno))  # type: ignore[attr-defined]
            elif cls is _Name:
                if type(current.ctx) is _Load:  # type: ignore[attr-defined]
                    head = current.id  # type: ignore[attr-defined]
                    target = scoped.get(head, _UNSET) if scoped else _UNSET
                    if target is _UNSET:
                        if head in table or head in names:
                            references.append(ReferenceFact(scope, self.resolve(head), current.lineno))  # type: ignore[attr-defined]
                    elif target is not None:
                        for each in target:  # type: ignore[attr-defined]
                            references.append(ReferenceFact(scope, each, current.lineno))  # type: ignore[attr-defined]
                continue
            elif cls is _Attribute:
                if type(current.ctx) is not _Load:  # type: ignore[attr-defined]
                    push(current.value)  # type: ignore[attr-defined]
                    continue
                name = dotted(current)
                if name is not None:
                    head, _, rest = name.partition(".")
                    target = scoped.get(head, _UNSET) if scoped else _UNSET
                    if target is _UNSET:
                        if head in table or head in names:
                            references.append(ReferenceFact(scope, self.resolve(name), current.lineno))  # type: ignore[attr-defined]
                            continue
                    elif target is not None:
                        for each in self._each(target, name):  # type: ignore[arg-type]
                            references.append(ReferenceFact(scope, each, current.lineno))  # type: ignore[attr-defined]
                        continue
                    if head in SELF_NAMES and self.klass is not None:
                        attr, dot, _ = rest.partition(".")
                        if (
                            attr in self.klass.names
                            or attr.isupper()
                            or (head == "self" and attr in self.klass.instance)
                        ):
                            references.append(
                                ReferenceFact(scope, f"{self.module}.{self.klass.name}.{attr}", current.lineno)  # type: ignore[attr-defined]
                            )
                        if dot:
                            # `self.x.attr`: x is a receiver, and the read is kept whole.
                            self.klass.used.add(attr)
                            references.append(ReferenceFact(scope, name, current.lineno))  # type: ignore[attr-defined]
                    elif self.locals:
                        known = self.locals.get(head)
                        if known is not None:
                            # `x.attr` with x of a known type.
                            self._receiver(scope, head, known)
                            references.append(ReferenceFact(scope, name, current.lineno))  # type: ignore[attr-defined]
                    # Every part of a name chain has the same head: nothing more to find inside.
                    continue
            elif cls in _SCOPE_NODES:
                if cls is _comprehension:
                    if self.locals:
                        self._loop_variable(current.target, current.iter, current.target.lineno)  # type: ignore[attr-defined]
                elif cls is _NamedExpr:
                    # `(x := ...)` binds x in the function, from here on.
                    target = current.target  # type: ignore[attr-defined]
                    if scoped is not None and type(target) is _Name:
                        scoped[target.id] = None  # type: ignore[attr-defined]
                else:
                    bound = _expression_locals(current)
                    if bound and any(self._visible(name) for name in bound):
                        self._walk_shadowed(current, scope, bound)
                        continue
            for field in _fields(cls):
                value = getattr(current, field, None)
                if value is None:
                    continue
                if type(value) is list:
                    for item in value:
                        if isinstance(item, _AST):
                            push(item)
                elif isinstance(value, _AST):
                    push(value)


_DEF_TYPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_BRANCHING = frozenset(
    t for t in (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, getattr(ast, "TryStar", None), ast.Match) if t
)
"""Statements whose parts may run or not: an assignment inside adds a type."""
_SHADOWING = frozenset({ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})
"""Expressions with their own scope (parameters, comprehension variables)."""
_NamedExpr = ast.NamedExpr
_Tuple, _List, _Constant = ast.Tuple, ast.List, ast.Constant
_SCOPE_NODES = _SHADOWING | {ast.comprehension, ast.NamedExpr}

_ASSIGN, _TARGET, _FOR, _DEF, _IMPORT, _BLOCK, _WITH, _TRY, _GLOBAL, _NONLOCAL, _MATCH, _DELETE = range(12)
_BINDERS: dict[type, int] = {
    ast.Assign: _ASSIGN, ast.AugAssign: _TARGET, ast.AnnAssign: _TARGET,
    ast.For: _FOR, ast.AsyncFor: _FOR,
    ast.FunctionDef: _DEF, ast.AsyncFunctionDef: _DEF, ast.ClassDef: _DEF,
    ast.Import: _IMPORT, ast.ImportFrom: _IMPORT,
    ast.If: _BLOCK, ast.While: _BLOCK,
    ast.With: _WITH, ast.AsyncWith: _WITH,
    ast.Try: _TRY,
    ast.Global: _GLOBAL, ast.Nonlocal: _NONLOCAL,
    ast.Match: _MATCH, ast.Delete: _DELETE,
}
if hasattr(ast, "TryStar"):
    _BINDERS[ast.TryStar] = _TRY
if hasattr(ast, "TypeAlias"):
    _BINDERS[ast.TypeAlias] = _TARGET


def _function_locals(
    node: ast.FunctionDef | ast.AsyncFunctionDef, selfs: dict[str, tuple[int, int]] | None = None
) -> tuple[set[str], set[str], set[str]]:
    """(names bound in the function, declared `global`, declared `nonlocal`), from its
    parameters and statements (the bodies of nested definitions are their own scopes;
    a walrus is seen by the walk when it gets there). With ``selfs`` (a method's), the
    same pass notes its `self.NAME = ...` statements there and in the functions nested
    in it (not in nested classes), the first in source order: NAME -> its lines."""
    bound = set(_parameter_names(node.args))
    declared: list[tuple[int, list[str]]] = []
    _scan_bindings(node.body, bound, declared, selfs)
    if not declared:
        return bound, _NO_NAMES, _NO_NAMES
    globals_ = {name for kind, names in declared if kind == _GLOBAL for name in names}
    nonlocals = {name for kind, names in declared if kind == _NONLOCAL for name in names}
    return bound, globals_, nonlocals


_NO_NAMES: set[str] = set()


def _scan_bindings(body: list[ast.stmt], bound: set[str], declared: list, selfs: dict | None = None) -> None:
    add, binders = bound.add, _BINDERS
    for stmt in body:
        kind = binders.get(type(stmt))
        if kind is None:
            continue
        if kind == _ASSIGN:
            for target in stmt.targets:  # type: ignore[attr-defined]
                if type(target) is _Name:
                    add(target.id)
                else:
                    if selfs is not None:
                        _self_target(target, stmt, selfs)
                    bound.update(_target_names(target))
        elif kind == _BLOCK:
            _scan_bindings(stmt.body, bound, declared, selfs)  # type: ignore[attr-defined]
            if stmt.orelse:  # type: ignore[attr-defined]
                _scan_bindings(stmt.orelse, bound, declared, selfs)  # type: ignore[attr-defined]
        elif kind == _TARGET:
            target = getattr(stmt, "target", None) or getattr(stmt, "name", None)
            if type(target) is _Name:
                add(target.id)  # type: ignore[union-attr]
            elif selfs is not None and type(stmt) is ast.AnnAssign and stmt.value is not None:
                _self_target(target, stmt, selfs)  # type: ignore[arg-type]
        elif kind == _DEF:
            add(stmt.name)  # type: ignore[attr-defined]
            if selfs is not None and type(stmt) is not ast.ClassDef:
                # A function nested in a method is still the method's code for its
                # `self.NAME = ...`; the names it binds are its own.
                _scan_bindings(stmt.body, set(), [], selfs)  # type: ignore[attr-defined]
        elif kind == _FOR:
            target = stmt.target  # type: ignore[attr-defined]
            if type(target) is _Name:
                add(target.id)
            else:
                bound.update(_target_names(target))
            _scan_bindings(stmt.body, bound, declared, selfs)  # type: ignore[attr-defined]
            if stmt.orelse:  # type: ignore[attr-defined]
                _scan_bindings(stmt.orelse, bound, declared, selfs)  # type: ignore[attr-defined]
        elif kind == _IMPORT:
            for alias in stmt.names:  # type: ignore[attr-defined]
                if alias.name != "*":
                    add(alias.asname or alias.name.partition(".")[0])
        elif kind == _WITH:
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    bound.update(_target_names(item.optional_vars))
            _scan_bindings(stmt.body, bound, declared, selfs)  # type: ignore[attr-defined]
        elif kind == _TRY:
            _scan_bindings(stmt.body, bound, declared, selfs)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                if handler.name:
                    add(handler.name)
                _scan_bindings(handler.body, bound, declared, selfs)
            _scan_bindings(stmt.orelse, bound, declared, selfs)  # type: ignore[attr-defined]
            _scan_bindings(stmt.finalbody, bound, declared, selfs)  # type: ignore[attr-defined]
        elif kind == _GLOBAL or kind == _NONLOCAL:
            declared.append((kind, stmt.names))  # type: ignore[attr-defined]
        elif kind == _MATCH:
            for case in stmt.cases:  # type: ignore[attr-defined]
                for pattern in ast.walk(case.pattern):
                    captured = getattr(pattern, "name", None) or getattr(pattern, "rest", None)
                    if captured:
                        add(captured)
                _scan_bindings(case.body, bound, declared, selfs)
        elif kind == _DELETE:
            for target in stmt.targets:  # type: ignore[attr-defined]
                bound.update(_target_names(target))


def _self_target(target: ast.expr, stmt: ast.stmt, found: dict[str, tuple[int, int]]) -> None:
    """Note `self.NAME` (or such an element of a tuple target) assigned by ``stmt``."""
    cls = type(target)
    if cls is _Attribute:
        value = target.value  # type: ignore[attr-defined]
        if type(value) is _Name and value.id == "self" and target.attr not in found:  # type: ignore[attr-defined]
            found[target.attr] = (stmt.lineno, stmt.end_lineno or stmt.lineno)  # type: ignore[attr-defined]
    elif cls is _Tuple or cls is _List:
        for element in target.elts:  # type: ignore[attr-defined]
            if type(element) is _Attribute:
                _self_target(element, stmt, found)


def _parameter_names(args: ast.arguments) -> list[str]:
    """The names a function's or a lambda's parameters bind."""
    names = [arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.vararg is not None:
        names.append(args.vararg.arg)
    if args.kwarg is not None:
        names.append(args.kwarg.arg)
    return names


def _expression_locals(node: ast.AST) -> list[str]:
    """The names a lambda or a comprehension binds for itself."""
    if type(node) is ast.Lambda:
        return _parameter_names(node.args)  # type: ignore[attr-defined]
    names = []
    for generator in node.generators:  # type: ignore[attr-defined]
        names += _target_names(generator.target)
    return names


def _join(*states: dict | None) -> dict | None:
    """The names of a function after branches that ended in ``states``: an import from
    any of them (the state objects are shared until an import copies one)."""
    first = states[0]
    if all(state is first for state in states):
        return first
    merged = dict(first)  # type: ignore[arg-type]
    for state in states[1:]:
        if state is first:
            continue
        for name, targets in state.items():  # type: ignore[union-attr]
            known = merged.get(name, _UNSET)
            if known is targets or targets is None:
                continue
            if known is None or known is _UNSET:
                merged[name] = targets
            elif known != targets:
                merged[name] = _joined((known, targets))  # type: ignore[arg-type]
    return merged


def _joined(groups) -> tuple[str, ...]:
    out: list[str] = []
    for group in groups:
        for item in group:
            if item not in out:
                out.append(item)
    return tuple(out)


def _parse_annotation(text: str) -> ast.AST | None:
    """A string annotation (`"A | None"`, `"Optional[A]"`) as an expression."""
    if len(text) > 200:
        return None
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _callee(expr: ast.expr) -> ast.expr:
    return expr.func if isinstance(expr, ast.Call) else expr


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Module-level statements, looking inside `if`/`try`/`with` blocks at module level."""
    out: list[ast.stmt] = []
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        out.append(stmt)
        if isinstance(stmt, (ast.If, ast.Try, ast.With)) or type(stmt).__name__ == "TryStar":
            nested: list[ast.stmt] = list(getattr(stmt, "body", []))
            nested += getattr(stmt, "orelse", [])
            nested += getattr(stmt, "finalbody", [])
            for handler in getattr(stmt, "handlers", []):
                nested += handler.body
            stack.extend(reversed(nested))
    return out


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _target_names(elt)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def extract_facts(path: str, tree: ast.Module, source: str | None = None) -> FileFacts:
    """The facts of one module. ``source`` (the text ``tree`` was parsed from) lets the
    cost and prompt extractors skip files without their vocabulary and convert columns
    to characters; without it they walk every file."""
    from agentlint.facts import cost as cost_facts, prompts as prompt_facts

    module = module_name_for(path)
    extractor = _Extractor(module, os.path.basename(path) == "__init__.py")
    extractor.collect_module_names(tree)
    extractor.walk_body(tree.body, MODULE_SCOPE, False)
    cost_terms, cost_nones, price_literals = cost_facts.extract(tree, source)
    prompt_sites, prompt_blocks = prompt_facts.extract(tree, source, module, extractor.resolve_any)
    return FileFacts(
        module=module,
        imports=tuple(extractor.imports),
        definitions=tuple(extractor.definitions),
        calls=tuple(extractor.calls),
        references=tuple(extractor.references),
        annotation_references=tuple(extractor.annotation_references),
        bindings=tuple(extractor.bindings),
        main_blocks=tuple(extractor.main_blocks),
        cost_terms=cost_terms,
        cost_nones=cost_nones,
        price_literals=price_literals,
        prompt_sites=prompt_sites,
        prompt_blocks=prompt_blocks,
    )
