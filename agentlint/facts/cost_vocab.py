"""The vocabulary of cost code: what a token count, a price, a unit and a cost value look
like, as names and as small `ast` shapes (see ``facts.cost`` for how it is used).

Everything here is a pure function of a name or of one expression node; nothing walks
a tree.
"""

from __future__ import annotations

import ast
import re

from agentlint.lazy_regex import lazy_compile

# -- token counts ----------------------------------------------------------------------

_TOKEN_SEGMENT = lazy_compile(
    r"(?:^|_)tokens(?:$|_)|tokens?_?count|^n_?tokens?$|^num_?tokens?$|^ntokens$|^tokens$|"
    r"(?:^|_)(?:prompt|completion|input|output|cached|reasoning|thinking|total)tokens$"
)
_NOT_A_COUNT = lazy_compile(
    r"per_|tokens_per|_per_token|tokenizer|special_tokens|"
    r"stop_tokens|token_ids|_ids$|^bad_|^banned|^allowed_|^skip_|^unk|^pad|^eos|^bos|_map$|_limit$|^limit|"
    r"_budget$|^budget|^remaining|_left$|_ratio$|_frac|_pct|_percent|_threshold|_list$|_type$|_str$"
)
_DETAIL_KEYS = frozenset({"cache_read", "cache_creation", "reasoning", "cached_tokens", "audio"})

_COUNT_CALL = lazy_compile(
    r"^(?:_?(?:count|num|number_of|n|get_num|get_token|calc|calculate|estimate)_?tokens?(?:_\w+)?|"
    r"_?tokens?_?(?:count|len|length)(?:_\w+)?|num_tokens_from_\w+)$"
)
"""A call that returns a token count: `count_tokens(text)`, `self.num_tokens(msg)`,
`token_count(messages)`, `num_tokens_from_messages(...)`."""

# Loosely named token counts (`prompt`, `tk`, `usage["input"]`): words that name a role,
# words that say "a count", and modifiers that keep a name a count.
ROLE_WORDS = {
    "input": "input", "inp": "input", "in": "input", "prompt": "input", "uncached": "input",
    "output": "output", "out": "output", "completion": "output", "completions": "output", "candidates": "output",
    "cached": "cached", "reasoning": "reasoning", "thinking": "reasoning", "thoughts": "reasoning", "audio": "audio",
}
_CACHE_WORDS = {"hit": "cached", "read": "cached", "write": "cache-write", "creation": "cache-write", "miss": "input"}
"""Role words that need `cache` beside them: `cache_hit`, `cache_write`, `cache_miss`."""
_TOKENISH_WORDS = frozenset({"tok", "toks", "tk", "tks", "ntok", "ntoks", "token", "tkn", "tkns"})
_COUNT_WORDS = frozenset({"n", "num", "count", "counts", "cnt", "number", "total", "sum", "used"})
_MODIFIERS = frozenset({
    "billable", "billed", "non", "new", "fresh", "avg", "est", "estimated", "actual", "raw", "cache",
    "step", "turn", "call", "run", "session", "all", "this", "cur", "current", "delta", "tot",
})
_NOT_LOOSE = frozenset({
    "char", "chars", "characters", "byte", "bytes", "word", "words", "second", "seconds", "secs", "minute",
    "minutes", "mins", "hour", "hours", "day", "days", "image", "images", "page", "pages", "request", "requests",
    "response", "responses", "calls", "queries", "searches", "multiplier", "factor", "scale", "ratio", "weight",
    "weights", "discount", "markup", "margin", "fx", "exchange", "conversion", "percent", "pct", "share",
    "fraction", "limit", "max", "min", "budget", "remaining", "left", "id", "ids", "index", "idx", "size", "len",
    "length", "time", "duration", "latency", "ms", "quantity", "qty", "price", "prices", "cost", "costs", "rate",
    "rates", "amount", "balance", "score", "epoch", "epochs", "batch", "items", "item", "units", "unit",
})


def words(name: str) -> list[str]:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w for w in name.lower().split("_") if w]


