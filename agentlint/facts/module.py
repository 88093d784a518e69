"""Per-file facts: definitions, imports, calls, references and receiver bindings, as plain data.

Facts are read from the standard library's ``ast`` tree, which carries line numbers for
free and costs a few percent of a LibCST parse; LibCST (with its exact source
positions for reports and fixes) is parsed only for files in which a selected rule can
fire. See docs/architecture.md for the measurements behind this split.

The walk is built in layers: ``imports.ImportTable`` resolves names,
``bindings.ReceiverTypes`` types receivers (type expressions), ``chains.UseChains``
reads uses through chains, call arguments and keyed tables, and ``ModuleWalk`` here
reads the definitions, calls and references; ``scopes`` holds the scoping helpers they
share.

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
- bindings record the type expressions of a receiver (``bindings``: `pkg.Foo()` for
  what calling Foo gives, `pkg.Foo` for a declared type, chains, containers, a
  parameter's callers): ``x = Foo()`` / ``x: Foo`` / ``with Foo() as x`` / ``for x in xs``
  (an element of xs) / an untyped parameter inside a function (recorded only when
  ``x.m()`` is then called, ``x.attr`` read or ``x(...)`` called), ``x = Foo()`` and
  ``X = {"a": A, "b": B}`` at module level, ``self.x = Foo()`` or ``self.x = param`` in a
  method (``self.x=`` keeps the parameter of a typed one), class-level fields used as
  receivers (a field without a class to go by: what constructors pass for it), class-level
  ``x = Foo()``, ``X[key] = V`` and ``X.append(V)``. A receiver may have several types, one
  binding each: every member of ``A | B`` / ``Union[A, B]``, the operands of ``a or Foo()``
  and ``Foo() if c else a``, and the classes assigned in different branches (an
  annotation ``x: Base`` stays with the assigned types; an assignment in the straight-line
  part of the function replaces the assigned types known so far, one inside a branch or
  loop adds to them). A binding ``=NAME`` with type ``slot:param=key`` says that NAME is
  read from a table looked up by that parameter only under that key; a local named like a
  package whose type is not known has a binding of type ``""``;
- calls keep the type expressions of what they pass (``CallFact.args``) when they may
  reach the project; uses through calls, subscripts and names built at run time are
  chains (``chains``); a method call on a module-level variable at module level
  (`builder.add_node("plan", plan)`) is walked as code of that variable;
- ``if __name__ == "__main__":`` blocks at module level (line ranges);
- which references sit in a variable's type annotation (``x: Foo = ...``): they stay in
  ``references``, and are listed again in ``annotation_references``.

Bump ``FACTS_VERSION`` (in ``types``) whenever the extracted facts change: it is part of
the cache key.
"""

from __future__ import annotations

import ast
import os

from agentlint.facts import cost, prompts
from agentlint.facts.ast_helpers import MODULE_SCOPE, SELF_NAMES, dotted
from agentlint.facts.bindings import _ADDERS, constant_key
from agentlint.facts.chains import UseChains
from agentlint.facts.imports import ImportTable, collect_imports, import_table
from agentlint.facts.module_names import module_name_for
from agentlint.facts.scopes import (
    BRANCHING,
    DEF_TYPES,
    SCOPE_NODES,
    UNSET,
    ClassBody,
    Types,
    callee,
    expression_locals,
    function_locals,
    is_main_test,
    join_scopes,
    target_names,
)
from agentlint.facts.types import CallFact, DefinitionFact, FileFacts, ReferenceFact

_Attribute, _Name, _Call, _Load, _Await = ast.Attribute, ast.Name, ast.Call, ast.Load, ast.Await
_Subscript = ast.Subscript
_comprehension = ast.comprehension
_AST = ast.AST
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SKIP_FIELDS = frozenset({"ctx", "op", "ops", "kind", "type_comment"})
"""Fields that never hold anything a fact is made of (expression contexts, operators)."""
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_Return = ast.Return
_NamedExpr = ast.NamedExpr
_Tuple, _List, _Constant = ast.Tuple, ast.List, ast.Constant
_MAX_RETURNS = 16
"""How many types ``DefinitionFact.returns`` holds at most."""
_INSPECTORS = frozenset({"callable", "hasattr", "id", "isinstance", "issubclass", "type", "repr", "vars", "dir"})
_LOOKERS = ("inspect", "asyncio")
"""Builtins that look at a function or method without calling it (`callable(self.run)`);
so do the functions of ``inspect`` and ``asyncio.iscoroutinefunction``."""
_SCALARS = frozenset({"None", "str", "int", "float", "bool", "bytes", "complex", "object"})
"""Return annotations that say the function gives no object to follow."""


