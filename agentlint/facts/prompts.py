"""Prompt-assembly facts (AGL401): where a prompt is built from parts, and from which.

A *site* is an expression that builds a prompt from parts — an f-string with
placeholders, `+` of strings, `.format(...)`, `.join(...)`, a template `.render(...)` /
`.substitute(...)`, or a prompt file read — that goes to a prompt sink:

- a prompt keyword (`instructions=`, `system_prompt=`, `system=`, `system_message=`,
  `instruction=`, `prompt=`, `backstory=`, `system_instruction=`, `global_instruction=`,
  `system_template=`);
- the content of a system or developer message (`{"role": "system", "content": X}`,
  `SystemMessage(X)`, `ChatMessage(role="system", content=X)`, `("system", X)`,
  `history.add_system_message(X)`);
- a prompt-like name (`system_prompt = ...`, `PROMPT = ...`, `instructions = ...`);
- the return value of a prompt function (decorated `@agent.system_prompt`,
  `@agent.instructions`, `@dynamic_prompt`, `@mcp.prompt()`, or named like
  `build_system_prompt`).

A sink whose value is a local name is followed to that name's assignments. A constant
passed as it is (`instructions=SYSTEM_PROMPT`) is not an assembly.

Each site records its *blocks*: module-level names it reads (resolved through the
module's imports: `app.prompts.SYSTEM_PROMPT`), `file:NAME` for prompt files it opens,
`template:NAME` for named templates it renders, `prompt:NAME` for prompts it loads by
name (`load_prompt("triage")`, `hub.pull(...)`); and its *shape*, a digest of its
literal text when that text is long enough to identify a prompt. The file's own
prompt-like module constants are recorded as ``prompt_blocks``, so the project rule can
tell the project's prompt blocks from a vendor's (`RECOMMENDED_PROMPT_PREFIX`).
"""

from __future__ import annotations

import ast
import hashlib
import re
from typing import Callable

from agentlint.facts.ast_helpers import MODULE_SCOPE, holds_candidate, node_span
from agentlint.facts.ast_helpers import dotted as _dotted
from agentlint.facts.types import PromptSiteFact

PROMPT_KWARGS = frozenset({
    "instructions", "system_prompt", "system", "system_message", "instruction", "prompt", "backstory",
    "system_instruction", "global_instruction", "static_instruction", "system_template", "prompt_template",
    "instructions_override",
})
_PROMPT_NAME = re.compile(
    r"prompt|instruction|system_message|system_msg|persona|backstory|preamble", re.IGNORECASE
)
_NOT_PROMPT_NAME = re.compile(r"tokens?|len|count|size|ids?$|path|file|dir|name$|key$|_fn$|func|enabled|hash|cache", re.IGNORECASE)
_PROMPT_CONSTANT = re.compile(r"prompt|instruction|template|system|persona|backstory|guideline|rules|preamble|context", re.IGNORECASE)
_PROMPT_DECORATOR = re.compile(r"(?:^|\.)(?:system_prompt|instructions|dynamic_prompt|prompt)$")
_PROMPT_FUNCTION = re.compile(r"(?:^|_)(?:system_)?(?:prompt|instructions?|system_message)(?:$|_)", re.IGNORECASE)
_PROMPT_FILE = re.compile(r"\.(?:md|txt|j2|jinja2?|prompty?|ya?ml|tmpl|mustache|hbs)$", re.IGNORECASE)
_LOADER = re.compile(r"prompt|template|hub\.pull", re.IGNORECASE)
_LOAD_BY_NAME = re.compile(r"^(?:load|get|read|fetch|pull|open)_?(?:prompt|template)s?$|^pull_prompt$", re.IGNORECASE)
_PROMPT_ID = re.compile(r"^[\w./:@-]{1,120}$")
_SYSTEM_ROLES = frozenset({"system", "developer"})
_MESSAGE_CLASSES = frozenset({"SystemMessage", "SystemMessagePromptTemplate", "DeveloperMessage"})
_GENERIC_MESSAGES = frozenset({"ChatMessage", "Message", "ChatCompletionMessage", "BaseMessage"})
_SYSTEM_METHODS = frozenset({"add_system_message", "update_system_message", "set_system_message"})
_RENDER_METHODS = frozenset({"format", "render", "substitute", "safe_substitute", "format_prompt", "format_messages", "partial"})
_TEMPLATE_CALLS = re.compile(r"(?:^|\.)(?:Template|PromptTemplate|ChatPromptTemplate|RichPromptTemplate|from_template|from_messages|get_template)$")
_MIN_SHAPE = 60
_MIN_BLOCK_TEXT = 40


