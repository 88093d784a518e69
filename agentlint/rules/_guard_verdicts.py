"""AGL301's reading of one function, in plain `ast`: its own statements, the two-valued
verdict it returns (in which form), and the signals that make it a guard. Nothing here
needs the agent model; ``_guard_folds`` asks whether the evaluation can fail.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping

from agentlint.facts.ast_helpers import CHILD_FIELDS, COMPOUND_STATEMENTS, child_fields, dotted, nodes_of
from agentlint.facts.source import parse_quietly
from agentlint.knowledge import guards
from agentlint.knowledge.words import name_parts, name_words
from agentlint.rules._guard_texts import has_registration_text, may_gate, registration_words

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))


def last(name: str | None) -> str:
    return (name or "").rpartition(".")[2]


def own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and the nodes under it, nested functions, classes and lambdas excluded, in
    the order of a stack fed by `ast.iter_child_nodes`, without the nodes of the fields
    that hold names, flags, contexts and operators (``ast_helpers.child_fields``), which
    no reading of a guard looks for."""
    stack = [node]
    pop, push = stack.pop, stack.append
    fields_of = CHILD_FIELDS
    while stack:
        current = pop()
        yield current
        for name in fields_of.get(type(current)) or child_fields(type(current)):
            value = getattr(current, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST) and not isinstance(item, SCOPES):
                        push(item)
            elif isinstance(value, ast.AST) and not isinstance(value, SCOPES):
                push(value)


# ---------------------------------------------------------------------------------------
# A function's own statements
# ---------------------------------------------------------------------------------------


@dataclass
class Body:
    """What a function's own code (nested definitions excluded) holds, in source order."""

    func: ast.AST
    statements: list[ast.stmt] = field(default_factory=list)
    returns: list[ast.Return] = field(default_factory=list)
    tries: list[ast.Try] = field(default_factory=list)
    ifs: list[ast.If] = field(default_factory=list)
    after: dict[int, ast.stmt] = field(default_factory=dict)
    """id(statement) -> the statement that follows it in the same block."""
    yields: bool = False
    bound: dict[str, list[ast.expr]] = field(default_factory=dict)
    """Local name -> the values assigned to it (plain `x = value` only)."""
    known_bool: frozenset[str] = frozenset()
    """Functions of the module annotated `-> bool`: a call to one is a bool."""

    @property
    def values(self) -> list[ast.expr]:
        return [r.value for r in self.returns if r.value is not None]


def function_body(func: ast.AST) -> Body:
    body = Body(func)
    _scan_block(func.body, body)  # type: ignore[attr-defined]
    return body


def _scan_block(block: list[ast.stmt], body: Body) -> None:
    for index, stmt in enumerate(block):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        body.statements.append(stmt)
        if index + 1 < len(block):
            body.after[id(stmt)] = block[index + 1]
        if isinstance(stmt, ast.Return):
            body.returns.append(stmt)
        elif isinstance(stmt, ast.Assign):
            if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                body.bound.setdefault(stmt.targets[0].id, []).append(stmt.value)
            body.yields = body.yields or isinstance(stmt.value, (ast.Yield, ast.YieldFrom))
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
            body.bound.setdefault(stmt.target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.Expr):
            value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
            body.yields = body.yields or isinstance(value, (ast.Yield, ast.YieldFrom))
        if isinstance(stmt, _TRY):
            body.tries.append(stmt)  # type: ignore[arg-type]
            for block_ in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                _scan_block(block_, body)
            continue
        if type(stmt) not in COMPOUND_STATEMENTS:
            continue
        if isinstance(stmt, ast.If):
            body.ifs.append(stmt)
        for name in ("body", "orelse"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                _scan_block(inner, body)
        for case in getattr(stmt, "cases", ()):
            _scan_block(case.body, body)


def is_stub(func: ast.AST, owner: ast.ClassDef | None) -> bool:
    """Abstract, overload or Protocol methods, and bodies that only say "not here"."""
    for decorator in func.decorator_list:  # type: ignore[attr-defined]
        name = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if name and (name in guards.ABSTRACT_DECORATORS or last(name) in guards.ABSTRACT_DECORATORS):
            return True
    if owner is not None and any(last(dotted(b)) == "Protocol" for b in owner.bases):
        return True
    stmts = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]  # type: ignore[attr-defined]
    if not stmts:
        return True
    if len(stmts) == 1:
        only = stmts[0]
        if isinstance(only, ast.Pass):
            return True
        if isinstance(only, ast.Raise) and only.exc is not None:
            raised = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
            return last(dotted(raised)) == "NotImplementedError"
    return False


