"""Metadata and documentation of AGL301 boolean-guard-verdict (its check is in
``boolean_guard_verdict``). The page lists the default guard words, read from
``knowledge.guards`` so that it never disagrees with them."""

from __future__ import annotations

from agentlint.knowledge import guards
from agentlint.rules.diagnostics import RuleMeta

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


def _listed(words) -> str:
    return ", ".join(f"`{w}`" for w in sorted(words))


_DOCS_301 = _DOCS_TEMPLATE
for _slot, _words in {
    "verbs": guards.VERDICT_VERBS,
    "nouns": guards.VERDICT_NOUNS,
    "keywords": guards.GUARD_KEYWORDS,
    "suffixes": guards.GUARD_KEYWORD_SUFFIXES,
    "prefixes": guards.VERDICT_PREDICATE_PREFIXES,
    "last_words": guards.VERDICT_LAST_WORDS,
    "probes": guards.GATE_ONLY_WORDS,
}.items():
    _DOCS_301 = _DOCS_301.replace("{" + _slot + "}", _listed(_words))

BOOLEAN_GUARD_VERDICT = RuleMeta(
    code="AGL301",
    name="boolean-guard-verdict",
    summary=(
        "A guard's evaluation can fail (a model, network, file or lookup step) and its two-valued "
        "verdict folds the failure into \"approved\" or \"rejected\": a bool cannot say \"not "
        "evaluated\", so the approval rate lies."
    ),
    docs=_DOCS_301,
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
