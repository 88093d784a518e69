"""Reading prompt expressions off the `ast` (AGL401): the literal text a string-building
expression produces, the messages of a message list, names of targets and callees."""

from __future__ import annotations

import ast

from agentlint.facts.ast_helpers import dotted
from agentlint.facts.prompt_vocab import (
    ASSEMBLING_CALLS,
    MESSAGE_CLASSES,
    NOT_PROMPT_MESSAGES,
    RENDER_METHODS,
    TEXT_CALLS,
    TEXT_METHODS,
)

_Constant, _JoinedStr, _BinOp, _Call, _Attribute = ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call, ast.Attribute
_Add, _Mod = ast.Add, ast.Mod


def text_of(node: ast.AST, depth: int = 0) -> str | None:
    """The literal text of a string-building expression, placeholders as `{}`: a string
    constant, an f-string, `+` of strings, `"..." % x`, `"...".format(...)` (and
    `.replace`, `.strip`, ...), `dedent(...)`, `PromptTemplate.from_template(...)`,
    `PromptTemplate(template=...)`; None for anything else."""
    if depth > 40:
        return None
    cls = type(node)
    if cls is _Constant:
        value = node.value  # type: ignore[attr-defined]
        return value if type(value) is str else None
    if cls is _JoinedStr:
        return "".join(v.value if type(v) is _Constant else "{}" for v in node.values)  # type: ignore[attr-defined]
    if cls is _BinOp:
        op = type(node.op)  # type: ignore[attr-defined]
        if op is _Add:
            left = text_of(node.left, depth + 1)  # type: ignore[attr-defined]
            right = text_of(node.right, depth + 1)  # type: ignore[attr-defined]
            if left is None and right is None:
                return None
            return (left if left is not None else "{}") + (right if right is not None else "{}")
        if op is _Mod:
            return text_of(node.left, depth + 1) if type(node.left) in (_Constant, _JoinedStr) else None  # type: ignore[attr-defined]
        return None
    if cls is _Call:
        func = node.func  # type: ignore[attr-defined]
        if type(func) is _Attribute:
            if func.attr in TEXT_METHODS:
                inner = text_of(func.value, depth + 1)
                if inner is not None:
                    return inner
            name = func.attr
        elif type(func) is ast.Name:
            name = func.id
        else:
            return None
        if name in TEXT_CALLS:
            args = node.args  # type: ignore[attr-defined]
            if args:
                return text_of(args[0], depth + 1)
            for keyword in node.keywords:  # type: ignore[attr-defined]
                if keyword.arg == "template":
                    return text_of(keyword.value, depth + 1)
    return None


def target_name(node: ast.AST) -> str | None:
    """`a.b`, `a["k"].c`, `a[*]`: a target's dotted path with its subscripts."""
    parts: list[str] = []
    while True:
        cls = type(node)
        if cls is ast.Attribute:
            parts.append("." + node.attr)  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
        elif cls is ast.Subscript:
            key = node.slice  # type: ignore[attr-defined]
            parts.append(f"[{key.value}]" if type(key) is _Constant else "[*]")
            node = node.value  # type: ignore[attr-defined]
        elif cls is ast.Name:
            parts.append(node.id)  # type: ignore[attr-defined]
            return "".join(reversed(parts))
        else:
            return None


def last_segment(name: str) -> str:
    """`a.b[k].c` -> `c`, `a["task"]` -> `task`."""
    tail = name.rsplit(".", 1)[-1]
    if tail.endswith("]"):
        tail = tail[tail.rfind("[") + 1 : -1]
    return tail


def callee_name(call: ast.Call) -> str:
    """The last name of a call's callee (`client.chat.completions.create` -> `create`)."""
    func = call.func
    if type(func) is ast.Attribute:
        return func.attr
    if type(func) is ast.Name:
        return func.id
    return ""


def role_text(node: ast.AST | None) -> str | None:
    if type(node) is _Constant and type(node.value) is str:  # type: ignore[union-attr]
        return node.value.lower()  # type: ignore[union-attr]
    name = dotted(node) if node is not None else None
    if name:
        tail = name.rsplit(".", 1)[-1].lower()
        if tail in ("system", "developer", "user", "human", "assistant", "tool", "function"):
            return tail
    return None


def message_of(node: ast.AST) -> tuple[str, ast.AST | None] | None:
    """(role, content) of a message written as a dict with `role`, a message class
    (`SystemMessage(...)`, `ChatMessage(role=..., content=...)`), or a `(role, text)`
    tuple; None when ``node`` is not a message. The role is "" when unknown."""
    cls = type(node)
    if cls is ast.Dict:
        role = content = None
        has_role = False
        for key, value in zip(node.keys, node.values):  # type: ignore[attr-defined]
            if type(key) is not _Constant:
                continue
            if key.value == "role":
                has_role = True
                role = role_text(value)
            elif key.value in ("content", "parts"):
                content = value
        if not has_role:
            return None
        return (role or "", content)
    if cls is _Call:
        name = dotted(node.func) or ""  # type: ignore[attr-defined]
        last = name.rsplit(".", 1)[-1]
        if last == "from_template" and "." in name:
            owner = name.rsplit(".", 2)[-2]
            role = MESSAGE_CLASSES.get(owner)
            if role:
                return (role, node.args[0] if node.args else None)  # type: ignore[attr-defined]
            return None
        if last in NOT_PROMPT_MESSAGES:
            return ("assistant", node.args[0] if node.args else None)  # type: ignore[attr-defined]
        role = MESSAGE_CLASSES.get(last)
        if role is None:
            return None
        content = node.args[0] if node.args else None  # type: ignore[attr-defined]
        for keyword in node.keywords:  # type: ignore[attr-defined]
            if keyword.arg == "role":
                role = role_text(keyword.value) or role
            elif keyword.arg in ("content", "text", "contents", "prompt"):
                content = keyword.value
        if not role and not any(k.arg == "role" for k in node.keywords):  # type: ignore[attr-defined]
            return None
        return (role, content)
    if cls is ast.Tuple:
        elts = node.elts  # type: ignore[attr-defined]
        if len(elts) == 2 and type(elts[0]) is _Constant and type(elts[0].value) is str:
            role = elts[0].value.lower()
            if role in ("system", "developer", "user", "human", "assistant", "ai", "placeholder"):
                return ("user" if role == "human" else role, elts[1])
    return None


def is_assembled(node: ast.AST) -> bool:
    """An expression that builds a prompt from parts."""
    cls = type(node)
    if cls is _JoinedStr:
        return any(type(v) is ast.FormattedValue for v in node.values)  # type: ignore[attr-defined]
    if cls is _BinOp:
        op = type(node.op)  # type: ignore[attr-defined]
        return op is _Add or (op is _Mod and type(node.left) is _Constant)  # type: ignore[attr-defined]
    if cls is _Call:
        func = node.func  # type: ignore[attr-defined]
        if type(func) is _Attribute and (func.attr in RENDER_METHODS or func.attr in ("join", "read", "read_text")):
            return True
        return bool(ASSEMBLING_CALLS.search(dotted(func) or ""))
    return False


def string_arguments(call: ast.Call) -> tuple[str, ...]:
    """The string literals passed to a call, `key=value` (positional: `0=value`), sorted."""
    out = []
    for i, arg in enumerate(call.args):
        if type(arg) is _Constant and type(arg.value) is str:
            out.append(f"{i}={arg.value[:60]}")
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg and type(value) is _Constant and type(value.value) is str:  # type: ignore[attr-defined]
            out.append(f"{keyword.arg}={value.value[:60]}")  # type: ignore[attr-defined]
    return tuple(sorted(out))
