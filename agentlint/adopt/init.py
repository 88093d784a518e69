"""`agentlint init`: write a `[tool.agentlint]` table into `pyproject.toml`.

The file is edited with tomlkit, so the user's comments, order and layout survive; the
file is created when there is none. What the table holds is commented suggestions
only (agentlint needs no configuration): the frameworks the code imports, and the
functions that look like a cost formula (`cost-functions`) or a prompt composer
(`prompt-composers`), found by cheap name heuristics. An existing table is replaced only
with `--force`; an `agentlint.toml` (which wins over `pyproject.toml`) stops it.
"""

from __future__ import annotations

import ast
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import tomlkit
from tomlkit.exceptions import ParseError

from agentlint import DISTRIBUTION
from agentlint.engine.config import Settings
from agentlint.engine.discovery import discover
from agentlint.engine.files import atomic_write
from agentlint.facts.source import parse_quietly as _parse_quietly
from agentlint.knowledge.frameworks import FRAMEWORK_NAMES, framework_of
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.registry import all_rules

MAX_SUGGESTIONS = 5
MAX_SCANNED_BYTES = 1024 * 1024
COST_SETTING, COST_RULE = "cost-functions", "AGL101"
PROMPT_SETTING, PROMPT_RULE = "prompt-composers", "AGL401"

_IMPORT = lazy_compile(
    rb"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import\b|import[ \t]+([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*))",
    re.MULTILINE,
)
_COST_DEF = lazy_compile(rb"def[ \t]+\w*cost\w*[ \t]*\(", re.IGNORECASE)
_PROMPT_DEF = lazy_compile(rb"def[ \t]+(?:(?:build|compose|make|render|format|create|assemble)_\w*prompt\w*|compose_\w+)[ \t]*\(")
_PROMPT_NAME = lazy_compile(r"^_?(?:(?:build|compose|make|render|format|create|assemble)_\w*prompt\w*|compose_\w+)$")
_COST_NAME = lazy_compile(r"cost", re.IGNORECASE)


@dataclass
class Findings:
    frameworks: Counter = field(default_factory=Counter)
    """Framework id -> number of files importing it."""
    cost_functions: list[str] = field(default_factory=list)
    prompt_composers: list[str] = field(default_factory=list)
    files: int = 0


# -- looking at the code -----------------------------------------------------------------


def scan(folder: Path) -> Findings:
    """Frameworks imported and candidate functions, from the files `check` would read."""
    found = Findings()
    root = folder.resolve()
    files = discover([str(folder)], Settings(root=str(root))).files
    for path in sorted(files):
        try:
            if os.path.getsize(path) > MAX_SCANNED_BYTES:
                continue
            with open(path, "rb") as fh:
                content = fh.read()
        except OSError:
            continue
        found.files += 1
        seen = set()
        for match in _IMPORT.finditer(content):
            names = match.group(1) or match.group(2)
            for name in re.split(rb"[ \t]*,[ \t]*", names):
                framework = framework_of(name.decode("ascii", "replace"))
                if framework:
                    seen.add(framework)
        found.frameworks.update(seen)  # files per framework
        if _is_test(path, root):
            continue
        wants_cost = _COST_DEF.search(content) is not None
        wants_prompt = _PROMPT_DEF.search(content) is not None
        if wants_cost or wants_prompt:
            _candidates(path, content, root, found, wants_cost, wants_prompt)
    found.cost_functions.sort()
    found.prompt_composers.sort()
    return found


def _is_test(path: str, root: Path) -> bool:
    rel = Path(os.path.relpath(os.path.abspath(path), root))
    name = rel.name
    return any(p in ("tests", "test") for p in rel.parts[:-1]) or name.startswith("test_") or name == "conftest.py"


def _module_name(path: str, root: Path) -> str:
    rel = Path(os.path.relpath(os.path.abspath(path), root)).with_suffix("")
    parts = list(rel.parts)
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _candidates(path: str, content: bytes, root: Path, found: Findings, cost: bool, prompt: bool) -> None:
    try:
        tree = _parse_quietly(content)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return
    module = _module_name(path, root)

    def visit(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{module}.{prefix}{node.name}" if module else f"{prefix}{node.name}"
                if cost and _COST_NAME.search(node.name) and _multiplies_tokens(node):
                    found.cost_functions.append(name)
                if prompt and _PROMPT_NAME.match(node.name) and _returns_a_value(node):
                    found.prompt_composers.append(name)

    visit(tree.body, "")


def _mentions_tokens(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        text = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else None
        if text is None and isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            text = sub.value
        if text and "token" in text.lower():
            return True
    return False


def _multiplies_tokens(func: ast.AST) -> bool:
    """A product (or `*=`) with a token count on one side: `tokens * price`."""
    for node in ast.walk(func):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            if _mentions_tokens(node.left) or _mentions_tokens(node.right):
                return True
        if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Mult, ast.Div)) and _mentions_tokens(node):
            return True
    return False


def _returns_a_value(func: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(func))


# -- the table ---------------------------------------------------------------------------


