"""Cost facts: the cost formulas of a file, reduced to comparable terms (AGL1xx).

A *cost formula* is arithmetic that turns a token count into money. Each maximal
arithmetic expression (`+ - * /`) is expanded into a sum of products, so
`(prompt - cached) * p_in + cached * p_cached + completion / 1_000_000 * p_out` becomes
four terms, each one token count times a price. A term is kept when it has exactly one
token-count factor (not divided by) and a price factor:

- a price-like name, attribute, subscript, dict key or callee (`price`, `pricing[m]`,
  `cost_per_token`, `PRICES[model]["input"]`, `input_per_1m`, `get_price(...)`,
  `rate_in`), also through one local assignment (`p = PRICES[m]; tokens * p`);
- or a literal rate: a number that, per token, is below 0.001 (`* 0.000002`,
  `/ 1_000_000 * 2.5`), or any positive number when the result is bound to a
  money-like name (`cost = tokens / 1000 * 4`).

Token counts are usage fields (`prompt_tokens`, `usage.input_tokens`,
`usage["completion_tokens"]`, `usage.get("output_tokens", 0)`, `*_token_count`,
`prompt_tokens_details.cached_tokens`, `input_token_details["cache_read"]`, ...),
`len(tokens)` / `len(enc.encode(text))`, and local names assigned from those. Each is
reduced to a role (input, output, cached, cache-write, reasoning, total, or plain
tokens). Units are normalised (see ``CostTermFact.unit``) so `/ 1000 * per_1k` and
`/ 1_000_000 * per_m` read the same.

Token × constant conversions that are not money (`tokens * 4` characters,
`tokens * 0.75` words, `len(text) / 4`) have no price factor and are not terms.

The same walk records cost values set to None (AGL104) and hard-coded price tables and
constants (AGL105). Everything is read from the stdlib ``ast`` tree that the module facts
builds; files whose text has no token and no price vocabulary are skipped by regex.
"""

from __future__ import annotations

import ast
import re
from typing import Callable

from agentlint.facts.ast_helpers import MODULE_SCOPE, holds_candidate, node_span
from agentlint.facts.types import CostTermFact, SiteFact

# -- cheap prefilters over the source text -------------------------------------------

_TOKEN_LINE = re.compile(r"tokens|token_count|encode\(")
_NONE_LINE = re.compile(r"cost[\w\"']*\s*(?::[^=\n]*)?=\s*none|cost\w*[\"']\s*:\s*none|_usd\w*\s*(?::[^=\n]*)?=\s*none|def \w*cost")
_MODEL_KEY_LINE = re.compile(r"[\"'](?:gpt|claude|gemini)[^\"'\n]*[\"']\s*:")


# -- vocabulary ----------------------------------------------------------------------

_TOKEN_SEGMENT = re.compile(
    r"(?:^|_)tokens(?:$|_)|tokens?_?count|^n_?tokens?$|^num_?tokens?$|^ntokens$|^tokens$|"
    r"(?:^|_)(?:prompt|completion|input|output|cached|reasoning|thinking|total)tokens$"
)
_NOT_A_COUNT = re.compile(
    r"per_|tokens_per|_per_token|tokenizer|special_tokens|"
    r"stop_tokens|token_ids|_ids$|^bad_|^banned|^allowed_|^skip_|^unk|^pad|^eos|^bos|_map$|_limit$|^limit|"
    r"_budget$|^budget|^remaining|_left$|_ratio$|_frac|_pct|_percent|_threshold|_list$|_type$|_str$"
)
_DETAIL_KEYS = frozenset({"cache_read", "cache_creation", "reasoning", "cached_tokens", "audio"})

_PRICE_WORD = re.compile(
    r"price|pricing|cost|usd|dollar|(?:^|_)cents?(?:$|_)|(?:^|_)fees?(?:$|_)|per_?mtok|_mtok|per_?1[km]|per_?million|"
    r"per_?thousand|(?:^|_)tarif|^p_(?:in|out|input|output|prompt|completion|cached|cache)$"
)
_RATE_WORD = re.compile(r"(?:^|_)rates?(?:$|_)")
_RATE_ROLE = re.compile(r"(?:^|_)(?:in|out|input|output|prompt|completion|token|tokens|cached|cache|per)(?:$|_)")
_NOT_PRICE = re.compile(
    r"hit|miss_rate|error|success|sample|learning|frame|bit|retry|drop|refresh|limit|decay|growth|ratio|"
    r"accept|compression|tokens?_per_|chars?_per|words?_per|bytes?_per|costly|max_cost|cost_limit|budget|"
    r"(?:^|_)(?:max|min|maximum|minimum|threshold|cap|ceiling)(?:_|$)"
)
_UNIT_1K = re.compile(r"(?:^|_)(?:per_?1k|per_?k|per_?thousand|1k|k)(?:_|$)|per_?1_?000(?:$|_)|per1k")
_UNIT_1M = re.compile(
    r"(?:^|_)(?:per_?1m|per_?m|per_?million|million|mtok|1m|per_?mtok|m)(?:_|$)|per_?1_?000_?000(?:$|_)|mtok"
)
_UNIT_TOKEN = re.compile(r"per_?token")
_MONEY_CONTEXT = re.compile(r"cost|price|usd|dollar|spend|bill|charge|(?:^|_)fee|cents|amount")