def _fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _SKIP_FIELDS)
    return fields


class ModuleWalk(UseChains):
    """The walk that reads one module's facts (the last layer)."""

    def __init__(self, module: str, is_package: bool) -> None:
        super().__init__(module, is_package)
        self.definitions: list[DefinitionFact] = []
        self.calls: list[CallFact] = []
        self.references: list[ReferenceFact] = []
        self.annotation_references: list[ReferenceFact] = []
        self.main_blocks: list[tuple[int, int]] = []
        self.returning: list[str] | None = None
        """The types the `return` statements of the function being walked return (None
        when it has a return annotation, or outside functions)."""
        self.params: dict[str, str] | None = None
        """The parameters of the function being walked -> their type expressions."""

    # -- the walk ------------------------------------------------------------------------
    def walk_body(self, body: list[ast.stmt], scope: str, in_class: bool) -> None:
        for stmt in body:
            self.walk_stmt(stmt, scope, in_class)

    def walk_stmt(self, stmt: ast.stmt, scope: str, in_class: bool) -> None:
        cls = type(stmt)
        if cls in DEF_TYPES:
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
        if cls is ast.Expr and scope == MODULE_SCOPE and self._configures(stmt.value):  # type: ignore[attr-defined]
            # `builder.add_node("plan", plan)` at module level configures the object made
            # there: what it is given is used by that object (and its readers), not by
            # the module's import-time code.
            self.walk_expr(stmt.value, self._configured)  # type: ignore[attr-defined]
            return
        if cls is ast.Assign or cls is ast.AnnAssign:
            self._assignment(stmt, scope, in_class)  # type: ignore[arg-type]
        elif cls is ast.If and scope == MODULE_SCOPE and is_main_test(stmt.test):  # type: ignore[attr-defined]
            self.main_blocks.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
        elif (cls is ast.For or cls is ast.AsyncFor) and self.locals is not None:
            # `for x in xs:` with `xs: Sequence[Foo]`, or a list of agents: x is an element.
            self._loop_variable(stmt.target, stmt.iter, stmt.lineno)  # type: ignore[attr-defined]
        elif cls is ast.Expr and type(stmt.value) is _Call:  # type: ignore[attr-defined]
            func = stmt.value.func  # type: ignore[attr-defined]
            if type(func) is _Attribute and func.attr in _ADDERS and stmt.value.args:  # type: ignore[attr-defined]
                # `self.agents.append(Reviewer())`: an element of the container.
                self._note_element(func.value, None, stmt.value.args[-1], stmt.lineno, scope)  # type: ignore[attr-defined]
        elif (cls is ast.With or cls is ast.AsyncWith) and self.locals is not None:
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    self._note_target(item.optional_vars, self._value_types(item.context_expr), stmt.lineno, scope)
        elif cls is _Return and self.returning is not None and stmt.value is not None:  # type: ignore[attr-defined]
            returning = self.returning
            for type_ in self._return_types(stmt.value):  # type: ignore[attr-defined]
                if type_ not in returning:
                    returning.append(type_)
        branches = cls in BRANCHING
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
                self.scoped = body if body is orelse else join_scopes(body, orelse)
            else:
                self.scoped = body if body is start else join_scopes(body, start)
        elif cls is ast.For or cls is ast.AsyncFor or cls is ast.While:
            if cls is ast.While:
                self.walk_expr(stmt.test, scope)  # type: ignore[attr-defined]
            else:
                self.walk_expr(stmt.target, scope)  # type: ignore[attr-defined]
                self.walk_expr(stmt.iter, scope)  # type: ignore[attr-defined]
            body = self._run(stmt.body, start, scope)  # type: ignore[attr-defined]
            joined = start if body is start else join_scopes(start, body)
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
            self.scoped = join_scopes(*ends)
        else:  # try
            body = self._run(stmt.body, start, scope)  # type: ignore[attr-defined]
            ends = [self._run(stmt.orelse, body, scope)]  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                # A handler runs when the body stopped early (often: its import failed).
                self.scoped = start
                if handler.type is not None:
                    self.walk_expr(handler.type, scope)
                ends.append(self._run(handler.body, start, scope))
            self.scoped = self._run(stmt.finalbody, join_scopes(*ends), scope)  # type: ignore[attr-defined]

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
                for name in target_names(target):
                    self.definitions.append(DefinitionFact(name, "variable", line, end))
                    self.module_variables.add(name)
            if type(stmt.value) is ast.Dict and "__getattr__" in self.module_names:
                self.note_lazy_exports(stmt.value, line)  # type: ignore[arg-type]
        elif in_class and (stmt.value is not None or type(stmt) is ast.AnnAssign):
            for target in targets:
                for name in target_names(target):
                    self.definitions.append(DefinitionFact(f"{scope}.{name}", "attribute", line, end))
        if len(targets) != 1:
            return
        target = targets[0]
        value = stmt.value
        target_type = type(target)
        if target_type is ast.Subscript and value is not None:
            # `AGENTS["reviewer"] = Reviewer()`, `self.tools[name] = tool`: an element.
            self._note_element(target.value, constant_key(target.slice), value, line, scope)  # type: ignore[attr-defined]
            return
        if (target_type is _Tuple or target_type is _List) and type(value) in (_Tuple, _List):
            if len(target.elts) == len(value.elts):  # type: ignore[attr-defined]
                # `self.a, self.b = A(), B()`: each its own.
                for part, part_value in zip(target.elts, value.elts):  # type: ignore[attr-defined]
                    if type(part) is _Name or type(part) is _Attribute:
                        self._note_target(part, self._value_types(part_value), line, scope)
            return
        declared: tuple[str, ...] = ()
        if type(stmt) is ast.AnnAssign:
            # The annotation, when it names a class, says more than the value
            # (`llm: BaseLLM = Field(...)`).
            declared = self._annotation_types(stmt.annotation)
            if not declared and scope != MODULE_SCOPE:
                elements = self._element_types(stmt.annotation)
                declared = tuple("[]" + type_ for type_ in elements)
            types = declared or self._value_types(value)
        else:
            types = self._value_types(value)
        if in_class and self.klass is not None and target_type is _Name:
            # Class level: `x: Foo` counts when used as `self.x.m()`; `x = Foo()`
            # always (a method of a base class may read it through `self`).
            always = type(stmt) is ast.Assign and types and type(value) is not _Name
            if type(stmt) is ast.AnnAssign:
                position = self.klass.fields
                self.klass.fields += 1
                if not types:
                    # A dataclass or pydantic field without a class to go by: what
                    # the constructors are given for it.
                    types = (f"{{{scope}:{position}:{target.id}}}",)  # type: ignore[attr-defined]
            for type_ in types:
                self.klass.note(target.id, type_, line, bool(always))  # type: ignore[attr-defined]
            return
        if target_type is _Name and scope != MODULE_SCOPE:
            if self.prefixes is not None and (self.prefixes or type(value) in (ast.JoinedStr, ast.BinOp)):
                self.note_prefix(target.id, value)  # type: ignore[arg-type, attr-defined]
            if self.keyed is not None and (self.keyed or type(value) is ast.Dict):
                self.note_keyed_table(target.id, value)  # type: ignore[arg-type, attr-defined]
            if declared:
                self._declare_local(target.id, declared, line)  # type: ignore[attr-defined]
                return
        if target_type is _Name or target_type is _Attribute:
            self._note_target(target, types, line, scope)
        if (
            target_type is _Attribute
            and type(value) is _Name
            and self.params
            and value.id in self.params  # type: ignore[union-attr]
            and self.klass is not None
            and type(target.value) is _Name  # type: ignore[attr-defined]
            and target.value.id == "self"  # type: ignore[attr-defined]
            and self.params[value.id] not in types  # type: ignore[union-attr]
        ):
            # `self.agent = agent` with `agent: ChatAgent`: the attribute keeps what the
            # callers pass (the graph follows a value given to the constructor there).
            self._binding(self.klass.name, f"self.{target.attr}=", self.params[value.id], line)  # type: ignore[attr-defined, union-attr]

    def walk_definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: str, in_class: bool
    ) -> None:
        name = node.name if scope == MODULE_SCOPE else f"{scope}.{node.name}"
        for decorator in node.decorator_list:
            self.walk_expr(decorator, scope)
        decorators = tuple(
            self.resolve(d) for d in (dotted(callee(dec)) for dec in node.decorator_list) if d
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
            self.klass, self.locals, self.depth = ClassBody(name, node), None, 0
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
        scalar = annotation is not None and (
            # `-> None`, `-> str`: the common cases, nothing to read.
            type(annotation) is _Name and annotation.id in _SCALARS  # type: ignore[attr-defined]
            or type(annotation) is _Constant and annotation.value is None  # type: ignore[attr-defined]
        )
        if annotation is not None and not scalar:
            # Read in the enclosing scope, as Python evaluates it.
            if klass is not None:
                self.self_type = f"{self.module}.{klass.name}"
            returns = self._annotation_types(annotation)[:_MAX_RETURNS]
            if not returns:
                returns = tuple("[]" + type_ for type_ in self._element_types(annotation))[:_MAX_RETURNS]
            self.self_type = None
        index = len(self.definitions)
        self.definitions.append(
            DefinitionFact(name, kind, node.lineno, node.end_lineno or node.lineno, decorators, (), returns)
        )
        outer_returning, outer_self, outer_cls = self.returning, self.self_param, self.cls_param
        self.returning = self.self_param = self.cls_param = None
        if not returns and not scalar:
            # Without an annotation that names a class (none, `-> dict`, `-> Any`), the
            # `return` statements tell.
            self.returning = []
            if klass is not None:
                first = args.posonlyargs[0] if args.posonlyargs else args.args[0] if args.args else None
                if first is not None and "staticmethod" not in decorators:
                    if first.arg == "cls" or "classmethod" in decorators:
                        self.cls_param = first.arg
                    else:
                        self.self_param = first.arg
        outer_locals, outer_scoped, outer_depth = self.locals, self.scoped, self.depth
        outer_prefixes, outer_keyed, outer_params = self.prefixes, self.keyed, self.params
        scanned = self.klass.scanned.pop(node, None) if in_class and self.klass is not None else None
        bound, globals_, nonlocals = scanned or function_locals(node)
        # A nested function sees the types of its enclosing function's locals, except
        # of the names it binds itself.
        local_types: dict[str, Types] = (
            {k: v for k, v in outer_locals.items() if k not in bound} if outer_locals else {}
        )
        positional = [*args.posonlyargs, *args.args]
        # A method's first parameter is `self` (or `cls`): never given by position.
        skip = 1 if in_class and positional and "staticmethod" not in decorators else 0
        params: dict[str, str] = {}
        for position, arg in enumerate((*positional, *args.kwonlyargs)):
            if position < skip:
                continue
            slot = position if position < len(positional) else "k"
            params[arg.arg] = f"{{{name}:{slot}:{arg.arg}}}"
            types = self._annotation_types(arg.annotation) if arg.annotation is not None else ()
            if types:
                local_types[arg.arg] = tuple((type_, arg.lineno, True) for type_ in types)
                continue
            elements = self._element_types(arg.annotation) if arg.annotation is not None else ()
            if elements:
                local_types[arg.arg] = tuple(("[]" + type_, arg.lineno, True) for type_ in elements)
            else:
                # Untyped: what the callers pass (`k` for a keyword-only parameter).
                local_types[arg.arg] = ((params[arg.arg], arg.lineno, False),)
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
        self.locals, self.scoped, self.depth, self.prefixes, self.keyed = local_types, scoped, 0, {}, {}
        self.params = params
        self.walk_body(node.body, name, False)
        self.locals, self.scoped, self.depth = outer_locals, outer_scoped, outer_depth
        self.prefixes, self.keyed, self.params = outer_prefixes, outer_keyed, outer_params
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
        if self.locals is not None:
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
                line = current.lineno  # type: ignore[attr-defined]
                if callee is not None:
                    head, dot, rest = callee.partition(".")
                    target = scoped.get(head, UNSET) if scoped else UNSET
                    passed = (
                        self.call_arguments(current)  # type: ignore[arg-type]
                        if (current.args or current.keywords) and self._reaches_project(head, target)  # type: ignore[attr-defined]
                        else ()
                    )
                    if rest == "get" and self.keyed and head in self.keyed and current.args:  # type: ignore[attr-defined]
                        self.note_keyed_lookup(scope, func.value, current.args[0])  # type: ignore[attr-defined]
                    if target is not None and target is not UNSET and len(target) > 1:  # type: ignore[arg-type]
                        for each in self._each(target, callee):  # type: ignore[arg-type]
                            calls.append(CallFact(scope, each, line, passed))
                    else:
                        calls.append(CallFact(scope, self.resolve(callee), line, passed))
                    if not dot:
                        if target is None and self.locals:
                            # `handler(...)` with `handler = HANDLERS[name]`: what it holds.
                            known = self.locals.get(head)
                            if known is not None:
                                self._receiver(scope, head, known)
                        elif head == "getattr" and target is UNSET and head not in table and head not in names:
                            # `getattr(self, f"cmd_{name}")`: the methods it may look up are used.
                            for chain in self._use_chains(current, scope):
                                references.append(ReferenceFact(scope, chain, line))
                        elif head in _INSPECTORS and target is UNSET and head not in table and head not in names:
                            self._push_looked_at(current, push)
                            continue
                    elif target is UNSET and head in _LOOKERS and (head == "inspect" or rest == "iscoroutinefunction"):
                        if self.resolve(head) in _LOOKERS:
                            push(func)
                            self._push_looked_at(current, push)
                            continue
                    if dot:
                        if target is None or (target is UNSET and head not in table and head not in names):
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
                                            ReferenceFact(scope, f"{self.module}.{klass.name}.{attr}", line)
                                        )
                                # `self.m()`: the call is the fact; `self.m` is not also a read.
                            else:
                                known = self.locals.get(head) if self.locals else None
                                if known is not None:
                                    self._receiver(scope, head, known)
                                elif target is None and self._names_a_root(head):
                                    # A local named like a package: never that package.
                                    self._binding(scope, head, "", line)
                            # The callee is a plain name chain: nothing more to find in it.
                            stack.extend(current.args)  # type: ignore[attr-defined]
                            stack.extend(current.keywords)  # type: ignore[attr-defined]
                            continue
                else:
                    ftype = type(func)
                    if ftype is _Attribute and func.attr == "get" and type(func.value) is ast.Dict and current.args:  # type: ignore[attr-defined]
                        self.note_keyed_lookup(scope, func.value, current.args[0])  # type: ignore[attr-defined]
                    if ftype is _Attribute and type(func.value) is _Call and type(func.value.func) is _Name and func.value.func.id == "super":  # type: ignore[attr-defined]
                        passed = self.call_arguments(current) if self.klass is not None and (current.args or current.keywords) else ()  # type: ignore[arg-type, attr-defined]
                        calls.append(CallFact(scope, f"super().{func.attr}", line, passed))  # type: ignore[attr-defined]
                    else:
                        # `Foo().m()`, `self.make().run()`, `agents["reviewer"].run()`,
                        # `getattr(self, f"cmd_{name}")(...)`: a call through a chain.
                        chains = self._use_chains(func, scope)
                        if chains:
                            passed = self.call_arguments(current) if current.args or current.keywords else ()  # type: ignore[arg-type, attr-defined]
                            for chain in chains:
                                calls.append(CallFact(scope, chain, line, passed))
                            # The chain is the fact: its parts are walked for what they hold
                            # (inner calls, keys), not read again as names.
                            stack.extend(current.args)  # type: ignore[attr-defined]
                            stack.extend(current.keywords)  # type: ignore[attr-defined]
                            inner = func
                            while type(inner) is _Attribute:
                                inner = inner.value  # type: ignore[attr-defined]
                            push(inner)
                            continue
            elif cls is _Name:
                if type(current.ctx) is _Load:  # type: ignore[attr-defined]
                    head = current.id  # type: ignore[attr-defined]
                    target = scoped.get(head, UNSET) if scoped else UNSET
                    if target is UNSET:
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
                    target = scoped.get(head, UNSET) if scoped else UNSET
                    if target is UNSET:
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
                chains = self._use_chains(current, scope)
                if chains:
                    # `agents["research"].run` handed to `add_node`, `get_config().llm.model`.
                    for chain in chains:
                        references.append(ReferenceFact(scope, chain, current.lineno))  # type: ignore[attr-defined]
                    inner = current.value  # type: ignore[attr-defined]
                    while type(inner) is _Attribute:
                        inner = inner.value  # type: ignore[attr-defined]
                    push(inner)
                    continue
            elif cls is _Subscript:
                if self.keyed or (self.keyed is not None and type(current.value) is ast.Dict):  # type: ignore[attr-defined]
                    # `prompts[role]`: the table's names are read by key.
                    self.note_keyed_lookup(scope, current.value, current.slice)  # type: ignore[attr-defined]
            elif cls in SCOPE_NODES:
                if cls is _comprehension:
                    if self.locals is not None:
                        self._loop_variable(current.target, current.iter, current.target.lineno)  # type: ignore[attr-defined]
                elif cls is _NamedExpr:
                    # `(x := ...)` binds x in the function, from here on.
                    target = current.target  # type: ignore[attr-defined]
                    if scoped is not None and type(target) is _Name:
                        scoped[target.id] = None  # type: ignore[attr-defined]
                else:
                    bound = expression_locals(current)
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


