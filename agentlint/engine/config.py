"""Configuration in small named steps: locate -> read -> validate -> resolve.

``[tool.agentlint]`` in the nearest ``pyproject.toml`` that has that table, or the top
level of an ``agentlint.toml`` (which wins when both sit in one folder). CLI options
override the file. Every error names the file and the key and suggests the closest
valid spelling.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from agentlint import __version__
from agentlint.facts.types import FACTS_VERSION
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.builtin import ENGINE_CODES
from agentlint.rules.diagnostics import RuleMeta
from agentlint.rules.lazy import lazy_module

# only a bad key (a suggestion) or `per-file-ignores` need these
difflib = lazy_module("difflib")
pathspec = lazy_module("pathspec")
# only a configuration file needs this: most projects' pyproject.toml never mentions
# agentlint (``config_in`` tests the text first), and a run without one never parses TOML
tomllib = lazy_module("tomllib" if sys.version_info >= (3, 11) else "tomli")

OUTPUT_FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab")
DEFAULT_EXCLUDES = (
    ".agentlint_cache", ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg",
    ".ipynb_checkpoints", ".mypy_cache", ".nox", ".pants.d", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
    "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv",
)
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
RESULTS_VERSION = 3
"""What a cached per-file result holds besides the facts (2: `# noqa` directives read
with ruff's grammar, invalid ones kept); part of the cache key."""


class ConfigError(Exception):
    """A configuration problem, located: which file, which key."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None) -> None:
        self.path = path
        self.key = key
        where = ": ".join(p for p in (path, f"`{key}`" if key else None) if p)
        super().__init__(f"{where}: {message}" if where else message)


def _suggest(word: str, options: Iterable[str]) -> str:
    match = difflib.get_close_matches(word, list(options), n=1, cutoff=0.5)
    return f"; did you mean `{match[0]}`?" if match else ""


# -- the schema: key -> (type description, checker) ------------------------------------


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


TEST_MODES = ("report", "note", "skip")
DEFAULT_TESTS = (("AGL1", "skip"), ("AGL2", "skip"), ("AGL301", "skip"), ("AGL4", "skip"), ("AGL5", "skip"))
"""Findings in test code by default: reported, except duplicated cost formulas and
prompts (AGL1, AGL4), whose test doubles are not the product's copies, the tool rules
(AGL2, AGL5): a tool defined in a test is a test double, not a tool the product's model
calls, and bool guard verdicts (AGL301), whose test stubs and probes are not the
product's guards."""


def _is_tests_table(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) and v in TEST_MODES for v in value.values())


_KEYS: dict[str, tuple[str, Any]] = {
    "select": ("a list of rule codes or prefixes", _is_str_list),
    "ignore": ("a list of rule codes or prefixes", _is_str_list),
    "extend-select": ("a list of rule codes or prefixes", _is_str_list),
    "per-file-ignores": (
        "a table of glob = [codes]",
        lambda v: isinstance(v, dict) and all(_is_str_list(x) for x in v.values()),
    ),
    "exclude": ("a list of glob patterns", _is_str_list),
    "extend-exclude": ("a list of glob patterns", _is_str_list),
    "respect-gitignore": ("true or false", lambda v: isinstance(v, bool)),
    "output-format": (f"one of {', '.join(OUTPUT_FORMATS)}", lambda v: v in OUTPUT_FORMATS),
    "cache-dir": ("a path", lambda v: isinstance(v, str)),
    "max-file-size": ("a positive integer (bytes)", lambda v: type(v) is int and v > 0),
    "rules": ("a table of per-rule settings", lambda v: isinstance(v, dict)),
    "project-roots": ("a list of folders (relative to the configuration file)", _is_str_list),
    # framework knowledge the user adds (see docs/frameworks.md)
    "tool-decorators": ("a list of dotted decorator names (`myapp.tools.register_tool`)", _is_str_list),
    "tool-base-classes": ("a list of tool base classes (`myapp.base.BaseTool` or `myapp.base.BaseTool._execute`)", _is_str_list),
    "injected-types": ("a list of parameter types the framework fills (`myapp.context.TurnContext`)", _is_str_list),
    "injected-names": ("a list of parameter names the framework fills", _is_str_list),
    "llm-call-patterns": ("a list of calls that reach a model (`myapp.llm.ask`, `*.generate_text`)", _is_str_list),
    "irreversible-callables": (
        "a list of calls whose effect cannot be taken back (`myapp.billing.charge`, `*.send_invoice`)", _is_str_list),
    "docs-url": (
        "an http(s) URL of the rule pages with `{code}` where the rule code goes "
        "(`https://example.org/agentlint/rules/{code}.md`)",
        lambda v: isinstance(v, str) and bool(_DOCS_URL.match(v)) and "{code}" in v,
    ),
    "tests": (
        "a table of rule code, family prefix (`AGL1`) or `default` = \"report\", \"note\" or \"skip\" "
        "(what to do with findings in test code)",
        _is_tests_table,
    ),
}

