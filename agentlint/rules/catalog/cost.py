"""Metadata and documentation of the cost rules, AGL101-AGL106 (their checks are in
``cost_formulas``, ``cost_semantics``, ``cost_values`` and ``cost_calls``)."""

from __future__ import annotations

from agentlint.rules.diagnostics import RuleMeta

_DOCS_101 = """\
## What it does
Finds every *cost formula* in the project — arithmetic that turns token counts into
money: a product or quotient with a token-count operand (`prompt_tokens`,
`usage.output_tokens`, `usage["completion_tokens"]`, `*_token_count`,
`prompt_tokens_details.cached_tokens`, `len(enc.encode(text))`, ...) and a price
operand (a name such as `price`, `rate_in`, `cost_per_token`, `*_per_mtok`, a
subscript such as `PRICING[model]["input"]`, or a rate literal such as `0.000002` or
`/ 1_000_000 * 2.5`) — and reports each place (function or method; module-level code
is one place) when formulas stand in more than one place of the project. Each finding
names the other places as related locations (the message names the other place when
there is one) and says whether the copies are identical or already diverge, and what
differs: a term one of them leaves out (`no output term there`), one price for all
tokens against prices by role, how cached tokens are handled (subtracted from the
input, added on top, not priced), the units, literal prices.

A token operand named loosely counts when the rest of the product says it is one:
a role word (`prompt`, `n_in`, `usage["input"]`, `entry.completion`) or an
abbreviation of tokens (`tk`, `toks`) beside a money price; a bare count (`n`,
`count`, a loop variable over usage rows) beside a price of tokens (`input_price`,
`cost_per_1k`), a `/ 1000` or `/ 1_000_000`, or bound from a usage expression; any
other name only beside a price whose unit is tokens (`input_cost_per_token`). So a
`/tokens`-style command or a report printer that re-prices a session's entries is a
copy too. Names that are never token counts (pages, seconds, characters, amounts,
quantities, multipliers) are left alone.

Formulas are compared after reduction: token operands become roles (input, output,
cached, cache-write, reasoning, total), prices are compared by role, and units are
normalised, so copies that differ only in names, or in `/ 1000 * per_1k` versus
`/ 1_000_000 * per_m`, count as identical.

Several terms in one function are one place. One `compute_cost(usage)` called from many
places is not a finding, nor are token conversions that are not money (`tokens * 4`
characters, `tokens * 0.75` words). Test files (`tests/`, `test_*.py`, `*_test.py`,
`conftest.py`) are not places: tests re-compute expected costs on purpose.

The rule is project-wide: it sees every file of the project even when only some files
are checked (pre-commit), and each folder with its own project marker
(`pyproject.toml`, `setup.py`, `setup.cfg`, `requirements*.txt`) is a separate project
(see `project-roots` in the configuration docs).

## Why is this bad?
Two copies of the same cost arithmetic drift: one learns about cached-token pricing
and the other does not, one divides by 1,000 and the other by 1,000,000. The drift
shows up on the invoice, which is the worst place to find it. The usage fields are
already in one place (the SDK's usage object); the duplication is of the arithmetic.

## Example
```python
# agents/research.py
def run_research(query):
    resp = client.chat.completions.create(...)
    cost = resp.usage.prompt_tokens / 1000 * PRICE_IN_1K + resp.usage.completion_tokens / 1000 * PRICE_OUT_1K
    ...

# agents/writer.py
def run_writer(brief):
    resp = client.chat.completions.create(...)
    cost = resp.usage.prompt_tokens * PRICE_IN + resp.usage.completion_tokens * PRICE_OUT
    ...
```

## Use instead
```python
# billing.py: the one place that knows the arithmetic
def compute_cost(usage, prices) -> Decimal:
    cached = usage.prompt_tokens_details.cached_tokens
    return (
        (usage.prompt_tokens - cached) * prices.input
        + cached * (prices.cached or prices.input)
        + usage.completion_tokens * prices.output
    )

# agents/research.py and agents/writer.py
cost = compute_cost(resp.usage, prices_for(model))
```

## Fix safety
No fix: merging copies that already diverge changes what some of them compute.

## Configuration
- `cost-functions` (list of strings, default `[]`): the sanctioned home(s) of the cost
  arithmetic. Places listed here are never reported (the other places still are, and
  point at them). An entry is a dotted name (`app.billing.compute_cost`; a class or a
  module covers everything inside it), a bare function or class name (`compute_cost`,
  `Meter`), or
  `path/to/file.py:function` (`billing.py:` for a whole file).

```toml
[tool.agentlint.rules.AGL101]
cost-functions = ["app.billing.compute_cost"]
```

## Standard
Enforces the cost-and-budget standard, section "The cost middleware": one middleware,
not a copied formula (in a project it studied, the same cost expression sat in five
call sites across four files), because two copies of the same computation diverge and
the divergence shows up on the invoice. Its checklist asks that the cost computation
lives in one place and that no agent repeats it.
"""

