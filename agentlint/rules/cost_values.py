"""AGL104 cost-may-be-none and AGL105 hard-coded-price."""

from __future__ import annotations

from agentlint.rules.api import ProjectRule
from agentlint.rules.catalog.cost import COST_MAY_BE_NONE, HARD_CODED_PRICE
from agentlint.rules.cost_places import is_test_path, make, places
from agentlint.rules.diagnostics import Diagnostic

_NONE_MESSAGES = {
    "assign": "`{name}` is set to None",
    "field": "`{name}` defaults to None",
    "keyword": "`{name}=None` is passed",
    "key": "`\"{name}\": None` is recorded",
    "return": "`{name}` returns None",
}


class CostMayBeNone(ProjectRule):
    reads = frozenset({"cost"})
    meta = COST_MAY_BE_NONE

    def check(self) -> list[Diagnostic]:
        out = []
        for path, facts in self.context.facts.items():
            if not facts.cost_nones or is_test_path(path):
                continue
            for site in facts.cost_nones:
                what = _NONE_MESSAGES.get(site.kind, "`{name}` is None").format(name=site.name)
                out.append(make(self.meta, path, site, f"{what}: a cost is never null; record zero with an explicit state"))
        return out


class HardCodedPrice(ProjectRule):
    reads = frozenset({"cost"})
    meta = HARD_CODED_PRICE

    def check(self) -> list[Diagnostic]:
        out = []
        for path, facts in self.context.facts.items():
            if is_test_path(path):
                continue
            for site in facts.price_literals:
                if site.kind == "table":
                    what = f"Model-to-price table{f' `{site.name}`' if site.name else ''} in code"
                else:
                    what = f"Price constant `{site.name}` in code"
                out.append(make(self.meta, path, site, f"{what}: prices belong in a registry or configuration with the date they were verified"))
        for (path, scope), terms in places(self.context.facts).items():
            seen = set()
            for term in terms:
                if term.literal is None or (term.line, term.column) in seen:
                    continue
                seen.add((term.line, term.column))
                out.append(
                    make(self.meta, path, term, f"Cost formula with a literal price ({term.literal:.3g} per token): prices belong in a registry or configuration")
                )
        return out
