"""Python's scoping, as the facts walk needs it: the names a function binds (and the
`self.NAME` it assigns), the class body being walked, the names of branches joined, and
small helpers on targets and module-level statements."""

from __future__ import annotations

import ast

_Attribute, _Name = ast.Attribute, ast.Name
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

Types = tuple  # of (type, line, declared): the types a local receiver may have
UNSET = object()


class ClassBody:
    """What the walk knows about the class whose body (or methods) it is in."""

    __slots__ = ("name", "names", "instance", "scanned", "attr_types", "used", "lines", "fields")

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
                    scanned[stmt] = function_locals(stmt, instance)  # type: ignore[arg-type]
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    names.update(target_names(target))
            elif isinstance(stmt, ast.AnnAssign) and type(stmt.target) is _Name:
                names.add(stmt.target.id)
        self.names = names
        for known in names.intersection(instance):
            del instance[known]
        self.instance = instance
        """Instance attributes: `self.NAME = ...` in the methods (and the functions nested
        in them) with NAME not in the class body -> the lines of the first such statement."""
        self.scanned = scanned
        """Method -> its ``function_locals``, for when the walk gets to it."""
        self.attr_types: dict[str, list[tuple[str, int, bool]]] = {}
        """`self.x` -> [(type, line, always)]: always for explicit `self.x = Foo()` and
        class-level `x = Foo()`."""
        self.used: set[str] = set()
        """Attributes used as receivers: `self.x.m()`, `self.x.attr`."""
        self.fields = 0
        """Annotated names of the class body seen so far (a dataclass field's position)."""

    def note(self, attr: str, type_: str, line: int, always: bool) -> None:
        known = self.attr_types.setdefault(attr, [])
        for i, (seen, _line, seen_always) in enumerate(known):
            if seen == type_:
                if always and not seen_always:
                    known[i] = (seen, _line, True)
                return
        known.append((type_, line, always))



DEF_TYPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
BRANCHING = frozenset(
    t for t in (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, getattr(ast, "TryStar", None), ast.Match) if t
)
"""Statements whose parts may run or not: an assignment inside adds a type."""
SHADOWING = frozenset({ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})
"""Expressions with their own scope (parameters, comprehension variables)."""
_NamedExpr = ast.NamedExpr
_Tuple, _List, _Constant = ast.Tuple, ast.List, ast.Constant
SCOPE_NODES = SHADOWING | {ast.comprehension, ast.NamedExpr}

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


def function_locals(
    node: ast.FunctionDef | ast.AsyncFunctionDef, selfs: dict[str, tuple[int, int]] | None = None
) -> tuple[set[str], set[str], set[str]]:
    """(names bound in the function, declared `global`, declared `nonlocal`), from its
    parameters and statements (the bodies of nested definitions are their own scopes;
    a walrus is seen by the walk when it gets there). With ``selfs`` (a method's), the
    same pass notes its `self.NAME = ...` statements there and in the functions nested
    in it (not in nested classes), the first in source order: NAME -> its lines."""
    bound = set(parameter_names(node.args))
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
                    bound.update(target_names(target))
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
                bound.update(target_names(target))
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
                    bound.update(target_names(item.optional_vars))
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
                bound.update(target_names(target))


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


def parameter_names(args: ast.arguments) -> list[str]:
    """The names a function's or a lambda's parameters bind."""
    names = [arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.vararg is not None:
        names.append(args.vararg.arg)
    if args.kwarg is not None:
        names.append(args.kwarg.arg)
    return names


def expression_locals(node: ast.AST) -> list[str]:
    """The names a lambda or a comprehension binds for itself."""
    if type(node) is ast.Lambda:
        return parameter_names(node.args)  # type: ignore[attr-defined]
    names = []
    for generator in node.generators:  # type: ignore[attr-defined]
        names += target_names(generator.target)
    return names


def join_scopes(*states: dict | None) -> dict | None:
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
            known = merged.get(name, UNSET)
            if known is targets or targets is None:
                continue
            if known is None or known is UNSET:
                merged[name] = targets
            elif known != targets:
                merged[name] = joined((known, targets))  # type: ignore[arg-type]
    return merged


def joined(groups) -> tuple[str, ...]:
    out: list[str] = []
    for group in groups:
        for item in group:
            if item not in out:
                out.append(item)
    return tuple(out)


def parse_annotation(text: str) -> ast.AST | None:
    """A string annotation (`"A | None"`, `"Optional[A]"`) as an expression."""
    if len(text) > 200:
        return None
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None


def is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def callee(expr: ast.expr) -> ast.expr:
    return expr.func if isinstance(expr, ast.Call) else expr


def top_level(body: list[ast.stmt]) -> list[ast.stmt]:
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


def target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in target_names(elt)]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return []
