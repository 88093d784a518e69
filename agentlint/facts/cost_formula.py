"""Cost formulas: one arithmetic expression reduced to priced terms (see ``facts.cost``).

Each maximal arithmetic expression (`+ - * /`) is expanded into a sum of products, so
`(prompt - cached) * p_in + cached * p_cached + completion / 1_000_000 * p_out` becomes
four terms, each one token count times a price. A term is kept when it has exactly one
token-count factor (not divided by) and a price factor, or a literal rate.

A token count is a usage field (`prompt_tokens`, `usage["completion_tokens"]`,
`*_token_count`, `prompt_tokens_details.cached_tokens`), `len(enc.encode(text))`, a call
that counts tokens, or a local assigned from those. A loosely named operand (`prompt`,
`tk`, `n`, `usage["input"]`, a loop variable) is a token count only when the rest of the
term says so: a role word (`prompt`, `cached`) beside a money price; an abbreviation of
tokens (`tk`, `toks`) beside a money price; a bare count (`n`, `count`) beside a price
of tokens (`input_price`, `cost_per_1k`), a `/ 1000` or `/ 1_000_000`, or bound from a
usage expression; any other name only beside a price whose unit is tokens
(`input_cost_per_token`). Units are normalised (``CostTermFact.unit``) so `/ 1000 *
per_1k` and `/ 1_000_000 * per_m` read the same.

A price subtracted from a token count (`(prompt_tokens - cached_price) * input_price`)
is recorded as a term of role `price`: the count that belonged there is missing.
"""

from __future__ import annotations

import ast
from typing import Callable, NamedTuple

from agentlint.facts.cost_vocab import (
    MONEY_CONTEXT,
    NOT_PRICE,
    PRICE_WORD,
    RATE_MONEY_ROLE,
    RATE_ROLE,
    RATE_WORD,
    TOKENISH_PRICE,
    declared_unit,
    field_of,
    head,
    is_count_call,
    is_per_token_price,
    loose_kind,
    number,
    role_of,
    segments,
    unwrap,
)
from agentlint.facts.types import CostTermFact
from agentlint.lazy_regex import lazy_compile

_MAX_TERMS = 32
_SCALES = (1e3, 1e6, 1e9)
_SMALL = {1e-3: 1e3, 1e-6: 1e6, 1e-9: 1e9}
_MILLION = lazy_compile(r"million|(?:^|_)1m(?:_|$)|mtok|(?:^|_)m(?:_|$)")
_THOUSAND = lazy_compile(r"thousand|(?:^|_)1k(?:_|$)|(?:^|_)k(?:_|$)")
_USAGE_SOURCE = lazy_compile(r"token|usage|(?:^|_)toks?(?:$|_)")


class Place:
    __slots__ = ("name", "locals", "loops", "roots")

    def __init__(self, name: str) -> None:
        self.name = name
        self.locals: dict[str, list[ast.AST]] = {}
        self.loops: dict[str, ast.AST] = {}
        """Loop and comprehension variables -> what they iterate over."""
        self.roots: list[tuple[ast.AST, str]] = []
        """Arithmetic roots with the money-context text around them."""

    def binding(self, name: str) -> ast.AST | None:
        """The one value a local is assigned, initialisers to a constant left aside
        (`tokens = 0` ... `tokens = usage.prompt_tokens`)."""
        values = self.locals.get(name)
        if not values:
            return None
        if len(values) == 1:
            return values[0]
        found = [v for v in values if type(v) is not ast.Constant]
        return found[0] if len(found) == 1 else None


class Price(NamedTuple):
    node: ast.AST
    money: bool
    """A money word (`price`, `cost`, `usd`, `per_mtok`, `rate_in`), not a bare `rate`."""
    unit: float | None
    tokenish: bool
    """The price says it is for tokens or a token role (`input_price`, `cost_per_1k`)."""
    per_token: bool
    """The price's unit is tokens (`input_cost_per_token`, `price_per_mtok`)."""
    role: str


def display(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError, AttributeError):  # pragma: no cover - malformed trees only
        return ""
    return text if len(text) <= 60 else text[:57] + "..."