def _str(node: ast.AST | None) -> str | None:
    if type(node) is ast.Constant and isinstance(node.value, str):  # type: ignore[union-attr]
        return node.value  # type: ignore[union-attr]
    return None


def _is_role_system(node: ast.AST) -> bool:
    text = _str(node)
    if text is not None:
        return text.lower() in _SYSTEM_ROLES
    dotted = _dotted(node) or ""
    return dotted.upper().endswith((".SYSTEM", ".DEVELOPER"))


class _Place:
    __slots__ = ("locals",)

    def __init__(self) -> None:
        self.locals: dict[str, list[ast.AST]] = {}


_CANDIDATE = re.compile(r"prompt|instruction|system|backstory|template")


def candidate_lines(low: str) -> list[int]:
    found: set[int] = set()
    line, previous = 1, 0
    for match in _CANDIDATE.finditer(low):
        position = match.start()
        line += low.count("\n", previous, position)
        previous = position
        found.add(line)
    return sorted(found)


class PromptExtractor:
    candidates: list[int] | None = None
    """Lines with prompt vocabulary (None: every line). Module- and class-level
    statements and definitions without one are not walked."""

    def _holds(self, stmt: ast.AST) -> bool:
        return holds_candidate(self.candidates, stmt)

    def __init__(self, module: str, resolve: Callable[[str], str], lines: Callable[[], list[str]]) -> None:
        self.module = module
        self.resolve = resolve
        self._lines = lines
        self.sites: list[PromptSiteFact] = []
        self.blocks: list[str] = []
        self.places: dict[str, _Place] = {}
        self._pending: list[tuple[str, str, ast.AST]] = []
        self._seen: set[tuple[str, int]] = set()

    # -- positions -------------------------------------------------------------------
    def _span(self, node: ast.AST) -> tuple[int, int, int, int]:
        return node_span(self._lines(), node)

    # -- the walk --------------------------------------------------------------------
    def run(self, tree: ast.Module) -> None:
        self._body(tree.body, MODULE_SCOPE, None, "", False)
        for place, kind, value in self._pending:
            self._site(place, kind, value)

    def _place(self, name: str) -> _Place:
        found = self.places.get(name)
        if found is None:
            found = self.places[name] = _Place()
        return found

    def _body(self, body: list[ast.stmt], place: str, klass: str | None, func: str, prompt_func: bool) -> None:
        for stmt in body:
            self._stmt(stmt, place, klass, func, prompt_func)

    def _stmt(self, stmt: ast.stmt, place: str, klass: str | None, func: str, prompt_func: bool) -> None:
        cls = type(stmt)
        if (place == MODULE_SCOPE or (klass is not None and place == klass)) and not self._holds(stmt):
            if cls is ast.Assign:
                # Still a possible prompt block (a long string constant) and a local.
                current = self._place(place)
                for target in stmt.targets:  # type: ignore[attr-defined]
                    if type(target) is ast.Name:
                        current.locals.setdefault(target.id, []).append(stmt.value)  # type: ignore[attr-defined]
                        if self._is_block_value(target.id, stmt.value):  # type: ignore[attr-defined]
                            prefix = self.module if place == MODULE_SCOPE else f"{self.module}.{place}"
                            self.blocks.append(f"{prefix}.{target.id}")
            return
        if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
            name = stmt.name  # type: ignore[attr-defined]
            top = place == MODULE_SCOPE or (klass is not None and place == klass)
            inner = (name if place == MODULE_SCOPE else f"{place}.{name}") if top else place
            decorators = [_dotted(d.func if type(d) is ast.Call else d) or "" for d in stmt.decorator_list]  # type: ignore[attr-defined]
            is_prompt = any(_PROMPT_DECORATOR.search(d) for d in decorators) or bool(_PROMPT_FUNCTION.search(name))
            for dec in stmt.decorator_list:  # type: ignore[attr-defined]
                self._expr(dec, place)
            self._body(stmt.body, inner, None if inner == place else klass, name, is_prompt)  # type: ignore[attr-defined]
            return
        if cls is ast.ClassDef:
            if place == MODULE_SCOPE or (klass is not None and place == klass):
                inner = stmt.name if place == MODULE_SCOPE else f"{place}.{stmt.name}"  # type: ignore[attr-defined]
                for expr in stmt.bases:  # type: ignore[attr-defined]
                    self._expr(expr, place)
                self._body(stmt.body, inner, inner, func, False)  # type: ignore[attr-defined]
            else:
                self._body(stmt.body, place, None, func, prompt_func)  # type: ignore[attr-defined]
            return
        if cls is ast.Assign or cls is ast.AnnAssign:
            targets = stmt.targets if cls is ast.Assign else [stmt.target]  # type: ignore[attr-defined]
            value = stmt.value  # type: ignore[attr-defined]
            if value is not None:
                current = self._place(place)
                for target in targets:
                    name = _dotted(target)
                    if name is None:
                        continue
                    last = name.rsplit(".", 1)[-1]
                    if type(target) is ast.Name:
                        current.locals.setdefault(last, []).append(value)
                    top = place == MODULE_SCOPE or (klass is not None and place == klass)
                    if top and type(target) is ast.Name and self._is_block_value(last, value):
                        prefix = self.module if place == MODULE_SCOPE else f"{self.module}.{place}"
                        self.blocks.append(f"{prefix}.{last}")
                    if _PROMPT_NAME.search(last) and not _NOT_PROMPT_NAME.search(last):
                        self._pending.append((place, f"`{last} = ...`", value))
        elif cls is ast.AugAssign:
            name = _dotted(stmt.target)  # type: ignore[attr-defined]
            if name and _PROMPT_NAME.search(name.rsplit(".", 1)[-1]) and not _NOT_PROMPT_NAME.search(name):
                self._pending.append((place, f"`{name} += ...`", stmt.value))  # type: ignore[attr-defined]
        elif cls is ast.Return and prompt_func and stmt.value is not None:  # type: ignore[attr-defined]
            self._pending.append((place, f"the prompt returned by `{func}`", stmt.value))  # type: ignore[attr-defined]
        for field in stmt._fields:
            value = getattr(stmt, field, None)
            if value is None:
                continue
            if type(value) is list:
                for child in value:
                    if isinstance(child, ast.stmt):
                        self._stmt(child, place, klass, func, prompt_func)
                    elif type(child) is ast.ExceptHandler or type(child) is ast.match_case:
                        self._body(child.body, place, klass, func, prompt_func)
                    elif isinstance(child, ast.AST):
                        self._expr(child, place)
            elif isinstance(value, ast.AST):
                self._expr(value, place)

    def _is_block_value(self, name: str, value: ast.AST) -> bool:
        text = _str(value)
        if text is not None:
            return len(text) >= _MIN_BLOCK_TEXT or ("\n" in text and bool(_PROMPT_CONSTANT.search(name)))
        if type(value) is ast.JoinedStr or (type(value) is ast.BinOp and type(value.op) is ast.Add):  # type: ignore[attr-defined]
            return bool(_PROMPT_CONSTANT.search(name))
        if type(value) is ast.Call:
            callee = _dotted(value.func) or ""  # type: ignore[attr-defined]
            return bool(_TEMPLATE_CALLS.search(callee)) or (bool(_PROMPT_CONSTANT.search(name)) and bool(_LOADER.search(callee) or "read" in callee))
        return False

    def _expr(self, node: ast.AST, place: str) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            cls = type(current)
            if cls is ast.Call:
                callee = _dotted(current.func) or ""  # type: ignore[attr-defined]
                last = callee.rsplit(".", 1)[-1]
                for kw in current.keywords:  # type: ignore[attr-defined]
                    if kw.arg in PROMPT_KWARGS:
                        self._pending.append((place, f"`{kw.arg}=`", kw.value))
                if last in _MESSAGE_CLASSES:
                    content = current.args[0] if current.args else next(  # type: ignore[attr-defined]
                        (k.value for k in current.keywords if k.arg in ("content", "text", "prompt")), None  # type: ignore[attr-defined]
                    )
                    if content is not None:
                        self._pending.append((place, "a system message", content))
                elif last in _GENERIC_MESSAGES:
                    role = next((k.value for k in current.keywords if k.arg == "role"), None)  # type: ignore[attr-defined]
                    if role is not None and _is_role_system(role):
                        content = next(
                            (k.value for k in current.keywords if k.arg in ("content", "text", "contents")), None  # type: ignore[attr-defined]
                        )
                        if content is not None:
                            self._pending.append((place, "a system message", content))
                elif last in _SYSTEM_METHODS and current.args:  # type: ignore[attr-defined]
                    self._pending.append((place, f"`{last}(...)`", current.args[0]))  # type: ignore[attr-defined]
            elif cls is ast.Dict:
                role = content = None
                for key, value in zip(current.keys, current.values):  # type: ignore[attr-defined]
                    key_text = _str(key)
                    if key_text == "role":
                        role = value
                    elif key_text == "content":
                        content = value
                if role is not None and content is not None and _is_role_system(role):
                    self._pending.append((place, "a system message", content))
            elif cls is ast.Tuple:
                elts = current.elts  # type: ignore[attr-defined]
                if len(elts) == 2 and _str(elts[0]) in _SYSTEM_ROLES:
                    self._pending.append((place, "a system message", elts[1]))
            elif cls is ast.Lambda:
                stack.append(current.body)  # type: ignore[attr-defined]
                continue
            for field in current._fields:
                if field in ("ctx", "op", "ops"):
                    continue
                value = getattr(current, field, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast.AST):
                            stack.append(item)
                elif isinstance(value, ast.AST):
                    stack.append(value)

    # -- sites -----------------------------------------------------------------------
    def _site(self, place: str, kind: str, value: ast.AST, depth: int = 0) -> None:
        if depth > 2:
            return
        if type(value) is ast.Name:
            values = self._place(place).locals.get(value.id)  # type: ignore[attr-defined]
            if values and place != MODULE_SCOPE:
                for assigned in values:
                    self._site(place, kind, assigned, depth + 1)
            return
        if type(value) in (ast.List, ast.Tuple):
            return  # a list of parts: each part that is assembled is its own site
        if not self._assembled(value):
            return
        key = (place, id(value))
        if key in self._seen:
            return
        self._seen.add(key)
        blocks = self._blocks(value, place)
        shape = _shape(value)
        if not blocks and not shape:
            return
        self.sites.append(PromptSiteFact(place, kind, tuple(sorted(blocks)), shape, *self._span(value)))

    def _assembled(self, node: ast.AST) -> bool:
        cls = type(node)
        if cls is ast.JoinedStr:
            return any(type(v) is ast.FormattedValue for v in node.values)  # type: ignore[attr-defined]
        if cls is ast.BinOp:
            return type(node.op) is ast.Add or (type(node.op) is ast.Mod and _str(node.left) is not None)  # type: ignore[attr-defined]
        if cls is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute:
                if func.attr in _RENDER_METHODS or func.attr == "join":
                    return True
                if func.attr in ("read", "read_text"):
                    return True
            callee = _dotted(func) or ""
            return bool(_TEMPLATE_CALLS.search(callee))
        return False

    def _blocks(self, node: ast.AST, place: str) -> set[str]:
        out: set[str] = set()
        locals_ = self._place(place).locals if place != MODULE_SCOPE else {}
        stack = [(node, 0)]
        while stack:
            current, depth = stack.pop()
            cls = type(current)
            if cls is ast.Name or cls is ast.Attribute:
                dotted = _dotted(current)
                if dotted is not None:
                    head = dotted.partition(".")[0]
                    if head in locals_:
                        if depth < 2:
                            for assigned in locals_[head]:
                                stack.append((assigned, depth + 1))
                        continue
                    resolved = self.resolve(dotted)
                    if resolved != dotted:
                        out.add(resolved)
                    continue
            if cls is ast.Constant:
                text = current.value  # type: ignore[attr-defined]
                if isinstance(text, str) and len(text) < 200 and "\n" not in text and _PROMPT_FILE.search(text):
                    out.add("file:" + text.replace("\\", "/").rsplit("/", 1)[-1])
                continue
            if cls is ast.Call:
                callee = _dotted(current.func) or ""  # type: ignore[attr-defined]
                first = _str(current.args[0]) if current.args else None  # type: ignore[attr-defined]
                if first is not None and not _PROMPT_FILE.search(first) and _PROMPT_ID.match(first):
                    if callee.endswith("get_template"):
                        out.add("template:" + first)
                    elif _LOAD_BY_NAME.match(callee.rsplit(".", 1)[-1]) or callee.endswith("hub.pull"):
                        out.add("prompt:" + first)
                func = current.func  # type: ignore[attr-defined]
                if type(func) is ast.Attribute:
                    # `SYSTEM_PROMPT.format(...)`: the block is the receiver, not the method.
                    stack.append((func.value, depth))
                    for item in [*current.args, *(k.value for k in current.keywords)]:  # type: ignore[attr-defined]
                        stack.append((item, depth))
                    continue
            for field in current._fields:
                if field in ("ctx", "op", "ops"):
                    continue
                value = getattr(current, field, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast.AST):
                            stack.append((item, depth))
                elif isinstance(value, ast.AST):
                    stack.append((value, depth))
        return out


