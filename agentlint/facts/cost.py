"""Cost facts: the cost formulas of a file, reduced to comparable terms (AGL1xx).

A *cost formula* is arithmetic that turns a token count into money; each one is reduced
to priced terms by ``facts.cost_formula`` with the vocabulary of ``facts.cost_vocab``
(token counts, prices, units). Terms of one function (nested functions included) belong
to one place; module-level code is one place.

The same walk records cost values set to None (AGL104) and hard-coded price tables and
constants (AGL105). Everything is read from the stdlib ``ast`` tree that the module facts
builds; files whose text has no token and no price vocabulary are skipped by substring
tests, and inside the others only statements holding a candidate line (token vocabulary,
a price next to `*` or `/`, a cost set to None, a model-keyed table) are walked.
"""

from __future__ import annotations

import ast
from typing import Callable

from agentlint.facts.ast_helpers import MODULE_SCOPE, holds_candidate, line_numbers, match_starts, node_span
from agentlint.facts.cost_formula import FormulaReader, Place
from agentlint.facts.cost_vocab import (
    NOT_A_PRICE_TABLE,
    NOT_PRICE,
    PRICE_WORD,
    is_cost_value_name,
    number,
    reads_a_cost,
    price_table,
    segments,
)
from agentlint.facts.source import split_lines
from agentlint.facts.types import CostTermFact, SiteFact
from agentlint.lazy_regex import lazy_compile

# -- cheap prefilters over the source text -------------------------------------------

_TOKEN_LINE = lazy_compile(r"tokens|token_count|encode\(")
_TOKEN_ANCHORS = ("token", "encode(")
_MONEY_WORDS = ("pric", "cost", "usd", "dollar", "per_1", "per_m", "tarif", "_rate", "rate_", "rates")
_OPERATOR_AFTER = lazy_compile(r"[\w\[\].'\"()]*\s*[*/]")
_OPERATOR_BEFORE = lazy_compile(r"[*/]\s*[(\s]*[\w\[\].'\"(]*$")


def _price_arithmetic(low: str) -> list[int]:
    """Where a money word stands next to `*` or `/` (`price[0] * prompt`, `tk *
    (info.get("input_cost_per_token") or 0)`): loosely named formulas need not say
    `tokens` on any line. Found with `str.find`, which is much cheaper than a regex
    that starts with an alternation."""
    out = []
    for word in _MONEY_WORDS:
        start = low.find(word)
        while start >= 0:
            end = start + len(word)
            if _OPERATOR_AFTER.match(low, end) or _OPERATOR_BEFORE.search(low, max(0, start - 80), start):
                out.append(start)
            start = low.find(word, end)
    return out


_NONE_LINE = lazy_compile(r"cost[\w\"']*\s*(?::[^=\n]*)?=\s*none|cost\w*[\"']\s*:\s*none|_usd\w*\s*(?::[^=\n]*)?=\s*none|def \w*cost")
_MODEL_KEY_LINE = lazy_compile(r"[\"'](?:gpt|claude|gemini)[^\"'\n]*[\"']\s*:")
_NONE_ANCHORS = ("cost", "_usd", "def ")
_MODEL_KEY_ANCHORS = ('"gpt', "'gpt", '"claude', "'claude", '"gemini', "'gemini")
"""Where a match of each pattern can begin (``match_starts``)."""

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _loop_targets(target: ast.AST, iterable: ast.AST, place: Place) -> None:
    cls = type(target)
    if cls is ast.Name:
        place.loops[target.id] = iterable  # type: ignore[attr-defined]
    elif cls is ast.Tuple or cls is ast.List:
        for element in target.elts:  # type: ignore[attr-defined]
            _loop_targets(element, iterable, place)
    elif cls is ast.Starred:
        _loop_targets(target.value, iterable, place)  # type: ignore[attr-defined]


def _optional_payload(body: list[ast.stmt]) -> bool:
    """A class whose fields (two or more) all default to None: a payload read from
    elsewhere (a provider's response, a partial update), which carries what it was given
    rather than recording a cost of its own."""
    fields = 0
    for stmt in body:
        if type(stmt) is ast.AnnAssign and type(stmt.target) is ast.Name:
            value = stmt.value
            if value is None or not (type(value) is ast.Constant and value.value is None):
                return False
            fields += 1
    return fields >= 2