def _rule_for(setting: str, fallback: str) -> str:
    """The code of the rule that declares ``setting`` (another engineer's rule may not be
    registered yet: the suggestion is a comment either way)."""
    try:
        for code, meta in all_rules().items():
            if setting in meta.settings:
                return code
    except Exception:  # pragma: no cover - a broken registry must not stop init
        pass
    return fallback


def _names(values: list[str]) -> tuple[str, str]:
    shown = values[:MAX_SUGGESTIONS]
    listed = "[" + ", ".join(f'"{v}"' for v in shown) + "]"
    more = f"  # and {len(values) - len(shown)} more" if len(values) > len(shown) else ""
    return listed, more


def table_text(found: Findings) -> str:
    """The `[tool.agentlint]` table, as TOML text (comments only: every line a hint)."""

    lines = [
        "[tool.agentlint]",
        f"# Written by `agentlint init` ({DISTRIBUTION}). agentlint needs no configuration: every",
        "# line below is a suggestion. Every key: docs/configuration.md.",
    ]
    if found.frameworks:
        seen = ", ".join(
            f"{FRAMEWORK_NAMES.get(fw, fw)} ({count} file{'' if count == 1 else 's'})"
            for fw, count in sorted(found.frameworks.items(), key=lambda item: (-item[1], item[0]))
        )
        lines.append(f"# Frameworks seen in the code: {seen}.")
    else:
        lines.append(f"# No agent framework imports were seen in {found.files} Python file{'' if found.files == 1 else 's'}.")
    lines += [
        "#",
        '# select = ["AGL"]                      # the default: every rule that is on by default',
        '# ignore = ["AGL900"]',
        '# per-file-ignores = { "tests/**" = ["AGL302"] }',
        '# extend-exclude = ["generated/"]',
    ]
    if found.cost_functions:
        listed, more = _names(found.cost_functions)
        lines += [
            "",
            "# These functions look like cost formulas (a name with `cost`, multiplying token counts).",
            "# Naming the one true formula lets agentlint report copies of it elsewhere:",
            f"# [tool.agentlint.rules.{_rule_for(COST_SETTING, COST_RULE)}]",
            f"# {COST_SETTING} = {listed}{more}",
        ]
    if found.prompt_composers:
        listed, more = _names(found.prompt_composers)
        lines += [
            "",
            "# These functions look like prompt composers (`build_*prompt*`, `compose_*`):",
            f"# [tool.agentlint.rules.{_rule_for(PROMPT_SETTING, PROMPT_RULE)}]",
            f"# {PROMPT_SETTING} = {listed}{more}",
        ]
    return "\n".join(lines) + "\n"


class InitError(Exception):
    pass


@dataclass
class Written:
    path: Path
    created: bool
    replaced: bool


def write_table(folder: Path, text: str, *, force: bool) -> Written:
    """Put the table ``text`` into ``folder/pyproject.toml`` (created if missing)."""
    if (folder / "agentlint.toml").is_file():
        raise InitError(
            f"{folder / 'agentlint.toml'} already configures agentlint here (it wins over pyproject.toml); "
            "edit it, or remove it and run `agentlint init` again"
        )
    path = folder / "pyproject.toml"
    table = tomlkit.parse(text)["tool"]["agentlint"]  # type: ignore[index]
    if not path.exists():
        atomic_write(str(path), text.encode("utf-8"))
        return Written(path, True, False)
    try:
        with open(path, encoding="utf-8", newline="") as fh:  # line endings as they are
            original = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InitError(f"{path}: cannot read it: {exc}") from None
    try:
        doc = tomlkit.parse(original)
    except ParseError as exc:
        raise InitError(f"{path}:{exc.line}: not valid TOML ({exc}); fix it, then run `agentlint init` again") from None
    tool = doc.get("tool")
    replaced = False
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        doc["tool"] = tool
    elif not isinstance(tool, dict):
        raise InitError(f"{path}: `tool` is not a table")
    elif "agentlint" in tool:
        if not force:
            raise InitError(
                f"{path} already has a [tool.agentlint] table; `agentlint init --force` replaces it "
                "(its settings and comments are lost)"
            )
        del tool["agentlint"]
        replaced = True
    table.add(tomlkit.nl())  # a blank line between our last comment and what follows
    tool["agentlint"] = table
    new = tomlkit.dumps(doc)
    if new.endswith("\n\n") and not original.endswith("\n\n"):
        new = new.rstrip("\n") + "\n"
    at = new.find(text.splitlines()[1])  # our first comment: a blank line before the header
    header = new.rfind("[tool.agentlint]", 0, at)
    if header > 0 and not new[:header].endswith("\n\n"):
        new = new[:header] + ("\n" if new[:header].endswith("\n") else "\n\n") + new[header:]
    if "\r\n" in original:
        new = re.sub(r"(?<!\r)\n", "\r\n", new)  # a CRLF file stays CRLF, our table included
    atomic_write(str(path), new.encode("utf-8"), mode=_mode(path))
    return Written(path, False, replaced)


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None


