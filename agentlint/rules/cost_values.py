"""AGL104 cost-may-be-none and AGL105 hard-coded-price."""

from __future__ import annotations

from agentlint.rules.api import ProjectRule
from agentlint.rules.cost_places import is_test_path, make, places
from agentlint.rules.diagnostics import Diagnostic, RuleMeta

_DOCS_104 = """\
## What it does
Flags a cost value set to `None`:

- an assignment of `None` to a cost-like name (`cost_usd = None`, `self.total_cost =
  None`, a class field `cost: float | None = None`);
- `cost=None` / `cost_usd=None` passed as a keyword (into a record, an event, a span);
- `{"cost": None}` in a dict literal;
- `return None` in a function named for a cost (`compute_cost`, `estimate_cost_usd`).

A cost-like name has the word `cost` (or ends in `_usd`) and is not a price, a limit or a
helper (`cost_per_token`, `max_cost`, `cost_budget`, `cost_fn`, `cost_tracker`, ...).
Test files are not checked.

## Why is this bad?
A null cost crosses three layers and becomes a hole in the report: nobody can tell "did
not cost" from "did not measure". Record zero with an explicit state instead
(`computed`, `waived`, `usage_missing`), so the difference travels with the number.

## Example
```python
def compute_cost(usage, prices):
    if prices is None:
        return None
    ...
```

## Use instead
```python
def compute_cost(usage, prices) -> Cost:
    if prices is None:
        return Cost(Decimal(0), state="waived")
    if usage is None:
        return Cost(Decimal(0), state="usage_missing")
    ...
```

## Fix safety
No fix: the right state (`waived` or `usage_missing`) depends on why there is no cost.

## Configuration
None.

## Standard
Enforces the cost-and-budget standard, section "cost is never null": a cost is never
None; a model alias without a price records its tokens and a zero cost with the absence
flagged, never null and never an invented number, because otherwise nobody can tell
"it cost nothing" from "we did not measure it".
"""

_DOCS_105 = """\
## What it does
Flags prices written into the code (opt-in: select it by code, `AGL105`):

- a literal rate inside a cost formula (`tokens * 0.000002`,
  `tokens / 1_000_000 * 2.5`);
- a module- or class-level price constant (`INPUT_COST_PER_TOKEN = 0.000005`,
  `PRICE_PER_1K = 0.03`);
- a model-to-price table (`{"gpt-4o": {"input": 2.5, "output": 10.0}}`, or any dict of
  numbers bound to a price-like name such as `PRICES` or `MODEL_COST_PER_1K_TOKENS`).

Limits and budgets (`MAX_COST`, `cost_limit`) are not prices. Test files are not
checked.

## Why is this bad?
Prices change, and a price in code has no date: nobody knows whether it is still right.
Prices belong in a registry or configuration, per model alias, with the date they were
verified, so updating them is a data change that can be reviewed.

## Example
```python
PRICES = {"gpt-4o": {"input": 2.5, "output": 10.0}}
```

## Use instead
```jsonc
// config/models.jsonc
"gpt-4o": {"pricing": {"inputPerMTok": 2.5, "outputPerMTok": 10.0}}  // verified 2025-01-10
```

## Fix safety
No fix.

## Configuration
None.

## Standard
Enforces the cost-and-budget standard: the price belongs to the project and lives per
model alias in its registry, and a price needs the date it was checked; its list of
anti-patterns names a price without a verification date, of which nobody knows whether
it still holds.
"""

NONE_META = RuleMeta(
    code="AGL104",
    name="cost-may-be-none",
    summary="A cost value is set to None, so 'did not cost' and 'did not measure' look the same.",
    docs=_DOCS_104,
    help="Record zero with an explicit state (`computed`, `waived`, `usage_missing`) instead of None.",
)

PRICE_META = RuleMeta(
    code="AGL105",
    name="hard-coded-price",
    summary="A per-token price or a model-to-price table is written into the code.",
    docs=_DOCS_105,
    default_selected=False,
    help="Keep prices in a registry or configuration, per model, with the date they were verified.",
)

_NONE_MESSAGES = {
    "assign": "`{name}` is set to None",
    "field": "`{name}` defaults to None",
    "keyword": "`{name}=None` is passed",
    "key": "`\"{name}\": None` is recorded",
    "return": "`{name}` returns None",
}


class CostMayBeNone(ProjectRule):
    reads = frozenset({"cost"})
    meta = NONE_META

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
    meta = PRICE_META

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