# ---------------------------------------------------------------------------------------
# Two-valued verdicts
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """How a function hands out its two-valued verdict."""

    form: str
    """`bool`, `tuple`, `literal`, `string`, `tripwire`, `state`, `object`, `passfail`."""
    shape: str
    """How a message names it: "a bare `bool`", "`{"human_approved": ...}` in the returned state"."""
    key: str = ""
    """The keyword, state key or field that holds the verdict, when there is one."""
    members: frozenset[str] = frozenset()
    """The two strings of a string or `Literal` verdict."""
    rejects_on_true: bool = False
    """Whether `True` means "reject" (a tripwire, `is_blocked`, `{"flagged": ...}`)."""

    def part(self, value: ast.expr, body: "Body | None" = None) -> list[ast.expr]:
        """The expressions of a returned ``value`` that carry the verdict."""
        if body is not None and isinstance(value, ast.Name):
            bound = body.bound.get(value.id, [])
            if self.form in ("state", "object", "tripwire") and bound:
                return [p for v in bound for p in self.part(v)]
        if self.form == "tuple" and isinstance(value, ast.Tuple) and value.elts:
            return [value.elts[0]]
        if self.form in ("tripwire", "object") and isinstance(value, ast.Call):
            return [k.value for k in value.keywords if k.arg == self.key]
        if self.form == "state" and isinstance(value, ast.Dict):
            return [v for k, v in zip(value.keys, value.values) if _const_str(k) == self.key]
        return [value]

    def literal(self, value: ast.expr | None, body: "Body | None" = None) -> str | None:
        """The literal verdict ``value`` hands out (`False`, `(False, ...)`, `'no'`,
        `tripwire_triggered=False`, `"approved": True`), or None."""
        if value is None:
            return None
        if self.form == "passfail" and isinstance(value, ast.Call):
            name = last(dotted(value.func))
            return f"{name}(...)" if name in guards.PASS_FAIL_RESULTS else None
        parts = self.part(value, body)
        for part in parts:
            if self.form == "literal" and "__end__" in self.members and last(dotted(part)) == "END":
                return "END"
            if isinstance(part, ast.Constant) and (isinstance(part.value, bool) or (
                    isinstance(part.value, str) and _norm(part.value) in self.members)):
                text = repr(part.value)
                if self.form == "tuple":
                    return f"({text}, ...)"
                if self.form in ("tripwire", "object"):
                    return f"{self.key}={text}"
                if self.form == "state":
                    return f'"{self.key}": {text}'
                return text
        return None


def _norm(text: str) -> str:
    return text.strip().lower()


def _const_str(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def verdict_key(key: str) -> bool:
    """`human_approved`, `is_safe`, `passed`: a state key or field that holds a verdict."""
    return bool(name_words(key) & guards.VERDICT_KEY_WORDS)


def _rejecting(name: str) -> bool:
    return bool(name_words(name) & guards.REJECT_WORDS)


def _annotation(func: ast.AST) -> ast.expr | None:
    ann = func.returns  # type: ignore[attr-defined]
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = parse_quietly(ann.value, mode="eval").body  # type: ignore[attr-defined]
        except SyntaxError:
            return None
    return ann


def _subscript_args(ann: ast.Subscript) -> list[ast.expr]:
    inner = ann.slice
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]


def _is_name(node: ast.AST, *names: str) -> bool:
    return last(dotted(node)) in names


def _optional(ann: ast.expr) -> bool:
    """`Optional[bool]`, `bool | None`, `Union[bool, None]`: a third state."""
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return any(isinstance(s, ast.Constant) and s.value is None for s in (ann.left, ann.right))
    if isinstance(ann, ast.Subscript) and _is_name(ann.value, "Optional"):
        return True
    if isinstance(ann, ast.Subscript) and _is_name(ann.value, "Union"):
        return any(isinstance(a, ast.Constant) and a.value is None or _is_name(a, "None") for a in _subscript_args(ann))
    return False