def segments(node: ast.AST, depth: int = 0) -> list[str]:
    """Name parts and string keys of a name-like expression, outermost last:
    `usage["input_token_details"]["cache_read"]` -> [usage, input_token_details, cache_read]."""
    if depth > 8:
        return []
    cls = type(node)
    if cls is ast.Name:
        return [node.id]  # type: ignore[attr-defined]
    if cls is ast.Attribute:
        return segments(node.value, depth + 1) + [node.attr]  # type: ignore[attr-defined]
    if cls is ast.Subscript:
        base = segments(node.value, depth + 1)  # type: ignore[attr-defined]
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
                return segments(func.value, depth + 1) + [first.value]
            return segments(func.value, depth + 1)
        if type(func) is ast.Name and func.id == "getattr" and len(args) >= 2:
            second = args[1]
            if type(second) is ast.Constant and isinstance(second.value, str):
                return segments(args[0], depth + 1) + [second.value]
        return segments(func, depth + 1)
    return []


def role_of(field: str) -> str:
    f = field.lower()
    if "reasoning" in f or "thinking" in f or "thought" in f:
        return "reasoning"
    if "uncached" in f or "non_cached" in f or "noncached" in f or "cache_miss" in f:
        return "input"
    if "cache_creation" in f or "cache_write" in f or "cachewrite" in f:
        return "cache-write"
    if "cached" in f or "cache_read" in f or "cache_hit" in f or "cacheread" in f:
        return "cached"
    if "audio" in f:
        return "audio"
    if "prompt" in f or "input" in f or "request_tokens" in f:
        return "input"
    if "completion" in f or "output" in f or "candidates" in f or "response_tokens" in f or "generated" in f:
        return "output"
    if "total" in f:
        return "total"
    return "tokens"


def is_token_segment(seg: str) -> bool:
    s = seg.lower()
    return bool(_TOKEN_SEGMENT.search(s)) and not _NOT_A_COUNT.search(s) and not PRICE_WORD.search(s)


def field_of(segs: list[str]) -> str | None:
    """The usage field a segment chain ends in, or None when it is not a token count."""
    if not segs:
        return None
    last = segs[-1]
    if is_token_segment(last):
        if len(segs) > 1 and segs[-2].lower().endswith("_details"):
            return f"{segs[-2]}.{last}"
        return last
    if last.lower() in _DETAIL_KEYS and len(segs) > 1 and "token" in segs[-2].lower():
        return f"{segs[-2]}.{last}"
    return None


def is_count_call(node: ast.AST) -> str | None:
    """The callee of a call that returns a token count (`count_tokens(text)`), or None."""
    if type(node) is not ast.Call:
        return None
    func = node.func  # type: ignore[attr-defined]
    name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else ""
    return name if name and _COUNT_CALL.match(name.lower()) else None


def loose_kind(segs: list[str]) -> tuple[str, str] | None:
    """How a name that is not a usage field may still be a token count: (kind, role).

    `role`: role words with count words around them (`prompt`, `n_in`, `cache_hit`,
    `usage["output"]`, `entry.completion`); `tokenish`: an abbreviation of tokens (`tk`,
    `toks`, `in_tok`); `generic`: count words alone (`n`, `count`, `total`); `other`: any
    other plain name. None: a name that is never a token count (characters, seconds, a
    multiplier, a limit, a price)."""
    if not segs:
        return None
    last = segs[-1]
    low = last.lower()
    ws = words(last)
    if not ws or any(w in _NOT_LOOSE for w in ws) or PRICE_WORD.search(low) or _NOT_A_COUNT.search(low):
        return None
    cache = "cache" in ws
    roles = [ROLE_WORDS[w] for w in ws if w in ROLE_WORDS]
    roles += [_CACHE_WORDS[w] for w in ws if cache and w in _CACHE_WORDS]
    if cache and not any(w in _CACHE_WORDS for w in ws) and "cached" not in ws:
        roles.append("cached")
    role = "tokens"
    for candidate in ("cache-write", "cached", "reasoning", "audio", "input", "output"):
        if candidate in roles:
            role = candidate
            break
    if "uncached" in ws or (cache and "miss" in ws):
        role = "input"
    if any(w in _TOKENISH_WORDS for w in ws):
        return "tokenish", role
    rest = [w for w in ws if w not in ROLE_WORDS and w not in _COUNT_WORDS and w not in _MODIFIERS
            and not (cache and w in _CACHE_WORDS)]
    if rest:
        return "other", role
    return ("role", role) if roles else ("generic", "tokens")


# -- prices ------------------------------------------------------------------------------

