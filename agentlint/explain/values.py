"""What a receiver, a parameter, an attribute or a function's result may be: the type
expressions of the facts (``facts.bindings``) evaluated over the project, and the
definitions a use reaches through them. The second layer of explain's resolution, on
``resolve.Resolution`` (names); ``graph.Graph`` builds the predecessors on this one.

A value is one of:

- ``("def", ref)``: what a definition names (a class, a function or method, or a
  variable or attribute, whose own type expressions tell what it holds);
- ``("inst", cls, exact)``: an instance of a class; exact (True) when made by calling
  that class (`Base()` is a Base, never a subclass), not when declared (False: `x:
  Base`), None for `self` (the class or a subclass, whose own attributes count);
- ``("cls", cls)``: `cls` in a classmethod (what it makes may be a subclass);
- ``("mod", name)``: a module of the project (for `getattr(module, f"tool_{x}")`);
- ``("cont", file, scope, key, te)``: a container whose elements (under ``key``, ""
  for any) are what ``te`` evaluates to in that file and scope;
- ``("elements", container)``: `container.get` (calling it gives an element), and
  ``("view", container)``: `container.values` (calling it gives the container).

A parameter without a usable annotation (``{f:1:agent}``) is what the callers of its
function pass for it (``CallFact.args``); an instance attribute set from one
(`self.editor = editor` in `__init__`) is what the constructors are given. Every
evaluation is memoised per question and guarded against cycles (a value that depends
on itself is what is known without that dependency).
"""

from __future__ import annotations

from agentlint.explain.nodes import MODULE, SELF_NAMES, NodeRef, by_name, chain_names, head_name
from agentlint.explain.resolve import Resolution
from agentlint.lazy_regex import lazy_compile

_OP = lazy_compile(r"\.([A-Za-z_][A-Za-z0-9_]*[*?]?|\*)|(\(\))|\[([^\]]*)\]")
_GETTERS = frozenset({"get", "pop", "setdefault", "__getitem__"})
_VIEWS = frozenset({"values", "copy"})
_MAX_VALUES = 64
_MAX_DEPTH = 40
_MAX_PARAM_DEPTH = 3
_MAX_CALLER_FILES = 40
"""Files that may call a function, beyond which its parameters' callers are not read."""
_CONSTRUCTORS = ("__init__", "__new__")


def parse_ops(text: str) -> list[tuple[str, str]] | None:
    """`.run().agents[reviewer]` -> [(".", "run"), ("()", ""), (".", "agents"), ("[]", "reviewer")];
    None when the text is not a chain of operations."""
    ops: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        found = _OP.match(text, at)
        if found is None:
            return None
        name, call, key = found.groups()
        if name is not None:
            ops.append((".", name))
        elif call is not None:
            ops.append(("()", ""))
        else:
            ops.append(("[]", key))
        at = found.end()
    return ops