def extract_facts(
    path: str, tree: ast.Module, source: str | None = None, *, project: bool = True,
    cost_facts: bool | None = None, prompt_facts: bool | None = None, graph: bool = True,
) -> FileFacts:
    """The facts of one module. ``source`` (the text ``tree`` was parsed from) lets the
    cost and prompt extractors skip files without their vocabulary and convert columns
    to characters; without it they walk every file. ``project=False`` leaves out the
    cost and prompt facts, which only project rules read (a run of per-file rules alone);
    ``cost_facts`` / ``prompt_facts`` say so of one of them (default: ``project``).
    ``graph=False`` leaves out what only explain reads (definitions, calls, references,
    bindings, `__main__` blocks): no rule reads them, so a run that keeps no facts
    reads the imports alone instead of walking every expression."""
    cost_facts = project if cost_facts is None else cost_facts
    prompt_facts = project if prompt_facts is None else prompt_facts
    module = module_name_for(path)
    is_package = os.path.basename(path) == "__init__.py"
    if graph:
        extractor: ImportTable = ModuleWalk(module, is_package)
        extractor.collect_module_names(tree)
        extractor.collect_string_tables(tree.body)  # type: ignore[attr-defined]
        extractor.walk_body(tree.body, MODULE_SCOPE, False)  # type: ignore[attr-defined]
    else:
        extractor = import_table(tree, module, is_package)
    low = source.lower() if source is not None and (cost_facts or prompt_facts) else None  # read by both
    cost_terms, cost_nones, price_literals = cost.extract(tree, source, low) if cost_facts else ((), (), ())
    prompt_sites, prompt_blocks = (
        prompts.extract(tree, source, module, extractor.resolve_any, low) if prompt_facts else ((), ())
    )
    graph_facts = {}
    if graph:
        walk: ModuleWalk = extractor  # type: ignore[assignment]
        graph_facts = dict(
            definitions=tuple(walk.definitions),
            calls=tuple(walk.calls),
            references=tuple(walk.references),
            annotation_references=tuple(walk.annotation_references),
            bindings=tuple(walk.bindings),
            main_blocks=tuple(walk.main_blocks),
        )
    return FileFacts(
        module=module,
        imports=tuple(extractor.imports),
        cost_terms=cost_terms,
        cost_nones=cost_nones,
        price_literals=price_literals,
        prompt_sites=prompt_sites,
        prompt_blocks=prompt_blocks,
        **graph_facts,
    )


def import_facts(path: str, tree: ast.Module) -> FileFacts:
    """The module name and imports alone (``imports.collect_imports``): all that the
    per-file rules read of a file in which none runs on the agent model."""
    module = module_name_for(path)
    return FileFacts(module, imports=collect_imports(tree, module, os.path.basename(path) == "__init__.py"))
