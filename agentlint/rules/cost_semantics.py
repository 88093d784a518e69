"""AGL102 cached-tokens-double-counted and AGL103 reasoning-tokens-miscounted.

Both read the cost terms of one place (function) and the usage-field semantics of
frameworks.md (f): which counts already include which.
"""

from __future__ import annotations

from typing import Sequence

from agentlint.facts.types import CostTermFact
from agentlint.rules.api import ProjectRule
from agentlint.rules.catalog.cost import CACHED_TOKENS_DOUBLE_COUNTED, REASONING_TOKENS_MISCOUNTED
from agentlint.rules.cost_places import make, places
from agentlint.rules.diagnostics import Diagnostic

_INCLUSIVE_INPUT = {
    "prompt_tokens": "OpenAI Chat Completions, LiteLLM and DeepSeek count",
    "prompt_token_count": "Gemini counts",
}
"""Input counts that include every cached token, whatever the cached field is called."""
_SUBSET_INPUT = {"input_tokens": "OpenAI Responses, the Agents SDK, pydantic-ai and LangChain count"}
_RESPONSES_CACHED = ("cached_tokens", "cache_read_tokens", "cache_read")
"""Cached fields that are subsets of an `input_tokens` count (OpenAI Responses / Agents
SDK, pydantic-ai, LangChain); Anthropic's `cache_read_input_tokens` is not one."""
_SUBSET_WRITES = ("cache_write_tokens", "cache_creation")
"""Cache writes inside an `input_tokens` count (OpenAI Responses, pydantic-ai,
LangChain); Anthropic's `cache_creation_input_tokens` is outside it."""
_INCLUSIVE_OUTPUT = frozenset({"completion_tokens", "output_tokens"})
_CACHE_WORDS = ("cache", "cached", "hit")


def _last(field: str) -> str:
    return field.rsplit(".", 1)[-1].lower()


def _expression(term: CostTermFact) -> tuple[int, int, int, int]:
    """Terms of one arithmetic expression share its span."""
    return (term.line, term.column, term.end_line, term.end_column)


def _includes(base: str, part: CostTermFact) -> str | None:
    """Who counts ``part`` inside the input count ``base`` (for the message), or None."""
    name = _last(part.field)
    if base in _INCLUSIVE_INPUT:
        if part.role == "cached" and base == "prompt_token_count" and name != "cached_content_token_count":
            return None
        if part.role == "cache-write" and base == "prompt_token_count":
            return None  # Gemini has no cache writes
        if base == "prompt_tokens":
            if name.endswith("_input_tokens"):
                return "LiteLLM adds Anthropic's cache reads and writes into it"
            if name.startswith("prompt_cache_"):
                return "DeepSeek counts them inside it"
            return "OpenAI Chat Completions and LiteLLM count them inside it"
        return _INCLUSIVE_INPUT[base] + " them inside it"
    if base == "input_tokens":
        if part.role == "cached" and name in _RESPONSES_CACHED:
            return _SUBSET_INPUT[base] + " them inside it"
        if part.role == "cache-write" and name in _SUBSET_WRITES:
            return _SUBSET_INPUT[base] + " them inside it"
    return None


def _at_rate(part: CostTermFact, base: CostTermFact) -> str:
    return f" at the full input rate (`{base.rate}`)" if base.rate and part.rate == base.rate else ""