class Values(Resolution):
    """Type expressions and the uses that go through them; see the module docstring."""

    def __init__(self, files, memo=None) -> None:
        super().__init__(files, memo)
        self._te_memo: dict[tuple[int, str, str], tuple] = {}
        self._param_memo: dict[tuple, tuple] = {}
        self._depth = 0
        self._param_depth = 0
        self._derefs: set[NodeRef] = set()

    # -- type expressions ------------------------------------------------------------
    def te_values(self, number: int, scope: str, te: str) -> tuple:
        """What the type expression ``te`` (read in ``scope`` of file ``number``) may be."""
        key = (number, scope, te)
        known = self._te_memo.get(key)
        if known is not None:
            return known
        if self._depth > _MAX_DEPTH or not te:
            return ()
        self._te_memo[key] = ()  # while evaluated: a cycle sees nothing more
        self._depth += 1
        try:
            found = tuple(dict.fromkeys(self._evaluate(number, scope, te)))[:_MAX_VALUES]
        finally:
            self._depth -= 1
        self._te_memo[key] = found
        return found

    def _evaluate(self, number: int, scope: str, te: str) -> list:
        if te[0] == "[":
            close = te.find("]")
            return [("cont", number, scope, te[1:close], te[close + 1 :])]
        if te[0] == "{":
            close = te.find("}")
            parts = te[1:close].rsplit(":", 2)
            ops = parse_ops(te[close + 1 :])
            if ops is None or len(parts) != 3:
                return []
            defname, slot, pname = parts
            values = list(self.param_values(number, defname, slot, pname))
            return self._apply(values, ops)
        head = head_name(te)
        ops = parse_ops(te[len(head) :])
        if ops is None or not head:
            return []
        if head in SELF_NAMES:
            cls = self._class_of_scope(number, scope)
            if cls is None:
                return []
            values: list = [("inst", cls, None)] if head == "self" else [("cls", cls)]
            return self._apply(values, ops)
        values, ops = self._qualified_values(number, head, ops)
        return self._apply(values, ops)

    def _qualified_values(self, number: int, head: str, ops: list[tuple[str, str]]) -> tuple[list, list]:
        """A qualified dotted name at the start of a chain: the definitions its longest
        prefix names (through imports and re-exports), or a module of the project; the
        operations left to apply."""
        names = [head]
        for kind, arg in ops:
            if kind != "." or arg.endswith(("*", "?")):
                break
            names.append(arg)
        for cut in range(len(names), 0, -1):
            found = self.resolve_from(number, ".".join(names[:cut]), strict=True)
            if found:
                return [("def", ref) for ref in found], ops[cut - 1 :]
        view = self.view(number)
        if head in view.defs:
            return [("def", (number, head))], ops
        for cut in range(len(names), 0, -1):
            module = ".".join(names[:cut])
            if module in self.by_module or self._submodules(module):
                # a module, or a package that is a folder only (no `__init__.py`)
                return [("mod", module)], ops[cut - 1 :]
        return [], []

    def _submodules(self, package: str) -> list[str]:
        """The project's modules directly inside ``package``."""
        if self._children is None:
            children: dict[str, list[str]] = {}
            for module in self.by_module:
                parent, dot, _ = module.rpartition(".")
                while dot:
                    children.setdefault(parent, []).append(module)
                    module = parent
                    parent, dot, _ = module.rpartition(".")
            self._children = {k: sorted(set(v)) for k, v in children.items()}
        return self._children.get(package, [])

    _children: "dict[str, list[str]] | None" = None

    def _class_of_scope(self, number: int, scope: str) -> NodeRef | None:
        if scope != MODULE and self.kind((number, scope)) == "class":
            return (number, scope)
        return self.enclosing_class(number, scope)

    def _apply(self, values: list, ops: list[tuple[str, str]], more: bool = False) -> list:
        """``ops`` applied to ``values``; ``more``: further attributes are looked up after
        them (only then may a base class's `self.x` be set in its subclasses)."""
        last = len(ops) - 1
        for position, (kind, arg) in enumerate(ops):
            if not values:
                return []
            if kind == ".":
                deeper = more or position < last
                values = [found for value in values for found in self.attribute(value, arg, deeper)]
            elif kind == "()":
                values = [found for value in values for found in self.call(value)]
            else:
                values = [found for value in values for found in self.element(value, arg)]
            values = list(dict.fromkeys(values))[:_MAX_VALUES]
        return values

    def deref(self, ref: NodeRef) -> list:
        """What a variable or attribute holds."""
        out: list = []
        for number, scope, te in self.types_of(ref):
            out += self.te_values(number, scope, te)
        return out

    def _through(self, ref: NodeRef, step) -> list:
        """``step`` applied to what a variable or attribute holds; nothing for one that
        holds itself (`self.io = self.io or default`) while it is being looked through."""
        if ref in self._derefs:
            return []
        self._derefs.add(ref)
        try:
            return [found for held in self.deref(ref) for found in step(held)]
        finally:
            self._derefs.discard(ref)

    def attribute(self, value: tuple, name: str, deeper: bool = True) -> list:
        kind = value[0]
        if kind == "inst":
            exact = value[2]
            # `self.x` set only by subclasses is looked for when more follows (`self.x.y`).
            return self._class_attribute(value[1], name, False if exact is None and not deeper else exact)
        if kind == "cls":
            return self._class_attribute(value[1], name, False)
        if kind == "def":
            ref = value[1]
            what = self.kind(ref)
            if what == "class":
                return self._class_attribute(ref, name, False)
            if what in ("variable", "attribute"):
                return self._through(ref, lambda held: self.attribute(held, name))
            return []
        if kind == "mod":
            return self._module_attribute(value[1], name)
        if kind == "cont":
            if name in _GETTERS:
                return [("elements", value)]
            if name in _VIEWS:
                return [("view", value)]
        return []

    def call(self, value: tuple) -> list:
        kind = value[0]
        if kind == "def":
            ref = value[1]
            what = self.kind(ref)
            if what == "class":
                return [("inst", ref, True)]
            if what in ("function", "method"):
                return self._returns(ref)
            if what in ("variable", "attribute"):
                return self._through(ref, self.call)
            return []
        if kind == "cls":
            return [("inst", value[1], False)]
        if kind == "inst":
            return [found for method in self.lookup_member(value[1], "__call__") for found in self._returns(method)]
        if kind == "elements":
            return self.element(value[1], "")
        if kind == "view":
            return [value[1]]
        return []

    def element(self, value: tuple, key: str) -> list:
        kind = value[0]
        if kind == "cont":
            held = value[3]
            if key and held and key != held:
                return []
            return list(self.te_values(value[1], value[2], value[4]))
        if kind == "def" and self.kind(value[1]) in ("variable", "attribute"):
            return self._through(value[1], lambda held: self.element(held, key))
        if kind == "inst":
            return [found for method in self.lookup_member(value[1], "__getitem__") for found in self._returns(method)]
        return []

    def _returns(self, ref: NodeRef) -> list:
        out: list = []
        for te in self.returns_of(ref):
            out += self.te_values(ref[0], ref[1], te)
        return out

    def _class_attribute(self, cls: NodeRef, name: str, exact: bool | None) -> list:
        """An attribute of a class or of its instances: its member (looked up through the
        bases; a built name matches by prefix or exactly, in the subclasses too unless
        the instance is exactly this class), else what `self.name` is set to in it or
        its bases, else, for `self` in a base class, what its subclasses set."""
        members = self.members_named(cls, name, exact)
        if members:
            return [("def", member) for member in members]
        if by_name(name):
            return []
        out: list = []
        for number, scope, te in self.self_attr_types(cls, name):
            out += self.te_values(number, scope, te)
        if not out and exact is None:
            for sub, member in self.attribute_holders(cls, name):
                if member is not None:
                    out.append(("def", member))
                for number, scope, te in self.self_attr_types(sub, name):
                    out += self.te_values(number, scope, te)
        return out

    def members_named(self, cls: NodeRef, name: str, exact: bool = True) -> list[NodeRef]:
        """`name` of the class (through its bases); `cmd_*`: every method whose name starts
        with `cmd_`, `name?`: that one, both also in the subclasses unless ``exact``."""
        if not by_name(name):
            return self.lookup_member(cls, name)
        plain = name[:-1]
        owners = list(self.ancestors(cls)) + ([] if exact else self.descendants(cls))
        out: list[NodeRef] = []
        for owner in owners:
            view = self.view(owner[0])
            for _start, _end, child in view.children.get(owner[1], ()):
                last = child.rpartition(".")[2]
                if (last.startswith(plain) if name.endswith("*") else last == plain) and view.defs[child].kind == "method":
                    out.append((owner[0], child))
        return list(dict.fromkeys(out))

    def _module_attribute(self, module: str, name: str) -> list:
        if not by_name(name):
            found = self.resolve_dotted(f"{module}.{name}", strict=True)
            if found:
                return [("def", ref) for ref in found]
            return [("mod", f"{module}.{name}")] if f"{module}.{name}" in self.by_module else []
        plain = name[:-1]
        out: list = []
        for number in self.by_module.get(module, ()):
            view = self.view(number)
            for _start, _end, child in view.children.get(MODULE, ()):
                if (child.startswith(plain) if name.endswith("*") else child == plain) and view.defs[child].kind in (
                    "function", "class",
                ):
                    out.append(("def", (number, child)))
        if name.endswith("*"):
            # `importlib.import_module(f"pkg.plugins.{name}")`: any module of the package
            out += [("mod", sub) for sub in self._submodules(module) if sub.rpartition(".")[2].startswith(plain)]
        return out

    # -- the typed facts -------------------------------------------------------------
    def returns_of(self, ref: NodeRef) -> tuple[str, ...]:
        definition = self.definition(ref)
        return definition.returns if definition is not None else ()

    def types_of(self, ref: NodeRef) -> list[tuple[int, str, str]]:
        """(file, scope, type expression) of what a variable or attribute is set to."""
        view = self.view(ref[0])
        definition = view.defs.get(ref[1])
        if definition is None:
            return []
        if definition.kind == "variable":
            return [(ref[0], MODULE, te) for te in view.bindings.get((MODULE, ref[1]), [])]
        if definition.kind == "attribute":
            owner, _, attr = ref[1].rpartition(".")
            return [(ref[0], owner, te) for te in view.bindings.get((owner, f"self.{attr}"), [])]
        return []

    def self_attr_types(self, cls: NodeRef, attr: str) -> list[tuple[int, str, str]]:
        """(file, class, type expression) bound to ``self.attr`` in the class or its bases."""
        out: list[tuple[int, str, str]] = []
        for owner in self.ancestors(cls):
            out += [(owner[0], owner[1], te) for te in self.view(owner[0]).bindings.get((owner[1], f"self.{attr}"), [])]
        return out

    def attribute_holders(self, cls: NodeRef, attr: str) -> list[tuple[NodeRef, NodeRef | None]]:
        """The subclasses of ``cls`` that define the class attribute ``attr`` or bind
        ``self.attr`` themselves: (subclass, its attribute definition or None)."""
        key = (cls, attr)
        known = self._holders.get(key)
        if known is None:
            known = self._holders[key] = []
            for sub in self.descendants(cls):
                view = self.view(sub[0])
                name = f"{sub[1]}.{attr}"
                definition = view.defs.get(name)
                if definition is not None and definition.kind == "attribute":
                    known.append((sub, (sub[0], name)))
                elif (sub[1], f"self.{attr}") in view.bindings:
                    known.append((sub, None))
        return known

    def typed_members(self, ref: NodeRef, rest: list[str]) -> list[NodeRef]:
        if ref in self._derefs:
            return []
        self._derefs.add(ref)
        try:
            return self.members_of(self.deref(ref), rest)
        finally:
            self._derefs.discard(ref)

    def type_member(self, number: int, scope: str, te: str, rest: list[str]) -> list[NodeRef]:
        """``rest`` looked up on what the type expression ``te`` may be."""
        return self.members_of(self.te_values(number, scope, te), rest)

    def members_of(self, values, rest: list[str]) -> list[NodeRef]:
        """The definitions the attribute names ``rest`` reach from ``values``: the deepest
        definition on the way once the first is found (a read of `prompts.MAIN.format` is
        a read of `MAIN`); none when the first is not found."""
        out: list[NodeRef] = []
        for found in self._apply(list(values), [(".", rest[0])], len(rest) > 1):
            if found[0] == "def":
                out += self.member_chain(found[1], rest[1:])
            elif len(rest) > 1:
                out += self.members_of([found], rest[1:])
        return list(dict.fromkeys(out))

    # -- uses -------------------------------------------------------------------------
    def _resolve_use(self, number: int, scope: str, dotted: str) -> list[NodeRef]:
        head, _, rest_text = dotted.partition(".")
        if dotted == "cls":
            # `cls(...)` in a classmethod constructs the class.
            cls = self.enclosing_class(number, scope)
            return [cls] if cls is not None else []
        if head == "super()":
            cls = self.enclosing_class(number, scope)
            if cls is None:
                return []
            for base in self.bases(cls):
                found = self.lookup_member(base, chain_names(rest_text)[0])
                if found:
                    return found
            return []
        if "(" in dotted or "[" in dotted or by_name(dotted):
            return self._chain_targets(number, scope, dotted)
        rest = rest_text.split(".") if rest_text else []
        view = self.view(number)
        # At module level the facts name module-level objects by their qualified name;
        # in a function, a binding is a local or a parameter of it.
        types = view.bindings.get((scope, head)) if scope != MODULE else None
        if types is not None:
            # A local or parameter of this scope, whose type the facts know (or know
            # not to know: a local named like a package).
            if not rest:
                # `handler(...)` with `handler = HANDLERS[name]`: the functions it may be.
                return [
                    value[1] for te in types if te for value in self.te_values(number, scope, te)
                    if value[0] == "def" and self.kind(value[1]) in ("function", "method", "class")
                ]
            out: list[NodeRef] = []
            for te in types:
                if te:
                    out += self.type_member(number, scope, te, rest)
            return out
        if head in SELF_NAMES and rest:
            cls = self.enclosing_class(number, scope)
            if cls is None:
                return []
            return self.members_of([("inst", cls, None)], rest)
        if rest and head in view.roots:
            found = self.resolve_from(number, dotted)
            if found:
                return found
        # A nested function (or class) of an enclosing function. A class body's names
        # are not visible from its methods: `commit.tree` in a method is a local
        # `commit`, never the method `commit` of the class.
        prefix = scope if scope != MODULE else ""
        while prefix:
            owner = view.defs.get(prefix)
            if owner is not None and (owner.kind in ("function", "method") or prefix == scope):
                candidate = f"{prefix}.{head}"
                definition = view.defs.get(candidate)
                if definition is not None and definition.kind != "attribute":
                    return self.member_chain((number, candidate), rest)
            prefix = prefix.rpartition(".")[0]
        return []

    def use_values(self, number: int, scope: str, dotted: str) -> list:
        """What a use (a name or a chain, as the facts write it) may be."""
        head = head_name(dotted)
        ops = parse_ops(dotted[len(head) :])
        if not head or ops is None:
            return []
        view = self.view(number)
        types = view.bindings.get((scope, head)) if scope != MODULE else None
        if types is not None:
            values = [value for te in types if te for value in self.te_values(number, scope, te)]
        elif head in SELF_NAMES:
            cls = self.enclosing_class(number, scope)
            if cls is None:
                return []
            values = [("inst", cls, None)] if head == "self" else [("cls", cls)]
        elif head in view.roots or head in view.defs:
            values, ops = self._qualified_values(number, head, ops)
        else:
            return []
        return self._apply(values, ops)

    def _chain_targets(self, number: int, scope: str, dotted: str) -> list[NodeRef]:
        """The definitions a use through a chain reaches: what its last step names (a
        method, an attribute; the functions or classes a container holds, for
        `HANDLERS[name](...)`), else the variable or attribute read on the way."""
        head = head_name(dotted)
        ops = parse_ops(dotted[len(head) :])
        if not ops:
            return []
        before = self.use_values(number, scope, head + "".join(_text(op) for op in ops[:-1]))
        last = self._apply(before, ops[-1:])
        targets = [value[1] for value in last if value[0] == "def"]
        if ops[-1][0] != ".":
            targets = [ref for ref in targets if self.kind(ref) in ("function", "method", "class")]
        if not targets and ops[-1][0] == ".":
            targets = [
                value[1] for value in before
                if value[0] == "def" and self.kind(value[1]) in ("variable", "attribute")
            ]
        return targets

    def receivers(self, number: int, scope: str, dotted: str) -> tuple[tuple, ...]:
        """What a method call's receiver is known to be (see ``Edge.receivers``):
        ("self", C) for `self.m()` in C, ("exact", C) for an instance made as a C,
        ("type", C) for one declared a C (or a subclass), ("plain", None) otherwise."""
        key = (number, scope, dotted)
        known = self._receivers.get(key)
        if known is None:
            known = self._receivers[key] = self._receiver_tags(number, scope, dotted)
        return known

    def _receiver_tags(self, number: int, scope: str, dotted: str) -> tuple[tuple, ...]:
        head, _, rest = dotted.partition(".")
        if (head in SELF_NAMES and rest and "." not in rest) or head == "super()":
            cls = self.enclosing_class(number, scope)
            return (("self", cls),) if cls is not None else (("plain", None),)
        receiver, dot, _last = dotted.rpartition(".")
        if not dot:
            return (("plain", None),)
        tags = []
        values = []
        for value in self.use_values(number, scope, receiver):
            if value[0] == "def" and self.kind(value[1]) in ("variable", "attribute"):
                values += self._through(value[1], lambda held: [held])
            else:
                values.append(value)
        for value in values:
            if value[0] == "inst":
                tags.append(("exact" if value[2] else "type", value[1]))
            elif value[0] == "cls" or value[0] == "def" and self.kind(value[1]) == "class":
                tags.append(("type", value[1]))
        return tuple(dict.fromkeys(tags)) or (("plain", None),)

    # -- parameters ------------------------------------------------------------------
    def param_values(self, number: int, defname: str, slot: str, pname: str) -> tuple:
        """What the callers of ``defname`` (a function, a method, or a class for its
        dataclass or pydantic fields) pass for a parameter."""
        key = (number, defname, slot, pname)
        known = self._param_memo.get(key)
        if known is not None:
            return known
        if self._param_depth >= _MAX_PARAM_DEPTH:
            return ()  # a parameter passed on from a parameter, and again: not followed further
        self._param_memo[key] = ()  # a caller that passes its own parameter on: see the others
        out: list = []
        position = int(slot) if slot.isdigit() else None
        self._param_depth += 1
        try:
            for use_number, use_scope, use_dotted, line, offset in self.call_sites((number, defname)):
                for entry in self.view(use_number).arguments(use_scope, use_dotted, line):
                    name, _, te = entry.partition("=")
                    if name == pname or (position is not None and name.isdigit() and int(name) == position - offset):
                        out += self.te_values(use_number, use_scope, te)
        finally:
            self._param_depth -= 1
        found = self._param_memo[key] = tuple(dict.fromkeys(out))[:_MAX_VALUES]
        return found

    def call_sites(self, ref: NodeRef) -> list[tuple[int, str, str, int, int]]:
        """(file, scope, callee, line, offset) of the calls of a function, a method or a
        class (its constructions, `cls(...)`, and `super().__init__(...)` in its direct
        subclasses) that pass something; ``offset``: the position of the first argument
        among the parameters (1 for a method's `self`). Read straight from the use lines
        of the files naming it, resolving only the calls that pass something."""
        kind = self.kind(ref)
        parent, _, last = ref[1].rpartition(".")
        cls: NodeRef | None = None
        if kind == "class":
            cls, offset = ref, 0
        elif kind == "method" and last in _CONSTRUCTORS and self.kind((ref[0], parent)) == "class":
            cls, offset = (ref[0], parent), 1
        elif kind in ("function", "method"):
            definition = self.definition(ref)
            offset = 0 if kind == "function" or (definition and "staticmethod" in definition.decorators) else 1
        else:
            return []
        name = cls[1].rpartition(".")[2] if cls is not None else last
        files = self.files.files_using(name, True)
        if len(files) > _MAX_CALLER_FILES:
            # A name called all over a big project (`run`, `invoke`): what each caller
            # passes is not looked for (the receiver stays unknown, "stopped early").
            return []
        wanted = cls if cls is not None else ref
        out: list[tuple[int, str, str, int, int]] = []
        for number in files:
            view = self.view(number)
            for scope, dotted, line, is_call in view.mentioning(name):
                if is_call and chain_names(dotted)[-1] == name and view.arguments(scope, dotted, line):
                    if wanted in self.resolve_use(number, scope, dotted):
                        out.append((number, scope, dotted, line, offset))
            if cls is None:
                continue
            for definition in view.subclasses_naming(name):
                sub = (number, definition.name)
                if cls not in self.bases(sub):
                    continue
                # `super().__init__(io, coder)` in a subclass's own `__init__`.
                for scope, dotted, line in self._calls_passing(view, f"{sub[1]}."):
                    if dotted == "super().__init__":
                        out.append((number, scope, dotted, line, offset or 1))
        if cls is not None:
            # `cls(...)` in the class's own classmethods.
            for scope, dotted, line in self._calls_passing(self.view(cls[0]), f"{cls[1]}."):
                if dotted == "cls":
                    out.append((cls[0], scope, dotted, line, offset))
        return out

    @staticmethod
    def _calls_passing(view, prefix: str) -> list[tuple[str, str, int]]:
        """(scope, callee, line) of the calls that pass something, in scopes under ``prefix``."""
        return [key for key in view.passing() if key[0].startswith(prefix)]


def _text(op: tuple[str, str]) -> str:
    kind, arg = op
    return f".{arg}" if kind == "." else "()" if kind == "()" else f"[{arg}]"
