"""AGL301's question to a guard, first half: which calls of its evaluation can fail.

A *step* is a call whose evaluation can fail: a model call (any call the agent model
recognises, a classifier method on an instance of an imported class, a DSPy predictor,
the user's `fallible-callables`), a network or database call, a subprocess, a file read,
a configuration lookup, an awaited call, or a call of a helper of the module that always
makes one. ``Taint`` follows a step's result through a function's assignments
(`reply = llm.invoke(...)`, `data = json.loads(reply)`), and through a graph's state when
another node wrote a key from a model's answer.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from agentlint.facts.ast_helpers import dotted
from agentlint.knowledge import guards
from agentlint.knowledge.words import name_words
from agentlint.rules._guard_verdicts import Body, function_body, functions, last, own_nodes

ANSWER_KINDS = frozenset({"model", "fallible", "state"})
"""Steps whose result is an answer to judge (a model's, a classifier's)."""

_MODEL_WORDS = guards.MODEL_RECEIVER_WORDS - {"client", "aclient"}


@dataclass(frozen=True)
class Step:
    """A call whose evaluation can fail."""

    kind: str
    text: str
    line: int
    via: str = ""
    """Through a helper: what the helper calls (`self.client.chat.completions.create`)."""


def text_of(expr: ast.AST, limit: int = 60) -> str:
    text = dotted(expr)
    if text is None:
        try:
            text = ast.unparse(expr)
        except Exception:  # pragma: no cover - unparse of odd trees
            return "..."
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def call_text(call: ast.Call) -> str:
    """`httpx.post(...).json(...)`: how a call reads, its arguments elided."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        return f"{call_text(func.value)}.{func.attr}(...)"
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Await) and isinstance(func.value.value, ast.Call):
        return f"(await {call_text(func.value.value)}).{func.attr}(...)"
    return f"{text_of(func)}(...)"


def _root_in(qualified: str, roots: Iterable[str]) -> bool:
    return any(qualified == r or qualified.startswith(r + ".") for r in roots)


def _receiver_name(expr: ast.AST) -> str:
    """`self.judge_llm` -> judge_llm, `llm.with_structured_output(M)` -> llm."""
    while True:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            expr = expr.func.value
        elif isinstance(expr, ast.Attribute):
            return expr.attr
        elif isinstance(expr, ast.Name):
            return expr.id
        else:
            return ""


def _receiver_chain(expr: ast.AST) -> list[ast.AST]:
    """`client.moderations` -> [client.moderations, client]; `llm.bind(x)` -> [llm.bind(x), llm]."""
    out: list[ast.AST] = []
    while len(out) < 6:
        out.append(expr)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            expr = expr.func.value
        elif isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
                break
            expr = expr.value
        else:
            break
    return out


def input_parameters(func: ast.AST) -> set[str]:
    """Parameters the caller must pass (no default), `self`/`cls` excluded: the input
    under judgment."""
    args = func.args  # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    required = positional[: len(positional) - len(args.defaults)]
    names = {a.arg for a in required}
    names |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None}
    return names - {"self", "cls"}


