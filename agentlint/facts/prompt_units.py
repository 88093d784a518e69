"""Prompt units (AGL401): what the prompt facts walk (``facts.prompts``) records, once it
knows where a value goes: literal prompt text, templates rendered, prompts assembled
from blocks, message lists, prompts passed to the project's functions, and the
prompt-like module-level names; the scopes it records them in.

The walk is built on this layer: ``PromptUnits`` holds what is recorded and how,
``prompts.PromptExtractor`` decides, node by node, where each value goes.
"""

from __future__ import annotations

import ast
import builtins
import re
import zlib
from typing import Callable

from agentlint.facts import prompt_text as pt
from agentlint.facts.ast_helpers import node_span
from agentlint.facts.ast_helpers import dotted as _dotted
from agentlint.facts.prompt_exprs import (
    is_assembled,
    last_segment,
    message_of,
    string_arguments,
    text_of,
)
from agentlint.facts.prompt_vocab import (
    ARGUMENT_NAME,
    ASSEMBLING_CALLS,
    BLOCK_NAME,
    NOT_TEXT_NAME,
    PROMPT_MODULE,
    PROMPT_NAME,
    RENDER_METHODS,
    STRONG_NAME,
)
from agentlint.facts.types import PromptSiteFact
from agentlint.lazy_regex import lazy_compile


MIN_WORDS = 8
"""Texts with fewer words are never recorded (the rule's `min-prompt-words` is at least this)."""
FALLBACK_CHARS = 80
"""Text without a prompt sink counts from this many literal characters."""
MIN_PROSE = 0.45
_MAX_ARGUMENTS = 200
"""`argument` facts kept per file, at most."""


# context modes: where a value goes
PLAIN, SINK, MESSAGE, FALLBACK, EXCLUDED = range(5)
PLAIN_CTX = (PLAIN, "", "")
EXCLUDED_CTX = (EXCLUDED, "", "")
_FuncDef, _AsyncDef, _ClassDef = ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef


_BUILTINS = frozenset(dir(builtins))


def _digest(text: str) -> str:
    return format(zlib.crc32(text.encode("utf-8", "surrogatepass")), "08x")


class ClassPrompts:
    """A class being walked: its qualified name, its class-level names, and what its
    `__init__` assigns to `self.NAME` (the value, with `__init__`'s parameters)."""

    __slots__ = ("name", "names", "init", "init_params")

    def __init__(self, name: str, node: ast.ClassDef, is_prompt: Callable[[str, ast.AST], bool]) -> None:
        self.name = name
        self.names: set[str] = set()
        """Class-level names holding a prompt (`PROMPT = "..."`)."""
        self.init: dict[str, ast.AST] = {}
        self.init_params: dict[str, int] = {}
        for stmt in node.body:
            if type(stmt) is ast.Assign:
                for target in stmt.targets:
                    if type(target) is ast.Name and is_prompt(target.id, stmt.value):
                        self.names.add(target.id)
            elif type(stmt) is ast.AnnAssign and type(stmt.target) is ast.Name:
                if stmt.value is not None and is_prompt(stmt.target.id, stmt.value):
                    self.names.add(stmt.target.id)
            elif type(stmt) in (_FuncDef, _AsyncDef) and stmt.name == "__init__":  # type: ignore[attr-defined]
                self.init_params = parameters(stmt, True)  # type: ignore[arg-type]
                for inner in stmt.body:  # type: ignore[attr-defined]
                    if type(inner) is ast.Assign and len(inner.targets) == 1:
                        target = inner.targets[0]
                        if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                            self.init.setdefault(target.attr, inner.value)


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> dict[str, int]:
    """Parameter name -> position (the first of a method, `self`/`cls`, left out);
    keyword-only parameters get -1."""
    positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    static = any((_dotted(d) or "").endswith("staticmethod") for d in node.decorator_list)
    if method and positional and not static:
        positional = positional[1:]
    out = {name: i for i, name in enumerate(positional)}
    for a in node.args.kwonlyargs:
        out[a.arg] = -1
    return out


class Scope:
    """Where the walk is: the place (a definition, or `<module>`) and its line, the
    innermost function (its parameters, locals and local assignments, and the dotted id
    a message list's `param:` entries name it by), and the class of a method."""

    __slots__ = ("place", "line", "kind", "func", "prompt_func", "klass", "params", "locals", "assigned", "func_id")

    def __init__(self, place: str, line: int, kind: str, func: str = "", prompt_func: bool = False,
                 klass: ClassPrompts | None = None, params: dict[str, int] | None = None,
                 locals_: set[str] | frozenset[str] = frozenset(), func_id: str = "") -> None:
        self.place = place
        self.line = line
        self.kind = kind
        self.func = func
        self.prompt_func = prompt_func
        self.klass = klass
        self.params = params or {}
        self.locals = locals_
        self.assigned: dict[str, list[ast.AST]] = {}
        self.func_id = func_id