@dataclass
class ClassInfo:
    """A result type defined in the module: its annotated fields."""

    name: str
    fields: dict[str, ast.expr]
    typed_dict: bool = False

    def verdict_field(self) -> str | None:
        """The only bool field, when no field can say "not evaluated"."""
        bools = [n for n, a in self.fields.items() if _is_name(a, "bool")]
        if len(bools) != 1:
            return None
        for name, ann in self.fields.items():
            if _optional(ann) and any(_is_name(a, "bool") for a in ast.walk(ann)):
                return None
            if name_words(name) & guards.THIRD_STATE_WORDS:
                return None
        return bools[0]


@dataclass
class ModuleIndex:
    """What verdicts need from the rest of the module: its result types, and the
    functions annotated `-> bool` (a call to one is a bool)."""

    classes: dict[str, ClassInfo]
    bool_functions: frozenset[str]


def module_index(tree: ast.Module, defs: Iterable[ast.AST]) -> ModuleIndex:
    classes: dict[str, ClassInfo] = {}
    for stmt in _module_statements(tree.body):
        if isinstance(stmt, ast.ClassDef):
            fields = {s.target.id: s.annotation for s in stmt.body
                      if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
            typed = any(_is_name(b, "TypedDict") for b in stmt.bases)
            classes[stmt.name] = ClassInfo(stmt.name, fields, typed)
    bools = frozenset(d.name for d in defs if _annotation(d) is not None and _is_name(_annotation(d), "bool"))  # type: ignore[attr-defined]
    return ModuleIndex(classes, bools)


def _module_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, *_TRY)):
            for name in ("body", "orelse", "finalbody"):
                yield from _module_statements(getattr(stmt, name, []))


def verdict_of(func: ast.AST, body: Body, module: ModuleIndex) -> Verdict | None:
    """The function's two-valued verdict, or None (no verdict, or one with a third state)."""
    classes = module.classes
    body.known_bool = module.bool_functions
    if body.yields:
        return None
    name = func.name  # type: ignore[attr-defined]
    values = body.values
    if any(r.value is None or (isinstance(r.value, ast.Constant) and r.value.value is None) for r in body.returns):
        return None  # `return` / `return None`: a third state (or no verdict at all)
    ann = _annotation(func)
    if ann is not None:
        if _optional(ann):
            return None
        if _is_name(ann, "bool"):
            return Verdict("bool", "a bare `bool`", rejects_on_true=_rejecting(name))
        if isinstance(ann, ast.Subscript):
            head = last(dotted(ann.value))
            args = _subscript_args(ann)
            if head in ("tuple", "Tuple") and len(args) >= 2 and _is_name(args[0], "bool") \
                    and not _is_name(args[1], "bool"):  # `tuple[bool, bool]` is two flags
                return Verdict("tuple", "a `(bool, ...)` tuple", rejects_on_true=_rejecting(name))
            if head == "Literal":
                members = [a.value for a in args if isinstance(a, ast.Constant)]
                if len(members) == 2 and len(args) == 2:
                    strings = {_norm(m) for m in members if isinstance(m, str)}
                    return Verdict("literal", f"a two-member `Literal[{members[0]!r}, {members[1]!r}]`",
                                   members=frozenset(strings))
                return None
        tripwire = guards.TRIPWIRE_RESULTS.get(last(dotted(ann)))
        if tripwire is not None:
            return Verdict("tripwire", f"`{last(dotted(ann))}({tripwire}=<bool>)`", tripwire, rejects_on_true=True)
        info = classes.get(last(dotted(ann)))
        if info is not None and not info.typed_dict:
            field_name = info.verdict_field()
            if field_name is not None and values and all(_calls_class(v, body, info.name) for v in values):
                return Verdict("object", f"`{info.name}` (its only verdict field is the bool `{field_name}`)",
                               field_name, rejects_on_true=_rejecting(field_name))
            return _state(_branches(values), body) if values else None  # a state class, returned as dicts
        if not _is_name(ann, "str", "dict", "Dict") and not (info is not None and info.typed_dict) and \
                not (isinstance(ann, ast.Subscript) and _is_name(ann.value, "dict", "Dict")) and \
                not last(dotted(ann)).endswith("State"):
            if last(dotted(ann)) in guards.PASS_FAIL_RESULTS or _is_name(ann, "ValidationResult"):
                return _passfail(values)
            return None
    if not values:
        return None
    return _inferred(name, _branches(values), body, ann)


