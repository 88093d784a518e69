"""Analysing one file: read its facts from the ``ast`` tree, build its agent model and run
the model rules on it, then the LibCST pass for the selected rules whose prefilter
matches (``cst_pass``). Never raises: problems become diagnostics.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import replace
from functools import lru_cache
from typing import Any, Sequence

from agentlint.engine.cache import Cache, facts_only_key
from agentlint.engine.collector import collections_paused
from agentlint.engine.config import Settings
from agentlint.engine.cst_pass import run_cst_rules, run_on_statements, too_deep
from agentlint.engine.results import FileResult, project_phase_wanted, unreadable
from agentlint.engine.suppression import find_suppressions
from agentlint.facts import notebooks
from agentlint.facts.agents.inventory import file_model_calls
from agentlint.facts.agents.model import build as build_model
from agentlint.facts.agents.model import tools_of, worth_modelling
from agentlint.facts.agents.receivers import Knowledge, frameworks_of
from agentlint.facts.module import extract_facts, import_facts
from agentlint.facts.module_names import module_name_for
from agentlint.facts.source import decode, parse_lowered, too_large
from agentlint.facts.types import FileFacts, ToolFact
from agentlint.rules import registry
from agentlint.rules.api import OPTIONAL_FACTS, ModelContext, Region
from agentlint.rules.builtin import (
    INTERNAL_ERROR,
    SYNTAX_ERROR,
    crash_diagnostic,
    engine_diagnostic,
)
from agentlint.rules.diagnostics import Diagnostic


RECURSION_LIMIT = 10_000
"""What the tree walks may need: CPython compiles an `if`/`elif` chain of a thousand
branches, a tree as deep, which Python's default limit of 1,000 frames cannot walk
(Python-to-Python calls do not use the C stack, so the higher limit is safe)."""


def _deep_enough() -> None:
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


def analyze_content(path: str, content: bytes, settings: Settings, *, all_facts: bool = True) -> FileResult:
    """Analyse one file's bytes. Never raises: problems become diagnostics.
    ``all_facts=False``: nothing keeps the facts beyond this run (no cache, no explain),
    so those that no selected rule reads are not extracted (``ProjectRule.reads``), nor
    those only explain reads (``extract_facts(graph=False)``)."""
    _deep_enough()
    with collections_paused():
        if notebooks.is_notebook(path):
            return _analyze_notebook(path, content, settings, all_facts)
        return _analyze_python(path, content, settings, all_facts)


def _analyze_notebook(path: str, content: bytes, settings: Settings, all_facts: bool = True) -> FileResult:
    """A notebook is analysed as the Python of its code cells (``facts.notebooks``), in virtual
    lines; ``finalize`` maps the findings to cells. Outputs (images) do not count
    towards `max-file-size`, only the code does."""
    try:
        source = notebooks.read(content)
    except notebooks.NotebookError as exc:
        return unreadable(path, str(exc))
    result = _analyze_python(path, source.text.encode("utf-8"), settings, all_facts)
    if not result.facts.complete and any(d.code == SYNTAX_ERROR.code for d in result.diagnostics):
        # One cell that does not parse costs that cell only (IPython compiles cells apart).
        source, broken = notebooks.drop_broken_cells(source, lambda cell: parse_lowered(cell, path))
        if broken:
            result = _analyze_python(path, source.text.encode("utf-8"), settings, all_facts)
            found = tuple(
                engine_diagnostic(
                    SYNTAX_ERROR, path, f"Syntax error in this cell, so it was not checked (the other cells were): {b.message}",
                    b.line, b.column,
                )
                for b in broken
            )
            result = replace(result, diagnostics=found + result.diagnostics)
    return replace(result, cells=source.cells.ranges)


def _analyze_python(path: str, content: bytes, settings: Settings, all_facts: bool = True) -> FileResult:
    if len(content) > settings.max_file_size:
        return unreadable(path, too_large(len(content), settings.max_file_size))
    if b"\0" in content:
        return unreadable(path, "file contains NUL bytes (is it binary?)")
    try:
        text = decode(content)
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        detail = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
        where = f" at byte {exc.start}" if isinstance(exc, UnicodeDecodeError) else ""
        return unreadable(path, f"not valid UTF-8 or declared encoding ({detail}{where}); save it as UTF-8")

    diagnostics: list[Diagnostic] = []
    syntax_error: Diagnostic | None = None
    tree: ast.Module | None = None
    # With no project or model rule selected, the facts only serve the per-file rules:
    # the imports where one may report, and the tools where such a rule reads them.
    project = project_phase_wanted(settings)
    # the per-file rules whose text test the file passes (most files hold no candidate)
    worded = [
        r for r in registry.per_file_rules(content)
        if r.meta.code in settings.enabled and (r.prefilter is None or r.prefilter.search(content))
    ]
    read = OPTIONAL_FACTS if all_facts else _read_by_selected(settings.enabled)
    try:
        tree = parse_lowered(text, path)
        if project:
            facts = extract_facts(
                path, tree, text, cost_facts="cost" in read, prompt_facts="prompts" in read, graph=all_facts
            )
        else:
            facts = import_facts(path, tree) if worded else FileFacts(module=module_name_for(path))
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None) or 1
        col = getattr(exc, "offset", None) or 1
        msg = getattr(exc, "msg", None) or str(exc)
        syntax_error = engine_diagnostic(SYNTAX_ERROR, path, f"Syntax error: {msg}", line, col)
        facts = FileFacts(module=module_name_for(path), complete=False)
    except (RecursionError, MemoryError):
        syntax_error = engine_diagnostic(SYNTAX_ERROR, path, "Code is nested too deeply to analyse")
        facts = FileFacts(module=module_name_for(path), complete=False)
    except Exception as exc:  # a bug in the facts extractor
        diagnostics.append(
            engine_diagnostic(INTERNAL_ERROR, path, f"Fact extraction crashed: {type(exc).__name__}: {exc}")
        )
        facts = FileFacts(module=module_name_for(path), complete=False)

    rules = [
        r for r in worded
        if tree is None or not facts.complete or not CST_PREFILTER or _needs_cst(r, tree, facts, settings)
    ]
    tools_when_asked = None
    if tree is not None and facts.complete and project:
        facts, found = _agent_model(path, text, content, tree, facts, settings, model_calls="model_calls" in read,
                                    sinks="sinks" in read)
        diagnostics += found
    elif tree is not None and facts.complete and any(r.reads_agents for r in rules):
        tools_when_asked = _ToolsWhenAsked(path, text, content, tree, facts, settings)
    if syntax_error is not None and too_deep(syntax_error):
        # LibCST's native parser can overflow its stack on such input: never feed it.
        diagnostics.append(syntax_error)
    elif rules or syntax_error is not None:
        # A syntax error by the running Python's `ast` may still be valid for LibCST
        # (newer syntax than this interpreter knows): LibCST has the last word.
        found = None
        if syntax_error is None and tree is not None and facts.complete and CST_PREFILTER:
            indexes = _statements(rules, tree, facts, settings)
            if indexes:
                found = run_on_statements(path, text, rules, settings, facts, tree, indexes, tools_when_asked)
        if found is None:
            found = run_cst_rules(path, text, rules, settings, syntax_error, facts, tree,
                                  find_tools=tools_when_asked) or []
        diagnostics += found
    if tools_when_asked is not None:
        diagnostics += tools_when_asked.problems
    return FileResult(path, tuple(diagnostics), facts, find_suppressions(text))


@lru_cache(maxsize=8)
def _read_by_selected(enabled: frozenset[str]) -> frozenset[str]:
    """The optional facts (``ProjectRule.reads``) that the selected project rules read."""
    return frozenset().union(*(r.reads for r in registry.project_rules() if r.meta.code in enabled))


@lru_cache(maxsize=8)
def agent_knowledge(entries: tuple) -> Knowledge:
    return Knowledge.from_settings(dict(entries))


def facts_only(path: str, text: str, settings: Settings) -> FileFacts:
    """A file's facts without running any rule (the other files of a partial run):
    the same parse (newer syntax lowered) and the same agent model as a full analysis."""
    _deep_enough()
    with collections_paused():
        try:
            tree = parse_lowered(text, path)
            facts = extract_facts(path, tree, text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return FileFacts(module=module_name_for(path), complete=False)
        facts, _ = _agent_model(path, text, text.encode("utf-8", "surrogatepass"), tree, facts, settings, rules=False)
        return facts


def _agent_model(
    path: str, text: str, content: bytes, tree: ast.Module, facts: FileFacts, settings: Settings,
    rules: bool = True, model_calls: bool = True, sinks: bool = True,
) -> tuple[FileFacts, list[Diagnostic]]:
    """The file's agent model: its tools and agents go into the facts, and the model
    rules (AGL201, AGL202, AGL301, AGL501) run on it. Files without tool or agent
    vocabulary are not modelled, unless a selected model rule asks for the file
    (``wants_file``, see ``registry.model_rules``): then the model is built for those
    rules alone and the facts stay as they are. The inventory of model calls is taken
    only with ``model_calls``, the tools' irreversible calls and the approvals only with
    ``sinks`` (a project rule reads them)."""
    knowledge = agent_knowledge(settings.knowledge)
    frameworks = frameworks_of(facts)
    enabled = [cls for cls in registry.model_rules() if cls.meta.code in settings.enabled] if rules else []
    if not worth_modelling(content, knowledge):
        plain = replace(facts, frameworks=frameworks) if frameworks else facts
        if frameworks and model_calls:
            # no tool or agent here, but model calls may be (the inventory, AGL106)
            try:
                calls = file_model_calls(tree, facts, text, knowledge)
            except RecursionError:
                calls = ()
            except Exception as exc:  # a bug in the agent model: say so, lose nothing else
                return plain, [engine_diagnostic(INTERNAL_ERROR, path, f"Agent model crashed: {type(exc).__name__}: {exc}")]
            if calls:
                plain = replace(plain, model_calls=calls)
        wanting = [cls for cls in enabled if _wants(cls, tree, facts, text, settings)]
        if not wanting:
            return plain, []
        try:
            model = build_model(tree, facts, text, knowledge)
        except RecursionError:
            return plain, []
        except Exception as exc:  # a bug in the agent model: say so, lose nothing else
            return plain, [engine_diagnostic(INTERNAL_ERROR, path, f"Agent model crashed: {type(exc).__name__}: {exc}")]
        return plain, _run_model_rules(wanting, path, text, settings, model)
    try:
        model = build_model(tree, facts, text, knowledge)
        facts = replace(facts, **model.fact_fields(model_calls, sinks))
    except RecursionError:
        return facts, []
    except Exception as exc:  # a bug in the agent model: say so, lose nothing else
        return facts, [engine_diagnostic(INTERNAL_ERROR, path, f"Agent model crashed: {type(exc).__name__}: {exc}")]
    return facts, _run_model_rules(enabled, path, text, settings, model)


class _ToolsWhenAsked:
    """The file's tools, for per-file rules that read them (AGL302 names the tool a
    handler is in) in a run without model or project rules, found the first time a rule
    asks (``RuleContext.find_tools``): most files a rule parses hold no finding, and the
    tools come from the agent model. Its tool finder reads the imports alone, so neither
    the whole facts walk nor the rest of the model (agents, tool uses, sinks, model
    calls) is needed (``model.tools_of``)."""

    def __init__(self, path: str, text: str, content: bytes, tree: ast.Module, facts: FileFacts,
                 settings: Settings) -> None:
        self._args = (path, text, content, tree, facts, settings)
        self._tools: tuple[ToolFact, ...] | None = None
        self.problems: list[Diagnostic] = []
        """The model's crash, said once, when finding the tools crashed."""

    def __call__(self) -> tuple[ToolFact, ...]:
        if self._tools is None:
            self._tools = self._find()
        return self._tools

    def _find(self) -> tuple[ToolFact, ...]:
        path, text, content, tree, facts, settings = self._args
        knowledge = agent_knowledge(settings.knowledge)
        if not worth_modelling(content, knowledge):
            return ()
        try:
            return tools_of(tree, facts, text, knowledge)
        except RecursionError:
            return ()
        except Exception as exc:  # a bug in the agent model: say so, lose nothing else
            self.problems.append(
                engine_diagnostic(INTERNAL_ERROR, path, f"Agent model crashed: {type(exc).__name__}: {exc}"))
            return ()


