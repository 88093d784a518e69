"""Per-file facts: definitions, imports, calls, references and receiver bindings, as plain data.

Facts are read from the standard library's ``ast`` tree, which carries line numbers for
free and costs a few percent of a LibCST parse; LibCST (with its exact source
positions for reports and fixes) is parsed only for files in which a selected rule can
fire. See docs/architecture.md for the measurements behind this split.

The walk is the hot loop of every `check` (it runs on every file), so it visits node
fields through a per-type table instead of ``ast.iter_child_nodes`` and never descends
into a name chain (`a.b.c`) once the chain has been read as a whole.

What the facts hold, beyond the obvious (see ``agentlint.types`` for the shapes):

- class-level assignments and annotated fields are definitions of kind ``attribute``
  (``Cls.PROMPT``, a pydantic or dataclass field ``Cls.model``); reads through ``self.X`` / ``cls.X`` inside the class are references
  to ``module.Cls.X`` when ``X`` is assigned or defined in the class body or is spelled
  like a constant (inherited class constants), so ``explain`` can follow them;
- ``super().m()`` is a call to ``super().m``; ``Foo().m()`` (``Foo`` imported or defined
  at module level) a call to ``pkg.mod.Foo().m``;
- bindings record the type of a receiver where it is simple to know: ``x = Foo()`` /
  ``x: Foo`` / ``with Foo() as x`` / ``for x in xs`` with ``xs: Sequence[Foo]`` inside a
  function (recorded only when ``x.m()`` is then called), ``x = Foo()`` at module level, ``self.x = Foo()`` in a method, and
  class-level ``x: Foo`` fields used as ``self.x.m()``;
- ``if __name__ == "__main__":`` blocks at module level (line ranges);
- which references sit in a variable's type annotation (``x: Foo = ...``): they stay in
  ``references``, and are listed again in ``annotation_references``.

Bump ``FACTS_VERSION`` whenever the extracted facts change: it is part of the cache key.
"""

from __future__ import annotations

import ast
import builtins
import os

from agentlint.types import BindingFact, CallFact, DefinitionFact, FileFacts, ImportFact, ReferenceFact

FACTS_VERSION = 9
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


def _fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _SKIP_FIELDS)
    return fields