DUPLICATED_COST_FORMULA = RuleMeta(
    code="AGL101",
    name="duplicated-cost-formula",
    summary="The same token-to-money arithmetic is computed in more than one place of the project.",
    docs=_DOCS_101,
    settings={"cost-functions": []},
    help="Compute cost in one function (list it in `cost-functions`) and call it from every place.",
)

_STANDARD_102_103 = """\
## Standard
Enforces the cost-and-budget standard, section "Formula traps": cached tokens are a
subset of the input, not an extra share, so adding input and cached tokens counts the
same token twice; the right shape is `(input - cached) * input_rate + cached *
(cache_rate or input_rate) + output * output_rate`. Reasoning tokens are billed as
output: a formula that adds only input and output without checking how the provider
bills reasoning under-states the cost of every reasoning model.
"""

_DOCS_102 = """\
## What it does
Flags a cost formula (see AGL101) that prices cached input tokens *on top of* an input
count that already includes them, with nothing subtracted:

- OpenAI Chat Completions and LiteLLM: `prompt_tokens` includes
  `prompt_tokens_details.cached_tokens` (and, in LiteLLM, Anthropic's
  `cache_read_input_tokens` and `cache_creation_input_tokens`, which LiteLLM adds
  into `prompt_tokens`);
- DeepSeek: `prompt_tokens` is `prompt_cache_hit_tokens + prompt_cache_miss_tokens`;
- OpenAI Responses and the Agents SDK: `input_tokens` includes
  `input_tokens_details.cached_tokens`;
- Gemini: `prompt_token_count` includes `cached_content_token_count`;
- pydantic-ai and LangChain: `input_tokens` includes `cache_read_tokens` /
  `input_token_details["cache_read"]` (and the cache writes).

Also flagged: the cached share subtracted wrongly, a *price* subtracted where the
cached count belongs (`(prompt_tokens - cached_price) * input_price`), and the same
cached count priced twice in one formula. When the cached tokens are priced at the
full input rate on top of the input count, the message says so.

The terms may sit in one expression or in several statements of one function.
Pricing the miss count and the hit count (`prompt_cache_miss_tokens * p_miss +
prompt_cache_hit_tokens * p_hit`) is right and left alone.
Anthropic is never flagged: its `input_tokens` *excludes* `cache_read_input_tokens` and
`cache_creation_input_tokens`, so adding them is right there. Names whose provider is
not clear (a local `cached` with an unknown source) are left alone.

## Why is this bad?
Cached tokens are a subset of the input count. Pricing the whole input and then the
cached part again bills the cached tokens twice: the reported cost is too high exactly
when caching works best, and budget guards trip early.

## Example
```python
cached = usage.prompt_tokens_details.cached_tokens
cost = usage.prompt_tokens * p_in + cached * p_cached + usage.completion_tokens * p_out
```

## Use instead
```python
cached = usage.prompt_tokens_details.cached_tokens
cost = (usage.prompt_tokens - cached) * p_in + cached * p_cached + usage.completion_tokens * p_out
```

## Fix safety
No fix: the author has to decide which rate the cached part takes.

## Configuration
None.

""" + _STANDARD_102_103

CACHED_TOKENS_DOUBLE_COUNTED = RuleMeta(
    code="AGL102",
    name="cached-tokens-double-counted",
    summary="A cost formula prices cached tokens on top of an input count that already includes them.",
    docs=_DOCS_102,
    help="Subtract the cached tokens from the input count before pricing them at their own rate.",
)

_DOCS_103 = """\
## What it does
Flags a cost formula (see AGL101) that gets reasoning tokens wrong:

- it adds `reasoning_tokens` (or `thinking_tokens`, `output_reasoning_tokens`,
  `completion_tokens_details.reasoning_tokens`) on top of OpenAI's or Anthropic's
  `completion_tokens` / `output_tokens`, which already include them (OpenAI:
  "still counted in the total completion tokens for purposes of billing"); or
- it prices Gemini's `candidates_token_count` without `thoughts_token_count`: on
  Gemini the candidates count *excludes* the thoughts, which are billed as output.

A formula that subtracts the reasoning part before pricing it separately is accepted,
and so is Gemini's `candidates_token_count + thoughts_token_count`.

## Why is this bad?
Reasoning models are the expensive ones. Double counting their reasoning tokens
inflates the cost; leaving Gemini's thoughts out under-reports it, so budgets and
invoices disagree.

## Example
```python
reasoning = usage.completion_tokens_details.reasoning_tokens
cost = usage.prompt_tokens * p_in + (usage.completion_tokens + reasoning) * p_out
```

## Use instead
```python
cost = usage.prompt_tokens * p_in + usage.completion_tokens * p_out  # reasoning is inside
# Gemini:
cost = meta.prompt_token_count * p_in + (meta.candidates_token_count + meta.thoughts_token_count) * p_out
```

## Fix safety
No fix.

## Configuration
None.

""" + _STANDARD_102_103

