"""The rule registry: every rule agentlint has, by code. Adding a rule is adding its class
to one of the three tuples below (and a docs page, `python -m agentlint.report.rule_docs`).

Importing the rule modules is cheap (LibCST comes lazily, see ``lazy``); every run lists
the rules anyway to read its configuration.
"""

from __future__ import annotations

from functools import lru_cache

from agentlint.rules.agent_as_tool_depth import AgentAsToolTooDeep
from agentlint.rules.approval_loop import ApprovalCheckedOnce
from agentlint.rules.api import ModelRule, ProjectRule, Rule
from agentlint.rules.boolean_guard_verdict import BooleanGuardVerdict
from agentlint.rules.builtin import ENGINE_CODES, UNUSED_SUPPRESSION
from agentlint.rules.cost_calls import CallBypassesCostAccounting
from agentlint.rules.cost_formulas import DuplicatedCostFormula
from agentlint.rules.cost_semantics import (
    CachedTokensDoubleCounted,
    ReasoningTokensMiscounted,
)
from agentlint.rules.cost_values import CostMayBeNone, HardCodedPrice
from agentlint.rules.diagnostics import RuleMeta
from agentlint.rules.fixed_step_in_tool import FixedStepInTool
from agentlint.rules.irreversible_tool import IrreversibleToolWithoutApproval
from agentlint.rules.no_tools_recognised import NoToolsRecognised
from agentlint.rules.pre_ga_names import PreGaAgentFrameworkName, PreGaApprovalName
from agentlint.rules.prompt_assembly import PromptAssembledInMultiplePlaces
from agentlint.rules.silent_broad_except import SilentBroadExcept
from agentlint.rules.tool_boundary import ExceptionTextToModel, ModelSuppliedIdentifier

PER_FILE_RULES: tuple[type[Rule], ...] = (SilentBroadExcept, PreGaApprovalName, PreGaAgentFrameworkName)
"""Rules over one file's LibCST tree (one batched traversal)."""

MODEL_RULES: tuple[type[ModelRule], ...] = (
    ModelSuppliedIdentifier, ExceptionTextToModel, ApprovalCheckedOnce, BooleanGuardVerdict, FixedStepInTool,
)
"""Per-file rules over the agent model (no LibCST parse). A model rule with a
`wants_file(tree, facts, source, settings)` also runs on files without tool or agent vocabulary
that it asks for (the model is built for it alone)."""

PROJECT_RULES: tuple[type[ProjectRule], ...] = (
    DuplicatedCostFormula,
    CachedTokensDoubleCounted,
    ReasoningTokensMiscounted,
    CostMayBeNone,
    HardCodedPrice,
    CallBypassesCostAccounting,
    PromptAssembledInMultiplePlaces,
    AgentAsToolTooDeep,
    NoToolsRecognised,
    IrreversibleToolWithoutApproval,
)
"""Rules over the facts of every file of a project."""


def per_file_rules() -> tuple[type[Rule], ...]:
    return PER_FILE_RULES


def model_rules() -> tuple[type[ModelRule], ...]:
    return MODEL_RULES


def project_rules() -> tuple[type[ProjectRule], ...]:
    return PROJECT_RULES


_ENGINE_MODULES = {
    "AGL001": "agentlint.engine.analyze",
    "AGL002": "agentlint.engine.analyze",
    "AGL003": "agentlint.engine.analyze",
    "AGL900": "agentlint.engine.suppression",
}
"""Where the engine reports its own codes (their metadata is in ``builtin``)."""


def rule_module(code: str) -> str:
    """The dotted name of the module that reports ``code``."""
    for cls in (*PER_FILE_RULES, *MODEL_RULES, *PROJECT_RULES):
        if cls.meta.code == code:
            return cls.__module__
    return _ENGINE_MODULES[code]


@lru_cache(maxsize=None)
def all_rules() -> dict[str, RuleMeta]:
    """Every code with its metadata, sorted by code."""
    metas = [*ENGINE_CODES, UNUSED_SUPPRESSION]
    metas += [r.meta for r in PER_FILE_RULES]
    metas += [r.meta for r in MODEL_RULES]
    metas += [r.meta for r in PROJECT_RULES]
    return {m.code: m for m in sorted(metas, key=lambda m: m.code)}
