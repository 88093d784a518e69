"""The rule registry: every rule agentlint has, by code. Adding a rule is adding its
metadata to a module of ``catalog``, its class to one of the three tables below (a
project rule with the project facts it reads) and a docs page
(`python -m agentlint.report.rule_docs`).

Every run lists the rules to read its configuration, and a run answered from the cache
does no more than that: so the metadata comes from ``catalog`` and ``builtin`` alone,
and the modules that implement the rules (which import the analysis they run on) are
imported only when a run asks for the rule classes.
"""

from __future__ import annotations

import importlib  # the rule modules, imported on first use (see `_classes`)
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from agentlint.knowledge.maf import MAF_PACKAGE
from agentlint.rules.builtin import ENGINE_CODES, UNUSED_SUPPRESSION
from agentlint.rules.catalog import agents, cost, errors, guards, pre_ga, prompts, tools
from agentlint.rules.diagnostics import RuleMeta

if TYPE_CHECKING:
    from agentlint.rules.api import ModelRule, ProjectRule, Rule


class Entry(NamedTuple):
    """A rule as the registry knows it: its metadata, and where its class is."""

    meta: RuleMeta
    module: str
    """The dotted name of the module that implements it."""
    cls: str
    """The class's name in that module."""
    needs_text: bytes = b""
    """Bytes that every file the rule can report in holds (a per-file rule): a file
    without them does not load the rule's module to ask its ``prefilter``."""
    project_facts: frozenset[str] | None = None
    """The project facts (``facts.types.PROJECT_FACT_KEYS``) a project rule reads, of any
    file: a partial run whose edit left these unchanged keeps the rule's remembered
    findings (``engine.phase_parts``). None: it reads them all."""


_PER_FILE: tuple[Entry, ...] = (
    Entry(errors.SILENT_BROAD_EXCEPT, "agentlint.rules.silent_broad_except", "SilentBroadExcept", b"except"),
    Entry(pre_ga.PRE_GA_APPROVAL_NAME, "agentlint.rules.pre_ga_names", "PreGaApprovalName",
          MAF_PACKAGE.encode()),
    Entry(pre_ga.PRE_GA_AGENT_FRAMEWORK_NAME, "agentlint.rules.pre_ga_names", "PreGaAgentFrameworkName",
          MAF_PACKAGE.encode()),
)
"""Rules over one file's LibCST tree (one batched traversal)."""

_MODEL: tuple[Entry, ...] = (
    Entry(tools.MODEL_SUPPLIED_IDENTIFIER, "agentlint.rules.tool_boundary", "ModelSuppliedIdentifier"),
    Entry(tools.EXCEPTION_TEXT_TO_MODEL, "agentlint.rules.tool_boundary", "ExceptionTextToModel"),
    Entry(tools.APPROVAL_CHECKED_ONCE, "agentlint.rules.approval_loop", "ApprovalCheckedOnce"),
    Entry(guards.BOOLEAN_GUARD_VERDICT, "agentlint.rules.boolean_guard_verdict", "BooleanGuardVerdict"),
    Entry(agents.FIXED_STEP_IN_TOOL, "agentlint.rules.fixed_step_in_tool", "FixedStepInTool"),
)
"""Per-file rules over the agent model (no LibCST parse). A model rule with a
`wants_file(tree, facts, source, settings)` also runs on files without tool or agent vocabulary
that it asks for (the model is built for it alone)."""