_COST_NAME_WORDS = frozenset({"cost", "costs"})
_NOT_A_COST_VALUE = frozenset({
    "per", "fn", "func", "function", "functions", "model", "models", "map", "mapping", "table", "tracker",
    "calculator", "callback", "callbacks", "center", "centre", "limit", "limits", "max", "min", "budget",
    "threshold", "config", "handler", "manager", "type", "types", "estimator", "key", "keys", "field",
    "column", "col", "attr", "name", "label", "unit", "units", "currency", "matrix", "heuristic", "weight",
    "weights", "multiplier", "factor", "class", "cls", "info", "enabled", "tracking", "calc", "format",
    "formatter", "display", "str", "fmt", "registry", "pricing", "prices", "price", "rate", "rates",
})

_MODEL_KEY = re.compile(
    r"^(?:gpt-|gpt4|gpt3|chatgpt|o[1345](?:-|$)|claude|gemini|llama|meta-llama|mistral|mixtral|codestral|"
    r"command|text-embedding|text-davinci|davinci|babbage|deepseek|qwen|grok|anthropic/|openai/|gemini/|"
    r"azure/|bedrock/|together|sonar|phi-|jamba|nova-|titan)",
    re.IGNORECASE,
)
_PRICE_KEY = re.compile(r"input|output|prompt|completion|cached|cache|price|cost|per_", re.IGNORECASE)

_NOT_A_PRICE_TABLE = re.compile(r"window|context|limit|max|min_|length|size|dim|token|alias|name|temperature")

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_MAX_TERMS = 32


def _words(name: str) -> list[str]:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w for w in name.lower().split("_") if w]


def is_cost_value_name(name: str) -> bool:
    """`cost`, `cost_usd`, `total_cost`, `llm_cost`, `spend_usd`; not `cost_per_token`,
    `cost_fn`, `max_cost`, `cost_tracker`."""
    words = _words(name.rsplit(".", 1)[-1])
    if not words:
        return False
    has = any(w in _COST_NAME_WORDS for w in words) or (words[-1] == "usd" and len(words) > 1)
    return has and not any(w in _NOT_A_COST_VALUE for w in words)


def _segments(node: ast.AST, depth: int = 0) -> list[str]:
    """Name parts and string keys of a name-like expression, outermost last:
    `usage["input_token_details"]["cache_read"]` -> [usage, input_token_details, cache_read]."""
    if depth > 8:
        return []
    cls = type(node)
    if cls is ast.Name:
        return [node.id]  # type: ignore[attr-defined]
    if cls is ast.Attribute:
        return _segments(node.value, depth + 1) + [node.attr]  # type: ignore[attr-defined]
    if cls is ast.Subscript:
        base = _segments(node.value, depth + 1)  # type: ignore[attr-defined]
        key = node.slice  # type: ignore[attr-defined]
        if type(key) is ast.Constant and isinstance(key.value, str):
            return base + [key.value]
        return base
    if cls is ast.Call:
        func = node.func  # type: ignore[attr-defined]
        args = node.args  # type: ignore[attr-defined]
        if type(func) is ast.Attribute and func.attr == "get" and args:
            first = args[0]
            if type(first) is ast.Constant and isinstance(first.value, str):
                return _segments(func.value, depth + 1) + [first.value]
            return _segments(func.value, depth + 1)
        if type(func) is ast.Name and func.id == "getattr" and len(args) >= 2:
            second = args[1]
            if type(second) is ast.Constant and isinstance(second.value, str):
                return _segments(args[0], depth + 1) + [second.value]
        return _segments(func, depth + 1)
    return []


