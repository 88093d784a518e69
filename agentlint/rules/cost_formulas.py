"""AGL101 duplicated-cost-formula: cost computed from tokens in more than one place."""

from __future__ import annotations

from typing import Sequence

from agentlint.facts.types import CostTermFact
from agentlint.rules.api import ProjectRule
from agentlint.rules.catalog.cost import DUPLICATED_COST_FORMULA
from agentlint.rules.cost_places import make, place_label, places, posix, sanctioned, span_of
from agentlint.rules.diagnostics import Diagnostic, RelatedLocation

_MAX_RELATED = 20
_MAX_NAMED = 2
_ROLE_ORDER = ("input", "cached", "cache-write", "audio", "output", "reasoning", "total", "tokens")
_UNIT_NAMES = {
    "token": "per token",
    "1k": "per 1K tokens",
    "1M": "per 1M tokens",
    "mismatch": "a divisor that contradicts the price's unit",
}
_WHOLE = frozenset({"total", "tokens"})
"""Roles that price every token alike (a total, or a count with no role)."""
_CACHE_NAMES = {
    "none": "not priced",
    "subtracted": "subtracted from the input",
    "added": "added on top of the input",
    "price": "a price subtracted where the cached count belongs",
}


def formula_terms(terms: Sequence[CostTermFact]) -> list[CostTermFact]:
    """The terms that price a token count (a `price` term marks a missing count)."""
    return [t for t in terms if t.role != "price"]


def _roles(terms: Sequence[CostTermFact]) -> str:
    seen = {(t.sign, t.role) for t in terms if t.role != "price"}
    text = "".join(
        (" - " if s < 0 else " + ") + r for r in _ROLE_ORDER for s in (-1, 1) if (s, r) in seen
    ).strip()
    if text.startswith("+ "):
        text = text[2:]
    return text or "tokens"


def _priced(terms: Sequence[CostTermFact]) -> set[str]:
    """Roles priced (a positive term), cached tokens aside (see ``_cache_mode``)."""
    return {t.role for t in terms if t.sign > 0 and t.role not in ("price", "cached")}


def _cache_mode(terms: Sequence[CostTermFact]) -> str:
    if any(t.role == "price" for t in terms):
        return "price"
    cached = [t for t in terms if t.role == "cached"]
    if not cached:
        return "none"
    return "subtracted" if any(t.sign < 0 for t in cached) else "added"


def _units(terms: Sequence[CostTermFact]) -> frozenset[str]:
    return frozenset(t.unit for t in terms if t.role != "price")


def _prices(terms: Sequence[CostTermFact]) -> frozenset[tuple[str, float]]:
    return frozenset((t.role, round(t.literal, 15)) for t in terms if t.literal is not None)


def _unit_text(units: frozenset[str]) -> str:
    return ", ".join(_UNIT_NAMES.get(u, u) for u in sorted(units))


def _units_agree(mine: frozenset[str], other: frozenset[str]) -> bool:
    """`token` (no divisor, or a divisor matching the price's declared unit) agrees with
    a divisor whose price unit is not declared (`/ 1_000_000 * p["in"]` may well be per
    1M); per 1K and per 1M prices of undeclared unit disagree, and so does a divisor
    that contradicts the price's declared unit."""
    if ("mismatch" in mine) != ("mismatch" in other):
        return False
    scaled = (mine | other) & {"1k", "1M"}
    return len(scaled) < 2


def _listing(roles: set[str]) -> str:
    return ", ".join(r for r in _ROLE_ORDER if r in roles)