def _branches(values: list[ast.expr]) -> list[ast.expr]:
    """`return "yes" if ok else "no"` returns two values."""
    out: list[ast.expr] = []
    stack = list(reversed(values))
    while stack:
        value = stack.pop()
        if isinstance(value, ast.IfExp):
            stack += [value.orelse, value.body]
        else:
            out.append(value)
    return out


def _calls_class(value: ast.expr, body: Body, cls: str) -> bool:
    if isinstance(value, ast.Name):
        bound = body.bound.get(value.id, [])
        return bool(bound) and any(_calls_class(v, body, cls) for v in bound)
    return isinstance(value, ast.Call) and last(dotted(value.func)) == cls


def _passfail(values: list[ast.expr]) -> Verdict | None:
    if values and all(isinstance(v, ast.Call) and last(dotted(v.func)) in guards.PASS_FAIL_RESULTS for v in values):
        return Verdict("passfail", "`PassResult()` / `FailResult(...)`")
    return None


def _inferred(name: str, values: list[ast.expr], body: Body, ann: ast.expr | None) -> Verdict | None:
    if ann is None and all(bool_shaped(v, body) for v in values):
        return Verdict("bool", "a bare `bool`", rejects_on_true=_rejecting(name))
    if ann is None and any(isinstance(v, ast.Constant) and isinstance(v.value, bool) for v in values) \
            and all(bool_shaped(v, body) or isinstance(v, _OPAQUE) for v in values):
        # `return data["grounded"]` beside `return True`: the literal says what the other is
        return Verdict("bool", "a bare `bool`", rejects_on_true=_rejecting(name))
    if ann is None and all(isinstance(v, ast.Tuple) and len(v.elts) >= 2 and bool_shaped(v.elts[0], body)
                           and not bool_shaped(v.elts[1], body) for v in values):
        return Verdict("tuple", "a `(bool, ...)` tuple", rejects_on_true=_rejecting(name))
    strings = [_norm(v.value) for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    if strings and (ann is None or _is_name(ann, "str")):
        for pair in guards.VERDICT_STRING_PAIRS:
            # the other returns may be computed (the model's raw answer), not other constants
            if set(strings) <= pair and not any(_not_bool(v) and not isinstance(v, ast.Constant) or
                                                isinstance(v, ast.Constant) and not isinstance(v.value, str)
                                                for v in values):
                a, b = sorted(pair, key=lambda s: s in guards.REJECT_STRINGS)
                return Verdict("string", f"a `{a!r}`/`{b!r}` string", members=pair)
        return None
    if ann is None and all(isinstance(v, ast.Call) for v in values):
        heads = {last(dotted(v.func)) for v in values}  # type: ignore[union-attr]
        if heads <= set(guards.PASS_FAIL_RESULTS):
            return _passfail(values)
        if len(heads) == 1:
            head = heads.pop()
            if head in guards.TRIPWIRE_RESULTS:
                key = guards.TRIPWIRE_RESULTS[head]
                return Verdict("tripwire", f"`{head}({key}=<bool>)`", key, rejects_on_true=True)
            if head in guards.PASS_FAIL_RESULTS:
                return _passfail(values)
    return _state(values, body)


_OPAQUE = (ast.Subscript, ast.Attribute, ast.Name, ast.Call, ast.Await)
"""Returned values whose type the shape does not tell."""


def _state(values: list[ast.expr], body: Body) -> Verdict | None:
    """Every return is a dict (or a name bound to one) with the same verdict key."""
    dicts: list[ast.Dict] = []
    for value in values:
        if isinstance(value, ast.Name):
            bound = [v for v in body.bound.get(value.id, []) if isinstance(v, ast.Dict)]
            if not bound:
                return None
            dicts += bound
        elif isinstance(value, ast.Dict):
            dicts.append(value)
        else:
            return None
    # a verdict key holds a bool on every path that sets it (`"correct_answer": answer` does not)
    values_by_key: dict[str, list[ast.expr]] = {}
    for d in dicts:
        for k, v in zip(d.keys, d.values):
            text = _const_str(k)
            if text and verdict_key(text):
                values_by_key.setdefault(text, []).append(v)
    keys = sorted(k for k, vs in values_by_key.items()
                  if any(bool_shaped(v, body) for v in vs) and not any(_not_bool(v) for v in vs))
    if not keys:
        return None
    key = keys[0]
    return Verdict("state", f"a bool under `\"{key}\"` in the dict it returns", key, rejects_on_true=_rejecting(key))


def _not_bool(expr: ast.expr) -> bool:
    """A value that is surely not a bool: `None`, a string, a number, a container."""
    if isinstance(expr, ast.Constant):
        return not isinstance(expr.value, bool)
    return isinstance(expr, (ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp))


def bool_shaped(expr: ast.expr, body: Body | None = None, depth: int = 0) -> bool:
    """Whether ``expr`` evaluates to a bool, judged from its shape."""
    if isinstance(expr, ast.Await):
        expr = expr.value
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, bool)
    if isinstance(expr, (ast.Compare,)):
        return True
    if isinstance(expr, ast.UnaryOp):
        return isinstance(expr.op, ast.Not)
    if isinstance(expr, ast.BoolOp):
        return all(bool_shaped(v, body, depth) for v in expr.values)
    if isinstance(expr, ast.IfExp):
        return bool_shaped(expr.body, body, depth) and bool_shaped(expr.orelse, body, depth)
    if isinstance(expr, ast.Name):
        if _bool_name(expr.id):
            return True
        if body is not None and depth < 3:
            bound = body.bound.get(expr.id)
            return bool(bound) and all(bool_shaped(v, body, depth + 1) for v in bound)
        return False
    if isinstance(expr, ast.Attribute):
        return _bool_name(expr.attr)
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Name) and func.id in guards.BOOL_BUILTINS:
            return True
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        return bool(name) and (name in guards.BOOL_METHODS or _bool_name(name)
                               or (body is not None and name in body.known_bool))
    return False