CST_PREFILTER = True
"""Whether the ``ast`` tree decides which LibCST rules a file is parsed for (``Rule.needs_cst``);
off only to prove that the decision changes no finding."""


def _statements(rules: list, tree: ast.Module, facts: FileFacts, settings: Settings) -> list[Region] | None:
    """The top-level statements every rule to run can report in (``Rule.cst_regions``:
    a class or function with some members, when no rule needs all of it), or None when
    one of them needs the whole module."""
    members: dict[int, dict | None] = {}
    for cls in rules:
        try:
            found = cls.cst_regions(tree, facts, settings.rule_settings.get(cls.meta.code, {}))
        except Exception:
            return None  # the whole module, where the rule reports its own crash
        if found is None:
            return None
        _merge(members, found)
    return _regions(members)


def _merge(members: dict, regions: "Sequence[Region]") -> dict:
    """``regions`` added to ``members`` (index -> None for the whole statement, else the
    same kind of dict for the members of its body that are kept)."""
    for region in regions:
        if isinstance(region, int):
            members[region] = None
        elif region[0] not in members:
            members[region[0]] = _merge({}, region[1])
        elif members[region[0]] is not None:
            _merge(members[region[0]], region[1])
    return members


def _regions(members: dict) -> "list[Region]":
    return [index if inner is None else (index, tuple(_regions(inner))) for index, inner in sorted(members.items())]


