"""Prompt facts (AGL401): the prompts a file writes, assembles, renders and sends, per place.

A *place* is a definition (a function or method, nested functions counting as their
outer one, or a class body), named and located by its line, so two definitions of one
name (a notebook's cells) are two places; all module-level code of a file is one place.
What is recorded (``types.PromptSiteFact``, by ``what``):

- **text**: literal prompt text, the outermost string-building expression (a string
  constant, an f-string, `+`, `%`, `.format/.replace/.strip`, `dedent(...)`,
  `PromptTemplate.from_template(...)`, `PromptTemplate(template=...)`) that goes to a
  prompt *sink*: a prompt keyword (`instructions=`, `system_prompt=`, `system=`,
  `template=`, `backstory=`, `goal=`, ...); the content of a system, developer or user
  message (`{"role": ..., "content": X}`, `{"type": "text", "text": X}`,
  `SystemMessage(X)`, `HumanMessage(X)`, `("system", X)`, `from_messages([...])`); the
  first argument of an agent class (`ChatAgent("...")`) and the `description=` of an
  agent or a task (`Task(description=...)`); an argument of a model call
  (`llm.invoke("...")`, `model.generate_content("...")`); a target named like a prompt
  (`system_prompt = ...`, `agent.prompt_templates["task"] += ...`, `msg.content += ...`,
  a `{"system_prompt": ...}` entry, the values of a dict bound to one); the default of a
  parameter named like a prompt; the return value of a prompt function
  (`build_prompt()`, `@agent.system_prompt`) or of any function of a prompts module
  (`prompts.py`, `templates.py`). Text with no sink counts when it reads as
  instructions (80 characters or more, instruction words, prose, not markup or SQL) and
  is a call's positional argument or a name's value (`self._analyze(text, "...")`).
  Never: docstrings, text for people (print, logging, UI, exceptions, `description=`,
  `help=`, `Field(...)`), comparisons, a user's task (`agent.run("...")`), assistant and
  tool messages. A literal bound to a name and rendered later in its place
  (`X = "..."` ... `X.format(...)`) is located where it is rendered; a module-level
  one rendered in functions of its file belongs to each of those functions.
- **blocks**: a prompt assembled from parts in a sink (see ``types.PromptSiteFact``);
  a sink whose value is a local name is followed to that name's assignments; a
  constant passed as it is (`instructions=SYSTEM_PROMPT`) is not an assembly.
- **render**: a template of the module or of another module rendered
  (`TEMPLATE.format(...)`, `prompts.TONE.format(...)`, `self.PROMPT.format(...)` for a
  class-level prompt), with the string literals passed and the fragment as written.
- **messages**: a message list of two messages or more, each message's role and where
  its content comes from (a constant, a template, a composer call, literal text, a
  parameter of the function, an attribute set in `__init__`).
- **argument**: a prompt passed to a function or class (`summarize(PERSONA, doc)`,
  `Summarizer(system_text=PERSONA)`): a constant or parameter with a prompt-like name,
  or literal text; the project rule follows message lists' parameters through them.

The file's own prompt-like module-level and class-level names are ``prompt_blocks``.
Files without prompt vocabulary are skipped, and module- and class-level statements
without it in their text are not walked.
"""

from __future__ import annotations

import ast
from typing import Callable

from agentlint.facts.ast_helpers import MODULE_SCOPE, first_line, holds_candidate, line_numbers
from agentlint.facts.ast_helpers import dotted as _dotted
from agentlint.facts.prompt_exprs import (
    callee_name,
    last_segment,
    message_of,
    target_name,
    text_of,
)
from agentlint.facts.prompt_units import (
    EXCLUDED,
    EXCLUDED_CTX,
    FALLBACK,
    MESSAGE,
    PLAIN_CTX,
    SINK,
    ClassPrompts,
    PromptUnits,
    Scope,
    parameters,
    parts,
)
from agentlint.facts.prompt_vocab import (
    EXCLUDED_CALLS,
    EXCLUDED_KWARGS,
    MODEL_CALLEE,
    MODEL_METHODS,
    NOT_PROMPT_NAME,
    NOT_PROMPT_ROLES,
    NOT_TEXT_NAME,
    PROMPT_DECORATOR,
    PROMPT_FUNCTION,
    PROMPT_KWARGS,
    PROMPT_NAME,
    RENDER_METHODS,
    SYSTEM_METHODS,
    TASK_KWARGS,
    TASK_METHODS,
)
from agentlint.facts.scopes import function_locals
from agentlint.facts.source import split_lines
from agentlint.facts.types import PromptSiteFact