def _bool_name(name: str) -> bool:
    lowered = name.lower().lstrip("_")
    return lowered in guards.BOOL_RESULT_NAMES or lowered.startswith(guards.BOOL_PREFIXES)


# ---------------------------------------------------------------------------------------
# Guards
# ---------------------------------------------------------------------------------------


class GuardSignals:
    """Why the functions of one module count as guards: registration, name, call sites.
    The module-wide parts (registrations, call-site gates) are computed on first use."""

    def __init__(self, tree: ast.Module, source: str, imports: Mapping[str, str], verbs: frozenset[str],
                 nouns: frozenset[str], keywords: frozenset[str], calls: "list[ast.Call] | None" = None) -> None:
        self.tree = tree
        self._calls = calls
        """The module's calls in `ast.walk` order when the agent model has them (its tool
        finder walks the module once for every finder), else found on first use."""
        self.source = source
        self.imports = imports
        self.verbs = verbs
        self.nouns = nouns
        self.keywords = keywords
        self._registered: dict[str, str] | None = None
        self._present: tuple[str, ...] | None = None
        """The ``registration_words`` the text holds (found with ``may_register``)."""
        self._gated: set[str] | None = None

    def qualified(self, name: str) -> str:
        head, _, rest = name.partition(".")
        target = self.imports.get(head)
        if target is None:
            return name
        return f"{target}.{rest}" if rest else target

    def signal(self, func: ast.AST, verdict: Verdict, owner: ast.ClassDef | None) -> str | None:
        """How ``func`` shows it is a guard, or None."""
        return self._signal(func, verdict, owner)

    def may_signal(self, func: ast.AST, owner: ast.ClassDef | None) -> bool:
        """Whether ``func`` can show it is a guard whatever verdict its body holds: asked
        before the body is read, since most functions of a module cannot. A function the
        module registers as a guard (its calls read once, when its text has a registering
        word) counts as possible, and so does a probe that may gate an action."""
        return self._signal(func, None, owner) is not None

    def _signal(self, func: ast.AST, verdict: Verdict | None, owner: ast.ClassDef | None) -> str | None:
        """``signal``; with no verdict, the cheap answer of ``may_signal``."""
        name = func.name  # type: ignore[attr-defined]
        for decorator in func.decorator_list:  # type: ignore[attr-defined]
            written = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
            if written is None:
                continue
            qualified = self.qualified(written)
            if guards.is_guard_decorator(qualified) or qualified in guards.REGISTRATION_DECORATORS:
                return f"decorated `@{written}`"
        if (verdict is None or verdict.form == "state") and _graph_node(func):
            return f"a graph node that returns the verdict key `{verdict.key if verdict else ''}`"
        if owner is not None and name == "forward" and any(
                self.qualified(dotted(b) or "") in guards.DSPY_MODULE_BASES for b in owner.bases):
            return "a DSPy module's `forward`"
        words = name_parts(name)
        if words and words[0] not in guards.ACTION_VERBS:
            if words[0] in self.verbs or words[-1] in self.nouns:
                return "named like a guard"
            if words[0] in guards.VERDICT_PREDICATE_PREFIXES or words[-1] in guards.VERDICT_LAST_WORDS:
                return "named like a guard's question"
        probe = bool(words) and words[0] not in guards.ACTION_VERBS and words[-1] in guards.GATE_ONLY_WORDS
        if verdict is None:
            # a registration counts only for a function the module registers: found in
            # one walk of its calls, where every function's body would be read otherwise
            return "possibly" if probe or name in self.registered else None
        how = self.registered.get(name)
        if how is not None:
            return how
        if probe and may_gate(self.source, name) and name in self.gated:
            return "a probe whose result gates an action"
        return None

    def route_verdict(self, func: ast.AST, body: Body) -> Verdict | None:
        """A conditional edge's routing function returning one of two labels
        (`"human"` / `"auto"`, or a label and `END`): a two-valued verdict."""
        labels: set[str] = set()
        for value in _branches(body.values):
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                labels.add(_norm(value.value))
            elif last(dotted(value)) == "END":
                labels.add("__end__")
            else:
                return None
        if len(labels) != 2:
            return None
        how = self.registered.get(func.name)  # type: ignore[attr-defined]
        if how is None or not how.startswith("a conditional edge"):
            return None
        a, b = sorted(labels)
        return Verdict("literal", f"a two-way route (`{a!r}` / `{b!r}`)", members=frozenset(labels))

    @property
    def registered(self) -> dict[str, str]:
        """Function name -> how the module registers it as a guard (one walk of the
        module, only when its text has a registering keyword or call)."""
        if self._registered is None:
            self._registered = {}
            if self.may_register and has_registration_text(self.source, self.keywords, self._present):
                calls = self._calls if self._calls is not None else nodes_of(self.tree, (ast.Call,))
                for node in calls:
                    self._registrations(node, self._registered)  # type: ignore[arg-type]
        return self._registered

    @property
    def may_register(self) -> bool:
        """The module's text has a word every registration needs (cheaper than ``registered``)."""
        if self._present is None:
            self._present = tuple(word for word in registration_words(self.keywords) if word in self.source)
        return bool(self._present)

    @property
    def gated(self) -> set[str]:
        if self._gated is None:
            self._gated = self._gates()
        return self._gated

    def _gates(self) -> set[str]:
        """Names of the functions whose result an `if`, `while` or `assert` tests."""
        gated: set[str] = set()
        tests: list[ast.expr] = []
        for node in nodes_of(self.tree, (ast.If, ast.While, ast.IfExp, ast.Assert, ast.comprehension)):
            if isinstance(node, ast.comprehension):
                tests += node.ifs
            else:
                tests.append(node.test)  # type: ignore[attr-defined]
        tested_names: set[str] = set()
        for test in tests:
            for leaf in _truth_leaves(test):
                if isinstance(leaf, ast.Subscript):
                    leaf = leaf.value  # `if screen(c)[0]:`
                if isinstance(leaf, ast.Call):
                    callee = last(dotted(leaf.func))
                    if callee:
                        gated.add(callee)
                elif isinstance(leaf, ast.Name):
                    tested_names.add(leaf.id)
        if tested_names:
            # `ok = check(x)` / `ok, why = check(x)`, then `if not ok:`
            for node in nodes_of(self.tree, (ast.Assign,)):
                if isinstance(node.value, (ast.Call, ast.Await)):  # type: ignore[attr-defined]
                    call = node.value.value if isinstance(node.value, ast.Await) else node.value
                    if not isinstance(call, ast.Call):
                        continue
                    target = node.targets[0]
                    first = target.elts[0] if isinstance(target, ast.Tuple) and target.elts else target
                    if isinstance(first, ast.Name) and first.id in tested_names:
                        callee = last(dotted(call.func))
                        if callee:
                            gated.add(callee)
        return gated

    def _registrations(self, call: ast.Call, out: dict[str, str]) -> None:
        callee = last(dotted(call.func))
        if callee in guards.EDGE_CONDITION_METHODS:
            path = call.args[1] if len(call.args) >= 2 else next(
                (k.value for k in call.keywords if k.arg == "path"), None)
            if path is not None and last(dotted(path)):
                out.setdefault(last(dotted(path)), f"a conditional edge of `{callee}`")
        if callee in guards.GATE_CALLS and call.args and last(dotted(call.args[0])):
            out.setdefault(last(dotted(call.args[0])), f"a `{callee}(...)` dependency")
        for kw in call.keywords:
            arg = kw.arg or ""
            if arg not in self.keywords and not arg.endswith(guards.GUARD_KEYWORD_SUFFIXES):
                continue
            values = list(kw.value.elts) if isinstance(kw.value, (ast.List, ast.Tuple)) else [kw.value]
            while values:
                value = values.pop()
                if isinstance(value, ast.Call):  # `InputGuardrail(guardrail_function=fn)`
                    values += [*value.args, *(k.value for k in value.keywords)]
                    continue
                target = last(dotted(value))
                if target:
                    out.setdefault(target, f"passed as `{arg}=`")


