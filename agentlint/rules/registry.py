"""The rule registry: every rule agentlint has, by code."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from agentlint.rules.builtin import ENGINE_CODES, UNUSED_SUPPRESSION
from agentlint.rules.diagnostics import RuleMeta

if TYPE_CHECKING:
    from agentlint.rules.api import ModelRule, ProjectRule, Rule


@lru_cache(maxsize=None)
def per_file_rules() -> tuple[type["Rule"], ...]:
    from agentlint.rules.boolean_guard_verdict import BooleanGuardVerdict
    from agentlint.rules.pre_ga_names import PreGaAgentFrameworkName, PreGaApprovalName
    from agentlint.rules.silent_broad_except import SilentBroadExcept

    return (BooleanGuardVerdict, SilentBroadExcept, PreGaApprovalName, PreGaAgentFrameworkName)


@lru_cache(maxsize=None)
def model_rules() -> tuple[type["ModelRule"], ...]:
    """Per-file rules over the agent model (no LibCST parse)."""
    from agentlint.rules.fixed_step_in_tool import FixedStepInTool
    from agentlint.rules.tool_boundary import ExceptionTextToModel, ModelSuppliedIdentifier

    return (ModelSuppliedIdentifier, ExceptionTextToModel, FixedStepInTool)


@lru_cache(maxsize=None)
def project_rules() -> tuple[type["ProjectRule"], ...]:
    from agentlint.rules.agent_as_tool_depth import AgentAsToolTooDeep
    from agentlint.rules.no_tools_recognised import NoToolsRecognised
    from agentlint.rules.cost_formulas import DuplicatedCostFormula
    from agentlint.rules.cost_semantics import CachedTokensDoubleCounted, ReasoningTokensMiscounted
    from agentlint.rules.cost_values import CostMayBeNone, HardCodedPrice
    from agentlint.rules.prompt_assembly import PromptAssembledInMultiplePlaces

    return (
        DuplicatedCostFormula,
        CachedTokensDoubleCounted,
        ReasoningTokensMiscounted,
        CostMayBeNone,
        HardCodedPrice,
        PromptAssembledInMultiplePlaces,
        AgentAsToolTooDeep,
        NoToolsRecognised,
    )


@lru_cache(maxsize=None)
def all_rules() -> dict[str, RuleMeta]:
    """Every code with its metadata, sorted by code."""
    metas = [*ENGINE_CODES, UNUSED_SUPPRESSION]
    metas += [r.meta for r in per_file_rules()]
    metas += [r.meta for r in model_rules()]
    metas += [r.meta for r in project_rules()]
    return {m.code: m for m in sorted(metas, key=lambda m: m.code)}