def difference(mine: Sequence[CostTermFact], other: Sequence[CostTermFact]) -> str:
    """'' when the two places compute the same formula; else what differs: the unit,
    the handling of cached tokens, a term one of them leaves out, literal prices."""
    out = []
    here, there = _priced(mine), _priced(other)
    specific_here, specific_there = here - _WHOLE, there - _WHOLE
    if here and there and bool(specific_here) != bool(specific_there):
        # `total_tokens * price` against `input * p_in + output * p_out`
        out.append("all tokens at one price here, by role there" if not specific_here else "by role here, all tokens at one price there")
    else:
        if specific_here - specific_there:
            out.append(f"no {_listing(specific_here - specific_there)} term there")
        if specific_there - specific_here:
            out.append(f"no {_listing(specific_there - specific_here)} term here")
    cache_here, cache_there = _cache_mode(mine), _cache_mode(other)
    if cache_here != cache_there:
        out.append(f"cached tokens {_CACHE_NAMES[cache_here]} here, {_CACHE_NAMES[cache_there]} there")
    if not _units_agree(_units(mine), _units(other)):
        out.append(f"different units: {_unit_text(_units(mine))} here, {_unit_text(_units(other))} there")
    mine_prices, other_prices = _prices(mine), _prices(other)
    if mine_prices and other_prices and mine_prices != other_prices:
        out.append("different literal prices")
    return "; ".join(out)


def _first(terms: Sequence[CostTermFact]) -> CostTermFact:
    return min(terms, key=lambda t: (t.line, t.column))


def _state(count: int, diverging: list[tuple[str, str]]) -> str:
    """How the other copies compare, saying what differs: ``diverging`` holds (place
    label, difference) of each copy that diverges."""
    if not diverging:
        return "the copies are identical" if count == 1 else "all copies are identical"
    if count == 1:
        return f"the copies already diverge: {diverging[0][1]}"
    hows = {how for _, how in diverging}
    if len(diverging) == count:
        head = "every other copy already diverges"
    else:
        verb = "diverges" if len(diverging) == 1 else "diverge"
        head = f"{len(diverging)} of the {count} other copies already {verb}"
    if len(hows) == 1:
        return f"{head}: {diverging[0][1]}"
    named = "; ".join(f"{label}: {how}" for label, how in diverging[:_MAX_NAMED])
    more = ", ..." if len(diverging) > _MAX_NAMED else ""
    return f"{head} ({named}{more})"


class DuplicatedCostFormula(ProjectRule):
    reads = frozenset({"cost"})
    meta = DUPLICATED_COST_FORMULA

    def check(self) -> list[Diagnostic]:
        found = {k: v for k, v in ((k, formula_terms(v)) for k, v in places(self.context.facts).items()) if v}
        if len(found) < 2:
            return []
        home = list(self.settings.get("cost-functions", ()))
        modules = {p: f.module for p, f in self.context.facts.items()}
        ordered = sorted(found.items(), key=lambda kv: (kv[0][0], _first(kv[1]).line))
        out: list[Diagnostic] = []
        for (path, scope), terms in ordered:
            if home and sanctioned(path, modules[path], scope, home):
                continue
            first = _first(terms)
            related: list[RelatedLocation] = []
            diverging: list[tuple[str, str]] = []
            others = [(k, v) for k, v in ordered if k != (path, scope)]
            for (other_path, other_scope), other_terms in others:
                how = difference(terms, other_terms)
                if how:
                    diverging.append((place_label(other_scope), how))
                home_note = " (the sanctioned cost function)" if home and sanctioned(
                    other_path, modules[other_path], other_scope, home
                ) else ""
                note = f"diverges: {how}" if how else "same formula"
                if len(related) < _MAX_RELATED:
                    related.append(
                        RelatedLocation(
                            other_path,
                            span_of(_first(other_terms)),
                            f"cost formula in {place_label(other_scope)}{home_note} ({note})",
                        )
                    )
            count = len(others)
            if count == 1:
                other_path, other_scope = others[0][0]
                where = place_label(other_scope)
                if other_path != path:
                    where += f" ({posix(other_path).rsplit('/', 1)[-1]})"
            else:
                where = f"{count} other places of the project"
            message = (
                f"Cost formula ({_roles(terms)}) in {place_label(scope)} is also computed in "
                f"{where}; {_state(count, diverging)}"
            )
            out.append(make(self.meta, path, first, message, related))
        return out