class Fallibility:
    """Which calls of one module can fail to evaluate, on the file's agent model."""

    def __init__(self, model: Any, fallible_callables: Sequence[str] = ()) -> None:
        self.model = model
        self._exact = frozenset(c for c in fallible_callables if not c.startswith("*."))
        self._bare = frozenset(c for c in self._exact if "." not in c)
        self._tails = tuple(c[1:] for c in fallible_callables if c.startswith("*."))
        self._steps: dict[tuple[int, int], Step | None] = {}
        self._awaited: dict[int, set[int]] = {}
        self._state_keys: dict[str, str] | None = None

    # -- one call ------------------------------------------------------------------------
    def step(self, call: ast.Call, func: ast.AST, depth: int = 0) -> Step | None:
        key = (id(call), depth)
        if key not in self._steps:
            self._steps[key] = None  # a guard against recursion through helpers
            self._steps[key] = self._classify(call, func, depth)
        return self._steps[key]

    def _classify(self, call: ast.Call, func: ast.AST, depth: int) -> Step | None:
        model = self.model
        written = dotted(call.func)
        qualified = model.resolve(written) if written else ""
        if written and (written in guards.HUMAN_INPUT_CALLS or qualified in guards.HUMAN_INPUT_CALLS
                        or last(written) in ("AskUserMessage", "AskActionMessage")):
            return None
        text = call_text(call)
        line = call.lineno
        try:
            found = model.llm_call(call, func)
        except Exception:  # the agent model's own problem: treat the call as unknown
            found = None
        if found is not None:
            return Step("model", f"{found.text}(...)", line)
        if written and self._listed(written, qualified):
            return Step("fallible", text, line)
        if qualified:
            if _root_in(qualified, guards.SUBPROCESS_CALLS):
                return Step("subprocess", text, line)
            head = written.partition(".")[0] if written else ""
            networked = _root_in(qualified, guards.NETWORK_ROOTS) or last(qualified) in guards.NETWORK_FUNCTIONS
            # `httpx.Client()`, `aiohttp.ClientTimeout()`: building a client does no I/O yet
            if head in model.imports and networked and not last(qualified)[:1].isupper():
                return Step("network", text, line)
            if (qualified in guards.FILE_READS or written in ("open",)) and not self._reads_input(call, func):
                return Step("file", text, line)
            if qualified in guards.CONFIG_LOOKUPS or written in guards.CONFIG_LOOKUPS:
                return Step("config", text, line)
        if isinstance(call.func, ast.Attribute):
            found_step = self._method_step(call, func, text)
            if found_step is not None:
                return found_step
        if isinstance(call.func, (ast.Attribute, ast.Name)):
            type_ = self._type(call.func, func)
            if type_ and last(type_) in guards.DSPY_PREDICTORS and type_.startswith("dspy"):
                return Step("model", text, line)
        helper = None
        try:
            helper = model.helper_of(call, func)
        except Exception:
            helper = None
        if helper is not None:
            if depth >= 2:
                return None
            inner = self.always_step(helper, depth + 1)
            if inner is None:
                return None
            return Step(inner.kind, text, line, inner.via or inner.text)
        if id(call) in self.awaited(func) and not _root_in(qualified, guards.NOT_IO_AWAITS):
            return Step("awaited", f"await {text}", line)
        return None

    def _listed(self, written: str, qualified: str) -> bool:
        """One of the user's `fallible-callables`."""
        if written in self._exact or qualified in self._exact or last(written) in self._bare:
            return True
        return any(written.endswith(t) or qualified.endswith(t) for t in self._tails)

    def _method_step(self, call: ast.Call, func: ast.AST, text: str) -> Step | None:
        method = call.func.attr  # type: ignore[attr-defined]
        receiver = call.func.value  # type: ignore[attr-defined]
        line = call.lineno
        if method in guards.FILE_READ_METHODS and not self._derives_from_input(receiver, func):
            return Step("file", text, line)
        words: set[str] = set()
        for part in _receiver_chain(receiver):
            type_ = None if isinstance(part, ast.Call) else self._type(part, func)  # a call is a step of its own
            if type_:
                if _root_in(type_, guards.NETWORK_ROOTS) and type_.partition(".")[0] in self.model.imported_roots:
                    return Step("network", text, line)
                if method in guards.EVALUATION_METHODS and self._imported_class(type_):
                    return Step("model", text, line)
            words |= name_words(_receiver_name(part))
        if method in guards.EVALUATION_METHODS:
            if words & _MODEL_WORDS:
                return Step("model", text, line)
            if words & {"client", "aclient"}:
                return Step("network", text, line)
        return None

    def _type(self, expr: ast.AST, func: ast.AST) -> str | None:
        try:
            return self.model.receiver_type(expr, func)
        except Exception:
            return None

    def _imported_class(self, type_: str) -> bool:
        """`llamafirewall.LlamaFirewall`: an instance of a class from another package."""
        if "(" in type_ or type_.startswith("|") or type_.startswith(self.model.module + "."):
            return False
        head, _, tail = type_.partition(".")
        return bool(tail) and head in self.model.imported_roots and last(type_)[:1].isupper()

    def _reads_input(self, call: ast.Call, func: ast.AST) -> bool:
        return bool(call.args) and self._derives_from_input(call.args[0], func)

    @staticmethod
    def _derives_from_input(expr: ast.AST, func: ast.AST) -> bool:
        inputs = input_parameters(func)
        return any(isinstance(n, ast.Name) and n.id in inputs for n in ast.walk(expr))

    def awaited(self, func: ast.AST) -> set[int]:
        found = self._awaited.get(id(func))
        if found is None:
            found = self._awaited[id(func)] = {
                id(n.value) for n in own_nodes(func) if isinstance(n, ast.Await) and isinstance(n.value, ast.Call)
            }
        return found

    def always_step(self, func: ast.AST, depth: int = 0) -> Step | None:
        """A step ``func`` makes on every run (a helper's), directly or through its helpers."""
        for call, always in self.model.calls_in(func.body):  # type: ignore[attr-defined]
            if not always:
                continue
            found = self.step(call, func, depth)
            if found is not None and found.kind != "config":  # `os.environ.get` never fails
                return found
        return None

    # -- the module's state ----------------------------------------------------------------
    def model_state_keys(self) -> dict[str, str]:
        """State keys some function of the module returns from a model's answer (a graph
        node: `return {"severity": chain.invoke(...).content}`) -> that function."""
        if self._state_keys is None:
            self._state_keys = {}
            for func, _owner in functions(self.model.tree):
                body = function_body(func)
                dict_returns = [r.value for r in body.returns if isinstance(r.value, ast.Dict)]
                if not dict_returns:
                    continue
                taint = Taint(self, func, body, with_state=False)
                for value in dict_returns:
                    for k, v in zip(value.keys, value.values):
                        if isinstance(k, ast.Constant) and isinstance(k.value, str) \
                                and not isinstance(v, (ast.List, ast.Tuple, ast.ListComp)):  # a label, not `[message]`
                            origin = taint.origin(v)
                            if origin is not None and origin.kind in ANSWER_KINDS:
                                self._state_keys.setdefault(k.value, func.name)  # type: ignore[attr-defined]
        return self._state_keys