def _double_counted_cache(terms: Sequence[CostTermFact]) -> list[tuple[CostTermFact, str]]:
    """(where, message) for each way cached input is billed twice in one place: a price
    subtracted where the cached count belongs, a cached count priced twice in one
    formula, cached tokens (or cache writes) priced on top of an input count that holds
    them. Each way is reported once per place."""
    out: list[tuple[CostTermFact, str]] = []
    cached_priced = any(t.role == "cached" and t.sign > 0 for t in terms)
    for price in terms:
        # `(prompt_tokens - cached_price) * input_price`: a price where the count belongs
        if price.role != "price" or price.sign > 0:
            continue
        if not (cached_priced or any(w in price.field.lower() for w in _CACHE_WORDS)):
            continue
        base = next(
            (t for t in terms if _expression(t) == _expression(price) and t.role == "input" and t.sign > 0 and t.rate == price.rate),
            None,
        )
        if base is None:
            continue
        out.append((price, (
            f"`{price.field}` is a price, subtracted from `{base.field}` where the cached token count "
            f"belongs: the cached tokens stay in the input count and are billed twice"
        )))
        break
    expressions: dict[tuple[int, int, int, int], dict[str, int]] = {}
    for t in terms:
        if t.role == "cached":
            counts = expressions.setdefault(_expression(t), {})
            counts[t.field] = counts.get(t.field, 0) + t.sign
    twice = next((t for t in terms if t.role == "cached" and expressions[_expression(t)].get(t.field, 0) > 1), None)
    if twice is not None:
        out.append((twice, f"`{twice.field}` is priced twice in one formula: the cached tokens are billed twice"))
    inputs = [t for t in terms if t.role == "input" and t.sign > 0 and not t.field.startswith("len(")]
    # Terms of other statements pair only when the place prices one input field: a
    # function with a branch per provider (`input_tokens` here, `prompt_tokens` there)
    # is not one formula.
    one_input = len({t.field for t in inputs}) == 1
    for role, what in (("cached", "the cached tokens"), ("cache-write", "the cache writes")):
        if any(t.role == role and t.sign < 0 for t in terms):
            continue  # `(input - cached) * rate`: the part is taken out
        if role == "cached" and out:
            continue  # already said: the cached tokens are billed twice
        parts = [t for t in terms if t.role == role and t.sign > 0 and t is not twice]
        found = next(
            (
                (i, c, who)
                for i in inputs
                for c in parts
                if one_input or _expression(i) == _expression(c)
                for who in (_includes(_last(i.field), c),)
                if who is not None
            ),
            None,
        )
        if found is not None:
            i, c, who = found
            out.append((c, (
                f"`{c.field}` is priced{_at_rate(c, i)} on top of `{i.field}`, which already includes "
                f"{what} ({who}): they are billed twice"
            )))
    return out


class CachedTokensDoubleCounted(ProjectRule):
    reads = frozenset({"cost"})
    meta = CACHED_TOKENS_DOUBLE_COUNTED

    def check(self) -> list[Diagnostic]:
        out = []
        for (path, scope), terms in places(self.context.facts).items():
            seen: set[tuple[int, int]] = set()
            for where, message in _double_counted_cache(terms):
                if (where.line, where.column) not in seen:  # one finding per formula
                    seen.add((where.line, where.column))
                    out.append(make(self.meta, path, where, message))
        return out


def _reasoning_problem(terms: Sequence[CostTermFact]) -> tuple[CostTermFact, str] | None:
    fields = {_last(t.field) for t in terms}
    if any(t.role == "reasoning" and t.sign < 0 for t in terms):
        return None
    reasoning = [t for t in terms if t.role == "reasoning" and t.sign > 0]
    outputs = [t for t in terms if t.role == "output" and t.sign > 0 and _last(t.field) in _INCLUSIVE_OUTPUT]
    # Gemini's thoughts (`thoughts_token_count`, `thoughts_tokens`) are billed beside
    # the candidates: adding them to an output count is right there.
    reasoning = [t for t in reasoning if "thought" not in _last(t.field)]
    if reasoning and outputs:
        r, o = reasoning[0], outputs[0]
        return r, (
            f"`{r.field}` is added on top of `{o.field}`, which already includes the reasoning "
            f"tokens (OpenAI and Anthropic bill them inside the output count): they are billed twice"
        )
    if "candidates_token_count" in fields and "thoughts_token_count" not in fields:
        c = next(t for t in terms if _last(t.field) == "candidates_token_count")
        return c, (
            "Gemini's `candidates_token_count` excludes the thinking tokens, and this formula never "
            "prices `thoughts_token_count`: reasoning is left out of the cost"
        )
    return None


class ReasoningTokensMiscounted(ProjectRule):
    reads = frozenset({"cost"})
    meta = REASONING_TOKENS_MISCOUNTED

    def check(self) -> list[Diagnostic]:
        out = []
        for (path, scope), terms in places(self.context.facts).items():
            found = _reasoning_problem(terms)
            if found is not None:
                out.append(make(self.meta, path, found[0], found[1]))
        return out