class PromptUnits:
    """The units of one module, as the walk finds them (see ``facts.prompts``)."""

    def __init__(self, module: str, resolve: Callable[[str], str], lines: Callable[[], list[str]]) -> None:
        self.module = module
        self.resolve = resolve
        self._lines = lines
        self.prompts_module = bool(PROMPT_MODULE.search(module))
        self.sites: list[PromptSiteFact] = []
        self.blocks: list[str] = []
        self._texts: list[tuple[PromptSiteFact, str, bool, Scope]] = []
        self._uses: list[tuple[Scope, str, ast.AST]] = []
        self._pending: list[tuple[Scope, str, ast.AST]] = []
        self._seen: set[tuple[str, int]] = set()
        self._arguments = 0
        self._defs: set[str] = set()
        self._fragment: ast.AST | None = None
        self._in_text = 0
        self._sent: set[tuple[str, int, str]] = set()
        """Local names whose value goes to a prompt sink or a call (a literal bound to a
        name without a prompt sink is prompt text only when it goes somewhere)."""
        """Inside a text unit's expression: its parts are not units of their own."""

    def _span(self, node: ast.AST) -> tuple[int, int, int, int]:
        return node_span(self._lines(), node)

    # -- the walk --------------------------------------------------------------------

    def _text(self, node: ast.AST, text: str, scope: Scope, ctx: tuple[int, str, str]) -> None:
        mode = ctx[0]
        if mode == PLAIN or mode == EXCLUDED or self._in_text:
            return
        normalised = pt.normalise(text)
        if pt.word_count(normalised) < MIN_WORDS:
            return
        kind = ctx[1]
        if mode == FALLBACK:
            bound = ctx[2]
            if bound and NOT_TEXT_NAME.search(bound):
                return
            if pt.literal_length(normalised) < FALLBACK_CHARS or not pt.reads_as_instructions(normalised):
                return
        toks = pt.tokens(normalised)
        if pt.prose_ratio(toks) < MIN_PROSE or pt.not_prose(normalised):
            return
        site = PromptSiteFact(
            scope.place, kind, (), "fallback" if mode == FALLBACK else "", *self._span(node), what="text",
            scope_line=scope.line, text=normalised, shingles=pt.shingles(toks),
        )
        # a bare literal bound to a name is located where it is rendered
        self._texts.append((site, ctx[2], type(node) is ast.Constant, scope))

    def _render(self, node: ast.Call, receiver: ast.AST, scope: Scope, ctx: tuple[int, str, str]) -> None:
        name = self._nonlocal(receiver, scope)
        if name is None:
            return
        kind = ctx[1] if ctx[0] in (SINK, MESSAGE) else f"`{_dotted(receiver)}.{node.func.attr}(...)`"  # type: ignore[attr-defined]
        fragment = self._fragment if self._fragment is not None else node
        try:
            source = ast.unparse(fragment)[:300]
        except (ValueError, RecursionError):
            source = ""
        self.sites.append(PromptSiteFact(
            scope.place, kind, (name,), "\x1f".join(string_arguments(node)), *self._span(node),
            what="render", scope_line=scope.line, text=source,
        ))

    def _nonlocal(self, node: ast.AST, scope: Scope) -> str | None:
        """The resolved dotted name of a module-level or imported name chain (a
        class-level name through `self.`/`cls.`), or None for locals and the rest."""
        name = _dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head in ("self", "cls"):
            klass = scope.klass
            if klass is None or not rest:
                return None
            attr = rest.partition(".")[0]
            # a class-level prompt (`self.PROMPT`), or what an attribute named like a
            # collection of prompts holds (`self.templates.tone`)
            if ("." not in rest and rest in klass.names) or ("." in rest and PROMPT_NAME.search(attr)):
                return f"{self.module}.{klass.name}.{rest}"
            return None
        if head in scope.locals or head in scope.params:
            return None
        resolved = self.resolve(name)
        return resolved if resolved != name or head not in _BUILTINS else None

    def _messages(self, node: ast.List | ast.Tuple, scope: Scope) -> None:
        entries: list[str] = []
        origins: list[str] = []
        first: ast.AST | None = None
        others = 0
        for elt in node.elts:
            message = message_of(elt)
            if message is None:
                others += 1
                continue
            if first is None:
                first = elt
            role, content = message
            entries.append(f"{role or 'chat'}={self._key(content, scope, 0) if content is not None else 'dyn'}")
            origin = self._origin(content, scope) if content is not None else None
            if origin is not None and hasattr(origin, "lineno"):
                origins.append(str(origin.lineno))
        if len(entries) < 2 or others > len(entries) or first is None:
            return
        if all(e.endswith("=dyn") for e in entries):
            return
        start = self._span(first)
        end = self._span(node)
        self.sites.append(PromptSiteFact(
            scope.place, "a message list", tuple(entries), "", start[0], start[1], end[2], end[3], what="messages",
            scope_line=scope.line, text=",".join(origins),
        ))

    @staticmethod
    def _origin(node: ast.AST, scope: Scope) -> ast.AST:
        """The expression a message's content was written as (a local name followed to
        its one assignment)."""
        for _ in range(2):
            if type(node) is not ast.Name or scope.kind != "function":
                break
            values = scope.assigned.get(node.id)  # type: ignore[attr-defined]
            if not values or len(values) != 1:
                break
            node = values[0]
        return node

    def _key(self, node: ast.AST, scope: Scope, depth: int) -> str:
        """Where a value comes from, as the project rule compares it (see ``types``)."""
        if depth > 2:
            return "dyn"
        cls = type(node)
        text = text_of(node)
        if text is not None:
            normalised = pt.normalise(text)
            if "{}" in normalised:  # the parts it is assembled from count too
                normalised += " " + " ".join(sorted(self._blocks(node, scope)))
            return "text:" + _digest(normalised)
        if cls is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute and func.attr in RENDER_METHODS:
                name = self._nonlocal(func.value, scope)
                return f"tmpl:{name}" if name else "dyn"
            name = self._callee(func, scope)
            return f"call:{name}" if name else "dyn"
        if cls is ast.Name:
            ident = node.id  # type: ignore[attr-defined]
            if ident in scope.params:
                return f"param:{scope.func_id}:{scope.params[ident]}:{ident}"
            values = scope.assigned.get(ident) if scope.kind == "function" else None
            if values is not None:
                return self._key(values[0], scope, depth + 1) if len(values) == 1 else "dyn"
            if ident in scope.locals:
                return "dyn"
            resolved = self.resolve(ident)
            return f"const:{resolved}" if resolved != ident or ident not in _BUILTINS else "dyn"
        if cls is ast.Attribute:
            name = _dotted(node)
            if name is None:
                return "dyn"
            head, _, rest = name.partition(".")
            klass = scope.klass
            if head == "self" and klass is not None and rest and "." not in rest:
                if rest in klass.names:
                    return f"const:{self.module}.{klass.name}.{rest}"
                value = klass.init.get(rest)
                if value is not None and depth < 2:
                    init = Scope(scope.place, scope.line, "function", "__init__", klass=klass,
                                  params=klass.init_params, func_id=f"{self.module}.{klass.name}")
                    key = self._key(value, init, depth + 1)
                    if key != "dyn":
                        return key
                return f"attr:{self.module}.{klass.name}.{rest}"
            resolved = self._nonlocal(node, scope)
            return f"const:{resolved}" if resolved else "dyn"
        return "dyn"

    def _callee(self, func: ast.AST, scope: Scope) -> str | None:
        name = _dotted(func)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head == "self" and scope.klass is not None and rest and "." not in rest:
            return f"{self.module}.{scope.klass.name}.{rest}"
        if head in scope.locals or head in scope.params:
            return None
        resolved = self.resolve(name)
        return resolved if resolved != name or head not in _BUILTINS else None

    def _arguments_of(self, call: ast.Call, scope: Scope) -> None:
        """`argument` facts: prompts passed to a function or class of the project."""
        if self._arguments >= _MAX_ARGUMENTS:
            return
        values = [(str(i), arg) for i, arg in enumerate(call.args)]
        values += [(k.arg, k.value) for k in call.keywords if k.arg]
        wanted = []
        for slot, value in values:
            cls = type(value)
            if cls is ast.Name or cls is ast.Attribute:
                name = _dotted(value)
                if name and ARGUMENT_NAME.search(last_segment(name)):
                    wanted.append((slot, value))
            elif cls is ast.Constant and type(value.value) is str and len(value.value) >= FALLBACK_CHARS:  # type: ignore[attr-defined]
                wanted.append((slot, value))
        if not wanted:
            return
        callee = self._callee(call.func, scope)
        if callee is None:
            return
        for slot, value in wanted:
            key = self._key(value, scope, 0)
            if key == "dyn":
                continue
            self._arguments += 1
            self.sites.append(PromptSiteFact(
                scope.place, "", (key,), callee, *self._span(value), what="argument", scope_line=scope.line, text=slot,
            ))

    # -- blocks (assembled prompts) ------------------------------------------------------
    def _note_blocks(self, stmt: ast.stmt, scope: Scope) -> None:
        targets = stmt.targets if type(stmt) is ast.Assign else [stmt.target]  # type: ignore[attr-defined]
        value = stmt.value  # type: ignore[attr-defined]
        if value is None:
            return
        for target in targets:
            if type(target) is ast.Name:
                scope.assigned.setdefault(target.id, []).append(value)
                if self._is_block_value(target.id, value):
                    prefix = self.module if scope.kind == "module" else f"{self.module}.{scope.place}"
                    self.blocks.append(f"{prefix}.{target.id}")

    def _is_block_value(self, name: str, value: ast.AST) -> bool:
        """A name's value is a prompt block: a template built (`PromptTemplate(...)`), or
        text that is a prompt by its name (`SYSTEM_PROMPT`, short text too), by its
        module (`prompts.py`), or by what it says."""
        cls = type(value)
        if cls is ast.Call:
            callee = _dotted(value.func) or ""  # type: ignore[attr-defined]
            if ASSEMBLING_CALLS.search(callee):
                return True
        text = text_of(value)
        if text is None:
            if cls is ast.Call:
                callee = (_dotted(value.func) or "").lower()  # type: ignore[attr-defined]
                return bool(STRONG_NAME.search(name)) and ("prompt" in callee or "read" in callee or "load" in callee)
            return False
        normalised = pt.normalise(text)
        if pt.not_prose(normalised) or NOT_TEXT_NAME.search(name) and not STRONG_NAME.search(name):
            return False
        words = pt.word_count(normalised)
        if STRONG_NAME.search(name):
            return words >= 3
        toks = pt.tokens(normalised)
        if self.prompts_module or BLOCK_NAME.search(name):
            return words >= MIN_WORDS and pt.prose_ratio(toks) >= MIN_PROSE
        return words >= 15 and pt.reads_as_instructions(normalised) and pt.prose_ratio(toks) >= MIN_PROSE

    def _site(self, scope: Scope, kind: str, value: ast.AST, depth: int = 0) -> None:
        if depth > 2:
            return
        if type(value) is ast.Name:
            if scope.kind == "function":
                for assigned in scope.assigned.get(value.id, ()):  # type: ignore[attr-defined]
                    self._site(scope, kind, assigned, depth + 1)
            return
        if not is_assembled(value):
            return
        key = (scope.place, id(value))
        if key in self._seen:
            return
        self._seen.add(key)
        followed: list[int] = []
        blocks = self._blocks(value, scope, followed)
        if not blocks:
            return
        shape = pt.normalise(_skeleton(value))[:400]
        self.sites.append(PromptSiteFact(
            scope.place, kind, tuple(sorted(blocks)), shape, *self._span(value), what="blocks", scope_line=scope.line,
            text=",".join(str(line) for line in sorted(set(followed))),
        ))

    def _blocks(self, node: ast.AST, scope: Scope, followed: list[int] | None = None) -> set[str]:
        """The blocks ``node`` reads, local names followed to their assignments (whose
        lines go to ``followed``)."""
        out: set[str] = set()
        assigned = scope.assigned if scope.kind == "function" else {}
        stack = [(node, 0)]
        while stack:
            current, depth = stack.pop()
            cls = type(current)
            if cls is ast.Name or cls is ast.Attribute:
                name = _dotted(current)
                if name is not None:
                    head = name.partition(".")[0]
                    if head in assigned:
                        if depth < 2:
                            stack.extend((value, depth + 1) for value in assigned[head])
                            if followed is not None:
                                followed.extend(value.lineno for value in assigned[head] if hasattr(value, "lineno"))
                        continue
                    resolved = self._nonlocal(current, scope)
                    if resolved is not None:
                        out.add(resolved)
                    continue
            if cls is ast.Constant:
                text = current.value  # type: ignore[attr-defined]
                if isinstance(text, str) and len(text) < 200 and "\n" not in text and _PROMPT_FILE.search(text):
                    out.add("file:" + text.replace("\\", "/").rsplit("/", 1)[-1])
                continue
            if cls is ast.Call:
                callee = _dotted(current.func) or ""  # type: ignore[attr-defined]
                args = current.args  # type: ignore[attr-defined]
                first = args[0].value if args and type(args[0]) is ast.Constant and type(args[0].value) is str else None
                if first is not None and not _PROMPT_FILE.search(first) and _PROMPT_ID.match(first):
                    if callee.endswith("get_template"):
                        out.add("template:" + first)
                    elif _LOAD_BY_NAME.match(callee.rsplit(".", 1)[-1]) or callee.endswith("hub.pull"):
                        out.add("prompt:" + first)
                func = current.func  # type: ignore[attr-defined]
                if type(func) is ast.Attribute:
                    stack.append((func.value, depth))
                stack.extend((item, depth) for item in [*args, *(k.value for k in current.keywords)])  # type: ignore[attr-defined]
                continue
            for field in current._fields:
                if field in ("ctx", "op", "ops"):
                    continue
                value = getattr(current, field, None)
                if type(value) is list:
                    stack.extend((item, depth) for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    stack.append((value, depth))
        return out

    # -- where a bound literal is used ----------------------------------------------------
    def _place_texts(self) -> None:
        """A literal bound to a name and rendered later is located where it is rendered:
        in its own place, or (module-level) in each function of the file rendering it."""
        uses: dict[tuple[str, int, str], ast.AST] = {}
        module_uses: dict[str, dict[tuple[str, int], tuple[Scope, ast.AST]]] = {}
        for scope, name, node in self._uses:
            uses.setdefault((scope.place, scope.line, name), node)
            if scope.kind == "function" and name not in scope.locals:
                module_uses.setdefault(name, {}).setdefault((scope.place, scope.line), (scope, node))
        for site, bound, movable, scope in self._texts:
            if scope.kind == "function" and bound:
                key = (scope.place, scope.line, bound)
                if key not in self._sent and key not in uses:
                    continue  # text bound to a local that goes to people, or nowhere near a model
            if bound and movable:
                if scope.kind == "module":
                    users = module_uses.get(bound)
                    if users:
                        for user, node in users.values():
                            self.sites.append(_moved(site, user, self._span(node), _use_label(node)))
                        continue
                use = uses.get((scope.place, scope.line, bound))
                if use is not None:
                    site = _moved(site, scope, self._span(use), _use_label(use))
            self.sites.append(site)


def parts(node: ast.AST) -> list[ast.AST]:
    """The operands of an f-string or a `+` chain."""
    if type(node) is ast.JoinedStr:
        return [v.value for v in node.values if type(v) is ast.FormattedValue]  # type: ignore[attr-defined]
    out: list[ast.AST] = []
    while type(node) is ast.BinOp and type(node.op) is ast.Add:  # type: ignore[attr-defined]
        out.append(node.right)  # type: ignore[attr-defined]
        node = node.left  # type: ignore[attr-defined]
    out.append(node)
    return out


def _use_label(node: ast.AST) -> str:
    func = node.func  # type: ignore[attr-defined]
    return f"`{_dotted(func.value) or '...'}.{func.attr}(...)`"


def _moved(site: PromptSiteFact, scope: Scope, span: tuple[int, int, int, int], kind: str) -> PromptSiteFact:
    return PromptSiteFact(
        scope.place, kind, site.blocks, site.shape, *span, what=site.what, scope_line=scope.line,
        text=site.text, shingles=site.shingles,
    )


def _skeleton(node: ast.AST, depth: int = 0) -> str:
    """The literal text of an assembled prompt, its parts as `{}`."""
    if depth > 20:
        return ""
    cls = type(node)
    if cls is ast.Constant and isinstance(node.value, str):  # type: ignore[attr-defined]
        return node.value  # type: ignore[attr-defined]
    if cls is ast.JoinedStr:
        return "".join(str(v.value) if type(v) is ast.Constant else "{}" for v in node.values)  # type: ignore[attr-defined]
    if cls is ast.BinOp and type(node.op) is ast.Add:  # type: ignore[attr-defined]
        return _skeleton(node.left, depth + 1) + _skeleton(node.right, depth + 1)  # type: ignore[attr-defined]
    if cls is ast.Call and type(node.func) is ast.Attribute and node.func.attr in ("format", "format_map"):  # type: ignore[attr-defined]
        return _skeleton(node.func.value, depth + 1)  # type: ignore[attr-defined]
    return "{}"


_PROMPT_FILE = lazy_compile(r"\.(?:md|txt|j2|jinja2?|prompty?|ya?ml|tmpl|mustache|hbs)$", re.IGNORECASE)
_LOAD_BY_NAME = lazy_compile(r"^(?:load|get|read|fetch|pull|open)_?(?:prompt|template)s?$|^pull_prompt$", re.IGNORECASE)
_PROMPT_ID = lazy_compile(r"^[\w./:@-]{1,120}$")


