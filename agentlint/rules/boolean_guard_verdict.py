"""AGL301 boolean-guard-verdict: a guard whose verdict is a bare bool.

A function is a guard when it is decorated as one (`@input_guardrail`, ...), passed as
one (`guardrail=fn`, `input_guardrails=[fn]`, `final_answer_checks=[fn]`), or named
like one (`check_input`, `validate_sql`, `is_safe_url`, `pii_guardrail`). Its verdict
is a bare bool when it is annotated `-> bool` / `-> tuple[bool, ...]` /
`-> GuardrailFunctionOutput`, or when every value it returns is a bool expression, a
tuple led by one, or a `GuardrailFunctionOutput(...)`.

Two kinds of guard are left alone because their failures do not turn into a verdict:
one that rejects by raising (it returns nothing, or the same constant every time), and
one that catches the failures of its own evaluation only to raise them again. The
strong case, reported with its own message, is an `except` path that returns a verdict
for a failure of the evaluation itself (a broad handler, or one for a timeout, a
connection or an API error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agentlint.knowledge import guards, recording
from agentlint.knowledge.words import name_words
from agentlint.rules.api import Rule, RuleContext, dotted_name
from agentlint.rules.diagnostics import RuleMeta
from agentlint.rules.lazy import libcst_module
from agentlint.rules.traversal import children, nested_scopes

cst = libcst_module()

_DOCS = """\
## What it does
Flags a guard whose verdict is a bare bool. A function is a guard when it is

- decorated as a guardrail (`@input_guardrail`, `@output_guardrail`,
  `@tool_input_guardrail`, ... with or without arguments);
- passed as one: `Task(guardrail=fn)`, `Task(guardrails=[fn])`,
  `Agent(input_guardrails=[fn], output_guardrails=[...])`,
  `CodeAgent(final_answer_checks=[fn])`; or
- named like one: a name that starts with `guard`, `validate`, `verify`, `check`,
  `moderate`, `authorize`, `permit`, `allow` or `enforce` (`check_input`,
  `_validate_url`), ends with `guard`, `guardrail`, `check`, `validator`, `policy` or
  `moderation` (`pii_guardrail`, `safety_check`), or asks `is_`/`can_`/`may_` +
  `safe`/`allowed`/`permitted`/`authorized`/`blocked`/`forbidden` (`is_safe_url`).

Its verdict is a bare bool when it is annotated `-> bool`, `-> tuple[bool, ...]` or
`-> GuardrailFunctionOutput` (the OpenAI Agents SDK's `tripwire_triggered: bool`), or
when every value it returns is a bool (`True`/`False`, a comparison, `not ...`,
`isinstance(...)`, `any(...)`, `resp.flagged`, `x.is_valid`), a tuple led by one
(CrewAI's `(False, "reason")`), or a `GuardrailFunctionOutput(...)`.

The strongest case gets its own message: an `except` inside the guard that returns a
verdict when the evaluation itself failed (a bare `except:`, `except Exception`, or an
exception such as a timeout, a connection error or an API error). That handler turns
"could not check" into "passed" (or into "rejected"), silently.

Not flagged:
- predicates that are not guards (`is_empty`, `has_prefix`, `parse_flag`);
- guards that return an enum, a result object or a three-way verdict
  (`-> Verdict`, `return RailOutcome(...)`, `ToolGuardrailFunctionOutput.allow(...)`);
- guards whose failure propagates as an exception: they reject by raising and return
  nothing (or always the same value), or their `except` clauses re-raise;
- an `except` for an invalid input (`except ValueError: return False` in a validator):
  that is the check's answer, not a failure to check. The guard is still reported for
  its bool verdict, with the ordinary message.

## Why is this bad?
A bool has two values, and a guard has three outcomes: pass, reject, and "could not
evaluate" (the moderation API timed out, the policy file is missing, the classifier
crashed). With a bool, the third outcome has to be folded into one of the other two.
Folded into "pass", every failure is an approval nobody can tell from a real one, and
the approval rate counts checks that never ran. Folded into "reject", an outage looks
like a wave of bad input. Either way the number on the dashboard is the wrong metric
with the look of the right one, and nobody can answer the first question to ask about
a guard that never rejects anything: how often did it actually run?

## Example
```python
def check_input(text: str) -> bool:
    try:
        result = moderation.classify(text)
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
        result = moderation.classify(text)
    except Exception:
        logger.exception("moderation unavailable")
        GUARD_NOT_EVALUATED.inc()
        return Verdict.NOT_EVALUATED
    return Verdict.REJECT if result.flagged else Verdict.PASS
```
The caller decides what `NOT_EVALUATED` means (fail open or closed), and the metric
counts it apart. When the framework insists on a bool (a CrewAI guardrail, an OpenAI
Agents `GuardrailFunctionOutput`), compute the three-way verdict first and map it to
the framework's bool at the very edge, recording `not_evaluated` on the way.

## Fix safety
No fix: the verdict type, and what "not evaluated" should do, are design decisions.

## Configuration
None. The guard vocabulary (decorators, keywords, names) lives in
`agentlint/knowledge/guards.py`.

## Standard
Enforces the guardrails standard (`package/framework/standards/ai-agents/guardrails.md`),
section "Veredito ternário": *"O resultado de um guard é `pass` / `reject` /
`not_evaluated`, com `reject` vencendo `pass` na mesma execução"*, because *"com
booleano, 'não avaliado' vira 'aprovado', e a métrica de aprovação passa a incluir tudo
o que o guard não conseguiu olhar"* (with a bool, "not evaluated" becomes "approved",
and the approval rate includes everything the guard could not look at). Its checklist
asks that *"o veredito é ternário"* and that one can answer *"quantas vezes este guard
rodou, e quantas ele não conseguiu avaliar"*; its anti-pattern table lists *"veredito
booleano"*.
"""

@dataclass
class _Body:
    """What a function's own code (nested definitions excluded) does."""

    returns: list[tuple[cst.Return, cst.ExceptHandler | None]] = field(default_factory=list)
    handlers: list[cst.ExceptHandler] = field(default_factory=list)
    raises: int = 0
    yields: bool = False


