"""Names as a module sees them: its imports (module-level, in functions, branch by
branch) and its module-level names, resolved to qualified dotted names."""

from __future__ import annotations

import ast

from agentlint.facts.ast_helpers import COMPOUND_STATEMENTS
from agentlint.facts.scopes import UNSET, target_names, top_level
from agentlint.facts.types import ImportFact

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class ImportTable:
    """Resolution of the names of one module (the first layer of the facts walk)."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.imports: list[ImportFact] = []
        self._import_keys: set[tuple[str, str, int]] = set()
        self.table: dict[str, str] = {}
        """Module-level imports: local name -> qualified name."""
        self._inner_imports: dict[str, str] = {}
        """Imports in functions and class bodies, first wins (see ``resolve_any``)."""
        self.module_names: set[str] = set()
        self.scoped: dict[str, tuple[str, ...] | None] | None = None
        """Names bound in the functions being walked (None outside functions): a name
        bound by a function-level import -> the qualified names it may have there (one,
        or several after `if`/`try` branches importing it from different places; see
        ``_walk_branches``), any other local -> None (unresolved). Copied, not changed,
        when an import binds a name, so a branch can start again from the state before."""

    # -- names --------------------------------------------------------------------
    def resolve(self, name: str) -> str:
        head, _, rest = name.partition(".")
        scoped = self.scoped
        target = scoped.get(head, UNSET) if scoped else UNSET
        if target is UNSET:
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
            target = scoped.get(head, UNSET)
            if target is not UNSET:
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
        for stmt in top_level(tree.body):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.add_import(stmt, self.table)
            else:
                self.module_names.update(_bound_names(stmt))

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


def _bound_names(stmt: ast.stmt) -> list[str]:
    """The names a module-level statement other than an import binds."""
    if isinstance(stmt, _DEFS):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [name for target in stmt.targets for name in target_names(target)]
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


def module_level_names(tree: ast.Module) -> set[str]:
    """The names the module binds at module level, imports aside (``module_names``)."""
    return {name for stmt in top_level(tree.body) for name in _bound_names(stmt)}


_COMPOUND = COMPOUND_STATEMENTS | frozenset(_DEFS)
"""The statements that hold other statements (only they can hold an import)."""
_FIELD_ORDER = ("body", "handlers", "orelse", "finalbody", "cases")
"""The order the facts walk reads a statement's parts in at module level and in a class
body (the order of the fields)."""
_BRANCH_ORDER = ("body", "orelse", "handlers", "finalbody", "cases")
"""...and in a function, where a `try`'s `else` runs before its handlers are read."""
_MODULE, _CLASS, _FUNCTION = 0, 1, 2


def import_table(tree: ast.Module, module: str, is_package: bool) -> ImportTable:
    """The module's names and imports resolved as the facts walk leaves them, without the
    rest of that walk: module-level imports and names, imports in class bodies (bound in
    the module's table, first wins) and in functions (for ``resolve_any``), with the
    import facts in the order the walk records them."""
    table = ImportTable(module, is_package)
    table.collect_module_names(tree)
    stack: list[tuple[ast.stmt, int]] = [(stmt, _MODULE) for stmt in reversed(tree.body)]
    while stack:
        stmt, where = stack.pop()
        cls = type(stmt)
        if cls is ast.Import or cls is ast.ImportFrom:
            if where == _CLASS:
                table.add_import(stmt, table.table)  # type: ignore[arg-type]
            elif where == _FUNCTION:
                for local, qualified in table._import_names(stmt):  # type: ignore[arg-type]
                    table._inner_imports.setdefault(local, qualified)
            continue  # module level: read by collect_module_names
        if cls not in _COMPOUND:
            continue
        inner = where
        if cls is ast.ClassDef:
            inner = _CLASS
        elif cls in _DEFS:
            inner = _FUNCTION
        children: list[ast.stmt] = []
        for name in _BRANCH_ORDER if where == _FUNCTION else _FIELD_ORDER:
            parts = getattr(stmt, name, None)
            if not parts:
                continue
            if name == "handlers" or name == "cases":
                for part in parts:
                    children += part.body
            else:
                children += parts
        stack.extend((child, inner) for child in reversed(children))
    return table


def collect_imports(tree: ast.Module, module: str, is_package: bool) -> tuple[ImportFact, ...]:
    """The module's import facts alone, in the order the facts walk records them
    (module-level ones first, then those in functions and classes, in source order):
    what per-file rules read when no rule needs the rest of the facts."""
    return tuple(import_table(tree, module, is_package).imports)