PRICE_WORD = lazy_compile(
    r"price|pricing|cost|usd|dollar|(?:^|_)cents?(?:$|_)|(?:^|_)fees?(?:$|_)|per_?mtok|_mtok|per_?1[km]|per_?million|"
    r"per_?thousand|(?:^|_)tarif|^p_(?:in|out|input|output|prompt|completion|cached|cache|hit|miss|read|write|reasoning)$"
)
RATE_WORD = lazy_compile(r"(?:^|_)rates?(?:$|_)")
RATE_ROLE = lazy_compile(r"(?:^|_)(?:in|out|input|output|prompt|completion|token|tokens|cached|cache|per)(?:$|_)")
RATE_MONEY_ROLE = lazy_compile(r"(?:^|_)(?:in|out|input|output|prompt|completion|cached|cache)(?:$|_)")
NOT_PRICE = lazy_compile(
    r"hit_?rate|hit_?ratio|miss_rate|error|success|sample|learning|frame|bit|retry|drop|refresh|limit|decay|growth|ratio|"
    r"accept|compression|tokens?_per_|chars?_per|words?_per|bytes?_per|costly|max_cost|cost_limit|budget|"
    r"(?:^|_)(?:max|min|maximum|minimum|threshold|cap|ceiling)(?:_|$)"
)
TOKENISH_PRICE = lazy_compile(
    r"tok|input|output|prompt|completion|cache|(?:^|_)in(?:$|_)|(?:^|_)out(?:$|_)|per_?1[km]|per_?[km](?:$|_)|"
    r"per_?million|per_?thousand|1k|1m(?:$|_)"
)
"""A price that says it is per token, per 1K/1M (of tokens), or for a token role."""
PER_TOKEN_PRICE = lazy_compile(r"per_?\w*tok|mtok|tokens?_?(?:cost|price|rate)|(?:cost|price)s?_?tokens?")
"""A price whose name says its unit is tokens: whatever it multiplies is a token count."""
_NOT_TOKEN_UNIT = lazy_compile(r"char|byte|word|second|minute|hour|image|page|request|call|search|query|unit")

_UNIT_1K = lazy_compile(r"(?:^|_)(?:per_?k|per_?thousand|thousand|k)(?:_|$)|1k(?:_|$)|per_?1_?000(?:$|_)|per1k")
_UNIT_1M = lazy_compile(
    r"(?:^|_)(?:per_?m|per_?mil|per_?million|million|mil|mtok|per_?mtok|m)(?:_|$)|1m(?:_|$)|per_?1_?000_?000(?:$|_)|mtok"
)
_UNIT_TOKEN = lazy_compile(r"per_?token")
MONEY_CONTEXT = lazy_compile(r"cost|price|usd|dollar|spend|bill|charge|(?:^|_)fee|cents|amount")

_MODEL_KEY = lazy_compile(
    r"^(?:gpt-|gpt4|gpt3|chatgpt|o[1345](?:-|$)|claude|gemini|llama|meta-llama|mistral|mixtral|codestral|"
    r"command|text-embedding|text-davinci|davinci|babbage|deepseek|qwen|grok|anthropic/|openai/|gemini/|"
    r"azure/|bedrock/|together|sonar|phi-|jamba|nova-|titan)",
    re.IGNORECASE,
)
_PRICE_KEY = lazy_compile(r"input|output|prompt|completion|cached|cache|price|cost|per_", re.IGNORECASE)
NOT_A_PRICE_TABLE = lazy_compile(r"window|context|limit|max|min_|length|size|dim|token|alias|name|temperature")


def declared_unit(text: str) -> float | None:
    if _UNIT_TOKEN.search(text):
        return 1.0
    if _UNIT_1M.search(text):
        return 1e6
    if _UNIT_1K.search(text):
        return 1e3
    return None


def is_per_token_price(text: str) -> bool:
    return bool(PER_TOKEN_PRICE.search(text)) and not _NOT_TOKEN_UNIT.search(text)


def number(node: ast.AST) -> float | None:
    cls = type(node)
    if cls is ast.Call and type(node.func) is ast.Name and node.func.id in ("Decimal", "float") and len(node.args) == 1:  # type: ignore[attr-defined]
        arg = node.args[0]  # type: ignore[attr-defined]
        if type(arg) is ast.Constant and isinstance(arg.value, str):
            try:
                return float(arg.value)  # `Decimal("0.000002")`
            except ValueError:
                return None
        return number(arg)
    if cls is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None
    if cls is ast.BinOp and type(node.op) in (ast.Pow, ast.Mult, ast.Div):  # type: ignore[attr-defined]
        left, right = number(node.left), number(node.right)  # type: ignore[attr-defined]
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
        inner = number(node.operand)  # type: ignore[attr-defined]
        return -inner if inner is not None else None
    return None