_MAX_DEPTH = 60
_FuncDef, _AsyncDef, _ClassDef = ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef

_VOCABULARY = ("you", "prompt", "system", "template", "instruction", "answer", "assistant", "respond", "please",
               "persona", "backstory", "'role'", '"role"', "description=", "goal=")
"""What a module- or class-level statement holding a prompt has in its (lower-cased)
text. `str.find` per word is several times faster than one regex alternation."""

_NEVER_PROMPTS = frozenset({
    ast.Import, ast.ImportFrom, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Delete,
    ast.Assert, ast.Raise,
})
_CONTAINER_METHODS = frozenset({
    "append", "extend", "insert", "add", "update", "setdefault", "join", "write", "writelines", "remove", "pop",
    "get", "startswith", "endswith", "split", "count", "find", "index", "encode", "len", "str", "isinstance",
})
"""Calls that keep or inspect a text without sending it anywhere."""


class _Vocabulary:
    """Whether a statement's source text has prompt vocabulary. The lines holding a word
    are found once, with one `str.find` sweep per word over the file's lower-cased text
    (lower-casing may change lengths, not lines): a test per statement would read the
    lines of a class once for the class and again for each of its methods."""

    __slots__ = ("lines", "count")

    def __init__(self, low: str) -> None:
        found: list[int] = []
        find = low.find
        for word in _VOCABULARY:
            at = find(word)
            while at != -1:
                found.append(at)
                end = find("\n", at)
                if end == -1:
                    break
                at = find(word, end + 1)  # one offset per line is enough
        found.sort()
        self.lines = line_numbers(low, found)
        """The numbers of the lines holding a word, in order."""
        self.count = low.count("\n") + 1

    def __bool__(self) -> bool:
        return bool(self.lines)

    def holds(self, stmt: ast.AST) -> bool:
        if first_line(stmt) > self.count + 1:
            return True  # a line the text does not have: walk it rather than guess
        return holds_candidate(self.lines, stmt)


