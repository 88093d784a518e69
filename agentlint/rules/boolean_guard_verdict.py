"""AGL301 boolean-guard-verdict: a guard whose two-valued verdict folds a failed (or an
uncertain) evaluation into "approved" or "rejected".

A model rule: it reads the file's `ast` tree and its agent model (which calls are model
calls, which helpers a function always calls), never LibCST. For each function:

1. its verdict is two-valued (``_guard_verdicts.verdict_of``): `-> bool`, a
   `(bool, ...)` tuple, a two-member `Literal`, "yes"/"no" strings, a tripwire, a bool
   under a verdict key of a returned state, a result type whose only verdict field is a
   bool; a `return None` path, an `Optional[bool]` or an enum is a third state;
2. it is a guard (``GuardSignals``): registered as one, named like one, or its result
   gates an action; action names (`send_*`, `save_*`) and stubs are not;
3. its evaluation can fail and the failure becomes the verdict (``_guard_folds``).

The finding is on the `def` line; the fold is named in the message and is the related
location.
"""

from __future__ import annotations

import ast
from typing import Any, Iterator, Mapping, Sequence

from agentlint.facts.notebooks import is_notebook
from agentlint.facts.types import FileFacts
from agentlint.knowledge import guards
from agentlint.rules._guard_folds import Fold, Folds, passes
from agentlint.rules._guard_steps import Fallibility
from agentlint.rules._guard_verdicts import (
    Body,
    GuardSignals,
    Verdict,
    function_body,
    functions,
    is_stub,
    module_index,
    verdict_of,
)
from agentlint.rules.api import ModelRule
from agentlint.rules.catalog.guards import BOOLEAN_GUARD_VERDICT
from agentlint.rules.diagnostics import Diagnostic, Position, RelatedLocation, Span

_UNSET = {"hook": "may not be set", "secret": "may not be configured"}
"""Steps that are an attribute the guard tests for absence: how they go missing."""

_KIND_TEXT = {
    "model": "a model call",
    "fallible": "a fallible call (`fallible-callables`)",
    "network": "a network call",
    "subprocess": "a subprocess",
    "file": "a file read",
    "config": "configuration that may be missing",
    "awaited": "an awaited call",
    "parse": "parsing an answer",
    "lookup": "a lookup that may find nothing",
    "state": "a model's answer",
}


def candidates(
    tree: ast.Module, source: str, imports: Mapping[str, str], settings: Mapping[str, Any],
    calls: "list[ast.Call] | None" = None,
) -> Iterator[tuple[ast.AST, Body, Verdict]]:
    """The functions of ``tree`` that are guards with a two-valued verdict (no agent
    model needed: the engine asks this first for files without agent vocabulary).
    ``calls``: the module's calls in `ast.walk` order, when the agent model has them."""
    module = None
    signals = GuardSignals(
        tree,
        source,
        imports,
        frozenset(settings.get("guard-verbs", guards.VERDICT_VERBS)),
        frozenset(settings.get("guard-nouns", guards.VERDICT_NOUNS)),
        frozenset(settings.get("guard-keywords", guards.GUARD_KEYWORDS)),
        calls,
    )
    defs = list(functions(tree))
    for func, owner in defs:
        if not signals.may_signal(func, owner) or is_stub(func, owner):
            continue
        body = function_body(func)
        if not body.returns:
            continue
        if module is None:
            module = module_index(tree, (d for d, _ in defs))
        verdict = verdict_of(func, body, module) or signals.route_verdict(func, body)
        if verdict is None:
            continue
        if signals.signal(func, verdict, owner) is None:
            continue
        yield func, body, verdict