def _graph_node(func: ast.AST) -> bool:
    """A function over a graph's state: `def node(state: State)`, `def node(self, state)`."""
    args = [a for a in (*func.args.posonlyargs, *func.args.args) if a.arg not in ("self", "cls")]  # type: ignore[attr-defined]
    if not args:
        return False
    first = args[0]
    annotation = dotted(first.annotation) if first.annotation is not None else None
    return "state" in first.arg.lower() or last(annotation).endswith("State")


_IDENTITY = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)


def _truth_leaves(test: ast.expr) -> Iterator[ast.expr]:
    """The operands whose truth an `if` test reads: `not x`, `a and b`, `await f()`."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            stack.append(node.operand)
        elif isinstance(node, ast.BoolOp):
            stack += node.values
        elif isinstance(node, ast.Await):
            stack.append(node.value)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _IDENTITY) \
                and isinstance(node.comparators[0], ast.Constant) and isinstance(node.comparators[0].value, bool):
            stack.append(node.left)  # `if check(x) is False:`
        else:
            yield node


def functions(tree: ast.Module) -> list[tuple[ast.AST, ast.ClassDef | None]]:
    """Every def of the module (nested ones too) with the class it is a method of: the
    defs of the module's body first, then those inside each of them (last first). A
    body's statements are read through compound statements, in the order their parts
    are stacked by ``_stack_inner``."""
    out: list[tuple[ast.AST, ast.ClassDef | None]] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        owner = node if type(node) is ast.ClassDef else None
        todo = list(reversed(node.body))  # type: ignore[attr-defined]
        while todo:
            stmt = todo.pop()
            cls = type(stmt)
            if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
                out.append((stmt, owner))  # type: ignore[arg-type]
                stack.append(stmt)
            elif cls is ast.ClassDef:
                stack.append(stmt)
            elif cls in COMPOUND_STATEMENTS:
                _stack_inner(stmt, todo)
    return out


def _stack_inner(stmt: ast.stmt, stack: list[ast.stmt]) -> None:
    """The statements a compound statement holds, pushed on ``stack`` (one loop over the
    statements, where a generator per body costs a call per statement)."""
    for name in ("body", "orelse", "finalbody"):
        inner = getattr(stmt, name, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            stack.extend(reversed(inner))
    for handler in getattr(stmt, "handlers", ()):
        stack.extend(reversed(handler.body))
    for case in getattr(stmt, "cases", ()):
        stack.extend(reversed(case.body))