class Taint:
    """The names of one function that hold a step's result (`reply = llm.invoke(...)`,
    `data = json.loads(reply)`), found in a few sweeps over its assignments."""

    def __init__(self, fallibility: Fallibility, func: ast.AST, body: Body, with_state: bool = True) -> None:
        self.fallibility = fallibility
        self.func = func
        self.names: dict[str, Step] = {}
        self.state_param = _state_parameter(func) if with_state else None
        self._state_keys = fallibility.model_state_keys() if self.state_param else {}
        for _ in range(3):
            before = len(self.names)
            for stmt in body.statements:
                self._sweep(stmt)
            if len(self.names) == before:
                break

    def _sweep(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign):
            self._bind(stmt.targets, stmt.value)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
            self._bind([stmt.target], stmt.value)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._bind([item.optional_vars], item.context_expr)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self._bind([stmt.target], stmt.iter)

    def _bind(self, targets: Sequence[ast.expr], value: ast.expr) -> None:
        origin = self.origin(value)
        if origin is None:
            return
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name) and node.id not in self.names:
                    self.names[node.id] = origin

    def origin(self, expr: ast.AST) -> Step | None:
        """The step ``expr``'s value comes from (an answer kind first), or None."""
        best: Step | None = None
        for node in own_nodes(expr):
            found: Step | None = None
            if isinstance(node, ast.Name):
                found = self.names.get(node.id)
            elif isinstance(node, ast.Call):
                found = self.fallibility.step(node, self.func)
            elif isinstance(node, ast.Subscript) and self.state_param:
                found = self._state_read(node.value, node.slice)
            if found is not None:
                if found.kind in ANSWER_KINDS:
                    return found
                best = best or found
        return best

    def _state_read(self, value: ast.AST, key: ast.AST) -> Step | None:
        """`state["severity"]`, where another node wrote `severity` from a model's answer."""
        if isinstance(value, ast.Name) and value.id == self.state_param and isinstance(key, ast.Constant):
            writer = self._state_keys.get(key.value)  # type: ignore[arg-type]
            if writer is not None and writer != getattr(self.func, "name", None):
                return Step("state", f'{value.id}["{key.value}"]', value.lineno, writer)
        return None

    def answer(self, expr: ast.AST) -> Step | None:
        found = self.origin(expr)
        return found if found is not None and found.kind in ANSWER_KINDS else None


def _state_parameter(func: ast.AST) -> str | None:
    args = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]  # type: ignore[attr-defined]
    args = [a for a in args if a not in ("self", "cls")]
    return args[0] if args and "state" in args[0] else None