def head(node: ast.AST) -> str | None:
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


_WRAPPERS = frozenset({"Decimal", "float", "int", "str", "Fraction", "abs", "round"})


def unwrap(node: ast.AST) -> ast.AST:
    """`Decimal(str(price))`, `float(p)`, `(p or 0)`, `p if p else 0` -> the operand."""
    for _ in range(4):
        cls = type(node)
        if cls is ast.Call and type(node.func) is ast.Name and node.func.id in _WRAPPERS and node.args:  # type: ignore[attr-defined]
            node = node.args[0]  # type: ignore[attr-defined]
        elif cls is ast.BoolOp and node.values:  # type: ignore[attr-defined]
            node = node.values[0]  # type: ignore[attr-defined]
        elif cls is ast.IfExp:
            node = node.body  # type: ignore[attr-defined]
        else:
            break
    return node


def price_table(node: ast.Dict, *, named: bool) -> bool:
    """A model-to-price table: keys are model names and values are numbers (or tuples
    or dicts of numbers under price-like keys); with ``named`` (assigned to a price-like
    name), any dict of numbers or of such dicts."""
    model_keys = 0
    priced = 0
    for key, value in zip(node.keys, node.values):
        key_text = key.value if type(key) is ast.Constant and isinstance(key.value, str) else None
        if key_text is not None and _MODEL_KEY.match(key_text):
            model_keys += 1
        if number(value) is not None:
            priced += 1
        elif type(value) in (ast.Tuple, ast.List) and value.elts and all(number(e) is not None for e in value.elts):  # type: ignore[attr-defined]
            priced += 1
        elif type(value) is ast.Dict and any(
            type(k) is ast.Constant and isinstance(k.value, str) and _PRICE_KEY.search(k.value) and number(v) is not None
            for k, v in zip(value.keys, value.values)  # type: ignore[attr-defined]
        ):
            priced += 1
    if not priced:
        return False
    numbers = [number(v) for v in node.values]
    if any(n is not None and n >= 1000 for n in numbers):
        return False  # context windows, limits: not prices
    if named:
        return priced * 2 >= len(node.keys)
    return model_keys >= 1 and model_keys * 2 >= len(node.keys) and priced * 2 >= len(node.keys)


# -- cost values (AGL104) -------------------------------------------------------------------

_COST_NAME_WORDS = frozenset({"cost", "costs"})
_NOT_A_COST_VALUE = frozenset({
    "per", "fn", "func", "function", "functions", "model", "models", "map", "mapping", "table", "tracker",
    "calculator", "callback", "callbacks", "center", "centre", "limit", "limits", "max", "min", "budget",
    "threshold", "config", "handler", "manager", "type", "types", "estimator", "key", "keys", "field",
    "column", "col", "attr", "name", "label", "unit", "units", "currency", "matrix", "heuristic", "weight",
    "weights", "multiplier", "factor", "class", "cls", "info", "enabled", "tracking", "calc", "format",
    "formatter", "display", "str", "fmt", "registry", "pricing", "prices", "price", "rate", "rates",
    "details", "detail", "breakdown", "report", "summary", "stats", "metrics", "data", "components", "cb", "hook",
    "hooks", "listener",
})
_READER_WORDS = frozenset({"parse", "parsed", "extract", "read", "load", "reported", "header", "headers"})


def is_cost_value_name(name: str) -> bool:
    """`cost`, `cost_usd`, `total_cost`, `llm_cost`, `spend_usd`; not `cost_per_token`,
    `cost_fn`, `max_cost`, `cost_tracker`."""
    ws = words(name.rsplit(".", 1)[-1])
    if not ws:
        return False
    has = any(w in _COST_NAME_WORDS for w in ws) or (ws[-1] == "usd" and len(ws) > 1)
    return has and not any(w in _NOT_A_COST_VALUE for w in ws)


def reads_a_cost(func: str) -> bool:
    """`parse_cost`, `gateway_reported_cost`, `read_cost_header`: a function that reads a
    cost someone else reported; None is its "not there", passed on to the caller."""
    return any(w in _READER_WORDS for w in words(func))
