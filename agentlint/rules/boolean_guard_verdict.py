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
from agentlint.rules.diagnostics import Diagnostic, Position, RelatedLocation, RuleMeta, Span

_DOCS_TEMPLATE = """\
## What it does
Flags a guard whose verdict has two values while its evaluation can fail, and names
both: the step that can fail and the place where its failure (or its uncertainty)
becomes one of the two verdicts.

**The step that can fail**, in the guard or in a helper of the same module it always
calls: a model call (any call agentlint's agent model recognises, such as
`client.chat.completions.create`, `llm.invoke`, `Runner.run`, `litellm.completion`; a
classifier method such as `.scan()` or `.classify()` on an instance of an imported
class; a DSPy predictor; your own `fallible-callables`), a network or database call
(`requests.get`, `httpx`, `aiohttp`, `sqlite3`, `redis`, ...), a subprocess, a file read
(`open(config_path)`; not of a file passed in to be judged), a configuration lookup
(`os.environ.get`), a lookup that may find nothing (`store.get(owner_id)`), an awaited
call, and parsing a model's or a server's answer (`json.loads(reply)`).

**Where the failure becomes the verdict:**
- an `except` for that failure (bare, `Exception`, or named for it: a timeout, a
  connection, an API error; a parse error when a model's or a server's answer is read)
  that returns a verdict, sets the one returned later, or falls through to
  `return False`;
- a missing value turned into a verdict: `if not api_key: return True`,
  `if record is None: return True`, `if self.consent_callback is None: return True`,
  when the value is used for the evaluation afterwards;
- a model's answer collapsed onto two values: `return verdict == "yes"`,
  `tripwire_triggered=result.decision == Decision.BLOCK` (every other decision, such as
  "needs review", becomes "not tripped"), `score > threshold`, an `if` on the answer
  whose other branch returns a verdict (also when the answer reaches the guard through
  a graph state key that another node wrote from a model call);
- a missing field of a model's answer read with a verdict as default:
  `answer.get("safe", True)`.

**Two-valued verdicts:** `-> bool`, `-> tuple[bool, str]` / `Tuple[bool, ...]`,
functions returning comparisons or `True`/`False`, a two-member `Literal`, "yes"/"no"
(or "approved"/"rejected", "pass"/"fail", ...) strings, OpenAI Agents'
`GuardrailFunctionOutput(tripwire_triggered=...)`, Guardrails AI's
`PassResult`/`FailResult`, a bool under a verdict key of a returned state
(`{"human_approved": ...}`), a result type whose only verdict field is a bool, and the
two labels of a conditional edge's routing function.

**Guards:** a function decorated or registered as one (`@input_guardrail`,
`guardrail=`, `input_guardrails=[...]`, `final_answer_checks=[...]`,
`before_tool_callback=`, `condition=`, `is_termination_msg=`, the routing function of
LangGraph's `add_conditional_edges`, FastAPI's `Depends(...)`, NeMo Guardrails'
`@action`), the `forward` of a DSPy module, a function that returns a verdict key in a
state, a function named like a guard (`check_*`, `validate_*`, `verify_*`, `grade_*`,
`analyze_*`, `is_admin*`, `*_allowed`, `*_guard`, `*_filter`, ...), and a state probe
(`*_enabled`, `*_available`, `*_running`, ...) whose result gates something
(`if not payments_enabled(): ...`, `ok = service_ready(); if not ok:`). Methods count,
also with `self` as their only parameter.

Never flagged:
- deterministic predicates, whatever their name (regex, allow-lists, membership,
  HMAC comparison): their bool always comes from an evaluation that ran; so does an
  exception that is the answer itself (`except ValueError` around parsing the input,
  `CalledProcessError` of a command that ran);
- human y/N prompts (`input()`, `click.confirm`): a person's answer is not a failed
  evaluation;
- guards that reject by raising, and handlers that re-raise or exit (also when the
  function is annotated `-> bool`);
- structured verdicts with a third state (`Optional[bool]`, a `return None` path, an
  enum, a result type with an `error` or `status` field, `{"approved": None}`);
- action functions whose bool is a success status (`send_email`, `save_report`);
- abstract, overload and Protocol methods and stubs;
- test code, by default (see Configuration).

## Why is this bad?
A bool has two values, and a guard that can fail has three outcomes: pass, reject, and
"could not evaluate" (the moderation API timed out, the policy file is missing, the
model answered "Probably."). With a bool, the third outcome is folded into one of the
other two. Folded into "pass", every failure is an approval nobody can tell from a real
one, and the approval rate counts checks that never ran. Folded into "reject", an outage
looks like a wave of bad input. Either way the number on the dashboard is the wrong
metric with the look of the right one, and nobody can answer the first question to ask
about a guard: how often did it actually run? A guard whose evaluation cannot fail (a
regex, an allow-list) always evaluates, and its bool is the right type.

## Example
```python
def check_input(text: str) -> bool:
    try:
        result = moderation_client.classify(text)
        return not result.flagged
    except Exception:
        return True  # the moderation service is down: let it through
```

## Use instead
A three-way verdict, with reject winning over pass when several checks run:
```python
class Verdict(enum.Enum):
    PASS = "pass"
    REJECT = "reject"
    NOT_EVALUATED = "not_evaluated"


def check_input(text: str) -> Verdict:
    try:
        result = moderation_client.classify(text)
    except Exception:
        logger.exception("moderation unavailable")
        GUARD_NOT_EVALUATED.inc()
        return Verdict.NOT_EVALUATED
    return Verdict.REJECT if result.flagged else Verdict.PASS
```
The caller decides what `NOT_EVALUATED` means (fail open or closed), and the metric
counts it apart. When the framework insists on a bool (a CrewAI guardrail, an OpenAI
Agents `GuardrailFunctionOutput`), compute the three-way verdict first and map it to
the framework's bool at the very edge, recording `not_evaluated` on the way. For a
model judge, treat an answer that is neither label as `NOT_EVALUATED` instead of
comparing with one label only.

## Fix safety
No fix: the verdict type, and what "not evaluated" should do, are design decisions.

## Configuration
```toml
[tool.agentlint.rules.AGL301]
fallible-callables = ["myapp.llm.ask_llm", "*.generate_text"]  # your own model or service calls
guard-verbs = ["check", "validate", "audit"]       # first words of a guard's name (replaces the list)
guard-nouns = ["guard", "check", "gate"]           # last words of a guard's name (replaces the list)
guard-keywords = ["guardrail", "screens"]          # keyword arguments that register a guard (replaces the list)
```
`fallible-callables` takes dotted names (`myapp.llm.ask_llm`), bare function names
(`ask_llm`) or `*.method` for a method on any receiver; a call to one counts as a model
call. Model calls of your own wrappers can also be declared once for every rule with
the top-level `llm-call-patterns`. The defaults of the other three:

- `guard-verbs`: {verbs};
- `guard-nouns`: {nouns};
- `guard-keywords`: {keywords} (and any keyword ending in {suffixes}).

Besides these names, predicates starting with {prefixes} and names ending in
{last_words} are guards' questions, and names ending in {probes} count when
their result gates something. A name starting with an action verb (`send`, `save`,
`get`, `fetch`, `run`, ...) is never a guard by its name.

Findings in test code (`tests/`, `test_*.py`, `conftest.py`, ...) are skipped by
default: a test double's bool verdict is not a product guard. Set
`[tool.agentlint.tests] AGL301 = "report"` (or `"note"`) to see them.

## Standard
Enforces the guardrails standard, section "Ternary verdict": a guard's result is pass,
reject or not evaluated, and a reject wins over a pass in the same run. With a bool,
"not evaluated" becomes "approved", and the approval rate then counts everything the
guard could not look at. Its checklist asks that the verdict is ternary and that one can
answer how often a guard ran and how often it could not evaluate; its list of
anti-patterns names the bool verdict.
"""