def role_of(field: str) -> str:
    f = field.lower()
    if "reasoning" in f or "thinking" in f or "thought" in f:
        return "reasoning"
    if "cache_creation" in f or "cache_write" in f or "cachewrite" in f:
        return "cache-write"
    if "cached" in f or "cache_read" in f or "cache_hit" in f or "cacheread" in f:
        return "cached"
    if "prompt" in f or "input" in f or "request_tokens" in f:
        return "input"
    if "completion" in f or "output" in f or "candidates" in f or "response_tokens" in f or "generated" in f:
        return "output"
    if "total" in f:
        return "total"
    return "tokens"


def _is_token_segment(seg: str) -> bool:
    s = seg.lower()
    return bool(_TOKEN_SEGMENT.search(s)) and not _NOT_A_COUNT.search(s) and not _PRICE_WORD.search(s)


def _field_of(segs: list[str]) -> str | None:
    """The usage field a segment chain ends in, or None when it is not a token count."""
    if not segs:
        return None
    last = segs[-1]
    if _is_token_segment(last):
        if len(segs) > 1 and segs[-2].lower().endswith("_details"):
            return f"{segs[-2]}.{last}"
        return last
    if last.lower() in _DETAIL_KEYS and len(segs) > 1 and "token" in segs[-2].lower():
        return f"{segs[-2]}.{last}"
    return None


def _head(node: ast.AST) -> str | None:
    """The name a chain starts from: `p` in `p["input"]`, `p.get("x")`, `p.input`."""
    for _ in range(8):
        cls = type(node)
        if cls is ast.Name:
            return node.id  # type: ignore[attr-defined]
        if cls is ast.Attribute or cls is ast.Subscript:
            node = node.value  # type: ignore[attr-defined]
        elif cls is ast.Call:
            node = node.func  # type: ignore[attr-defined]
        else:
            return None
    return None


def _number(node: ast.AST) -> float | None:
    cls = type(node)
    if cls is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None
    if cls is ast.BinOp and type(node.op) in (ast.Pow, ast.Mult, ast.Div):  # type: ignore[attr-defined]
        left, right = _number(node.left), _number(node.right)  # type: ignore[attr-defined]
        if left is None or right is None:
            return None
        try:
            if type(node.op) is ast.Pow:  # type: ignore[attr-defined]
                return float(left**right) if abs(right) < 40 else None
            if type(node.op) is ast.Mult:  # type: ignore[attr-defined]
                return left * right
            return left / right if right else None
        except (OverflowError, ZeroDivisionError):
            return None
    if cls is ast.UnaryOp and type(node.op) is ast.USub:  # type: ignore[attr-defined]
        inner = _number(node.operand)  # type: ignore[attr-defined]
        return -inner if inner is not None else None
    return None


def _declared_unit(text: str) -> float | None:
    if _UNIT_TOKEN.search(text):
        return 1.0
    if _UNIT_1M.search(text):
        return 1e6
    if _UNIT_1K.search(text):
        return 1e3
    return None


class _Place:
    __slots__ = ("name", "locals", "roots")

    def __init__(self, name: str) -> None:
        self.name = name
        self.locals: dict[str, list[ast.AST]] = {}
        self.roots: list[tuple[ast.AST, str]] = []
        """Arithmetic roots with the money-context text around them."""