class CostExtractor:
    def __init__(self, source: str | None, lines: Callable[[], list[str]], low: str | None = None) -> None:
        self.source = source
        self._lines = lines
        self.terms: list[CostTermFact] = []
        self.nones: list[SiteFact] = []
        self.prices: list[SiteFact] = []
        self.places: dict[str, Place] = {}
        self._tables: set[int] = set()
        self._payloads: set[str] = set()
        """Classes whose every field defaults to None (see ``_optional_payload``)."""
        self.candidates: list[int] | None = None
        """Lines where a fact can start (None: every line); a statement or definition
        whose lines hold none of them is not walked."""
        if source is None:
            self.want_terms = self.want_nones = self.want_prices = True
            return
        # Substring tests on the lowered text first: a case-insensitive regex over
        # every file of a project costs more than the walk it would save. Each word is
        # looked for once: most are absent, and an absent word costs a read of the whole
        # text. An upper-case word is looked for only where its lower-case form is in
        # the lowered text.
        low = source.lower() if low is None else low
        has_tokens = "token" in low or "usage" in low or "encode(" in low
        cost, usd, rate, pric = "cost" in low, "usd" in low, "rate" in low, "pric" in low
        per_1 = per_m = False
        if "per_" in low:
            per_1, per_m = "per_1" in low, "per_m" in low
        self.want_terms = has_tokens and (
            cost or rate or usd or per_1 or per_m or (pric and "price" in low)
            or "dollar" in low or "p_in" in low or "tarif" in low
        )
        money = self.want_terms and (pric or cost or usd or per_1 or per_m or "dollar" in low or "tarif" in low)
        self.want_nones = (cost or (usd and "_usd" in low)) and "None" in source
        # Price constants and tables are module- or class-level assignments (mostly
        # upper case), read without a walk; tables inside functions are seen when the
        # function is walked.
        self.want_prices = (
            (pric and (("PRIC" in source and ("PRICE" in source or "PRICING" in source)) or "Price" in source))
            or (cost and "COST" in source) or (rate and "RATE" in source) or (per_1 and "PER_1" in source)
            or (per_m and "PER_M" in source) or (usd and "USD" in source)
            or ("gpt" in low and ('"gpt' in low or "'gpt" in low))
            or ("claude" in low and ('"claude' in low or "'claude" in low))
            or ("gemini" in low and ('"gemini' in low or "'gemini" in low))
        )
        positions = match_starts(_NONE_LINE, low, _NONE_ANCHORS) if self.want_nones else []
        self.want_nones = bool(positions)
        if not (self.want_terms or self.want_nones or self.want_prices):
            return
        source = low
        if self.want_terms:
            positions += match_starts(_TOKEN_LINE, source, _TOKEN_ANCHORS)
        if self.want_prices and any(w in source for w in _MODEL_KEY_ANCHORS):
            positions += match_starts(_MODEL_KEY_LINE, source, _MODEL_KEY_ANCHORS)
        if money:
            positions += _price_arithmetic(source)
        positions.sort()
        self.candidates = line_numbers(source, positions)

    def _holds(self, stmt: ast.AST) -> bool:
        return holds_candidate(self.candidates, stmt)

    @property
    def wanted(self) -> bool:
        return self.want_terms or self.want_nones or self.want_prices

    # -- positions -------------------------------------------------------------------
    def _span(self, node: ast.AST) -> tuple[int, int, int, int]:
        return node_span(self._lines(), node)

    # -- the walk --------------------------------------------------------------------
    def run(self, tree: ast.Module) -> None:
        self._body(tree.body, MODULE_SCOPE, None, MODULE_SCOPE)
        if self.want_terms:
            reader = FormulaReader(self._place(MODULE_SCOPE), self._span)
            for place in self.places.values():
                for root, context in place.roots:
                    reader.formula(root, place, context)
            self.terms = reader.terms

    def _place(self, name: str) -> Place:
        place = self.places.get(name)
        if place is None:
            place = self.places[name] = Place(name)
        return place

    def _body(self, body: list[ast.stmt], place: str, klass: str | None, func: str) -> None:
        for stmt in body:
            self._stmt(stmt, place, klass, func)

    def _stmt(self, stmt: ast.stmt, place: str, klass: str | None, func: str) -> None:
        cls = type(stmt)
        top = place == MODULE_SCOPE or (klass is not None and place == klass)
        if top and not self._holds(stmt):
            # Only module and class level is skipped line by line: inside a function
            # that holds a candidate line, everything is walked (locals, returns).
            if cls is ast.Assign or cls is ast.AnnAssign:
                targets = stmt.targets if cls is ast.Assign else [stmt.target]  # type: ignore[attr-defined]
                value = stmt.value  # type: ignore[attr-defined]
                if value is not None:
                    current = self._place(place)
                    for t in targets:
                        if type(t) is ast.Name:
                            current.locals.setdefault(t.id, []).append(value)
                    if self.want_prices and (type(value) is ast.Dict or type(value) is ast.Constant or type(value) is ast.BinOp):
                        names = [n for n in (".".join(segments(t)) for t in targets) if n]
                        self._assignment(stmt, names, value, place, klass)
            return
        if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
            name = stmt.name  # type: ignore[attr-defined]
            if place == MODULE_SCOPE or (klass is not None and place == klass):
                inner = name if place == MODULE_SCOPE else f"{place}.{name}"
            else:
                inner = place  # a nested function belongs to its outer function
            for dec in stmt.decorator_list:  # type: ignore[attr-defined]
                self._expr(dec, place, "")
            args = stmt.args  # type: ignore[attr-defined]
            for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
                self._expr(default, place, "")
            self._body(stmt.body, inner, None if inner == place else klass, name)  # type: ignore[attr-defined]
            return
        if cls is ast.ClassDef:
            if place == MODULE_SCOPE or (klass is not None and place == klass):
                inner = stmt.name if place == MODULE_SCOPE else f"{place}.{stmt.name}"  # type: ignore[attr-defined]
                if self.want_nones and _optional_payload(stmt.body):  # type: ignore[attr-defined]
                    self._payloads.add(inner)
                self._body(stmt.body, inner, inner, func)  # type: ignore[attr-defined]
            else:
                self._body(stmt.body, place, None, func)  # type: ignore[attr-defined]
            return
        context = ""
        if cls is ast.Assign or cls is ast.AnnAssign or cls is ast.AugAssign:
            targets = stmt.targets if cls is ast.Assign else [stmt.target]  # type: ignore[attr-defined]
            value = stmt.value  # type: ignore[attr-defined]
            names = [n for n in (".".join(segments(t)) for t in targets) if n]
            context = " ".join(names)
            if value is not None:
                current = self._place(place)
                for t in targets:
                    if type(t) is ast.Name and cls is not ast.AugAssign:
                        current.locals.setdefault(t.id, []).append(value)
                self._assignment(stmt, names, value, place, klass)
        elif cls is ast.For or cls is ast.AsyncFor:
            if self.want_terms:
                _loop_targets(stmt.target, stmt.iter, self._place(place))  # type: ignore[attr-defined]
        elif cls is ast.Return:
            context = f"return {func}"
            value = stmt.value  # type: ignore[attr-defined]
            if (
                self.want_nones
                and type(value) is ast.Constant
                and value.value is None
                and func != MODULE_SCOPE
                and is_cost_value_name(func)
                and not reads_a_cost(func)
            ):
                self._none("return", func, stmt, place)
        for field in stmt._fields:
            value = getattr(stmt, field, None)
            if value is None:
                continue
            if type(value) is list:
                for child in value:
                    if isinstance(child, ast.stmt):
                        self._stmt(child, place, klass, func)
                    elif type(child) is ast.ExceptHandler:
                        self._body(child.body, place, klass, func)
                    elif type(child) is ast.match_case:
                        self._body(child.body, place, klass, func)
                    elif isinstance(child, ast.AST):
                        self._expr(child, place, context)
            elif isinstance(value, ast.AST):
                self._expr(value, place, context)

    def _assignment(self, stmt: ast.stmt, names: list[str], value: ast.AST, place: str, klass: str | None) -> None:
        if self.want_nones and type(value) is ast.Constant and value.value is None:  # type: ignore[attr-defined]
            for name in names:
                if is_cost_value_name(name):
                    kind = "field" if klass is not None and place == klass else "assign"
                    if kind == "field" and place in self._payloads:
                        continue  # a payload of optional fields carries what it was given
                    self._none(kind, name, stmt, place)
        if self.want_prices and (place == MODULE_SCOPE or (klass is not None and place == klass)):
            for name in names:
                last = name.rsplit(".", 1)[-1]
                low = last.lower()
                if not PRICE_WORD.search(low) or NOT_PRICE.search(low) or is_cost_value_name(last):
                    continue
                amount = number(value)
                if amount is not None and amount > 0:
                    self._price("constant", last, stmt, place)
                elif type(value) is ast.Dict and price_table(value, named=True):  # type: ignore[arg-type]
                    # (also true of model-keyed tables, reported here under their name)
                    self._tables.add(id(value))
                    self._price("table", last, stmt, place)

    def _none(self, kind: str, name: str, node: ast.AST, place: str) -> None:
        self.nones.append(SiteFact(place, kind, name, *self._span(node)))

    def _price(self, kind: str, name: str, node: ast.AST, place: str) -> None:
        self.prices.append(SiteFact(place, kind, name, *self._span(node)))

    def _expr(self, node: ast.AST, place: str, context: str) -> None:
        stack: list[tuple[ast.AST, str]] = [(node, context)]
        want_terms, want_nones, want_prices = self.want_terms, self.want_nones, self.want_prices
        while stack:
            current, ctx = stack.pop()
            cls = type(current)
            if cls is ast.BinOp and type(current.op) in _ARITH:  # type: ignore[attr-defined]
                if want_terms:
                    self._place(place).roots.append((current, ctx))
                # Operands that are not arithmetic may hold other formulas (calls, subscripts).
                pending = [current]
                while pending:
                    op = pending.pop()
                    for side in (op.left, op.right):  # type: ignore[attr-defined]
                        if type(side) is ast.BinOp and type(side.op) in _ARITH:  # type: ignore[attr-defined]
                            pending.append(side)
                        elif type(side) is ast.UnaryOp:
                            stack.append((side.operand, ctx))  # type: ignore[attr-defined]
                        else:
                            stack.append((side, ctx))
                continue
            if cls is ast.Call:
                for kw in current.keywords:  # type: ignore[attr-defined]
                    value = kw.value
                    if (
                        want_nones
                        and kw.arg
                        and type(value) is ast.Constant
                        and value.value is None
                        and is_cost_value_name(kw.arg)
                    ):
                        self._none("keyword", kw.arg, kw, place)
                    stack.append((value, kw.arg or ctx))
                stack.append((current.func, ctx))  # type: ignore[attr-defined]
                for arg in current.args:  # type: ignore[attr-defined]
                    stack.append((arg, ctx))
                continue
            if cls is ast.Dict:
                if (
                    want_prices
                    and id(current) not in self._tables
                    and not NOT_A_PRICE_TABLE.search(ctx.lower())
                    and price_table(current, named=False)  # type: ignore[arg-type]
                ):
                    self._tables.add(id(current))
                    self._price("table", ctx.rsplit(".", 1)[-1] if ctx else "", current, place)
                for key, value in zip(current.keys, current.values):  # type: ignore[attr-defined]
                    key_text = key.value if type(key) is ast.Constant and isinstance(key.value, str) else ""
                    if (
                        want_nones
                        and key_text
                        and type(value) is ast.Constant
                        and value.value is None
                        and is_cost_value_name(key_text)
                    ):
                        self._none("key", key_text, value, place)
                    if key is not None:
                        stack.append((key, ctx))
                    stack.append((value, key_text or ctx))
                continue
            if cls in _COMPREHENSIONS and want_terms:
                current_place = self._place(place)
                for generator in current.generators:  # type: ignore[attr-defined]
                    _loop_targets(generator.target, generator.iter, current_place)
            if cls is ast.Lambda:
                stack.append((current.body, ctx))  # type: ignore[attr-defined]
                continue
            for field in current._fields:
                if field in ("ctx", "op", "ops"):
                    continue
                value = getattr(current, field, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast.AST):
                            stack.append((item, ctx))
                elif isinstance(value, ast.AST):
                    stack.append((value, ctx))


def extract(
    tree: ast.Module, source: str | None, low: str | None = None,
) -> tuple[tuple[CostTermFact, ...], tuple[SiteFact, ...], tuple[SiteFact, ...]]:
    """The cost terms, cost-None sites and hard-coded prices of one module; ``low``:
    ``source`` lower-cased, when the caller has it."""
    cache: list[list[str]] = []

    def lines() -> list[str]:
        if not cache:
            cache.append(split_lines(source) if source is not None else [])
        return cache[0]

    extractor = CostExtractor(source, lines, low)
    if not extractor.wanted:
        return (), (), ()
    extractor.run(tree)
    return tuple(extractor.terms), tuple(extractor.nones), tuple(extractor.prices)