_DOCS_URL = lazy_compile(r"^https?://[^\s/]+/\S*$")

KNOWLEDGE_KEYS = ("tool-decorators", "tool-base-classes", "injected-types", "injected-names", "llm-call-patterns",
                  "irreversible-callables")
"""Top-level keys that extend the framework tables (they change facts: part of the cache key)."""


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, resolved. Picklable, so workers get a copy."""

    root: str
    """Folder the config file sits in (or the working folder): globs are relative to it."""
    config_path: str | None = None
    enabled: frozenset[str] = frozenset()
    rule_settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    output_format: str = "full"
    cache_dir: str = ".agentlint_cache"
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    project_roots: tuple[str, ...] = ()
    """`project-roots`: folders (absolute) that bound the projects of the project-wide
    rules; empty: detected from project markers (see ``boundaries``)."""
    tests: tuple[tuple[str, str], ...] = DEFAULT_TESTS
    """What happens to findings in test code: (selector, mode), the longest selector
    matching a code wins; `default` matches every code."""
    knowledge: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The framework knowledge added in config: (key, values) for ``KNOWLEDGE_KEYS``."""
    docs_url: str | None = None
    """`docs-url`: where the rule pages are published, `{code}` standing for the code;
    None: reports link to no page (SARIF ``helpUri``, the JSON ``url``)."""

    def fingerprint(self) -> str:
        """What per-file results depend on; part of the cache key."""
        payload = {
            "version": __version__,
            "facts": FACTS_VERSION,
            "results": RESULTS_VERSION,
            "enabled": sorted(self.enabled),
            "rules": {k: dict(v) for k, v in sorted(self.rule_settings.items())},
            "max-file-size": self.max_file_size,
            "knowledge": [[k, list(v)] for k, v in self.knowledge],
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    def test_mode(self, code: str) -> str:
        """"report", "note" or "skip" for a finding of ``code`` in test code."""
        best, mode = -1, "report"
        for selector, value in self.tests:
            if selector == "default" and best < 0:
                best, mode = 0, value
            elif selector != "default" and code.startswith(selector) and len(selector) > best:
                best, mode = len(selector), value
        return mode

    def ignored_for(self, relpath: str) -> frozenset[str]:
        """Codes switched off for this file by `per-file-ignores`."""
        if not self.per_file_ignores:
            return frozenset()
        out: set[str] = set()
        for pattern, codes in self.per_file_ignores:
            spec = pathspec.GitIgnoreSpec.from_lines([pattern])
            if spec.match_file(relpath) or spec.match_file(os.path.basename(relpath)):
                out |= codes
        return frozenset(out)


# -- locate --------------------------------------------------------------------------


def locate(start: Path) -> Path | None:
    """The nearest agentlint.toml, or pyproject.toml with a [tool.agentlint] table."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        found = config_in(candidate)
        if found is not None:
            return found
    return None


def config_in(folder: Path) -> Path | None:
    """The configuration file of ``folder`` itself: its agentlint.toml, else its
    pyproject.toml when that has a [tool.agentlint] table; None when it has neither."""
    own = folder / "agentlint.toml"
    if own.is_file():
        return own
    pyproject = folder / "pyproject.toml"
    if not pyproject.is_file():
        return None
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if "agentlint" not in text and "[tool]" not in text:
        return None  # cheap: most pyproject.toml files never mention us
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        if _MENTIONS_TABLE.search(text):
            # the file that would hold the configuration: dropping it would be wrong
            raise ConfigError(f"invalid TOML: {exc}", path=str(pyproject)) from None
        return None  # an unrelated broken pyproject is not ours to judge
    tool = data.get("tool")
    if isinstance(tool, dict) and "agentlint" in tool:
        return pyproject
    return None


_MENTIONS_TABLE = lazy_compile(r"^\s*\[\s*tool\s*\.\s*agentlint\b|^\s*tool\s*\.\s*agentlint\b|\[tool\]", re.M)
"""A pyproject.toml that says `[tool.agentlint...]` (or a bare `[tool]` table)."""


# -- read ----------------------------------------------------------------------------


def read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file: {exc}", path=str(path)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", path=str(path)) from None
    tool = data.get("tool")
    if path.name == "pyproject.toml" and tool is not None and not isinstance(tool, dict):
        raise ConfigError("`tool` must be a table ([tool.agentlint] holds the settings)", path=str(path))
    if path.name == "pyproject.toml":
        table = (tool or {}).get("agentlint", {})
        if not isinstance(table, dict):
            raise ConfigError("[tool.agentlint] must be a table", path=str(path))
        return table
    if isinstance(tool, dict) and "agentlint" in tool:
        table = tool["agentlint"]
        if not isinstance(table, dict):
            raise ConfigError("[tool.agentlint] must be a table", path=str(path))
        return table
    return data


# -- validate ------------------------------------------------------------------------


def validate(table: Mapping[str, Any], rules: Mapping[str, RuleMeta], path: str) -> None:
    for key, value in table.items():
        if key not in _KEYS:
            raise ConfigError(f"unknown key{_suggest(key, _KEYS)}", path=path, key=key)
        what, ok = _KEYS[key]
        if not ok(value):
            raise ConfigError(f"must be {what}, got {value!r}", path=path, key=key)
    for key in ("select", "ignore", "extend-select"):
        for selector in table.get(key, ()):
            resolve_selector(selector, rules, path=path, key=key)
    for pattern, codes in table.get("per-file-ignores", {}).items():
        for selector in codes:
            resolve_selector(selector, rules, path=path, key=f"per-file-ignores.{pattern}")
    for code, options in table.get("rules", {}).items():
        key = f"rules.{code}"
        meta = rules.get(code.upper()) or next((m for m in rules.values() if m.name == code), None)
        if meta is None:
            raise ConfigError(f"unknown rule{_suggest(code, list(rules) + [m.name for m in rules.values()])}", path=path, key=key)
        if not isinstance(options, dict):
            raise ConfigError("must be a table of settings", path=path, key=key)
        for name, value in options.items():
            if name not in meta.settings:
                hint = _suggest(name, meta.settings) or (
                    f"; {meta.code} has no settings" if not meta.settings else f"; valid: {', '.join(meta.settings)}"
                )
                raise ConfigError(f"unknown setting{hint}", path=path, key=f"{key}.{name}")
            _check_like(value, meta.settings[name], path, f"{key}.{name}")


def _check_like(value: Any, default: Any, path: str, key: str) -> None:
    if isinstance(default, list):
        if not _is_str_list(value):
            raise ConfigError(f"must be a list of strings, got {value!r}", path=path, key=key)
    elif isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"must be true or false, got {value!r}", path=path, key=key)
    elif isinstance(default, int):
        if type(value) is not int:
            raise ConfigError(f"must be an integer, got {value!r}", path=path, key=key)
        if default >= 0 > value:
            raise ConfigError(f"must be 0 or more, got {value!r}", path=path, key=key)
    elif isinstance(default, float):
        if type(value) not in (int, float):
            raise ConfigError(f"must be a number, got {value!r}", path=path, key=key)
        if 0.0 <= default <= 1.0 and not 0.0 <= value <= 1.0:
            raise ConfigError(f"must be between 0 and 1, got {value!r}", path=path, key=key)
    elif isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"must be a string, got {value!r}", path=path, key=key)


def resolve_selector(
    selector: str, rules: Mapping[str, RuleMeta], *, path: str | None = None, key: str | None = None
) -> frozenset[str]:
    """Codes a selector stands for: `ALL`, a prefix (`AGL`, `AGL3`), a code, or a rule name.
    Prefixes select only rules that are on by default; opt-in rules need their code."""
    wanted = selector.strip().upper()
    if wanted == "ALL":
        return frozenset(c for c, m in rules.items() if m.default_selected)
    if wanted in rules:
        return frozenset({wanted})
    by_name = {m.name: c for c, m in rules.items()}
    if selector in by_name:
        return frozenset({by_name[selector]})
    if wanted.startswith("AGL") and len(wanted) < 6:
        matched = frozenset(c for c, m in rules.items() if c.startswith(wanted) and m.default_selected)
        if matched:
            return matched
    hint = _suggest(wanted, list(rules) + ["ALL"]) or " (see `agentlint rule --all`)"
    raise ConfigError(f"unknown rule code or prefix `{selector}`{hint}", path=path, key=key)


# -- resolve -------------------------------------------------------------------------


def _project_roots(values: Sequence[str], root: Path, where: str | None) -> tuple[str, ...]:
    out = []
    for value in values:
        folder = (root / value).resolve()
        if not folder.is_dir():
            raise ConfigError(f"`{value}` is not a folder (relative to {root})", path=where, key="project-roots")
        out.append(str(folder))
    return tuple(out)


@dataclass
class Overrides:
    """What the command line says; None means "not given"."""

    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    extend_select: Sequence[str] | None = None
    exclude: Sequence[str] | None = None
    extend_exclude: Sequence[str] | None = None
    respect_gitignore: bool | None = None
    output_format: str | None = None
    cache_dir: str | None = None


def load_settings(
    *,
    start: Path,
    config_file: Path | None = None,
    isolated: bool = False,
    overrides: Overrides | None = None,
    rules: Mapping[str, RuleMeta],
) -> Settings:
    """One configuration for a whole run: ``config_file``, none (``isolated``), or the
    nearest one at or above ``start``. `check` finds the nearest configuration of each
    file instead (``engine.resolver``)."""
    path: Path | None = None
    if config_file is not None:
        path = config_file
        if not path.is_file():
            raise ConfigError("config file not found", path=str(path))
    elif not isolated:
        path = locate(start)
    return settings_from(path, overrides=overrides, rules=rules)


def settings_from(
    path: Path | None,
    *,
    overrides: Overrides | None = None,
    rules: Mapping[str, RuleMeta],
) -> Settings:
    """The settings of the configuration file ``path`` (None: the defaults, rooted at
    the working folder), with the command line's ``overrides`` on top."""
    overrides = overrides or Overrides()
    table: dict[str, Any] = {}
    if path is not None:
        table = read(path)
        validate(table, rules, str(path))
    root = path.parent.resolve() if path is not None else Path.cwd().resolve()
    where = str(path) if path else None

    def selectors(key: str, given: Sequence[str] | None, source: str | None) -> frozenset[str]:
        out: set[str] = set()
        for s in given or ():
            out |= resolve_selector(s, rules, path=source, key=key)
        return frozenset(out)

    cli = "command line"
    if overrides.select is not None:
        enabled = selectors("--select", overrides.select, cli)
    elif "select" in table:
        enabled = selectors("select", table["select"], where)
    else:
        enabled = frozenset(c for c, m in rules.items() if m.default_selected)
    enabled |= selectors("extend-select", table.get("extend-select"), where)
    enabled |= selectors("--extend-select", overrides.extend_select, cli)
    enabled -= selectors("ignore", table.get("ignore"), where)
    enabled -= selectors("--ignore", overrides.ignore, cli)
    enabled |= {m.code for m in ENGINE_CODES}

    rule_settings: dict[str, dict[str, Any]] = {}
    configured = {
        (rules[k.upper()].code if k.upper() in rules else next(c for c, m in rules.items() if m.name == k)): v
        for k, v in table.get("rules", {}).items()
    }
    for code, meta in rules.items():
        if meta.settings:
            rule_settings[code] = {**meta.settings, **configured.get(code, {})}

    per_file = tuple(
        (pattern, selectors(f"per-file-ignores.{pattern}", codes, where))
        for pattern, codes in table.get("per-file-ignores", {}).items()
    )
    output_format = overrides.output_format or table.get("output-format", "full")
    cache_dir = overrides.cache_dir or table.get("cache-dir", ".agentlint_cache")
    if not os.path.isabs(cache_dir):
        cache_dir = str(root / cache_dir) if overrides.cache_dir is None else os.path.abspath(cache_dir)
    respect = overrides.respect_gitignore
    return Settings(
        root=str(root),
        config_path=where,
        enabled=frozenset(enabled),
        rule_settings=rule_settings,
        per_file_ignores=per_file,
        exclude=tuple(overrides.exclude if overrides.exclude is not None else table.get("exclude", DEFAULT_EXCLUDES)),
        extend_exclude=tuple([*table.get("extend-exclude", ()), *(overrides.extend_exclude or ())]),
        respect_gitignore=table.get("respect-gitignore", True) if respect is None else respect,
        output_format=output_format,
        cache_dir=cache_dir,
        max_file_size=table.get("max-file-size", DEFAULT_MAX_FILE_SIZE),
        project_roots=_project_roots(table.get("project-roots", ()), root, where),
        knowledge=tuple((k, tuple(table[k])) for k in KNOWLEDGE_KEYS if table.get(k)),
        tests=tuple({**dict(DEFAULT_TESTS), **{k.upper() if k != "default" else k: v for k, v in table.get("tests", {}).items()}}.items()),
        docs_url=table.get("docs-url"),
    )