def _scan(function: cst.FunctionDef) -> _Body:
    body = _Body()
    stack: list[tuple[cst.CSTNode, cst.ExceptHandler | None]] = [(function.body, None)]
    while stack:
        node, handler = stack.pop()
        if isinstance(node, nested_scopes()):
            continue
        if isinstance(node, cst.Return):
            body.returns.append((node, handler))
        elif isinstance(node, cst.Raise):
            body.raises += 1
        elif isinstance(node, (cst.Yield,)):
            body.yields = True
        elif isinstance(node, cst.ExceptHandler):
            body.handlers.append(node)
            handler = node
        stack.extend((child, handler) for child in children(node))
    return body


def _last(expr: cst.BaseExpression) -> str | None:
    dotted = dotted_name(expr)
    return dotted.rpartition(".")[2] if dotted else None


def _bool_name(name: str | None) -> bool:
    if not name:
        return False
    lowered = name.lower().lstrip("_")
    return lowered in guards.BOOL_RESULT_NAMES or lowered.startswith(guards.BOOL_PREFIXES)


def _is_bool(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` evaluates to a bool, judged from its shape."""
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False") or _bool_name(expr.value)
    if isinstance(expr, cst.Attribute):
        return _bool_name(expr.attr.value)
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, cst.Not)
    if isinstance(expr, cst.Comparison):
        return True
    if isinstance(expr, cst.BooleanOperation):
        return _is_bool(expr.left) and _is_bool(expr.right)
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Name) and func.value in guards.BOOL_BUILTINS:
            return True
        if isinstance(func, cst.Attribute):
            name = func.attr.value
        elif isinstance(func, cst.Name):
            name = func.value
        else:
            return False
        return name in guards.BOOL_METHODS or _bool_name(name)
    return False


def _is_literal_bool(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value in ("True", "False")


def _binary_output(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and _last(expr.func) in guards.BINARY_VERDICT_TYPES


def _bool_tuple(expr: cst.BaseExpression) -> bool:
    """`(False, "reason")`: a verdict and what goes with it. `(has_json, has_sse)`, two
    flags, is not a verdict."""
    if not isinstance(expr, cst.Tuple) or len(expr.elements) < 2:
        return False
    first, second = expr.elements[0].value, expr.elements[1].value
    return _is_bool(first) and not _is_bool(second)


def _verdict_value(expr: cst.BaseExpression | None) -> str | None:
    """The literal verdict a return hands out (`True`, `False`, or
    `tripwire_triggered=True`), or None when it is not a literal."""
    if expr is None:
        return None
    if _is_literal_bool(expr):
        return expr.value  # type: ignore[union-attr]
    if isinstance(expr, cst.Tuple) and expr.elements and _is_literal_bool(expr.elements[0].value):
        return expr.elements[0].value.value  # type: ignore[union-attr]
    if _binary_output(expr):
        for arg in expr.args:  # type: ignore[union-attr]
            if arg.keyword is not None and arg.keyword.value == "tripwire_triggered" and _is_literal_bool(arg.value):
                return f"tripwire_triggered={arg.value.value}"  # type: ignore[union-attr]
    return None


def _annotation_kind(function: cst.FunctionDef) -> str | None:
    """`bool`, `tuple`, `binary`, `other` (annotated with something else) or None."""
    if function.returns is None:
        return None
    annotation = function.returns.annotation
    if isinstance(annotation, cst.SimpleString):
        text = annotation.raw_value.strip()
        if text == "bool":
            return "bool"
        return "other"
    name = _last(annotation) if isinstance(annotation, (cst.Name, cst.Attribute)) else None
    if name == "bool":
        return "bool"
    if name in guards.BINARY_VERDICT_TYPES:
        return "binary"
    if isinstance(annotation, cst.Subscript) and _last(annotation.value) in ("tuple", "Tuple"):
        kinds = [
            _last(e.slice.value) if isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Name, cst.Attribute)) else None
            for e in annotation.slice
        ]
        if len(kinds) >= 2 and kinds[0] == "bool" and kinds[1] != "bool":
            return "tuple"  # `tuple[bool, str]`; `tuple[bool, bool]` is two flags
    return "other"


def _enclosing_class(ancestors: tuple[cst.CSTNode, ...]) -> cst.ClassDef | None:
    """The class a function is a method of (directly), if any."""
    for ancestor in reversed(ancestors):
        if isinstance(ancestor, cst.ClassDef):
            return ancestor
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
            return None
    return None


def _judges_an_argument(function: cst.FunctionDef, ancestors: tuple[cst.CSTNode, ...]) -> bool:
    """Whether the function takes something to judge: a parameter besides `self`/`cls`
    of a method."""
    params = function.params
    names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    if _enclosing_class(ancestors) is not None and names and names[0] in ("self", "cls"):
        names = names[1:]
    star = isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None
    return bool(names) or star


class _GuardPrefilter:
    """A file can hold a guard only if it says `guardrail` or `final_answer_checks`
    (decorated or passed as one), or if one of its `def`s has a guard's name (the same
    test as the rule's: `knowledge.is_guard_name`, probes excluded). Cheaper than a
    LibCST parse by far, and a third fewer files than a regex on the name stems."""

    _passed = re.compile(rb"(?i)guardrail|final_answer_checks")
    _defs = re.compile(rb"\bdef(?:\s|\\)+([^\s(\[:\\]+)")

    def search(self, content: bytes) -> bool:
        if self._passed.search(content):
            return True
        for match in self._defs.finditer(content):
            name = match.group(1).decode("utf-8", "replace")
            if guards.is_guard_name(name) and not name_words(name) & guards.GUARD_PROBE_WORDS:
                return True
        return False


class BooleanGuardVerdict(Rule):
    """Guards whose verdict is a bare bool."""

    meta = RuleMeta(
        code="AGL301",
        name="boolean-guard-verdict",
        summary=(
            "A guard returns a bare bool verdict, which cannot say \"not evaluated\": a failure "
            "to evaluate becomes a pass (or a reject) and the approval rate lies."
        ),
        docs=_DOCS,
        help=(
            "Return a three-way verdict (pass / reject / not_evaluated, reject winning over pass) "
            "and count `not_evaluated` apart."
        ),
    )

    prefilter = _GuardPrefilter()

    def __init__(self, context: RuleContext) -> None:
        super().__init__(context)
        self._functions: list[tuple[cst.FunctionDef, tuple[cst.CSTNode, ...]]] = []
        self._passed_as_guard: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append((node, tuple(self.context.ancestors)))

    def visit_Call(self, node: cst.Call) -> None:
        for arg in node.args:
            if arg.keyword is None or arg.keyword.value not in guards.GUARD_KEYWORDS:
                continue
            values = [arg.value]
            if isinstance(arg.value, (cst.List, cst.Tuple)):
                values = [e.value for e in arg.value.elements]
            for value in values:
                if isinstance(value, cst.Call):  # `guardrail=InputGuardrail(guardrail_function=fn)`
                    values.extend(a.value for a in value.args)
                    continue
                name = _last(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
                if name:
                    self._passed_as_guard.add(name)

    def leave_Module(self, original_node: cst.Module) -> None:
        for function, ancestors in self._functions:
            self._check(function, ancestors)

    # -- one function -----------------------------------------------------------------

    def _is_guard(self, function: cst.FunctionDef, ancestors: tuple[cst.CSTNode, ...]) -> bool:
        for decorator in function.decorators:
            expr = decorator.decorator
            if isinstance(expr, cst.Call):
                expr = expr.func
            dotted = self.context.qualified_name(expr)
            if dotted is not None and guards.is_guard_decorator(dotted):
                return True
        name = function.name.value
        if name in self._passed_as_guard:
            return True
        if not guards.is_guard_name(name):
            return False
        # By its name alone: it must judge something it is given, and not be a probe of
        # state or capability (`check_index_exists`, `health_check`).
        if not _judges_an_argument(function, ancestors):
            return False
        words = name_words(name)
        if words & guards.GUARD_PROBE_WORDS:
            return False
        ordered = [w for w in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name) if w]
        if len(ordered) > 1 and ordered[-1].lower() in guards.GUARD_NAME_NOUNS:
            if all(len(w) < 3 for w in ordered[:-1]):
                return False  # `l_sa_check`: an abbreviation, not a guard of something
        if name.strip("_").lower() in guards.GENERIC_GUARD_NAMES:
            owner = _enclosing_class(ancestors)
            return owner is not None and bool(
                name_words(owner.name.value) & guards.GUARD_CLASS_WORDS
            )
        return True

    def _check(self, function: cst.FunctionDef, ancestors: tuple[cst.CSTNode, ...]) -> None:
        if not self._is_guard(function, ancestors):
            return
        body = _scan(function)
        if body.yields:
            return
        annotation = _annotation_kind(function)
        values = [r.value for r, _ in body.returns if r.value is not None]
        if annotation == "other":
            return
        if annotation is None:
            if not values:
                return
            if not all(_is_bool(v) or _bool_tuple(v) or _binary_output(v) for v in values):
                return
        # Always the same constant: a default or a stub, or a guard that rejects by
        # raising; either way the returned value carries no verdict.
        literal = {_verdict_value(v) for v in values}
        if values and len(literal) == 1 and None not in literal:
            if not any(h is not None for _, h in body.returns):
                return
        folded = self._folded_failure(body)
        name = function.name.value
        if folded is not None:
            handler, verdict = folded
            meaning = self._meaning(name, verdict)
            self.report(
                handler,
                f"Guard `{name}` turns a failure to evaluate into a verdict: this `except` returns "
                f"`{verdict}`, so a check that could not run counts as {meaning} (a bool cannot say "
                f"\"not evaluated\")",
                ancestors=self._handler_ancestors(function, ancestors, handler),
            )
            return
        if body.handlers and all(self._reraises(h) for h in body.handlers):
            return  # its evaluation failures propagate as exceptions
        shape = {
            "bool": "a bare `bool`",
            "tuple": "a `(bool, ...)` tuple",
            "binary": "`GuardrailFunctionOutput(tripwire_triggered=<bool>)`",
            None: "a bare `bool`",
        }[annotation]
        if annotation is None and values and all(_binary_output(v) for v in values):
            shape = "`GuardrailFunctionOutput(tripwire_triggered=<bool>)`"
        elif annotation is None and values and all(_bool_tuple(v) for v in values):
            shape = "a `(bool, ...)` tuple"
        self.report(
            function.name,
            f"Guard `{name}` returns {shape} as its verdict, which cannot say \"not evaluated\": "
            f"a failure to evaluate would count as a pass or a reject",
            ancestors=ancestors + (function,),
        )

    def _folded_failure(self, body: _Body) -> tuple[cst.ExceptHandler, str] | None:
        for ret, handler in body.returns:
            if handler is None:
                continue
            verdict = _verdict_value(ret.value)
            if verdict is None:
                continue
            if self._evaluation_failure(handler):
                return handler, verdict
        return None

    def _evaluation_failure(self, handler: cst.ExceptHandler) -> bool:
        """A handler that catches the evaluation's own failures: broad, or named for a
        timeout, a connection, an API or a service error."""
        if handler.type is None:
            return True
        types = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
        for expr in types:
            qualified = self.context.qualified_name(expr)
            if qualified is None:
                continue
            if qualified in recording.BROAD_EXCEPTIONS:
                return True
            lowered = qualified.lower()
            if any(stem in lowered for stem in guards.EVALUATION_FAILURE_STEMS):
                return True
        return False

    @staticmethod
    def _reraises(handler: cst.ExceptHandler) -> bool:
        stack: list[cst.CSTNode] = [handler.body]
        while stack:
            node = stack.pop()
            if isinstance(node, nested_scopes()):
                continue
            if isinstance(node, cst.Raise):
                return True
            stack.extend(children(node))
        return False

    @staticmethod
    def _meaning(name: str, verdict: str) -> str:
        value = verdict.rpartition("=")[2]
        rejecting_name = bool(name_words(name) & guards.REJECT_WORDS)
        true_rejects = verdict.startswith("tripwire_triggered") or rejecting_name
        passes = (value == "True") != true_rejects
        return "a pass" if passes else "a reject"

    @staticmethod
    def _handler_ancestors(function, ancestors, handler) -> tuple[cst.CSTNode, ...]:
        """The chain from the module down to ``handler``."""
        path: list[cst.CSTNode] = []

        def find(node: cst.CSTNode) -> bool:
            if node is handler:
                return True
            for child in children(node):
                path.append(child)
                if find(child):
                    return True
                path.pop()
            return False

        find(function)
        return ancestors + (function, *path[:-1])