class BooleanGuardVerdict(ModelRule):
    """Guards whose two-valued verdict folds a failed evaluation."""

    meta = BOOLEAN_GUARD_VERDICT

    about_tools = False
    """It reads functions, not tools: the project phase need not run it again on the
    tools it declares across modules."""

    @staticmethod
    def wants_file(tree: ast.Module, facts: FileFacts, source: str, settings: Mapping[str, Any]) -> bool:
        """Whether a file without tool or agent vocabulary is worth an agent model for
        this rule: it has a guard with a two-valued verdict."""
        imports = {i.local: i.qualified for i in facts.imports if i.local != "*"}
        return next(candidates(tree, source, imports, settings), None) is not None

    def check(self) -> Sequence[Diagnostic]:
        model = self.context.model
        fallibility = Fallibility(model, tuple(self.settings.get("fallible-callables", ())))
        guards_here = candidates(model.tree, self.context.source, model.imports, self.settings, model.call_nodes())
        for func, body, verdict in guards_here:
            fold = Folds(fallibility, func, body, verdict).first()
            if fold is not None:
                self._report(func, verdict, fold)
        return self.found

    # -- the finding ----------------------------------------------------------------------
    def _report(self, func: ast.AST, verdict: Verdict, fold: Fold) -> None:
        name = func.name  # type: ignore[attr-defined]
        line = func.lineno  # type: ignore[attr-defined]
        text = self.context.model.lines[line - 1] if line <= len(self.context.model.lines) else ""
        start = text.find(name, text.find("def") + 3 if "def" in text else 0)
        column = start + 1 if start >= 0 else 1
        where = self._where(fold.node.lineno, line)  # type: ignore[attr-defined]
        message = (
            f"Guard `{name}` returns {verdict.shape}, but {self._step(fold, line)} "
            f"{self._fold(fold, verdict, where)}; a two-valued verdict cannot say \"not evaluated\""
        )
        fold_line = fold.node.lineno  # type: ignore[attr-defined]
        fold_column = self.context.model.column(fold_line, getattr(fold.node, "col_offset", 0))
        related = RelatedLocation(
            self.context.path,
            Span(Position(fold_line, fold_column), Position(fold_line, fold_column)),
            f"the failure becomes the verdict here: `{fold.code}`",
        )
        self.report(line, column, message, end_column=column + len(name), related=(related,))

    def _where(self, target: int, def_line: int) -> str:
        if is_notebook(self.context.path):  # lines of the notebook's joined cells mean nothing to a reader
            delta = target - def_line
            if delta < 0:
                return "above the guard"
            return f"{delta} line{'s' if delta != 1 else ''} below the `def`"
        return f"line {target}"

    def _step(self, fold: Fold, def_line: int) -> str:
        step = fold.step
        if step.kind == "state":
            return f"`{step.text}` (a model's answer, written by `{step.via}`)"
        if step.kind in _UNSET:
            return f"`{step.text}`"
        where = self._where(step.line, def_line)
        if fold.kind == "missing":
            return f"`{step.text}` ({where})"
        via = f", through `{step.via}`" if step.via else ""
        return f"`{step.text}` ({where}, {_KIND_TEXT.get(step.kind, 'a step that can fail')}{via})"

    def _fold(self, fold: Fold, verdict: Verdict, where: str) -> str:
        meaning = passes(fold.verdict, verdict) if fold.verdict else None
        counted = {True: "counts as a pass", False: "counts as a reject", None: "still gets a verdict"}[meaning]
        if fold.kind == "except":
            return (f"can fail and `{fold.code}` ({where}) turns the failure into `{fold.verdict}`: "
                    f"a check that could not run {counted}")
        if fold.kind == "missing":
            absent = _UNSET.get(fold.step.kind, "may come back empty")
            return (f"{absent} and `{fold.code}` ({where}) returns `{fold.verdict}` without "
                    f"evaluating: a missing value {counted}")
        if fold.kind == "default":
            return f"gives an answer whose missing field `{fold.code}` ({where}) turns into a verdict"
        if fold.verdict.startswith("="):
            return (f"gives an answer that `{fold.code}` ({where}) reduces to two values: a matching answer "
                    f"goes to `{fold.verdict[1:]}`, every other one, also a failed or malformed one, to the "
                    f"other verdict")
        if fold.verdict:
            return (f"gives an answer that `{fold.code}` ({where}) reduces to two values: every other "
                    f"answer, also a failed or malformed one, goes to `{fold.verdict}`")
        return (f"gives an answer that `{fold.code}` ({where}) reduces to two values: an uncertain, "
                f"empty or malformed answer becomes one of them")
