"""AGL106 call-bypasses-cost-accounting, and the inventory of model calls that
`agentlint calls` prints: which calls go through the project's instrumented path and
which escape it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from agentlint.facts.types import FileFacts, ModelCallFact
from agentlint.knowledge.test_code import is_test_path
from agentlint.rules.api import ProjectRule
from agentlint.rules.cost_places import make, sanctioned
from agentlint.rules.diagnostics import Diagnostic, RuleMeta

_DOCS = """\
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

META = RuleMeta(
    code="AGL106",
    name="call-bypasses-cost-accounting",
    summary="A model call outside the project's instrumented path: its tokens never reach the cost figure.",
    docs=_DOCS,
    default_selected=False,
    settings={"instrumented-callables": []},
    help="Send the call through the instrumented client, or list it in the written inventory of unmetered calls.",
)

_ACCOUNTED = {
    "usage": "reads the response's usage",
    "cost": "computes or records a cost",
    "callback": "passes a usage callback",
}


@dataclass(frozen=True)
class CallRow:
    """One model call of the inventory."""

    path: str
    module: str
    call: ModelCallFact
    status: str
    """`bypass` (a model call outside the project's instrumented path), `instrumented`,
    or `unaccounted` (the project has no instrumented path to go through, or an agent
    run outside it: its framework's model calls are what gets metered)."""
    why: str
    """Why it counts as instrumented (`listed`, `reads the response's usage`, ...), or
    what the bypass misses."""


def _why(call: ModelCallFact) -> str:
    if call.accounted.startswith("via "):
        return f"its callers account for it ({call.accounted[4:]})"
    return _ACCOUNTED.get(call.accounted, "")


def inventory(facts: Mapping[str, FileFacts], settings: Mapping[str, object]) -> list[CallRow]:
    """The model calls of one project, each with its status, bypassing calls first.
    ``settings``: AGL106's, with AGL101's `cost-functions`."""
    listed_only = _entries(settings, "instrumented-callables")
    entries = listed_only + _entries(settings, "cost-functions")
    rows: list[tuple[str, str, ModelCallFact, str]] = []
    for path, f in facts.items():
        if not f.model_calls or is_test_path(path):
            continue
        for call in f.model_calls:
            if entries and sanctioned(path, f.module, call.scope, entries):
                why = "listed as instrumented"
            else:
                why = "" if listed_only else _why(call)
            rows.append((path, f.module, call, why))
    clients = _instrumented_clients(rows)
    if clients:
        rows = [
            (path, module, call, why or _through(call, clients)) for path, module, call, why in rows
        ]
    models = [(call, why) for _, _, call, why in rows if call.kind == "model"]
    through = sum(1 for _, why in models if why)
    if listed_only:
        has_path = through > 0
    else:
        # the path most model calls go through
        has_path = through > 0 and through * 2 > len(models)
    out = []
    for path, module, call, why in rows:
        if why:
            status = "instrumented"
        elif has_path and call.kind == "model":
            status = "bypass"
        else:
            status = "unaccounted"  # agent runs are metered by their framework's model calls
        out.append(CallRow(path, module, call, status, why))
    order = {"bypass": 0, "unaccounted": 1, "instrumented": 2}
    out.sort(key=lambda r: (order[r.status], r.path, r.call.line, r.call.column))
    return out


def _instrumented_clients(rows: Sequence[tuple[str, str, ModelCallFact, str]]) -> dict[str, tuple[str, str]]:
    """The project's classes whose methods make the instrumented calls: class name ->
    (module, root package)."""
    out: dict[str, tuple[str, str]] = {}
    for _path, module, call, why in rows:
        if why and "." in call.scope:
            out.setdefault(call.scope.split(".", 1)[0], (module, module.split(".", 1)[0]))
    return out


def _through(call: ModelCallFact, clients: Mapping[str, tuple[str, str]]) -> str:
    """A call on an instance of the project's instrumented client (`llm.call()` with
    `llm = LLM(...)`, the class whose methods meter their calls) goes through it."""
    if not call.client:
        return ""
    head, _, name = call.client.rpartition(".")
    found = clients.get(name)
    if found is None:
        return ""
    module, root = found
    if head == module or head.split(".", 1)[0] == root:
        return f"through the instrumented client `{name}`"
    return ""


def _entries(settings: Mapping[str, object], key: str) -> list[str]:
    value = settings.get(key) or ()
    return [str(v).strip() for v in value if str(v).strip()]  # type: ignore[union-attr]


class CallBypassesCostAccounting(ProjectRule):
    reads = frozenset({"cost", "model_calls"})
    meta = META
    borrowed_settings = {"AGL101": ("cost-functions",)}

    def check(self) -> list[Diagnostic]:
        rows = inventory(self.context.facts, self.settings)
        bypasses = [r for r in rows if r.status == "bypass"]
        if not bypasses:
            return []
        through = sorted({(r.path, r.call.scope) for r in rows if r.status == "instrumented"})
        names = ", ".join(f"`{scope}`" for _, scope in through[:2]) + (", ..." if len(through) > 2 else "")
        out = []
        for row in bypasses:
            call = row.call
            where = f"`{call.scope}`" if call.scope != "<module>" else "module-level code"
            message = (
                f"Model call `{call.form}` in {where} bypasses the project's cost accounting "
                f"(the instrumented path: {names}): its tokens never reach the cost figure"
            )
            out.append(make(self.meta, row.path, call, message))
        return out