def _needs_cst(cls: type, tree: ast.Module, facts: FileFacts, settings: Settings) -> bool:
    try:
        return bool(cls.needs_cst(tree, facts, settings.rule_settings.get(cls.meta.code, {})))
    except Exception:
        return True  # the LibCST rule has the last word, and reports its own crash


def _wants(cls: type, tree: ast.Module, facts: FileFacts, text: str, settings: Settings) -> bool:
    try:
        return bool(cls.wants_file(tree, facts, text, settings.rule_settings.get(cls.meta.code, {})))
    except RecursionError:
        return False
    except Exception:
        return True  # let the rule itself run and report its crash


def _run_model_rules(classes: list, path: str, text: str, settings: Settings, model: Any) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for cls in classes:
        try:
            rule = cls(ModelContext(path, text, settings.rule_settings.get(cls.meta.code, {}), model))
            found += rule.check()
        except Exception as exc:
            found.append(crash_diagnostic(path, cls.meta, exc))
    return found


def facts_only_json(path: str, content: bytes, key: str, settings: Settings, cache: "Cache | None") -> dict[str, Any]:
    """A file's facts without its rules (``facts_only``), stored as a facts-only cache
    entry; a file that cannot be read as code gets empty, incomplete facts."""
    facts = None
    crash = None
    broken: list = []
    if len(content) <= settings.max_file_size and b"\0" not in content:
        try:
            text = notebooks.read(content).text if notebooks.is_notebook(path) else decode(content)
            facts = facts_only(path, text, settings)
            if not facts.complete and notebooks.is_notebook(path):
                recovered, broken = notebooks.drop_broken_cells(notebooks.read(content), lambda cell: parse_lowered(cell, path))
                facts = facts_only(path, recovered.text, settings)
        except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError, MemoryError, notebooks.NotebookError):
            facts = None
        except Exception as exc:  # a bug in the facts extractor: said (AGL003), the run goes on
            facts = None
            crash = f"Fact extraction crashed: {type(exc).__name__}: {exc}"
    data = (facts or FileFacts(module=module_name_for(path), complete=False)).to_json()
    if crash is not None:
        data["crash"] = crash
    if broken:
        data["broken_cells"] = [b.cell for b in broken]  # explain says they were left out
    if cache is not None:
        cache.put(facts_only_key(key), {"facts": data})
    return data


