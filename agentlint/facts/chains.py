"""Uses through chains, what calls pass, and tables looked up by key (the third layer
of the facts walk, on ``bindings.ReceiverTypes``): `self.make().run`,
`agents["reviewer"].run`, `getattr(self, f"cmd_{name}")` as uses; the type expressions
of a call's arguments (``CallFact.args``); `{"critic": CRITIC_PROMPT, ...}[role]` read
by key; `builder.add_node("plan", plan)` at module level as a use by the builder.
"""

from __future__ import annotations

import ast

from agentlint.facts.ast_helpers import SELF_NAMES, STDLIB, dotted
from agentlint.facts.bindings import ReceiverTypes, constant_key
from agentlint.facts.scopes import UNSET
from agentlint.knowledge.frameworks import framework_of

_Attribute, _Name, _Call, _Constant, _Starred, _Dict = (
    ast.Attribute, ast.Name, ast.Call, ast.Constant, ast.Starred, ast.Dict,
)
_LOOKS = (_Name, _Attribute, ast.Subscript)
_MAX_ARGS = 12
_MAX_ARGUMENT = 120


class UseChains(ReceiverTypes):
    """Chains, arguments and keyed tables (the third layer of the facts walk)."""

    def __init__(self, module: str, is_package: bool) -> None:
        super().__init__(module, is_package)
        self.keyed: dict[str, list[tuple[str, int, str]]] | None = None
        """Locals of the function being walked that hold a dict of names by key."""
        self.module_variables: set[str] = set()
        """Module-level names assigned so far (in source order)."""
        self._configured = ""
        self._reaching: dict[str, bool] = {}

    def _configures(self, value: ast.AST) -> bool:
        """`holder.method(...)` with `holder` a module-level variable: remember it."""
        if type(value) is not _Call or type(value.func) is not _Attribute:  # type: ignore[attr-defined]
            return False
        holder = value.func.value  # type: ignore[attr-defined]
        if type(holder) is _Name and holder.id in self.module_variables:  # type: ignore[attr-defined]
            self._configured = holder.id  # type: ignore[attr-defined]
            return True
        return False


    def note_lazy_exports(self, table: ast.Dict, line: int) -> None:
        """A package that imports on first use (a module `__getattr__` and a table such as
        `{"chat": (".chat", "chat")}` or `{"ChatModel": "pkg.chat_models.base"}`): each
        name of the table, as a binding `__getattr__:NAME` to where it comes from."""
        for key, value in zip(table.keys, table.values):
            name = constant_key(key)
            if name is None or not name.isidentifier():
                continue
            if type(value) is _Constant and type(value.value) is str:
                module, attr = value.value, name
            elif (
                type(value) is ast.Tuple and len(value.elts) == 2
                and all(type(e) is _Constant and type(e.value) is str for e in value.elts)
            ):
                module, attr = value.elts[0].value, value.elts[1].value  # type: ignore[attr-defined]
            else:
                continue
            level = len(module) - len(module.lstrip("."))
            module = module.lstrip(".").replace(":", ".")
            if not all(part.isidentifier() for part in module.split(".") if part) or not attr.isidentifier():
                continue
            base = self._absolute(module or None, level)
            self._binding("<module>", f"__getattr__:{name}", f"{base}.{attr}" if base else attr, line)

    def _use_chains(self, expr: ast.AST, scope: str) -> list[str]:
        """A use through calls, subscripts or a name looked up at run time, as a chain
        (see ``bindings``): `self.make().run`, `agents[reviewer].run`, `pkg.Foo().m`,
        `self.cmd_*` for `getattr(self, f"cmd_{name}")`. Its head is resolved (an
        import, a module-level name) or kept (`self`, a local of known type, whose
        binding is recorded). Empty for a plain name chain (read as such) or a head
        that is not known (a local of unknown type)."""
        ops: list[str] = []
        node = expr
        names: tuple[str, ...] = ()
        dynamic = False
        for _ in range(16):
            cls = type(node)
            if cls is _Attribute:
                ops.append("." + node.attr)  # type: ignore[attr-defined]
                node = node.value  # type: ignore[attr-defined]
            elif cls is ast.Subscript:
                ops.append(f"[{constant_key(node.slice) or ''}]")  # type: ignore[attr-defined]
                node = node.value  # type: ignore[attr-defined]
                dynamic = True
            elif cls is _Call:
                func = node.func  # type: ignore[attr-defined]
                if type(func) is _Name and func.id == "getattr" and self._unshadowed("getattr"):  # type: ignore[attr-defined]
                    found = self.attribute_names(node.args[1]) if len(node.args) >= 2 else ()  # type: ignore[attr-defined]
                    if not found or names:
                        return []
                    names = found
                    ops.append("\0")
                    node = node.args[0]  # type: ignore[attr-defined]
                else:
                    ops.append("()")
                    node = func
                dynamic = True
            elif cls is _Name:
                break
            else:
                return []
        else:
            return []
        if not dynamic:
            return []
        head = node.id  # type: ignore[attr-defined]
        if head in SELF_NAMES and self.klass is not None and self.locals is not None:
            base = head
        elif self.locals and head in self.locals:
            base = head
            self._receiver(scope, head, self.locals[head])
        elif self._visible(head):
            base = self.resolve(head)
            if base.partition(".")[0] in STDLIB and base.partition(".")[0] not in self._own_tops():
                return []
        else:
            return []
        tail = "".join(reversed(ops))
        if names:
            return [base + tail.replace("\0", "." + name) for name in names]
        return [base + tail]

    def _reaches_project(self, head: str, target: object) -> bool:
        """Whether a call of a name with this head may reach the project's code, so its
        arguments are worth keeping: not a builtin, a standard-library function or a
        method of a local of unknown type."""
        if head in SELF_NAMES:
            return self.klass is not None
        if self.locals and head in self.locals:
            return True
        if target is None or target is UNSET and head not in self.table and head not in self.module_names:
            return False
        if target is UNSET:
            known = self._reaching.get(head)
            if known is None:
                known = self._reaching[head] = self._may_be_project(self.resolve(head))
            return known
        return self._may_be_project(self.resolve(head))

    def _may_be_project(self, resolved: str) -> bool:
        top = resolved.partition(".")[0]
        if top in self._own_tops():
            return True
        # The standard library and the agent frameworks (`Agent(...)`, `ChatOpenAI(...)`)
        # keep nothing the graph follows.
        return top not in STDLIB and framework_of(resolved) is None

    def _names_a_root(self, head: str) -> bool:
        """Is ``head`` (a local) also the first part of an imported or the module's own name?"""
        roots = self._roots
        if roots is None:
            roots = self._roots = {self.module.partition(".")[0]} | {q.partition(".")[0] for q in self.table.values()}
        return head in roots

    _roots: set[str] | None = None

    @staticmethod
    def _push_looked_at(call: ast.AST, push) -> None:
        """`callable(self.run)`, `inspect.signature(self.execute)`: the function is looked
        at, not used; only what else the arguments hold is walked."""
        for arg in call.args:  # type: ignore[attr-defined]
            if type(arg) not in _LOOKS:
                push(arg)
        for keyword in call.keywords:  # type: ignore[attr-defined]
            if type(keyword.value) not in _LOOKS:
                push(keyword.value)



    def call_arguments(self, call: ast.Call) -> tuple[str, ...]:
        """What a call passes that has a type expression: `0=self`, `editor=pkg.Editor()`
        (positions from 0, keywords by name), or is a short name-like string
        (`0='reviewer`, for a parameter a table is looked up by); none after a `*args`."""
        out: list[str] = []
        for position, arg in enumerate(call.args):
            if type(arg) is _Starred:
                break
            for te in self._argument_types(arg):
                out.append(f"{position}={te}")
        for keyword in call.keywords:
            if keyword.arg is not None:
                for te in self._argument_types(keyword.value):
                    out.append(f"{keyword.arg}={te}")
        return tuple(out[:_MAX_ARGS])

    def _argument_types(self, arg: ast.AST) -> tuple[str, ...]:
        cls = type(arg)
        if cls is _Constant:
            key = constant_key(arg)
            return ("'" + key,) if key else ()
        if cls is _Name and arg.id not in SELF_NAMES:  # type: ignore[attr-defined]
            # The common case, without building anything for a local of unknown type.
            if self.locals and arg.id in self.locals:  # type: ignore[attr-defined]
                return tuple(entry[0] for entry in self.locals[arg.id][:4])  # type: ignore[attr-defined]
            if not self._visible(arg.id):  # type: ignore[attr-defined]
                return ()
        return tuple(te for te in self._value_types(arg)[:4] if len(te) <= _MAX_ARGUMENT)

    def note_keyed_table(self, name: str, value: ast.AST) -> None:
        """`prompts = {"reviewer": REVIEW_PROMPT, ...}` in a function: which name each key holds."""
        if self.keyed is None:
            return
        table = _keyed_names(self, value)
        if table:
            self.keyed[name] = table
        else:
            self.keyed.pop(name, None)

    def note_keyed_lookup(self, scope: str, table: ast.AST, key: ast.AST) -> None:
        """`prompts[role]` / `prompts.get(role)` / `{...}[role]` with `role` a parameter:
        each name of the table is read only when the callers pass its key."""
        if type(key) is not _Name or not self.locals:
            return
        known = self.locals.get(key.id)  # type: ignore[attr-defined]
        param = next((entry[0] for entry in known or () if entry[0][:1] == "{" and entry[0].endswith("}")), None)
        if param is None:
            return
        _defname, slot, pname = param[1:-1].rsplit(":", 2)
        if type(table) is _Name:
            held = self.keyed.get(table.id) if self.keyed else None  # type: ignore[attr-defined]
        else:
            held = _keyed_names(self, table)
        for read, line, held_key in held or ():
            self._binding(scope, "=" + read, f"{slot}:{pname}={held_key}", line)




def _keyed_names(walk: "ReceiverTypes", value: ast.AST) -> list[tuple[str, int, str]]:
    """(resolved name read, line, key) of a dict literal with constant string keys whose
    values are names (`{"reviewer": REVIEW_PROMPT, "writer": prompts.WRITE}`)."""
    if type(value) is not _Dict or not value.keys:  # type: ignore[attr-defined]
        return []
    out = []
    for key, held in zip(value.keys, value.values):  # type: ignore[attr-defined]
        text = constant_key(key)
        name = dotted(held) if text else None
        if name is None or not walk._visible(name.partition(".")[0]):
            return []
        out.append((walk.resolve(name), held.lineno, text))
    return out
