"""AGL106 call-bypasses-cost-accounting, and the inventory of model calls that
`agentlint calls` prints: which calls go through the project's instrumented path and
which escape it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from agentlint.facts.types import FileFacts, ModelCallFact
from agentlint.knowledge.test_code import is_test_path
from agentlint.rules.api import ProjectRule
from agentlint.rules.catalog.cost import CALL_BYPASSES_COST_ACCOUNTING
from agentlint.rules.cost_places import make, sanctioned
from agentlint.rules.diagnostics import Diagnostic

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
    meta = CALL_BYPASSES_COST_ACCOUNTING
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