_PROJECT: tuple[Entry, ...] = (
    Entry(cost.DUPLICATED_COST_FORMULA, "agentlint.rules.cost_formulas", "DuplicatedCostFormula",
          project_facts=frozenset({"cost_terms", "module"})),
    Entry(cost.CACHED_TOKENS_DOUBLE_COUNTED, "agentlint.rules.cost_semantics", "CachedTokensDoubleCounted",
          project_facts=frozenset({"cost_terms"})),
    Entry(cost.REASONING_TOKENS_MISCOUNTED, "agentlint.rules.cost_semantics", "ReasoningTokensMiscounted",
          project_facts=frozenset({"cost_terms"})),
    Entry(cost.COST_MAY_BE_NONE, "agentlint.rules.cost_values", "CostMayBeNone",
          project_facts=frozenset({"cost_nones"})),
    Entry(cost.HARD_CODED_PRICE, "agentlint.rules.cost_values", "HardCodedPrice",
          project_facts=frozenset({"cost_terms", "price_literals"})),
    Entry(cost.CALL_BYPASSES_COST_ACCOUNTING, "agentlint.rules.cost_calls", "CallBypassesCostAccounting",
          project_facts=frozenset({"model_calls", "module"})),
    Entry(prompts.PROMPT_ASSEMBLED_IN_MULTIPLE_PLACES, "agentlint.rules.prompt_assembly",
          "PromptAssembledInMultiplePlaces", project_facts=frozenset({"module", "prompt_blocks", "prompt_sites"})),
    Entry(agents.AGENT_AS_TOOL_TOO_DEEP, "agentlint.rules.agent_as_tool_depth", "AgentAsToolTooDeep",
          project_facts=frozenset({"agents"})),
    Entry(agents.NO_TOOLS_RECOGNISED, "agentlint.rules.no_tools_recognised", "NoToolsRecognised",
          project_facts=frozenset({"agents", "frameworks", "imports", "library_tools", "module", "tool_frameworks",
                                   "tool_uses", "tools"})),
    Entry(tools.IRREVERSIBLE_TOOL_WITHOUT_APPROVAL, "agentlint.rules.irreversible_tool",
          "IrreversibleToolWithoutApproval",
          project_facts=frozenset({"agents", "approval_wiring", "approved_names", "tools"})),
)
"""Rules over the facts of every file of a project."""

_KINDS: dict[str, tuple[Entry, ...]] = {"per-file": _PER_FILE, "model": _MODEL, "project": _PROJECT}
_ALL: tuple[Entry, ...] = (*_PER_FILE, *_MODEL, *_PROJECT)


@lru_cache(maxsize=None)
def _classes(kind: str) -> tuple[type, ...]:
    """The rule classes of ``kind``, in the table's order. The implementation modules are
    imported here, on the first call, not at the top of this module: they import the
    analysis (facts, agent model, regexes), which listing the rules never needs."""
    return tuple(_class(entry.module, entry.cls) for entry in _KINDS[kind])


@lru_cache(maxsize=None)
def _class(module: str, name: str) -> type:
    return getattr(importlib.import_module(module), name)


def per_file_rules(content: bytes | None = None) -> tuple[type[Rule], ...]:
    """The per-file rule classes; with ``content``, those whose ``Entry.needs_text`` the
    file holds, in the same order. The others' modules are not imported: a one-file run
    on a file that does not import Microsoft Agent Framework, say, loads none of the
    pre-GA rules' three modules."""
    if content is None:
        return _classes("per-file")
    return tuple(_class(entry.module, entry.cls) for entry in _PER_FILE if entry.needs_text in content)


def model_rules() -> tuple[type[ModelRule], ...]:
    return _classes("model")


def project_rules() -> tuple[type[ProjectRule], ...]:
    return _classes("project")


def project_rule(code: str) -> type[ProjectRule]:
    """The class of the project rule ``code``, its module imported alone (a partial run
    that runs one part of the project phase loads that rule only)."""
    entry = next(entry for entry in _PROJECT if entry.meta.code == code)
    return _class(entry.module, entry.cls)


def project_fact_reads() -> dict[str, frozenset[str] | None]:
    """Each project rule's code -> the project facts it reads (``Entry.project_facts``),
    in the table's order, without importing the rules' modules."""
    return {entry.meta.code: entry.project_facts for entry in _PROJECT}


@lru_cache(maxsize=None)
def codes_of(kind: str) -> frozenset[str]:
    """The codes of the rules of ``kind`` ("per-file", "model" or "project"), without
    importing their modules."""
    return frozenset(entry.meta.code for entry in _KINDS[kind])


_ENGINE_MODULES = {
    "AGL001": "agentlint.engine.analyze",
    "AGL002": "agentlint.engine.analyze",
    "AGL003": "agentlint.engine.analyze",
    "AGL900": "agentlint.engine.suppression",
}
"""Where the engine reports its own codes (their metadata is in ``builtin``)."""


def rule_module(code: str) -> str:
    """The dotted name of the module that reports ``code`` (not imported)."""
    for entry in _ALL:
        if entry.meta.code == code:
            return entry.module
    return _ENGINE_MODULES[code]


@lru_cache(maxsize=None)
def all_rules() -> dict[str, RuleMeta]:
    """Every code with its metadata, sorted by code."""
    metas = [*ENGINE_CODES, UNUSED_SUPPRESSION]
    metas += [entry.meta for entry in _ALL]
    return {m.code: m for m in sorted(metas, key=lambda m: m.code)}