class CostExtractor:
    def __init__(self, source: str | None, lines: Callable[[], list[str]]) -> None:
        self.source = source
        self._lines = lines
        self.terms: list[CostTermFact] = []
        self.nones: list[SiteFact] = []
        self.prices: list[SiteFact] = []
        self.places: dict[str, _Place] = {}
        self._tables: set[int] = set()
        self.candidates: list[int] | None = None
        """Lines where a fact can start (None: every line); a statement or definition
        whose lines hold none of them is not walked."""
        if source is None:
            self.want_terms = self.want_nones = self.want_prices = True
            return
        # Substring tests on the lowered text first: a case-insensitive regex over
        # every file of a project costs more than the walk it would save.
        low = source.lower()
        has_tokens = "tokens" in low or "token_count" in low or "encode(" in low
        self.want_terms = has_tokens and (
            "price" in low or "cost" in low or "rate" in low or "usd" in low or "dollar" in low
            or "per_1" in low or "per_m" in low or "p_in" in low or "tarif" in low
        )
        self.want_nones = "None" in source and ("cost" in low or "_usd" in low)
        # Price constants and tables are module- or class-level assignments (mostly
        # upper case), read without a walk; tables inside functions are seen when the
        # function is walked.
        self.want_prices = (
            "PRICE" in source or "COST" in source or "PRICING" in source or "RATE" in source or "Price" in source
            or "PER_1" in source or "PER_M" in source or "USD" in source or '"gpt' in low or "'gpt" in low
            or '"claude' in low or "'claude" in low or '"gemini' in low or "'gemini" in low
        )
        if self.want_nones:
            self.want_nones = _NONE_LINE.search(low) is not None
        if not (self.want_terms or self.want_nones or self.want_prices):
            return
        source = low
        found: set[int] = set()
        patterns = []
        if self.want_terms:
            patterns.append(_TOKEN_LINE)
        if self.want_nones:
            patterns.append(_NONE_LINE)
        if self.want_prices and any(w in source for w in ('"gpt', "'gpt", '"claude', "'claude", '"gemini', "'gemini")):
            patterns.append(_MODEL_KEY_LINE)
        positions = sorted(m.start() for pattern in patterns for m in pattern.finditer(source))
        line, previous = 1, 0
        for position in positions:
            line += source.count("\n", previous, position)
            previous = position
            found.add(line)
        self.candidates = sorted(found)

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
            for place in self.places.values():
                for root, context in place.roots:
                    self._formula(root, place, context)

    def _place(self, name: str) -> _Place:
        place = self.places.get(name)
        if place is None:
            place = self.places[name] = _Place(name)
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
                        names = [n for n in (".".join(_segments(t)) for t in targets) if n]
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
                self._body(stmt.body, inner, inner, func)  # type: ignore[attr-defined]
            else:
                self._body(stmt.body, place, None, func)  # type: ignore[attr-defined]
            return
        context = ""
        if cls is ast.Assign or cls is ast.AnnAssign or cls is ast.AugAssign:
            targets = stmt.targets if cls is ast.Assign else [stmt.target]  # type: ignore[attr-defined]
            value = stmt.value  # type: ignore[attr-defined]
            names = [n for n in (".".join(_segments(t)) for t in targets) if n]
            context = " ".join(names)
            if value is not None:
                current = self._place(place)
                for t in targets:
                    if type(t) is ast.Name and cls is not ast.AugAssign:
                        current.locals.setdefault(t.id, []).append(value)
                self._assignment(stmt, names, value, place, klass)
        elif cls is ast.Return:
            context = f"return {func}"
            value = stmt.value  # type: ignore[attr-defined]
            if (
                self.want_nones
                and type(value) is ast.Constant
                and value.value is None
                and func != MODULE_SCOPE
                and is_cost_value_name(func)
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
                    self._none(kind, name, stmt, place)
        if self.want_prices and (place == MODULE_SCOPE or (klass is not None and place == klass)):
            for name in names:
                last = name.rsplit(".", 1)[-1]
                low = last.lower()
                if not _PRICE_WORD.search(low) or _NOT_PRICE.search(low) or is_cost_value_name(last):
                    continue
                number = _number(value)
                if number is not None and number > 0:
                    self._price("constant", last, stmt, place)
                elif type(value) is ast.Dict and _price_table(value, named=True):  # type: ignore[arg-type]
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
                    and not _NOT_A_PRICE_TABLE.search(ctx.lower())
                    and _price_table(current, named=False)  # type: ignore[arg-type]
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

    # -- formulas --------------------------------------------------------------------
    def _expand(self, node: ast.AST, place: _Place, depth: int = 0) -> list[tuple[int, list[tuple[ast.AST, int]]]] | None:
        if depth > 12:
            return None
        cls = type(node)
        if cls is ast.BinOp:
            op = type(node.op)  # type: ignore[attr-defined]
            if op is ast.Add or op is ast.Sub:
                left = self._expand(node.left, place, depth + 1)  # type: ignore[attr-defined]
                right = self._expand(node.right, place, depth + 1)  # type: ignore[attr-defined]
                if left is None or right is None or len(left) + len(right) > _MAX_TERMS:
                    return None
                if op is ast.Sub:
                    right = [(-s, f) for s, f in right]
                return left + right
            if op is ast.Mult or op is ast.Div:
                left = self._expand(node.left, place, depth + 1)  # type: ignore[attr-defined]
                right = self._expand(node.right, place, depth + 1)  # type: ignore[attr-defined]
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
            inner = self._expand(node.operand, place, depth + 1)  # type: ignore[attr-defined]
            if inner is None:
                return None
            return inner if type(node.op) is ast.UAdd else [(-s, f) for s, f in inner]  # type: ignore[attr-defined]
        elif cls is ast.Call and type(node.func) is ast.Name and node.func.id in ("max", "min", "int", "float", "abs", "round"):  # type: ignore[attr-defined]
            # `max(prompt - cached, 0)`: the one argument that is not a constant.
            args = [a for a in node.args if _number(a) is None]  # type: ignore[attr-defined]
            if len(args) == 1 and (node.func.id != "round" or node.args[0] is args[0]):  # type: ignore[attr-defined]
                inner = args[0]
                if type(inner) is ast.BinOp and type(inner.op) in (ast.Add, ast.Sub):  # type: ignore[attr-defined]
                    expanded = self._expand(inner, place, depth + 1)
                    if expanded is not None and all(
                        len(f) == 1 and self._token(f[0][0], place) is not None for _, f in expanded
                    ):
                        return expanded
        elif cls is ast.Name and depth < 6:
            # `uncached = prompt - cached; uncached * rate`: follow a local sum of token counts.
            values = place.locals.get(node.id)  # type: ignore[attr-defined]
            if values and len(values) == 1:
                value = values[0]
                if type(value) is ast.Call:
                    inner = self._expand(value, place, depth + 1)
                    if inner is not None and (len(inner) > 1 or inner[0][1][0][0] is not value):
                        return inner
                if type(value) is ast.BinOp and type(value.op) in (ast.Add, ast.Sub):  # type: ignore[attr-defined]
                    inner = self._expand(value, place, depth + 1)
                    if inner is not None and all(
                        len(f) == 1 and self._token(f[0][0], place) is not None for _, f in inner
                    ):
                        return inner
        return [(1, [(node, 1)])]

    def _token(self, node: ast.AST, place: _Place, depth: int = 0) -> tuple[str, str] | None:
        """(role, field) when ``node`` is a token count."""
        cls = type(node)
        if cls is ast.BoolOp and node.values:  # type: ignore[attr-defined]
            return self._token(node.values[0], place, depth + 1)  # type: ignore[attr-defined]
        if cls is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            args = node.args  # type: ignore[attr-defined]
            if type(func) is ast.Name:
                if func.id in ("int", "float", "abs", "round", "Decimal") and args:
                    return self._token(args[0], place, depth + 1)
                if func.id == "len" and len(args) == 1:
                    return self._len(args[0], place)
                if func.id in ("max", "min") and args:
                    for arg in args:
                        found = self._token(arg, place, depth + 1)
                        if found is not None:
                            return found
                    return None
        segs = _segments(node)
        if not segs or (cls is ast.Call and _segments(node.func) == segs):  # type: ignore[attr-defined]
            return None  # a plain call such as `count_tokens(text)` is not a usage field
        if cls is ast.Name and depth < 4:
            values = place.locals.get(node.id)  # type: ignore[attr-defined]
            if values and len(values) == 1:
                value = values[0]
                if type(value) is ast.Call and type(value.func) is ast.Name and value.func.id == "len":  # type: ignore[attr-defined]
                    found = self._len(value.args[0], place) if len(value.args) == 1 else None  # type: ignore[attr-defined]
                    if found is not None:
                        return found
                elif type(value) is not ast.BinOp:
                    found = self._token(value, place, depth + 1)
                    if found is not None:
                        return found
        field = _field_of(segs)
        if field is None:
            return None
        return role_of(field), field

    def _len(self, arg: ast.AST, place: _Place) -> tuple[str, str] | None:
        """`len(tokens)`, `len(enc.encode(text))`, `len(input_tokens)` with
        `input_tokens = enc.encode(...)`: a token count."""
        text = " ".join(_segments(arg)).lower()
        is_tokens = "token" in text or "encode" in text or "tokenize" in text
        if type(arg) is ast.Name:
            values = place.locals.get(arg.id)
            if values and any(
                type(v) is ast.Call and "encode" in " ".join(_segments(v)).lower() or "token" in " ".join(_segments(v)).lower()
                for v in values
            ):
                is_tokens = True
        if not is_tokens or "char" in text or "byte" in text:
            return None
        name = arg.id if type(arg) is ast.Name else ".".join(_segments(arg))
        return role_of(name), f"len({name})"

    def _price_info(self, node: ast.AST, place: _Place) -> tuple[bool, float | None]:
        """(is a price, declared unit per N tokens)."""
        segs = _segments(node)
        head = _head(node)
        if head is not None:
            values = place.locals.get(head)
            if values and len(values) == 1 and type(values[0]) is not ast.Constant:
                segs = segs + _segments(values[0])
        text = "_".join(s.lower() for s in segs)
        if not text:
            return False, None
        is_price = False
        for seg in segs:
            low = seg.lower()
            if _NOT_PRICE.search(low):
                continue
            if _PRICE_WORD.search(low) or (_RATE_WORD.search(low) and (_RATE_ROLE.search(low) or low in ("rate", "rates"))):
                is_price = True
                break
        return is_price, _declared_unit(text) if is_price else None

    def _formula(self, root: ast.AST, place: _Place, context: str) -> None:
        terms = self._expand(root, place)
        if not terms:
            return
        span = None
        money = bool(_MONEY_CONTEXT.search(context.lower())) or bool(_MONEY_CONTEXT.search(place.name.lower()))
        for sign, factors in terms:
            token = None
            tokens = 0
            scale = 1.0
            price_name = False
            declared: float | None = None
            literal: float | None = None
            for node, exp in factors:
                found = self._token(node, place)
                if found is not None:
                    tokens += 1
                    if exp != 1:
                        tokens = 99  # a count in the divisor: a ratio, not a cost
                    token = found
                    continue
                number = _number(node)
                if number is not None:
                    if exp == -1:
                        if number in (1000.0, 1e6, 1e9):
                            scale *= number
                    elif number > 0 and literal is None:
                        literal = number
                    elif number < 0:
                        sign = -sign
                    continue
                if exp == -1:
                    low = "_".join(_segments(node)).lower()
                    if "million" in low or re.search(r"(?:^|_)1m(?:_|$)|mtok", low):
                        scale *= 1e6
                    elif "thousand" in low or re.search(r"(?:^|_)1k(?:_|$)", low):
                        scale *= 1e3
                    continue
                is_price, unit = self._price_info(node, place)
                if is_price:
                    price_name = True
                    if unit is not None:
                        declared = unit
            if tokens != 1 or token is None:
                continue
            if price_name:
                literal = None
                if declared is None:
                    unit_key = {1.0: "token", 1e3: "1k", 1e6: "1M"}.get(scale, "mismatch")
                else:
                    unit_key = "token" if declared == scale else "mismatch"
                price = "name"
            elif literal is not None and (literal / scale < 0.001 or money):
                literal = literal / scale
                unit_key = "token"
                price = "literal"
            else:
                continue
            if span is None:
                span = self._span(root)
            self.terms.append(
                CostTermFact(place.name, token[0], token[1], sign, price, unit_key, literal, *span)
            )


def _price_table(node: ast.Dict, *, named: bool) -> bool:
    """A model-to-price table: keys are model names and values are numbers (or tuples
    or dicts of numbers under price-like keys); with ``named`` (assigned to a price-like
    name), any dict of numbers or of such dicts."""
    model_keys = 0
    priced = 0
    for key, value in zip(node.keys, node.values):
        key_text = key.value if type(key) is ast.Constant and isinstance(key.value, str) else None
        if key_text is not None and _MODEL_KEY.match(key_text):
            model_keys += 1
        if _number(value) is not None:
            priced += 1
        elif type(value) in (ast.Tuple, ast.List) and value.elts and all(_number(e) is not None for e in value.elts):  # type: ignore[attr-defined]
            priced += 1
        elif type(value) is ast.Dict and any(
            type(k) is ast.Constant and isinstance(k.value, str) and _PRICE_KEY.search(k.value) and _number(v) is not None
            for k, v in zip(value.keys, value.values)  # type: ignore[attr-defined]
        ):
            priced += 1
    if not priced:
        return False
    numbers = [_number(v) for v in node.values]
    if any(n is not None and n >= 1000 for n in numbers):
        return False  # context windows, limits: not prices
    if named:
        return priced * 2 >= len(node.keys)
    return model_keys >= 1 and model_keys * 2 >= len(node.keys) and priced * 2 >= len(node.keys)


def extract(tree: ast.Module, source: str | None) -> tuple[tuple[CostTermFact, ...], tuple[SiteFact, ...], tuple[SiteFact, ...]]:
    """The cost terms, cost-None sites and hard-coded prices of one module."""
    cache: list[list[str]] = []

    def lines() -> list[str]:
        if not cache:
            cache.append(re.split(r"\r\n|\r|\n", source) if source is not None else [])
        return cache[0]

    extractor = CostExtractor(source, lines)
    if not extractor.wanted:
        return (), (), ()
    extractor.run(tree)
    return tuple(extractor.terms), tuple(extractor.nones), tuple(extractor.prices)
