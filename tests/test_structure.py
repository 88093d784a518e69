"""The package's shape, read from its own imports with ``ast``: packages by stage, no
import circle, no import from a later stage back into an earlier one, imports at the
top of modules, and no module over 800 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "agentlint"

STAGES = {
    "lazy_regex": 0,
    "knowledge": 0,
    "facts": 1,
    "rules": 2,
    "engine": 3,
    "explain": 4,
    "report": 4,
    "adopt": 5,
    "cli": 6,
    "api": 6,
    "__main__": 7,
}
"""The data flow, first to last: a module may import its own stage and earlier ones."""

LAZY_IMPORTS = {
    "libcst": "a third of a one-file run's start-up, and most files are decided from `ast` alone",
    "multiprocessing": "the process pool, started only when several files miss the cache",
    "concurrent": "the process pool, started only when several files miss the cache",
}
"""Imported inside functions on purpose (start-up cost), each with its reason."""

MAX_LINES = 800


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, int, bool]]:
    """(imported module of ours, line, inside a function) for every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*head, base] if base else head)
            # `from pkg import mod` imports the module pkg.mod
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        elif isinstance(node, ast.Call) and _lazy_module_name(node) is not None:
            # `analysis = lazy_module("agentlint.engine.analyze")`: an import, done later
            targets = [_lazy_module_name(node)]
        for target in targets:
            found.append((target, node.lineno, id(node) in in_function))
    return found


def _lazy_module_name(call: ast.Call) -> str | None:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name == "lazy_module" and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def _ours(target: str) -> str | None:
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target if target.startswith("agentlint") else None


def _stage(module: str) -> int | None:
    parts = module.split(".")
    return STAGES.get(parts[1]) if len(parts) > 1 else None


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for target, _line, _inner in _imports(name, path):
            ours = _ours(target)
            if ours is not None and ours != name:
                graph[name].add(ours)
    return graph


def test_every_module_belongs_to_a_stage() -> None:
    loose = [m for m in MODULES if m != "agentlint" and _stage(m) is None]
    assert not loose, f"modules outside the stage packages: {loose}"


def test_no_import_circle() -> None:
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    assert not circles, f"import circles: {circles}"


def test_no_import_from_a_later_stage() -> None:
    upward = []
    for name, targets in _graph().items():
        stage = _stage(name)
        for target in targets:
            other = _stage(target)
            if stage is not None and other is not None and other > stage:
                upward.append(f"{name} -> {target}")
    assert not upward, "imports that run against the data flow:\n" + "\n".join(upward)


def test_rules_import_only_the_rule_api_facts_and_knowledge() -> None:
    allowed = ("agentlint.rules", "agentlint.facts", "agentlint.knowledge", "agentlint.lazy_regex")
    bad = [
        f"{name} -> {target}"
        for name, targets in _graph().items()
        if name.startswith("agentlint.rules.")
        for target in targets
        if target != "agentlint" and not target.startswith(allowed)
    ]
    assert not bad, bad


def test_imports_sit_at_module_top() -> None:
    inner = []
    for name, path in MODULES.items():
        for target, line, in_function in _imports(name, path):
            if in_function and target.partition(".")[0] not in LAZY_IMPORTS:
                inner.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {target}")
    assert not inner, "imports inside functions:\n" + "\n".join(inner)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_short_enough(name: str) -> None:
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[name].name} has {lines} lines; split it along its parts"


def test_the_check_detects_a_circle(tmp_path, monkeypatch) -> None:
    """The circle test can fail: two modules importing each other are found."""
    monkeypatch.setitem(MODULES, "agentlint.facts.a", tmp_path / "a.py")
    monkeypatch.setitem(MODULES, "agentlint.facts.b", tmp_path / "b.py")
    (tmp_path / "a.py").write_text("from agentlint.facts import b\n")
    (tmp_path / "b.py").write_text("from agentlint.facts.a import x\n")
    with pytest.raises(AssertionError, match="import circles"):
        test_no_import_circle()


def test_the_check_reads_lazy_modules_as_imports(tmp_path, monkeypatch) -> None:
    """A module loaded on first use is an import all the same: it counts for the stages."""
    monkeypatch.setitem(MODULES, "agentlint.facts.later", tmp_path / "later.py")
    (tmp_path / "later.py").write_text("run = lazy_module('agentlint.engine.run')\n")
    with pytest.raises(AssertionError, match="against the data flow"):
        test_no_import_from_a_later_stage()


def test_the_check_detects_an_import_from_a_later_stage(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(MODULES, "agentlint.facts.late", tmp_path / "late.py")
    (tmp_path / "late.py").write_text("from agentlint.engine.run import run\n")
    with pytest.raises(AssertionError, match="against the data flow"):
        test_no_import_from_a_later_stage()
