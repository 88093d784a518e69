"""Per-file facts: definitions, imports, calls and references, as plain data.

Facts are read from the standard library's ``ast`` tree, which carries line numbers for
free and costs a few percent of a LibCST parse; LibCST (with its exact source
positions for reports and fixes) is parsed only for files in which a selected rule can
fire. See docs/architecture.md for the measurements behind this split.
"""

from __future__ import annotations

import ast
import os

from agentlint.types import CallFact, DefinitionFact, FileFacts, ImportFact, ReferenceFact

MODULE_SCOPE = "<module>"


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
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


class _Extractor:
    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.imports: list[ImportFact] = []
        self.table: dict[str, str] = {}
        self.definitions: list[DefinitionFact] = []
        self.calls: list[CallFact] = []
        self.references: list[ReferenceFact] = []
        self.module_names: set[str] = set()

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
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
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
        fact = ImportFact(local, qualified, line)
        if fact not in self.imports:
            self.imports.append(fact)
        if local != "*":
            self.table.setdefault(local, qualified)

    def walk_body(self, body: list[ast.stmt], scope: str, in_class: bool) -> None:
        for stmt in body:
            self.walk_stmt(stmt, scope, in_class)

    def walk_stmt(self, stmt: ast.stmt, scope: str, in_class: bool) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.walk_definition(stmt, scope, in_class)
            return
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if scope != MODULE_SCOPE:
                self.add_import(stmt)
            return
        if scope == MODULE_SCOPE and isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for name in _target_names(target):
                    self.definitions.append(
                        DefinitionFact(name, "variable", stmt.lineno, stmt.end_lineno or stmt.lineno)
                    )
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                self.walk_stmt(child, scope, in_class)
            else:
                self.walk_expr(child, scope)

    def walk_definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: str, in_class: bool
    ) -> None:
        name = node.name if scope == MODULE_SCOPE else f"{scope}.{node.name}"
        for decorator in node.decorator_list:
            self.walk_expr(decorator, scope)
        decorators = tuple(
            self.resolve(d) for d in (dotted(_callee(dec)) for dec in node.decorator_list) if d
        )
        if isinstance(node, ast.ClassDef):
            for expr in [*node.bases, *(k.value for k in node.keywords)]:
                self.walk_expr(expr, scope)
            bases = tuple(self.resolve(b) for b in (dotted(e) for e in node.bases) if b)
            kind = "class"
        else:
            for expr in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
                self.walk_expr(expr, scope)
            bases = ()
            kind = "method" if in_class else "function"
        self.definitions.append(
            DefinitionFact(name, kind, node.lineno, node.end_lineno or node.lineno, decorators, bases)
        )
        self.walk_body(node.body, name, isinstance(node, ast.ClassDef))

    def walk_expr(self, node: ast.AST, scope: str) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Call):
                callee = dotted(current.func)
                if callee is not None:
                    self.calls.append(CallFact(scope, self.resolve(callee), current.lineno))
            elif isinstance(current, (ast.Attribute, ast.Name)) and isinstance(
                getattr(current, "ctx", None), ast.Load
            ):
                name = dotted(current)
                if name is not None:
                    head = name.partition(".")[0]
                    if head in self.table or head in self.module_names:
                        self.references.append(ReferenceFact(scope, self.resolve(name), current.lineno))
                        continue
            elif isinstance(current, ast.Lambda):
                pass
            stack.extend(ast.iter_child_nodes(current))


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


def extract_facts(path: str, tree: ast.Module) -> FileFacts:
    module = module_name_for(path)
    extractor = _Extractor(module, os.path.basename(path) == "__init__.py")
    extractor.collect_module_names(tree)
    extractor.walk_body(tree.body, MODULE_SCOPE, False)
    return FileFacts(
        module=module,
        imports=tuple(extractor.imports),
        definitions=tuple(extractor.definitions),
        calls=tuple(extractor.calls),
        references=tuple(extractor.references),
    )