def module_name_for(path: str) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`, climbing while the folder is a package."""
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = filename[:-3] if filename.endswith(".py") else filename
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
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

    __slots__ = ("name", "names", "attr_types", "used", "lines")

    def __init__(self, name: str, node: ast.ClassDef) -> None:
        self.name = name
        names: set[str] = set()
        for stmt in node.body:
            if isinstance(stmt, _DEFS):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    names.update(_target_names(target))
            elif isinstance(stmt, ast.AnnAssign) and type(stmt.target) is _Name:
                names.add(stmt.target.id)
        self.names = names
        self.attr_types: dict[str, tuple[str, int, bool]] = {}
        """`self.x` -> (type, line, always): always for explicit `self.x = Foo()`."""
        self.used: set[str] = set()
        """Attributes used as call receivers: `self.x.m()`."""


class _Extractor:
    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.imports: list[ImportFact] = []
        self._import_keys: set[tuple[str, str, int]] = set()
        self.table: dict[str, str] = {}
        self.definitions: list[DefinitionFact] = []
        self.calls: list[CallFact] = []
        self.references: list[ReferenceFact] = []
        self.annotation_references: list[ReferenceFact] = []
        self.bindings: list[BindingFact] = []
        self._binding_keys: set[tuple[str, str, str]] = set()
        self.main_blocks: list[tuple[int, int]] = []
        self.module_names: set[str] = set()
        self.klass: _Class | None = None
        self.locals: dict[str, tuple[str, int]] | None = None
        """Receiver types of the function being walked: name -> (type, line)."""

    # -- names --------------------------------------------------------------------
    def resolve(self, name: str) -> str:
        head, _, rest = name.partition(".")
        target = self.table.get(head)
        if target is None and head in self.module_names:
            target = f"{self.module}.{head}"
        if target is None:
            return name
        return f"{target}.{rest}" if rest else target

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
                self.add_import(stmt)

    def add_import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    local, qualified = alias.asname, alias.name
                else:
                    local = qualified = alias.name.split(".")[0]
                self._bind(local, qualified, stmt.lineno)
        else:
            base = self._absolute(stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    self._bind("*", base, stmt.lineno)
                    continue
                qualified = f"{base}.{alias.name}" if base else alias.name
                self._bind(alias.asname or alias.name, qualified, stmt.lineno)

    def _bind(self, local: str, qualified: str, line: int) -> None:
        key = (local, qualified, line)
        if key not in self._import_keys:
            self._import_keys.add(key)
            self.imports.append(ImportFact(local, qualified, line))
        if local != "*":
            self.table.setdefault(local, qualified)

    # -- receiver types ---------------------------------------------------------------
    def _type_name(self, name: str | None) -> str | None:
        if not name or name in _NOT_A_RECEIVER_TYPE:
            return None
        resolved = self.resolve(name)
        if resolved.startswith("typing.") or resolved in _NOT_A_RECEIVER_TYPE:
            return None
        return resolved

    def _value_type(self, value: ast.AST | None) -> str | None:
        if type(value) is _Await:
            value = value.value  # type: ignore[union-attr]
        if type(value) is _Call:
            return self._type_name(dotted(value.func))  # type: ignore[union-attr]
        if type(value) is _Name:
            name = value.id  # type: ignore[union-attr]
            known = self.locals.get(name) if self.locals else None
            if known is not None:
                return known[0]
            if name in self.table or name in self.module_names:
                # `runner = DEFAULT_RUNNER`: the type of that variable, found by the graph.
                return self._type_name(name)
        return None

    def _annotation_type(self, ann: ast.AST | None, depth: int = 0) -> str | None:
        if ann is None or depth > 3:
            return None
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            text = ann.value.strip()
            if text.replace(".", "").replace("_", "").isalnum():
                return self._type_name(text)
            return None
        if isinstance(ann, ast.Subscript):
            base = dotted(ann.value)
            last = base.rsplit(".", 1)[-1] if base else None
            if last in _WRAPPERS:
                inner = ann.slice
                if isinstance(inner, ast.Tuple) and inner.elts:
                    inner = inner.elts[0]
                return self._annotation_type(inner, depth + 1)
            if last in _CONTAINERS:
                return None
            return self._type_name(base)  # a generic class: `Runtime[Context]` is a Runtime
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            for side in (ann.left, ann.right):
                if not (isinstance(side, ast.Constant) and side.value is None):
                    found = self._annotation_type(side, depth + 1)
                    if found:
                        return found
            return None
        return self._type_name(dotted(ann))

    def _element_type(self, ann: ast.AST | None, depth: int = 0) -> str | None:
        """`Sequence[Foo]`, `list[Foo] | None`, `Optional[Iterable[Foo]]` -> Foo."""
        if ann is None or depth > 3:
            return None
        if isinstance(ann, ast.Subscript):
            base = dotted(ann.value)
            last = base.rsplit(".", 1)[-1] if base else None
            inner = ann.slice
            if isinstance(inner, ast.Tuple) and inner.elts:
                inner = inner.elts[0]
            if last in _CONTAINERS:
                return self._annotation_type(inner, depth + 1)
            if last in _WRAPPERS:
                return self._element_type(inner, depth + 1)
            return None
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return self._element_type(ann.left, depth + 1) or self._element_type(ann.right, depth + 1)
        return None

    def _note_target(self, target: ast.AST, type_: str | None, line: int, scope: str, explicit: bool) -> None:
        """Remember the type bound to `x` or `self.x` by an assignment."""
        if type(target) is _Name:
            if scope == MODULE_SCOPE:
                if type_:
                    self._binding(MODULE_SCOPE, target.id, type_, line)  # type: ignore[attr-defined]
            elif self.locals is not None:
                if type_:
                    self.locals[target.id] = (type_, line)  # type: ignore[attr-defined]
                else:
                    self.locals.pop(target.id, None)  # type: ignore[attr-defined]
        elif (
            type(target) is _Attribute
            and type(target.value) is _Name  # type: ignore[attr-defined]
            and target.value.id in SELF_NAMES  # type: ignore[attr-defined]
            and self.klass is not None
            and type_
        ):
            self.klass.attr_types.setdefault(target.attr, (type_, line, explicit))  # type: ignore[attr-defined]

    def _loop_variable(self, target: ast.AST, source: ast.AST) -> None:
        """`for x in xs` / `for x in xs or []` with `xs: Sequence[Foo]`: x is a Foo."""
        if type(source) is ast.BoolOp and source.values:  # type: ignore[attr-defined]
            source = source.values[0]  # type: ignore[attr-defined]
        if type(target) is _Name and type(source) is _Name and self.locals:
            element = self.locals.get(_ELEMENTS + source.id)  # type: ignore[attr-defined]
            if element is not None:
                self.locals[target.id] = element  # type: ignore[attr-defined]

    def _binding(self, scope: str, name: str, type_: str, line: int) -> None:
        key = (scope, name, type_)
        if key not in self._binding_keys:
            self._binding_keys.add(key)
            self.bindings.append(BindingFact(scope, name, type_, line))

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
                self.add_import(stmt)  # type: ignore[arg-type]
            return
        if cls is ast.Assign or cls is ast.AnnAssign:
            self._assignment(stmt, scope, in_class)  # type: ignore[arg-type]
        elif cls is ast.If and scope == MODULE_SCOPE and _is_main_test(stmt.test):  # type: ignore[attr-defined]
            self.main_blocks.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
        elif (cls is ast.For or cls is ast.AsyncFor) and self.locals:
            # `for x in xs:` with `xs: Sequence[Foo]`: x is a Foo.
            self._loop_variable(stmt.target, stmt.iter)  # type: ignore[attr-defined]
        elif (cls is ast.With or cls is ast.AsyncWith) and self.locals is not None:
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    self._note_target(item.optional_vars, self._value_type(item.context_expr), stmt.lineno, scope, True)
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
        if type(stmt) is ast.AnnAssign:
            type_ = self._annotation_type(stmt.annotation) or self._value_type(stmt.value)
        else:
            type_ = self._value_type(stmt.value)
        if in_class and self.klass is not None and type(target) is _Name:
            if type_:
                self.klass.attr_types.setdefault(target.id, (type_, line, False))
            return
        if type(target) is _Name or type(target) is _Attribute:
            self._note_target(target, type_, line, scope, True)

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
            outer_class, outer_locals = self.klass, self.locals
            self.klass, self.locals = _Class(name, node), None
            self.walk_body(node.body, name, True)
            klass = self.klass
            self.klass, self.locals = outer_class, outer_locals
            for attr, (type_, line, explicit) in klass.attr_types.items():
                if explicit or attr in klass.used:
                    self._binding(name, f"self.{attr}", type_, line)
            return
        args = node.args
        for expr in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.walk_expr(expr, scope)
        self.definitions.append(
            DefinitionFact(
                name, "method" if in_class else "function", node.lineno, node.end_lineno or node.lineno, decorators, ()
            )
        )
        outer_locals = self.locals
        local_types: dict[str, tuple[str, int]] = dict(outer_locals) if outer_locals else {}
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if arg.annotation is not None:
                type_ = self._annotation_type(arg.annotation)
                if type_:
                    local_types[arg.arg] = (type_, arg.lineno)
                else:
                    element = self._element_type(arg.annotation)
                    if element:
                        local_types[_ELEMENTS + arg.arg] = (element, arg.lineno)
        self.locals = local_types
        self.walk_body(node.body, name, False)
        self.locals = outer_locals

    def walk_expr(self, node: ast.AST, scope: str) -> None:
        stack = [node]
        pop, push = stack.pop, stack.append
        table, names = self.table, self.module_names
        calls, references = self.calls, self.references
        while stack:
            current = pop()
            cls = type(current)
            if cls is _Call:
                func = current.func  # type: ignore[attr-defined]
                callee = dotted(func)
                if callee is not None:
                    calls.append(CallFact(scope, self.resolve(callee), current.lineno))  # type: ignore[attr-defined]
                    head, dot, rest = callee.partition(".")
                    if dot and head not in table and head not in names:
                        if head in SELF_NAMES and self.klass is not None:
                            attr, dot, _ = rest.partition(".")
                            if not dot:
                                # `self.m()`: the call is the fact; `self.m` is not also a read.
                                stack.extend(current.args)  # type: ignore[attr-defined]
                                stack.extend(current.keywords)  # type: ignore[attr-defined]
                                continue
                            self.klass.used.add(attr)
                        elif self.locals:
                            known = self.locals.get(head)
                            if known is not None:
                                self._binding(scope, head, known[0], known[1])
                elif type(func) is _Attribute and type(func.value) is _Call:
                    inner = func.value.func
                    if type(inner) is _Name and inner.id == "super":
                        calls.append(CallFact(scope, f"super().{func.attr}", current.lineno))  # type: ignore[attr-defined]
                    else:
                        # `Foo().m()`: a method of a fresh instance of an imported or module-level name.
                        made = dotted(inner)
                        if made is not None and (made.partition(".")[0] in table or made.partition(".")[0] in names):
                            calls.append(CallFact(scope, f"{self.resolve(made)}().{func.attr}", current.lineno))  # type: ignore[attr-defined]
            elif cls is _Name:
                if type(current.ctx) is _Load and (current.id in table or current.id in names):  # type: ignore[attr-defined]
                    references.append(ReferenceFact(scope, self.resolve(current.id), current.lineno))  # type: ignore[attr-defined]
                continue
            elif cls is _Attribute:
                if type(current.ctx) is not _Load:  # type: ignore[attr-defined]
                    push(current.value)  # type: ignore[attr-defined]
                    continue
                name = dotted(current)
                if name is not None:
                    head, _, rest = name.partition(".")
                    if head in table or head in names:
                        references.append(ReferenceFact(scope, self.resolve(name), current.lineno))  # type: ignore[attr-defined]
                    elif head in SELF_NAMES and self.klass is not None:
                        attr = rest.partition(".")[0]
                        if attr in self.klass.names or attr.isupper():
                            references.append(
                                ReferenceFact(scope, f"{self.module}.{self.klass.name}.{attr}", current.lineno)  # type: ignore[attr-defined]
                            )
                    # Every part of a name chain has the same head: nothing more to find inside.
                    continue
            elif cls is _comprehension and self.locals:
                self._loop_variable(current.target, current.iter)  # type: ignore[attr-defined]
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
    return []


def extract_facts(path: str, tree: ast.Module, source: str | None = None) -> FileFacts:
    """The facts of one module. ``source`` (the text ``tree`` was parsed from) lets the
    cost and prompt extractors skip files without their vocabulary and convert columns
    to characters; without it they walk every file."""
    from agentlint import cost_facts, prompt_facts

    module = module_name_for(path)
    extractor = _Extractor(module, os.path.basename(path) == "__init__.py")
    extractor.collect_module_names(tree)
    extractor.walk_body(tree.body, MODULE_SCOPE, False)
    cost_terms, cost_nones, price_literals = cost_facts.extract(tree, source)
    prompt_sites, prompt_blocks = prompt_facts.extract(tree, source, module, extractor.resolve)
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