class PromptExtractor(PromptUnits):
    vocabulary: _Vocabulary | None = None
    """The file's text (None: unknown, every statement is walked). Module- and
    class-level statements and definitions without prompt vocabulary are not walked."""

    def run(self, tree: ast.Module) -> None:
        self._defs = {stmt.name for stmt in tree.body if type(stmt) in (_FuncDef, _AsyncDef)}  # type: ignore[attr-defined]
        module = Scope(MODULE_SCOPE, 0, "module")
        self._body(tree.body, module)
        for scope, kind, value in self._pending:
            self._site(scope, kind, value)
        self._place_texts()

    def _body(self, body: list[ast.stmt], scope: Scope) -> None:
        for stmt in body:
            if type(stmt) is ast.Expr and type(stmt.value) is ast.Constant:
                continue  # a docstring, or a string that goes nowhere
            self._stmt(stmt, scope)

    def _stmt(self, stmt: ast.stmt, scope: Scope) -> None:
        cls = type(stmt)
        if cls is _FuncDef or cls is _AsyncDef:
            if scope.kind == "function" or self._holds(stmt):
                self._function(stmt, scope)  # type: ignore[arg-type]
            return
        if cls is _ClassDef:
            if scope.kind == "function" or self._holds(stmt):
                self._class(stmt, scope)  # type: ignore[arg-type]
            return
        if cls in _NEVER_PROMPTS:
            return
        if scope.kind != "function" and not self._holds(stmt):
            if cls is ast.Assign or cls is ast.AnnAssign:
                self._note_blocks(stmt, scope)
            return
        if cls is ast.Assign or cls is ast.AnnAssign:
            value = stmt.value  # type: ignore[attr-defined]
            if value is None:
                return
            targets = stmt.targets if cls is ast.Assign else [stmt.target]  # type: ignore[attr-defined]
            if scope.kind == "function":
                for target in targets:
                    if type(target) is ast.Name:
                        scope.assigned.setdefault(target.id, []).append(value)
            else:
                self._note_blocks(stmt, scope)
            ctx = self._target_context(targets, scope, "=")
            if ctx[0] == SINK:
                self._pending.append((scope, ctx[1], value))
            self._expr(value, scope, ctx, 0)
            return
        if cls is ast.AugAssign:
            ctx = self._target_context([stmt.target], scope, "+=")  # type: ignore[attr-defined]
            if ctx[0] == SINK:
                self._pending.append((scope, ctx[1], stmt.value))  # type: ignore[attr-defined]
            self._expr(stmt.value, scope, ctx if ctx[0] == SINK else PLAIN_CTX, 0)  # type: ignore[attr-defined]
            return
        if cls is ast.Return:
            value = stmt.value  # type: ignore[attr-defined]
            if value is None:
                return
            if type(value) is ast.Name:
                self._sent.add((scope.place, scope.line, value.id))  # handed to the caller
            if scope.prompt_func or (self.prompts_module and scope.kind == "function"):
                ctx = (SINK, f"the prompt returned by `{scope.func}`", "")
                self._pending.append((scope, ctx[1], value))
            else:
                ctx = PLAIN_CTX
            self._expr(value, scope, ctx, 0)
            return
        if cls is ast.Expr:
            self._expr(stmt.value, scope, PLAIN_CTX, 0)  # type: ignore[attr-defined]
            return
        if cls is ast.Assert or cls is ast.Raise:
            return
        for field in stmt._fields:
            value = getattr(stmt, field, None)
            if value is None:
                continue
            if type(value) is list:
                if value and isinstance(value[0], ast.stmt):
                    self._body(value, scope)
                    continue
                for child in value:
                    if type(child) is ast.ExceptHandler or type(child) is ast.match_case:
                        self._body(child.body, scope)
                    elif isinstance(child, ast.expr):
                        self._expr(child, scope, PLAIN_CTX, 0)
                    elif type(child) is ast.withitem:
                        self._expr(child.context_expr, scope, PLAIN_CTX, 0)
            elif isinstance(value, ast.expr):
                self._expr(value, scope, PLAIN_CTX, 0)

    def _holds(self, stmt: ast.AST) -> bool:
        return self.vocabulary is None or self.vocabulary.holds(stmt)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        name = node.name
        for decorator in node.decorator_list:
            self._expr(decorator, scope, PLAIN_CTX, 0)
        decorators = [_dotted(d.func if type(d) is ast.Call else d) or "" for d in node.decorator_list]
        prompt_func = any(PROMPT_DECORATOR.search(d) for d in decorators) or bool(PROMPT_FUNCTION.search(name))
        method = scope.kind == "class"
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        defaults = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
                    *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)]
        params = parameters(node, method)
        bound = function_locals(node)[0]
        if scope.kind == "function":
            # a nested function is part of its outer function's place
            inner = Scope(scope.place, scope.line, "function", name, prompt_func or scope.prompt_func, scope.klass,
                           params, bound | scope.locals, f"{scope.func_id}.{name}")
        else:
            place = name if scope.kind == "module" else f"{scope.place}.{name}"
            inner = Scope(place, node.lineno, "function", name, prompt_func, scope.klass if method else None,
                           params, bound, f"{self.module}.{place}")
        for arg, default in defaults:
            # a prompt as a parameter's default (`instruction="Summarise ..."`): the function's
            named = PROMPT_NAME.search(arg.arg) and not NOT_PROMPT_NAME.search(arg.arg)
            self._expr(default, inner, (SINK, f"the default of `{arg.arg}`", "") if named else PLAIN_CTX, 0)
        self._body(node.body, inner)

    def _class(self, node: ast.ClassDef, scope: Scope) -> None:
        for base in node.bases:
            self._expr(base, scope, PLAIN_CTX, 0)
        if scope.kind == "function":
            self._body(node.body, scope)
            return
        place = node.name if scope.kind == "module" else f"{scope.place}.{node.name}"
        inner = Scope(place, node.lineno, "class", klass=ClassPrompts(place, node, self._is_block_value))
        self._body(node.body, inner)

    # -- contexts ----------------------------------------------------------------------
    def _target_context(self, targets: list[ast.expr], scope: Scope, op: str) -> tuple[int, str, str]:
        bound = ""
        for target in targets:
            name = target_name(target)
            if name is None:
                continue
            last = last_segment(name)
            if (PROMPT_NAME.search(name) and not NOT_PROMPT_NAME.search(last)) or name.endswith(".content"):
                return (SINK, f"`{name} {op} ...`", last if type(target) is ast.Name else "")
            if type(target) is ast.Name:
                bound = target.id
        if op == "=" and bound and len(targets) == 1:
            if self.prompts_module and scope.kind != "function" and not NOT_TEXT_NAME.search(bound):
                return (SINK, f"`{bound} = ...`", bound)
            return (FALLBACK, f"`{bound} = ...`", bound)
        return PLAIN_CTX

    def _call_contexts(self, call: ast.Call, scope: Scope, outer: tuple[int, str, str]):
        """(argument contexts, keyword contexts) of a call."""
        name = callee_name(call)
        if name in EXCLUDED_CALLS or outer[0] == EXCLUDED or name.endswith(("Error", "Exception", "Warning")):
            return None
        func = call.func
        message = message_of(call)
        args = call.args
        positional: list[tuple[int, str, str]] = []
        if message is not None:
            role, content = message
            label = "an assistant message" if role in NOT_PROMPT_ROLES else f"a {role or 'chat'} message"
            mode = EXCLUDED if role in NOT_PROMPT_ROLES else MESSAGE
            positional = [(mode, label, "") if i == 0 else PLAIN_CTX for i in range(len(args))]
            keywords = {k.arg: ((mode, label, "") if k.value is content else PLAIN_CTX) for k in call.keywords}
            return positional, keywords
        attribute = type(func) is ast.Attribute
        # text passed to the application's own helper (`self._analyze(text, "...")`)
        own = (type(func) is ast.Name and name in self._defs) or (
            attribute and type(func.value) is ast.Name and func.value.id in ("self", "cls")  # type: ignore[attr-defined]
        )
        if args:
            sink = (SINK, f"`{name}(...)`", "")
            if (attribute and name in MODEL_METHODS) or MODEL_CALLEE.search(name):
                positional = [sink] * len(args)
            elif name in TASK_METHODS:
                positional = [EXCLUDED_CTX if type(a) in (ast.Constant, ast.JoinedStr) else sink for a in args]
            elif own:
                positional = [(FALLBACK, f"an argument of `{name}(...)`", "")] * len(args)
            else:
                positional = [PLAIN_CTX] * len(args)
            if (name[:1].isupper() and name.endswith("Agent")) or name in SYSTEM_METHODS:
                positional[0] = sink
        keywords: dict[str | None, tuple[int, str, str]] = {}
        for keyword in call.keywords:
            arg = keyword.arg
            if arg in PROMPT_KWARGS:
                keywords[arg] = (SINK, f"`{arg}=`", "")
            elif arg == "description" and (name == "Task" or (name[:1].isupper() and name.endswith("Agent"))):
                keywords[arg] = (SINK, f"`{arg}=`", "")  # a task's or an agent's description is its prompt
            elif arg in EXCLUDED_KWARGS or (arg in TASK_KWARGS and type(keyword.value) in (ast.Constant, ast.JoinedStr)):
                keywords[arg] = EXCLUDED_CTX
            elif arg in ("messages", "contents") or (attribute and name in MODEL_METHODS):
                keywords[arg] = (SINK, f"`{arg}=`", "")
            else:
                keywords[arg] = PLAIN_CTX
        return positional, keywords

    # -- expressions -------------------------------------------------------------------
    def _expr(self, node: ast.AST, scope: Scope, ctx: tuple[int, str, str], depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        cls = type(node)
        if cls is ast.Name or cls is ast.Attribute and type(node.value) is ast.Name:  # type: ignore[attr-defined]
            if cls is ast.Name and ctx[0] in (SINK, MESSAGE, FALLBACK) and not ctx[2]:
                self._sent.add((scope.place, scope.line, node.id))  # type: ignore[attr-defined]
            return
        if cls is ast.Constant or cls is ast.JoinedStr or cls is ast.BinOp or cls is ast.Call:
            text = text_of(node)
            if text is not None:
                self._text(node, text, scope, ctx)
                if cls is ast.Constant:
                    return
                if ctx[0] in (SINK, MESSAGE):
                    for part in parts(node):
                        if type(part) is ast.Name:
                            self._sent.add((scope.place, scope.line, part.id))  # type: ignore[attr-defined]
                self._in_text += 1
                try:
                    if cls is ast.JoinedStr:
                        for value in node.values:  # type: ignore[attr-defined]
                            if type(value) is ast.FormattedValue:
                                self._expr(value.value, scope, PLAIN_CTX, depth + 1)
                    elif cls is ast.BinOp:
                        self._expr(node.left, scope, PLAIN_CTX, depth + 1)  # type: ignore[attr-defined]
                        self._expr(node.right, scope, PLAIN_CTX, depth + 1)  # type: ignore[attr-defined]
                    else:
                        self._call(node, scope, ctx, depth)  # type: ignore[arg-type]
                finally:
                    self._in_text -= 1
                return
        if cls is ast.Call:
            self._call(node, scope, ctx, depth)  # type: ignore[arg-type]
            return
        if cls is ast.Dict:
            self._dict(node, scope, ctx, depth)  # type: ignore[arg-type]
            return
        if cls is ast.List or cls is ast.Tuple:
            elts = node.elts  # type: ignore[attr-defined]
            if cls is ast.Tuple:
                message = message_of(node)
                if message is not None:
                    role, content = message
                    if content is not None:
                        mode = EXCLUDED if role in NOT_PROMPT_ROLES or role == "placeholder" else MESSAGE
                        self._expr(content, scope, (mode, f"a ({role}, ...) message", ""), depth + 1)
                    return
            if len(elts) >= 2:
                self._messages(node, scope)  # type: ignore[arg-type]
            inner = ctx if ctx[0] == SINK else PLAIN_CTX
            for elt in elts:
                self._expr(elt, scope, inner, depth + 1)
            return
        if cls is ast.IfExp:
            self._expr(node.test, scope, PLAIN_CTX, depth + 1)  # type: ignore[attr-defined]
            outer, self._fragment = self._fragment, node
            self._expr(node.body, scope, ctx, depth + 1)  # type: ignore[attr-defined]
            self._expr(node.orelse, scope, ctx, depth + 1)  # type: ignore[attr-defined]
            self._fragment = outer
            return
        if cls is ast.BoolOp:
            for value in node.values:  # type: ignore[attr-defined]
                self._expr(value, scope, ctx, depth + 1)
            return
        if cls is ast.Await or cls is ast.Starred or cls is ast.NamedExpr:
            self._expr(node.value, scope, ctx, depth + 1)  # type: ignore[attr-defined]
            return
        if cls is ast.BinOp and type(node.op) is ast.BitOr:  # type: ignore[attr-defined]
            for part in (node.left, node.right):  # type: ignore[attr-defined]
                if type(part) is ast.Name:  # `prompt | llm`: the prompt goes to the model
                    self._sent.add((scope.place, scope.line, part.id))  # type: ignore[attr-defined]
        if cls is ast.Compare or cls is ast.Subscript:
            if cls is ast.Subscript:
                self._expr(node.value, scope, PLAIN_CTX, depth + 1)  # type: ignore[attr-defined]
            return
        if cls is ast.Lambda:
            self._expr(node.body, scope, PLAIN_CTX, depth + 1)  # type: ignore[attr-defined]
            return
        for field in node._fields:
            if field in ("ctx", "op", "ops"):
                continue
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.expr):
                        self._expr(item, scope, PLAIN_CTX, depth + 1)
                    elif type(item) is ast.comprehension:
                        self._expr(item.iter, scope, PLAIN_CTX, depth + 1)
            elif isinstance(value, ast.expr):
                self._expr(value, scope, PLAIN_CTX, depth + 1)

    def _call(self, node: ast.Call, scope: Scope, ctx: tuple[int, str, str], depth: int) -> None:
        func = node.func
        if type(func) is ast.Attribute:
            receiver = func.value
            if func.attr in RENDER_METHODS or func.attr == "replace":
                if type(receiver) is ast.Name and receiver.id:
                    self._uses.append((scope, receiver.id, node))
                if func.attr in RENDER_METHODS and (
                    func.attr not in ("invoke", "ainvoke") or PROMPT_NAME.search(_dotted(receiver) or "")
                ):
                    self._render(node, receiver, scope, ctx)
            if type(receiver) is not ast.Name:
                self._expr(receiver, scope, PLAIN_CTX, depth + 1)
        elif type(func) is not ast.Name:
            self._expr(func, scope, PLAIN_CTX, depth + 1)
        contexts = self._call_contexts(node, scope, ctx)
        if contexts is None:
            return
        positional, keywords = contexts
        if scope.kind == "function" and callee_name(node) not in _CONTAINER_METHODS:
            for value in (*node.args, *(k.value for k in node.keywords)):
                if type(value) is ast.Name:
                    self._sent.add((scope.place, scope.line, value.id))
        self._arguments_of(node, scope)
        for arg, arg_ctx in zip(node.args, positional):
            if arg_ctx[0] in (SINK, MESSAGE):
                self._pending.append((scope, arg_ctx[1], arg))
            self._expr(arg, scope, arg_ctx, depth + 1)
        for keyword in node.keywords:
            kw_ctx = keywords.get(keyword.arg, PLAIN_CTX)
            if kw_ctx[0] in (SINK, MESSAGE) and keyword.arg not in ("messages", "contents"):
                self._pending.append((scope, kw_ctx[1], keyword.value))
            self._expr(keyword.value, scope, kw_ctx, depth + 1)

    def _dict(self, node: ast.Dict, scope: Scope, ctx: tuple[int, str, str], depth: int) -> None:
        if ctx[0] == EXCLUDED:
            return
        message = message_of(node)
        typed_text = any(type(k) is ast.Constant and k.value == "type" for k in node.keys) and any(
            type(k) is ast.Constant and k.value == "text" for k in node.keys
        )
        for key, value in zip(node.keys, node.values):
            key_text = key.value if type(key) is ast.Constant and type(key.value) is str else None  # type: ignore[union-attr]
            if message is not None and value is message[1]:
                role = message[0]
                if role in NOT_PROMPT_ROLES:
                    continue
                label = f"a {role or 'chat'} message"
                self._pending.append((scope, label, value))
                self._expr(value, scope, (MESSAGE, label, ""), depth + 1)
            elif typed_text and key_text == "text":
                self._expr(value, scope, (MESSAGE, "a text part of a message", ""), depth + 1)
            elif key_text and PROMPT_NAME.search(key_text) and not NOT_PROMPT_NAME.search(key_text):
                self._pending.append((scope, f"the `{key_text}` entry", value))
                self._expr(value, scope, (SINK, f"the `{key_text}` entry", ""), depth + 1)
            elif key_text and key_text in EXCLUDED_KWARGS:
                continue
            else:
                if key is not None:
                    self._expr(key, scope, PLAIN_CTX, depth + 1)
                # a dict of prompts (`PROMPTS = {"summarize": "..."}`): each value is one
                inner = (SINK, f"the `{key_text}` entry of {ctx[1]}", "") if ctx[0] == SINK and key_text and message is None else PLAIN_CTX
                self._expr(value, scope, inner, depth + 1)

    # -- units -------------------------------------------------------------------------

def extract(
    tree: ast.Module, source: str | None, module: str, resolve: Callable[[str], str], low: str | None = None,
) -> tuple[tuple[PromptSiteFact, ...], tuple[str, ...]]:
    """The prompt facts and the prompt-like module-level names of one module; ``low``:
    ``source`` lower-cased, when the caller has it."""
    vocabulary = _Vocabulary(source.lower() if low is None else low) if source is not None else None
    if vocabulary is not None and not vocabulary:
        return (), ()
    cache: list[list[str]] = []

    def lines() -> list[str]:
        if not cache:
            cache.append(split_lines(source) if source is not None else [])
        return cache[0]

    extractor = PromptExtractor(module, resolve, lines)
    extractor.vocabulary = vocabulary
    extractor.run(tree)
    return tuple(extractor.sites), tuple(dict.fromkeys(extractor.blocks))