_UNSET = {"hook": "may not be set", "secret": "may not be configured"}
"""Steps that are an attribute the guard tests for absence: how they go missing."""


def _listed(words) -> str:
    return ", ".join(f"`{w}`" for w in sorted(words))


_DOCS = _DOCS_TEMPLATE
for _slot, _words in {
    "verbs": guards.VERDICT_VERBS,
    "nouns": guards.VERDICT_NOUNS,
    "keywords": guards.GUARD_KEYWORDS,
    "suffixes": guards.GUARD_KEYWORD_SUFFIXES,
    "prefixes": guards.VERDICT_PREDICATE_PREFIXES,
    "last_words": guards.VERDICT_LAST_WORDS,
    "probes": guards.GATE_ONLY_WORDS,
}.items():
    _DOCS = _DOCS.replace("{" + _slot + "}", _listed(_words))

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
    tree: ast.Module, source: str, imports: Mapping[str, str], settings: Mapping[str, Any]
) -> Iterator[tuple[ast.AST, Body, Verdict]]:
    """The functions of ``tree`` that are guards with a two-valued verdict (no agent
    model needed: the engine asks this first for files without agent vocabulary)."""
    module = None
    signals = GuardSignals(
        tree,
        source,
        imports,
        frozenset(settings.get("guard-verbs", guards.VERDICT_VERBS)),
        frozenset(settings.get("guard-nouns", guards.VERDICT_NOUNS)),
        frozenset(settings.get("guard-keywords", guards.GUARD_KEYWORDS)),
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

    meta = RuleMeta(
        code="AGL301",
        name="boolean-guard-verdict",
        summary=(
            "A guard's evaluation can fail (a model, network, file or lookup step) and its two-valued "
            "verdict folds the failure into \"approved\" or \"rejected\": a bool cannot say \"not "
            "evaluated\", so the approval rate lies."
        ),
        docs=_DOCS,
        help=(
            "Return a three-way verdict (pass / reject / not_evaluated, reject winning over pass) "
            "and count `not_evaluated` apart."
        ),
        settings={
            "fallible-callables": [],
            "guard-verbs": sorted(guards.VERDICT_VERBS),
            "guard-nouns": sorted(guards.VERDICT_NOUNS),
            "guard-keywords": sorted(guards.GUARD_KEYWORDS),
        },
    )

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
        for func, body, verdict in candidates(model.tree, self.context.source, model.imports, self.settings):
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