def _shape(node: ast.AST) -> str:
    parts: list[str] = []

    def add(n: ast.AST, depth: int = 0) -> None:
        if depth > 20:
            return
        cls = type(n)
        if cls is ast.Constant and isinstance(n.value, str):  # type: ignore[attr-defined]
            parts.append(n.value)  # type: ignore[attr-defined]
        elif cls is ast.JoinedStr:
            for v in n.values:  # type: ignore[attr-defined]
                if type(v) is ast.Constant:
                    parts.append(str(v.value))
                else:
                    parts.append("{}")
        elif cls is ast.BinOp and type(n.op) is ast.Add:  # type: ignore[attr-defined]
            add(n.left, depth + 1)  # type: ignore[attr-defined]
            add(n.right, depth + 1)  # type: ignore[attr-defined]
        elif cls is ast.Call and type(n.func) is ast.Attribute and n.func.attr in ("format", "format_map"):  # type: ignore[attr-defined]
            add(n.func.value, depth + 1)  # type: ignore[attr-defined]
        else:
            parts.append("{}")

    add(node)
    text = " ".join("".join(parts).split())
    literal = re.sub(r"\{[^{}]*\}", "", text)
    if len(literal) < _MIN_SHAPE:
        return ""
    text = re.sub(r"\{[^{}]*\}", "{}", text)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def extract(
    tree: ast.Module, source: str | None, module: str, resolve: Callable[[str], str]
) -> tuple[tuple[PromptSiteFact, ...], tuple[str, ...]]:
    """The prompt-assembly sites and the prompt-like module constants of one module."""
    low = source.lower() if source is not None else None
    if low is not None and not any(w in low for w in ("prompt", "instruction", "system", "backstory")):
        return (), ()
    cache: list[list[str]] = []

    def lines() -> list[str]:
        if not cache:
            cache.append(re.split(r"\r\n|\r|\n", source) if source is not None else [])
        return cache[0]

    extractor = PromptExtractor(module, resolve, lines)
    if low is not None:
        extractor.candidates = candidate_lines(low)
    extractor.run(tree)
    return tuple(extractor.sites), tuple(dict.fromkeys(extractor.blocks))