class FormulaReader:
    """Reduces the arithmetic roots of a place to ``CostTermFact``s."""

    def __init__(self, module: Place, span: Callable[[ast.AST], tuple[int, int, int, int]]) -> None:
        self.module = module
        self._span = span
        self.terms: list[CostTermFact] = []

    # -- operands ----------------------------------------------------------------------
    def const(self, node: ast.AST, place: Place) -> float | None:
        value = number(node)
        if value is not None or type(node) is not ast.Name:
            return value
        name = node.id  # type: ignore[attr-defined]
        for scope in (place, self.module):
            values = scope.locals.get(name)
            if values:
                return number(values[0]) if len(values) == 1 else None
        return None

    def expand(self, node: ast.AST, place: Place, depth: int = 0) -> list[tuple[int, list[tuple[ast.AST, int]]]] | None:
        if depth > 12:
            return None
        cls = type(node)
        if cls is ast.BinOp:
            op = type(node.op)  # type: ignore[attr-defined]
            if op is ast.Add or op is ast.Sub:
                left = self.expand(node.left, place, depth + 1)  # type: ignore[attr-defined]
                right = self.expand(node.right, place, depth + 1)  # type: ignore[attr-defined]
                if left is None or right is None or len(left) + len(right) > _MAX_TERMS:
                    return None
                if op is ast.Sub:
                    right = [(-s, f) for s, f in right]
                return left + right
            if op is ast.Mult or op is ast.Div:
                left = self.expand(node.left, place, depth + 1)  # type: ignore[attr-defined]
                right = self.expand(node.right, place, depth + 1)  # type: ignore[attr-defined]
                if left is None or right is None:
                    return None
                if op is ast.Div:
                    if len(right) != 1:
                        right = [(1, [(node.right, -1)])]  # type: ignore[attr-defined]
                    else:
                        right = [(right[0][0], [(n, -e) for n, e in right[0][1]])]
                if len(left) * len(right) > _MAX_TERMS:
                    return None
                return [(ls * rs, lf + rf) for ls, lf in left for rs, rf in right]
        elif cls is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):  # type: ignore[attr-defined]
            inner = self.expand(node.operand, place, depth + 1)  # type: ignore[attr-defined]
            if inner is None:
                return None
            return inner if type(node.op) is ast.UAdd else [(-s, f) for s, f in inner]  # type: ignore[attr-defined]
        elif cls is ast.Call and type(node.func) is ast.Name and node.func.id in ("max", "min", "int", "float", "abs", "round", "Decimal"):  # type: ignore[attr-defined]
            # `max(prompt - cached, 0)`: the one argument that is not a constant.
            args = [a for a in node.args if number(a) is None]  # type: ignore[attr-defined]
            if len(args) == 1 and (node.func.id != "round" or node.args[0] is args[0]):  # type: ignore[attr-defined]
                inner = args[0]
                if type(inner) is ast.BinOp and type(inner.op) in (ast.Add, ast.Sub):  # type: ignore[attr-defined]
                    expanded = self.expand(inner, place, depth + 1)
                    if expanded is not None and all(
                        len(f) == 1 and self.token(f[0][0], place) is not None for _, f in expanded
                    ):
                        return expanded
        elif cls is ast.Name and depth < 6:
            # `uncached = prompt - cached; uncached * rate`: follow a local sum of token counts.
            value = place.binding(node.id)  # type: ignore[attr-defined]
            if value is not None:
                if type(value) is ast.Call:
                    inner = self.expand(value, place, depth + 1)
                    if inner is not None and (len(inner) > 1 or inner[0][1][0][0] is not value):
                        return inner
                if type(value) is ast.BinOp and type(value.op) in (ast.Add, ast.Sub):  # type: ignore[attr-defined]
                    inner = self.expand(value, place, depth + 1)
                    if inner is not None and all(
                        len(f) == 1 and self.token(f[0][0], place) is not None for _, f in inner
                    ):
                        return inner
        return [(1, [(node, 1)])]

    def token(self, node: ast.AST, place: Place, depth: int = 0) -> tuple[str, str] | None:
        """(role, field) when ``node`` is a token count."""
        cls = type(node)
        if cls is ast.BoolOp and node.values:  # type: ignore[attr-defined]
            return self.token(node.values[0], place, depth + 1)  # type: ignore[attr-defined]
        if cls is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            args = node.args  # type: ignore[attr-defined]
            if type(func) is ast.Name:
                if func.id in ("int", "float", "abs", "round", "Decimal") and args:
                    return self.token(args[0], place, depth + 1)
                if func.id == "len" and len(args) == 1:
                    return self._len(args[0], place)
                if func.id in ("max", "min") and args:
                    for arg in args:
                        found = self.token(arg, place, depth + 1)
                        if found is not None:
                            return found
                    return None
        segs = segments(node)
        if not segs or (cls is ast.Call and segments(node.func) == segs):  # type: ignore[attr-defined]
            return None  # a plain call such as `count_tokens(text)` is not a usage field
        if cls is ast.Name and depth < 4:
            value = place.binding(node.id)  # type: ignore[attr-defined]
            if value is not None:
                if type(value) is ast.Call and type(value.func) is ast.Name and value.func.id == "len":  # type: ignore[attr-defined]
                    found = self._len(value.args[0], place) if len(value.args) == 1 else None  # type: ignore[attr-defined]
                    if found is not None:
                        return found
                elif type(value) is not ast.BinOp:
                    found = self.token(value, place, depth + 1)
                    if found is not None:
                        return found
        field = field_of(segs)
        if field is None:
            return None
        return role_of(field), field

    def _len(self, arg: ast.AST, place: Place) -> tuple[str, str] | None:
        """`len(tokens)`, `len(enc.encode(text))`, `len(input_tokens)` with
        `input_tokens = enc.encode(...)`: a token count."""
        text = " ".join(segments(arg)).lower()
        is_tokens = "token" in text or "encode" in text or "tokenize" in text
        if type(arg) is ast.Name:
            values = place.locals.get(arg.id)
            if values and any(
                type(v) is ast.Call and "encode" in " ".join(segments(v)).lower() or "token" in " ".join(segments(v)).lower()
                for v in values
            ):
                is_tokens = True
        if not is_tokens or "char" in text or "byte" in text:
            return None
        name = arg.id if type(arg) is ast.Name else ".".join(segments(arg))
        return role_of(name), f"len({name})"

    def price(self, node: ast.AST, place: Place) -> Price | None:
        node = unwrap(node)
        segs = segments(node)
        first = head(node)
        if first is not None:
            value = place.binding(first)
            if value is not None and type(value) is not ast.Constant:
                segs = segs + segments(value)
            elif first in place.loops:
                segs = segs + segments(place.loops[first])
        if not segs:
            return None
        is_price = money = False
        for seg in segs:
            low = seg.lower()
            if NOT_PRICE.search(low):
                continue
            if PRICE_WORD.search(low):
                is_price = money = True
                break
            if RATE_WORD.search(low) and (RATE_ROLE.search(low) or low in ("rate", "rates")):
                is_price = True
                money = money or bool(RATE_MONEY_ROLE.search(low))
        if not is_price:
            return None
        if not money and len(segs) > 1:
            # `rates.prompt`, `rate["output"]`: a rate keyed by a token role is a price
            money = any(RATE_MONEY_ROLE.search(seg.lower()) and not RATE_WORD.search(seg.lower()) for seg in segs[1:])
        text = "_".join(s.lower() for s in segs)
        return Price(node, money, declared_unit(text), bool(TOKENISH_PRICE.search(text)), is_per_token_price(text), role_of(text))

    def _evidence(self, node: ast.AST, place: Place) -> bool:
        """A bare count (`n`, `count`) bound from a usage or token expression, or counted
        in a place named for tokens."""
        if "token" in place.name.lower():
            return True
        first = head(node)
        if first is None:
            return False
        source = place.binding(first) or place.loops.get(first)
        return source is not None and bool(_USAGE_SOURCE.search("_".join(segments(source)).lower()))

    def _loose(self, node: ast.AST, place: Place, prices: list[Price], scale: float, literal: float | None, money: bool) -> tuple[str, str] | None:
        if type(node) is ast.Call:
            callee = is_count_call(node)
            if callee is None:
                return None
            kind, role, field = "tokenish", "tokens", f"{callee}()"
        else:
            segs = segments(node)
            if not segs or type(node) not in (ast.Name, ast.Attribute, ast.Subscript):
                return None
            found = loose_kind(segs)
            if found is None:
                return None
            kind, role = found
            field = ".".join(segs)
        scaled = scale in _SCALES
        if prices:
            if not any(p.money for p in prices):
                return None
            if kind == "generic":
                ok = any(p.tokenish for p in prices) or scaled or self._evidence(node, place)
            elif kind == "other":
                ok = any(p.per_token for p in prices)
            else:
                ok = True
        elif literal is not None:
            if kind in ("role", "tokenish"):
                ok = literal / scale < 0.001 or money
            elif kind == "generic":
                ok = money and (scaled or self._evidence(node, place))
            else:
                ok = False
        else:
            ok = False
        if not ok:
            return None
        if role == "tokens":
            role = next((p.role for p in prices if p.role != "tokens"), "tokens")
        return role, field

    # -- one root --------------------------------------------------------------------
    def formula(self, root: ast.AST, place: Place, context: str) -> None:
        terms = self.expand(root, place)
        if not terms:
            return
        span = None
        money = bool(MONEY_CONTEXT.search(context.lower())) or bool(MONEY_CONTEXT.search(place.name.lower()))
        kept: list[tuple[list[tuple[ast.AST, int]], Price | None]] = []
        subtracted: list[tuple[int, list[Price]]] = []
        for sign, factors in terms:
            token = None
            tokens = 0
            scale = 1.0
            prices: list[Price] = []
            literal: float | None = None
            small = 1.0
            others: list[ast.AST] = []
            for node, exp in factors:
                found = self.token(node, place)
                if found is not None:
                    tokens += 1
                    if exp != 1:
                        tokens = 99  # a count in the divisor: a ratio, not a cost
                    token = found
                    continue
                value = number(node)
                if value is None and type(node) is ast.Name:
                    # a named divisor (`/ ONE_MILLION`); a named price keeps its name
                    value = self.const(node, place)
                    if value is not None and not (value in _SCALES if exp == -1 else value in _SMALL):
                        value = None
                if value is not None:
                    if exp == -1:
                        if value in _SCALES:
                            scale *= value
                    elif value in _SMALL:
                        small *= value
                    elif value > 0 and literal is None:
                        literal = value
                    elif value < 0:
                        sign = -sign
                    continue
                if exp == -1:
                    low = "_".join(segments(node)).lower()
                    if _MILLION.search(low):
                        scale *= 1e6
                    elif _THOUSAND.search(low):
                        scale *= 1e3
                    continue
                price = self.price(node, place)
                if price is not None:
                    prices.append(price)
                else:
                    others.append(node)
            if tokens == 0 and len(others) == 1 and (prices or literal is not None or small != 1.0):
                if literal is None and not prices and small != 1.0:
                    literal, small = small, 1.0
                token = self._loose(others[0], place, prices, scale / small, literal, money)
                tokens = int(token is not None)
            if tokens == 0 and not others and len(prices) >= 2 and sign < 0:
                subtracted.append((sign, prices))
                continue
            if tokens != 1 or token is None:
                continue
            if prices:
                scale /= small
                declared = next((p.unit for p in prices if p.unit is not None), None)
                if declared is None:
                    unit_key = {1.0: "token", 1e3: "1k", 1e6: "1M"}.get(scale, "mismatch")
                else:
                    unit_key = "token" if declared == scale else "mismatch"
                # a literal factor beside the price (`* 1.25`) is part of the rate
                rate = display(prices[0].node) + (f" * {literal:g}" if literal is not None else "")
                price_kind, literal = "name", None
                kept.append((factors, prices[0]))
            elif literal is not None or small != 1.0:
                literal = (literal if literal is not None else 1.0) * small
                if not (literal / scale < 0.001 or money):
                    continue
                literal = literal / scale
                unit_key, price_kind, rate = "token", "literal", ""
            else:
                continue
            if span is None:
                span = self._span(root)
            self.terms.append(
                CostTermFact(place.name, token[0], token[1], sign, price_kind, unit_key, literal, *span, rate=rate)
            )
        for sign, prices in subtracted:
            # `(prompt_tokens - cached_price) * input_price`: the price it shares with a
            # priced token term multiplies; the other one stands where a count belongs.
            shared = [p for p in prices if any(p.node is f for factors, _ in kept for f, _ in factors)]
            rest = [p for p in prices if p not in shared]
            if len(shared) != 1 or len(rest) != 1:
                continue
            if span is None:
                span = self._span(root)
            self.terms.append(
                CostTermFact(place.name, "price", display(rest[0].node), sign, "name", "token", None, *span,
                             rate=display(shared[0].node))
            )