REASONING_TOKENS_MISCOUNTED = RuleMeta(
    code="AGL103",
    name="reasoning-tokens-miscounted",
    summary="A cost formula adds reasoning tokens already inside the output count, or leaves Gemini's thoughts out.",
    docs=_DOCS_103,
    help="Check how the provider bills reasoning: inside the output count (OpenAI, Anthropic) or beside it (Gemini).",
)

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

COST_MAY_BE_NONE = RuleMeta(
    code="AGL104",
    name="cost-may-be-none",
    summary="A cost value is set to None, so 'did not cost' and 'did not measure' look the same.",
    docs=_DOCS_104,
    help="Record zero with an explicit state (`computed`, `waived`, `usage_missing`) instead of None.",
)

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

HARD_CODED_PRICE = RuleMeta(
    code="AGL105",
    name="hard-coded-price",
    summary="A per-token price or a model-to-price table is written into the code.",
    docs=_DOCS_105,
    default_selected=False,
    help="Keep prices in a registry or configuration, per model, with the date they were verified.",
)

_DOCS_106 = """\
## What it does
Lists every model call and agent run of the project (the call forms agentlint knows,
see docs/frameworks.md, and your `llm-call-patterns`) and finds the project's
*instrumented path*: the functions listed in `instrumented-callables` (or in AGL101's
`cost-functions`), or, without such a list, the functions that account for what their
model calls used: they read the response's usage (`resp.usage`, `usage_metadata`),
compute or record a cost (`self.total_cost += ...`, `track_cost(...)`), pass a usage
callback (`get_openai_callback()`, `callbacks=[cost_handler]`), or are helpers whose
only callers in their module do one of those; a call on an instance of the class those
functions belong to (the project's metered client) goes through it too. When the
project has such a path and most model calls go through it, each model call outside
it is reported: its tokens never reach the project's cost figure. Agent runs are
listed by `agentlint calls` but not reported: what they spend is metered, or not, in
the model calls of their framework.

The rule is off by default (select it by code, `AGL106`): a project that meters usage
at the gateway or in a framework callback registered elsewhere has no bypass.
`agentlint calls` prints the same inventory, the bypassing calls first. Test files are
left out.

## Why is this bad?
A cost middleware measures what passes through it. Calls that go around it (a quick
summarisation with the raw client, an embedding, a vision call per page) are spent and
never counted, and a total that measures half the spending reads as the whole of it.

## Example
```python
class MeteredLLM:
    def chat(self, messages):
        resp = self.client.chat.completions.create(model=MODEL, messages=messages)
        self.meter.record(resp.usage)
        return resp


def summarise(text):
    # the raw client: this call's tokens never reach the meter
    return raw_client.chat.completions.create(model=MODEL, messages=[...])
```

## Use instead
```python
def summarise(text, llm: MeteredLLM):
    return llm.chat([...])
```
Or list the call in the project's written inventory of unmetered calls and silence the
finding with `# noqa: AGL106` and the reason.

## Fix safety
No fix: which client a call should go through is the author's decision.

## Configuration
- `instrumented-callables` (list of strings, default `[]`): the functions of the
  instrumented path (the metered client), named as in AGL101's `cost-functions`
  (`app.llm.MeteredLLM.chat`, `MeteredLLM`, `app/llm.py:`). With a list, only the
  listed places count as instrumented; AGL101's `cost-functions` count too.

```toml
[tool.agentlint.rules.AGL106]
instrumented-callables = ["app.llm.MeteredLLM"]
```

## Standard
Enforces the cost-and-budget standard, section "Measure the total, not the floor": a
middleware in the chat pipeline measures what passes through the pipeline, and what does
not pass through it has to be declared; its checklist asks for a written inventory of
the provider calls that do not go through the instrumented pipeline.
"""

CALL_BYPASSES_COST_ACCOUNTING = RuleMeta(
    code="AGL106",
    name="call-bypasses-cost-accounting",
    summary="A model call outside the project's instrumented path: its tokens never reach the cost figure.",
    docs=_DOCS_106,
    default_selected=False,
    settings={"instrumented-callables": []},
    help="Send the call through the instrumented client, or list it in the written inventory of unmetered calls.",
)
