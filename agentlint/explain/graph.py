"""The project's symbol and call graph, built from the facts of every file.

Nodes are definitions: functions, methods, classes, module-level variables and class
attributes, plus two pseudo-nodes per module: ``<module>`` (code that runs on import,
outside any definition) and ``<main>`` (an ``if __name__ == "__main__":`` block). A
node id is ``"path:name"`` (``app/prompts.py:SYSTEM``, ``app/agent.py:Triage.run``).

Edges point from the user to the used (``caller -> callee``), with a kind:

- ``calls``: a call, resolved through imports and aliases (``from x import y as z``,
  ``import x.y as m; m.f()``), re-exports in ``__init__`` modules (followed through
  ``from .m import name [as other]`` and ``from .m import *``), ``module.func``,
  ``self.method`` / ``cls.method`` / ``super().method`` (looked up in the class and its
  bases in the project), and simple receivers (``x = Foo(); x.m()``, ``x: Foo``,
  ``for x in xs`` with ``xs: list[Foo]``, ``self.x = Foo()``, ``client = Foo()`` at
  module level, ``Foo().m()``); a call on a receiver of a base class (``self.m()`` in
  the base, ``x.m()`` with ``x: Base``) also reaches the overrides of ``m`` in its
  subclasses, and the search then remembers the subclass (see ``reverse_reach``);
- ``reads``: a read of a variable or attribute (any import form; ``self.X`` for class
  attributes; ``PROMPT.format(...)`` reads ``PROMPT``);
- ``uses``: a function or method used as a value (``tools=[search]``,
  ``register(self.flush)``);
- ``defines``: an enclosing function uses its nested functions;
- ``registers``: an object made at module level uses the functions registered on it by
  decorator (``@agent.tool``, ``@agent.system_prompt``, ``@mcp.tool()``, ``@app.get``);
- ``constructs``: a class runs its ``__init__``-like methods when constructed;
- ``member``: a tool or agent class (its framework calls its methods, see
  ``explain_kinds``) uses its methods and attributes; any other class uses a class
  attribute that nothing in the project is seen to read (``settings.model`` through an
  untyped receiver), so the attribute's users are not lost. Methods of other classes
  are not linked to their class: constructing a class does not run every method, and
  such a link would put the callers of a sibling method in the answer;
- ``inherits``: a subclass uses its bases.

Code at module level is attributed to the definition whose lines hold it (a read in
``FULL = BASE + EXTRA`` is a read by ``FULL``; a default argument belongs to its
function), else to ``<main>`` or ``<module>``. A class is used by those who construct
it (``K(...)``, which runs ``K.__init__``) and by its subclasses; a mere mention of a
class (``isinstance``, ``super(K, self)``, a type hint) is no use of it, and code in a
class body (its bases, its metaclass) runs when the class is defined, so the search
stops at the class there.

Building the whole graph means resolving every call of the project. ``explain`` only
needs the part that reaches one symbol, so ``Graph.predecessors`` resolves lazily: the
facts of the files whose facts mention the symbol's name (from the index postings) are
decoded and their calls and reads resolved; a breadth-first search over predecessors
builds the networkx graph of the blast radius. ``Graph.full()`` builds every edge (for
tests and small projects); both agree by construction (one resolver).
"""

from __future__ import annotations

import bisect
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable

from agentlint.explain import kinds as _kinds

MODULE = "<module>"
MAIN = "<main>"
SELF_NAMES = ("self", "cls")
CONSTRUCTOR_METHODS = ("__init__", "__new__", "__post_init__", "model_post_init", "__attrs_post_init__")
MAX_HOPS = 10
_UNRESOLVED = "\0unresolved"
"""Memo key suffix: a function's calls on receivers of unknown type (``unresolved_calls``)."""
_BUILTIN_METHODS = frozenset(
    name for kind in (dict, list, set, str, bytes) for name in dir(kind) if not name.startswith("_")
) | {"read", "write", "close", "flush", "open", "send", "start", "stop", "wait", "cancel", "result"}
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"typing_extensions"}
GRAPH_VERSION = 2
"""Version of the resolution rules; kept predecessors (the memo) of another are dropped."""

NodeRef = tuple[int, str]
"""(file number, definition name) — a node before it is given its string id."""


def _counts_when_stopped(name: str) -> bool:
    """Whether calls of ``name`` on unknown receivers say where the search may have
    stopped: not for `.update()`, `.get()` (dicts and lists) or dunders."""
    return not (name.startswith("__") or name in _BUILTIN_METHODS)


def memo_nodes(memo: dict) -> int:
    """How many nodes a memo holds (each function also has its unresolved calls)."""
    return sum(1 for key in memo if not key.endswith(_UNRESOLVED))


@dataclass
class Definition:
    name: str
    kind: str
    line: int
    end_line: int
    decorators: tuple[str, ...]
    bases: tuple[str, ...]
    returns: tuple[str, ...] = ()
    """Functions and methods: the types they return (annotation, or `return Foo(...)`,
    `return cls(...)`)."""


@dataclass
class FileView:
    """One file's facts, decoded and indexed for resolution."""

    number: int
    path: str
    module: str
    uses_text: str
    """Calls and reads as text lines (see ``explain_index.encode_facts``)."""
    imports: dict[str, str]
    import_list: list[list]
    stars: list[str]
    roots: set[str]
    """First segments of the qualified names this file can produce (its imports, its own
    package): a dotted use starting with anything else is a local receiver."""
    defs: "LazyDefinitions"
    bindings: dict[tuple[str, str], list[str]]
    main_blocks: list[tuple[int, int]]
    complete: bool
    definition_rows: list[list]
    _children: dict[str, list[tuple[int, int, str]]] | None = None
    _calls_by_scope: dict[str, list[tuple[str, str, int]]] | None = None
    _mentions: dict[str, list[tuple[str, str, int, bool]]] = field(default_factory=dict)

    @property
    def children(self) -> dict[str, list[tuple[int, int, str]]]:
        """Parent scope -> sorted (line, end_line, name) of the definitions directly in it."""
        if self._children is None:
            children: dict[str, list[tuple[int, int, str]]] = {}
            for row in self.definition_rows:
                name = row[0]
                children.setdefault(_parent(name), []).append((row[2], row[3], name))
            for spans in children.values():
                spans.sort()
            self._children = children
        return self._children

    def mentioning(self, segment: str) -> list[tuple[str, str, int, bool]]:
        """The calls (True) and reads (False) whose dotted name has ``segment`` as a part:
        found by searching the text of the uses, split only where it matches."""
        found = self._mentions.get(segment)
        if found is None:
            found = self._mentions[segment] = uses_mentioning(self.uses_text, segment)
        return found

    _imports_by_last: dict[str, list[tuple[str, str]]] | None = None

    def imports_of(self, segment: str) -> list[tuple[str, str]]:
        """(local, qualified) of the imports whose qualified name ends in ``segment``."""
        if self._imports_by_last is None:
            grouped: dict[str, list[tuple[str, str]]] = {}
            for local, qualified, _line in self.import_list:
                if local != "*":
                    grouped.setdefault(qualified.rpartition(".")[2], []).append((local, qualified))
            self._imports_by_last = grouped
        return self._imports_by_last.get(segment, [])

    def subclasses_naming(self, segment: str) -> list[Definition]:
        """The classes of this file with a base whose dotted name has ``segment`` as a part."""
        names = [
            row[0] for row in self.definition_rows
            if row[1] == "class" and any(segment in base.split(".") for base in row[5])
        ]
        kept = [self.defs[name] for name in dict.fromkeys(names)]
        return [definition for definition in kept if definition.kind == "class"]

    def calls_in(self, scope: str) -> list[tuple[str, str, int]]:
        if self._calls_by_scope is None:
            grouped: dict[str, list[tuple[str, str, int]]] = {}
            for row in self.uses_text.splitlines():
                tag, where, dotted, line = row.split("\t")
                if tag == "C":
                    grouped.setdefault(where, []).append((where, dotted, int(line)))
            self._calls_by_scope = grouped
        return self._calls_by_scope.get(scope, [])


def uses_mentioning(text: str, segment: str) -> list[tuple[str, str, int, bool]]:
    """(scope, dotted, line, is_call) of the use lines (``explain_index.encode_facts``)
    whose dotted name has ``segment`` as a part."""
    found: list[tuple[str, str, int, bool]] = []
    seen: set[int] = set()
    # A dotted part starts the third column (after a tab) or follows a dot, and is
    # followed by a dot, `()` or the tab before the line number.
    for needle in ("\t" + segment, "." + segment):
        at = text.find(needle)
        while at >= 0:
            end = at + len(needle)
            if end < len(text) and text[end] in ".\t(":
                start = text.rfind("\n", 0, at) + 1
                if start not in seen:
                    stop = text.find("\n", end)
                    tag, scope, dotted, line = text[start:stop].split("\t")
                    if segment in dotted.replace("()", "").split("."):
                        seen.add(start)
                        found.append((scope, dotted, int(line), tag == "C"))
            at = text.find(needle, end)
    return found


def _parent(name: str) -> str:
    return name.rpartition(".")[0] or MODULE


class LazyDefinitions(dict):
    """name -> Definition, made on first access from the decoded row (most files a
    question touches are looked at for one or two names)."""

    def __getitem__(self, name: str) -> Definition:
        value = dict.__getitem__(self, name)
        if type(value) is list:
            value = Definition(
                value[0], value[1], value[2], value[3], tuple(value[4]), tuple(value[5]),
                tuple(value[6]) if len(value) > 6 else (),
            )
            dict.__setitem__(self, name, value)
        return value

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[name] if name in self else default

    def values(self):  # type: ignore[override]
        return [self[name] for name in self]

    def items(self):  # type: ignore[override]
        return [(name, self[name]) for name in self]


def _view(number: int, path: str, data: list, uses: str) -> FileView:
    module, imports, definitions, bindings, main_blocks, complete = data
    table: dict[str, str] = {}
    stars: list[str] = []
    roots = {module.partition(".")[0]}
    for local, qualified, _line in imports:
        roots.add(qualified.partition(".")[0])
        if local == "*":
            stars.append(qualified)
        else:
            table.setdefault(local, qualified)
    defs = LazyDefinitions()
    for row in definitions:
        # Several definitions of one name: a variable keeps its first assignment; a
        # function or class its last definition (overloads come first).
        if row[1] != "variable" or row[0] not in defs:
            dict.__setitem__(defs, row[0], row)
    by_binding: dict[tuple[str, str], list[str]] = {}
    for scope, name, type_, _line in bindings:
        by_binding.setdefault((scope, name), []).append(type_)
    return FileView(
        number, path, module, uses, table, imports, stars, roots, defs, by_binding,
        [tuple(b) for b in main_blocks], complete, definitions,
    )


@dataclass
class _SegmentUses:
    hits: dict[NodeRef, list[tuple[int, str, str, int, bool]]]
    """What the uses reach -> (file, scope, dotted, line, is_call) of those uses."""
    overrides: list[tuple[tuple[int, str, str, int, bool], NodeRef | None, NodeRef | None]]
    """Calls of the name as a method: (use, class of `self` for `self.m()`, receiver's
    known class for `x.m()`)."""
    classes: list[tuple[int, Definition]]
    """Classes with a base naming the segment."""
    imports: list[tuple[int, str, str]]
    """(file, local name, qualified name) of imports of the segment."""
    unresolved: list[tuple[int, str, str, int, bool]] = field(default_factory=list)
    """Calls of the name as a method or function that reach nothing in the project: a
    receiver whose type is not known (`coder.run()` with `coder` from an untyped
    factory). Calls into imported libraries (`asyncio.run`) are not counted."""


@dataclass
class Edge:
    kind: str
    lines: list[int]
    receivers: set = field(default_factory=set)
    """How a method was reached: ("self", D) for `self.m()` inside class D, ("dispatch", D)
    when that call reaches an override in a subclass, ("type", T) for a receiver of type
    T (`x: T`, `T().m()`, `T.m`), ("plain", None) otherwise."""


class Graph:
    """Resolution over the project's facts; see the module docstring."""

    def __init__(self, files: Any, memo: dict[str, list] | None = None) -> None:
        self.files = files
        self.memo_in = memo or {}
        """Predecessors resolved by earlier questions on the same index (``node_key`` -> rows)."""
        self.memo_out: dict[str, list] = {}
        """Predecessors resolved by this question, to keep."""
        self.entries = files.entries
        self.by_module: dict[str, list[int]] = {}
        self.by_path: dict[str, int] = {}
        namespace: dict[str, list[str]] = {}
        for number, entry in enumerate(self.entries):
            self.by_module.setdefault(entry.module, []).append(number)
            self.by_path[entry.path] = number
            for alias in _namespace_names(entry.path, entry.module, namespace):
                self.by_module.setdefault(alias, []).append(number)
        self._views: dict[int, FileView] = {}
        self._resolved: dict[tuple[int, str, str], tuple[NodeRef, ...]] = {}
        self._preds: dict[NodeRef, dict[NodeRef, Edge]] = {}
        self._ancestors: dict[NodeRef, list[NodeRef]] = {}
        self._dotted: dict[tuple[str, bool], list[NodeRef]] = {}
        self._enclosing: dict[tuple[int, str], NodeRef | None] = {}
        self._resolving: set[tuple[str, bool]] = set()
        self._segments: dict[str, _SegmentUses] = {}
        self._file_segments: dict[tuple[int, str], _SegmentUses] = {}
        self._holders: dict[tuple[NodeRef, str], list[tuple[NodeRef, NodeRef | None]]] = {}
        self._descendants: dict[NodeRef, list[NodeRef]] = {}
        self._tops: set[str] | None = None
        self._receivers: dict[tuple[int, str, str], tuple] = {}
        self._project_map: Any = None
        self._project_of: dict[int, str] = {}

    # -- files ---------------------------------------------------------------------
    def view(self, number: int) -> FileView:
        view = self._views.get(number)
        if view is None:
            entry = self.entries[number]
            view = self._views[number] = _view(number, entry.path, entry.facts(), entry.uses())
        return view

    def node_id(self, ref: NodeRef) -> str:
        return f"{self.entries[ref[0]].path}:{ref[1]}"

    def definition(self, ref: NodeRef) -> Definition | None:
        return self.view(ref[0]).defs.get(ref[1])

    def qualified(self, ref: NodeRef) -> str:
        module = self.entries[ref[0]].module
        if ref[1] in (MODULE, MAIN):
            return f"{module}:{ref[1]}"
        return f"{module}.{ref[1]}" if module else ref[1]

    def line(self, ref: NodeRef) -> int:
        if ref[1] == MAIN:
            blocks = self.view(ref[0]).main_blocks
            return blocks[0][0] if blocks else 1
        definition = self.definition(ref)
        return definition.line if definition else 1

    def kind(self, ref: NodeRef) -> str:
        if ref[1] == MODULE:
            return "module"
        if ref[1] == MAIN:
            return "main"
        definition = self.definition(ref)
        return definition.kind if definition else "unknown"

    # -- resolution ------------------------------------------------------------------
    def resolve_dotted(self, dotted: str, hops: int = 0, strict: bool = False) -> list[NodeRef]:
        """A qualified dotted name -> the definitions it names (longest module first).
        Not ``strict``: the deepest definition on the way (``mod.PROMPT.format`` ->
        ``mod.PROMPT``); ``strict``: only a definition that the whole name names."""
        key = (dotted, strict)
        known = self._dotted.get(key)
        if known is not None:
            return known
        if hops > MAX_HOPS or key in self._resolving:
            return []  # an import cycle, or a chain too long to be real
        self._resolving.add(key)
        result: list[NodeRef] = []
        try:
            parts = dotted.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                numbers = self.by_module.get(".".join(parts[:cut]))
                if not numbers:
                    continue
                # The longest module prefix decides: `pkg.sub.X` is looked for in
                # `pkg.sub` (and what it imports), never as `pkg` + `sub.X`.
                for number in numbers:
                    result += self._resolve_in_file(number, parts[cut:], hops, strict)
                break
        finally:
            self._resolving.discard(key)
        self._dotted[key] = result
        return result

    def resolve_from(self, number: int, dotted: str, hops: int = 0, strict: bool = False) -> list[NodeRef]:
        """``resolve_dotted`` for a name imported in file ``number``, also trying it under
        the packages holding the file: `from server.manager import run` in
        `backend/server/app.py` works at run time when the code puts `backend/` on
        ``sys.path``, and then names `backend.server.manager`. Never for a
        standard-library name."""
        found = self.resolve_dotted(dotted, hops, strict)
        if found or dotted.partition(".")[0] in _STDLIB:
            return found
        packages = self.entries[number].module.split(".")[:-1]
        for cut in range(len(packages), 0, -1):
            prefix = ".".join(packages[:cut])
            if f"{prefix}.{dotted.partition('.')[0]}" in self.by_module:
                found = self.resolve_dotted(f"{prefix}.{dotted}", hops + 1, strict)
                if found:
                    return found
        return []

    def _resolve_in_file(self, number: int, rest: list[str], hops: int, strict: bool = False) -> list[NodeRef]:
        view = self.view(number)
        for cut in range(len(rest), 0, -1):
            name = ".".join(rest[:cut])
            if name in view.defs:
                if strict:
                    return [(number, name)] if cut == len(rest) else self._strict_members((number, name), rest[cut:])
                return self.member_chain((number, name), rest[cut:], hops)
        target = view.imports.get(rest[0])
        if target is not None:
            return self.resolve_from(number, ".".join([target, *rest[1:]]), hops + 1, strict)
        for base in view.stars:
            found = self.resolve_dotted(".".join([base, *rest]), hops + 1, strict)
            if found:
                return found
        return []

    def _strict_members(self, ref: NodeRef, rest: list[str]) -> list[NodeRef]:
        """``Cls.inherited_method``: a member looked up through the bases, exactly."""
        if len(rest) == 1 and self.kind(ref) == "class":
            return self.lookup_member(ref, rest[0])
        return []

    def member_chain(self, ref: NodeRef, rest: list[str], hops: int = 0) -> list[NodeRef]:
        """``ref`` followed by attribute accesses ``rest``: the deepest definition reached
        (a read of ``PROMPT.format`` is a read of ``PROMPT``)."""
        if not rest or hops > MAX_HOPS:
            return [ref]
        definition = self.definition(ref)
        if definition is None:
            return [ref]
        if definition.kind == "class":
            members = self.lookup_member(ref, rest[0])
            if members:
                out: list[NodeRef] = []
                for member in members:
                    out += self.member_chain(member, rest[1:], hops + 1)
                return out
            return [ref]
        if definition.kind in ("variable", "attribute"):
            # Every type the receiver may have (`x: A | B`, branches): each one's member.
            found = []
            for type_ in self.types_of(ref):
                found += self.type_member(ref[0], type_, rest, hops + 1)
            if found:
                return list(dict.fromkeys(found))
        return [ref]

    def _classes_of(self, number: int, type_: str, hops: int) -> list[NodeRef]:
        """The project classes a type name of file ``number`` stands for: a class; a
        variable's type (`runner = DEFAULT_RUNNER`); what a function returns
        (`agent = make_agent()`, `coder = Coder.create()`), through further functions."""
        classes: list[NodeRef] = []
        for found in self._resolve_name(number, type_, hops):
            kind = self.kind(found)
            if kind == "class":
                classes.append(found)
            elif hops < MAX_HOPS and kind in ("variable", "attribute", "function", "method"):
                inner_types = self.types_of(found) if kind in ("variable", "attribute") else self.returns_of(found)
                for inner in inner_types:
                    classes += self._classes_of(found[0], inner, hops + 1)
        return list(dict.fromkeys(classes))

    def returns_of(self, ref: NodeRef) -> tuple[str, ...]:
        definition = self.definition(ref)
        return definition.returns if definition is not None else ()

    def types_of(self, ref: NodeRef) -> list[str]:
        view = self.view(ref[0])
        definition = view.defs.get(ref[1])
        if definition is None:
            return []
        if definition.kind == "variable":
            return view.bindings.get((MODULE, ref[1]), [])
        if definition.kind == "attribute":
            owner, _, attr = ref[1].rpartition(".")
            return view.bindings.get((owner, f"self.{attr}"), [])
        return []

    def type_member(self, number: int, type_: str, rest: list[str], hops: int = 0) -> list[NodeRef]:
        """``rest`` looked up on an instance of ``type_`` (a dotted name from the facts of
        file ``number``)."""
        classes = self._classes_of(number, type_, hops)
        out: list[NodeRef] = []
        for cls in classes:
            members = self.lookup_member(cls, rest[0])
            for member in members:
                out += self.member_chain(member, rest[1:], hops + 1)
            if not members and len(rest) > 1 and hops < MAX_HOPS:
                # `researcher.prompt_family.curate()`: an instance attribute set in the
                # class (`self.prompt_family = PromptFamily()`), then a member of its type.
                for owner_number, inner in self.self_attr_types(cls, rest[0]):
                    out += self.type_member(owner_number, inner, rest[1:], hops + 1)
        return out

    def _resolve_name(self, number: int, dotted: str, hops: int = 0) -> list[NodeRef]:
        found = self.resolve_from(number, dotted, hops)
        if found:
            return found
        view = self.view(number)
        head, _, rest = dotted.partition(".")
        if head in view.defs:
            return self.member_chain((number, head), rest.split(".") if rest else [], hops)
        return []

    def bases(self, ref: NodeRef) -> list[NodeRef]:
        definition = self.definition(ref)
        if definition is None:
            return []
        out: list[NodeRef] = []
        for base in definition.bases:
            out += [b for b in self._resolve_name(ref[0], base) if self.kind(b) == "class" and b != ref]
        return out

    def ancestors(self, ref: NodeRef) -> list[NodeRef]:
        """The class and its bases in the project, in a simple MRO-like order."""
        known = self._ancestors.get(ref)
        if known is None:
            self._ancestors[ref] = [ref]  # while computing: a base that leads back here sees only this
            known, queue, seen = [], [ref], {ref}
            while queue:
                cls = queue.pop(0)
                known.append(cls)
                for base in self.bases(cls):
                    if base not in seen:
                        seen.add(base)
                        queue.append(base)
            self._ancestors[ref] = known
        return known

    def lookup_member(self, cls: NodeRef, member: str) -> list[NodeRef]:
        for owner in self.ancestors(cls):
            name = f"{owner[1]}.{member}"
            if name in self.view(owner[0]).defs:
                return [(owner[0], name)]
        return []

    def self_attr_types(self, cls: NodeRef, attr: str) -> list[tuple[int, str]]:
        """Types bound to ``self.attr`` in the class or its bases: (file number, type)."""
        out: list[tuple[int, str]] = []
        for owner in self.ancestors(cls):
            out += [(owner[0], t) for t in self.view(owner[0]).bindings.get((owner[1], f"self.{attr}"), [])]
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

    def descendants(self, cls: NodeRef) -> list[NodeRef]:
        """Every subclass of ``cls`` in the project, nearest first."""
        known = self._descendants.get(cls)
        if known is None:
            known = self._descendants[cls] = []
            queue = [cls]
            while queue:
                for sub in self.subclasses(queue.pop(0)):
                    if sub != cls and sub not in known:
                        known.append(sub)
                        queue.append(sub)
        return known

    def enclosing_class(self, number: int, scope: str) -> NodeRef | None:
        key = (number, scope)
        if key in self._enclosing:
            return self._enclosing[key]
        found = self._enclosing[key] = self._enclosing_class(number, scope)
        return found

    def _enclosing_class(self, number: int, scope: str) -> NodeRef | None:
        view = self.view(number)
        name = scope
        while name:
            definition = view.defs.get(name)
            if definition is not None and definition.kind == "class" and name != scope:
                return (number, name)
            name = name.rpartition(".")[0]
        return None

    def resolve_use(self, number: int, scope: str, dotted: str) -> tuple[NodeRef, ...]:
        """What a call or read of ``dotted`` inside ``scope`` of file ``number`` reaches."""
        key = (number, scope, dotted)
        known = self._resolved.get(key)
        if known is None:
            known = self._resolved[key] = tuple(dict.fromkeys(self._resolve_use(number, scope, dotted)))
        return known

    def _resolve_use(self, number: int, scope: str, dotted: str) -> list[NodeRef]:
        head, _, rest_text = dotted.partition(".")
        rest = rest_text.split(".") if rest_text else []
        if dotted == "cls":
            # `cls(...)` in a classmethod constructs the class.
            cls = self.enclosing_class(number, scope)
            return [cls] if cls is not None else []
        if head in SELF_NAMES and rest:
            cls = self.enclosing_class(number, scope)
            if cls is None:
                return []
            members = self.lookup_member(cls, rest[0])
            if members:
                out: list[NodeRef] = []
                for member in members:
                    out += self.member_chain(member, rest[1:])
                return out
            out = []
            if len(rest) > 1:
                for owner_number, type_ in self.self_attr_types(cls, rest[0]):
                    out += self.type_member(owner_number, type_, rest[1:])
                if not out:
                    # The base class reads `self.prompts.X` and each subclass sets
                    # `prompts`: what the subclasses hold.
                    for sub, member in self.attribute_holders(cls, rest[0]):
                        if member is not None:
                            out += self.member_chain(member, rest[1:])
                        for owner_number, type_ in self.self_attr_types(sub, rest[0]):
                            out += self.type_member(owner_number, type_, rest[1:])
                    out = list(dict.fromkeys(out))
            return out
        if "()." in dotted:
            receiver, _, member = dotted.partition("().")
            members = member.split(".")
            if receiver == "super":
                cls = self.enclosing_class(number, scope)
                if cls is None:
                    return []
                for base in self.bases(cls):
                    found = self.lookup_member(base, members[0])
                    if found:
                        return found
                return []
            # `Foo().m()`: a method of a fresh instance.
            return self.type_member(number, receiver, members) if self.view(number).roots & {receiver.partition(".")[0]} else []
        view = self.view(number)
        if rest and head in view.roots:
            found = self.resolve_from(number, dotted)
            if found:
                return found
        # A receiver whose type is known in this scope: `x = Foo(); x.m()`.
        if rest:
            types = view.bindings.get((scope, head))
            if types:
                out = []
                for type_ in types:
                    out += self.type_member(number, type_, rest)
                if out:
                    return out
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

    # -- where a use sits --------------------------------------------------------------
    def site(self, number: int, scope: str, line: int) -> NodeRef:
        """The node that a call or read at ``line`` inside ``scope`` belongs to."""
        view = self.view(number)
        if scope == MODULE:
            for start, end in view.main_blocks:
                if start <= line <= end:
                    return (number, MAIN)
            inner = self._innermost_child(view, MODULE, line)
            if inner is not None:
                return (number, inner)
            return (number, MODULE)
        definition = view.defs.get(scope)
        if definition is None:
            return (number, MODULE)
        if definition.kind == "class":
            inner = self._innermost_child(view, scope, line)
            if inner is not None:
                return (number, inner)
        elif definition.kind == "method":
            # `self.prompt = SYSTEM_PROMPT` in `__init__`: the attribute `Cls.prompt` holds
            # the value; whoever reads `self.prompt` uses it.
            owner = scope.rpartition(".")[0]
            inner = self._innermost_child(view, owner, line)
            if inner is not None and inner != scope and view.defs[inner].kind == "attribute":
                return (number, inner)
        return (number, scope)

    def _innermost_child(self, view: FileView, parent: str, line: int) -> str | None:
        spans = view.children.get(parent)
        if not spans:
            return None
        index = bisect.bisect_right(spans, (line, 1 << 62, ""))
        best = None
        for start, end, name in reversed(spans[:index]):
            if start <= line <= end:
                if best is None or (end - start) < best[0]:
                    best = (end - start, name)
            if line - start > 20000:
                break
        return best[1] if best else None

    def node_at(self, number: int, line: int) -> NodeRef:
        """The innermost definition holding ``line`` (for a literal found in the source)."""
        view = self.view(number)
        for start, end in view.main_blocks:
            if start <= line <= end:
                return (number, MAIN)
        scope = MODULE
        while True:
            inner = self._innermost_child(view, scope, line)
            if inner is None:
                break
            scope = inner
        if scope == MODULE:
            return self.site(number, MODULE, line)
        return (number, scope)

    # -- predecessors --------------------------------------------------------------------
    def predecessors(self, ref: NodeRef) -> dict[NodeRef, Edge]:
        """Every node that uses ``ref``, with how and on which lines."""
        known = self._preds.get(ref)
        if known is not None:
            return known
        key = self.node_key(ref)
        rows = self.memo_in.get(key)
        if rows is not None:
            restored = self._from_rows(rows)
            if restored is not None:
                self._preds[ref] = restored
                return restored
        preds = self._predecessors(ref)
        self._preds[ref] = preds
        self.memo_out[key] = self._to_rows(preds)
        if self.kind(ref) in ("function", "method"):
            # Kept too, so that a question asked again does not search the name again
            # for "where the search may have stopped early".
            self.memo_out[key + _UNRESOLVED] = [list(call) for call in self.unresolved_calls(ref)]
        return preds

    def node_key(self, ref: NodeRef) -> str:
        return f"{self.entries[ref[0]].path}\0{ref[1]}"

    def _ref_of(self, path: str, name: str) -> NodeRef | None:
        number = self.by_path.get(path)
        return None if number is None else (number, name)

    def _to_rows(self, preds: dict[NodeRef, Edge]) -> list:
        rows = []
        for source, edge in preds.items():
            receivers = [
                [tag, None, None] if cls is None else [tag, self.entries[cls[0]].path, cls[1]]
                for tag, cls in edge.receivers
            ]
            rows.append([self.entries[source[0]].path, source[1], edge.kind, sorted(edge.lines), receivers])
        return rows

    def _from_rows(self, rows: list) -> dict[NodeRef, Edge] | None:
        preds: dict[NodeRef, Edge] = {}
        try:
            for path, name, kind, lines, receivers in rows:
                source = self._ref_of(path, name)
                if source is None:
                    return None
                restored = set()
                for tag, cls_path, cls_name in receivers:
                    cls = None if cls_path is None else self._ref_of(cls_path, cls_name)
                    if cls_path is not None and cls is None:
                        return None
                    restored.add((tag, cls))
                preds[source] = Edge(kind, list(lines), restored)
        except (TypeError, ValueError):
            return None
        return preds

    def _predecessors(self, ref: NodeRef) -> dict[NodeRef, Edge]:
        preds: dict[NodeRef, Edge] = {}
        if ref[1] in (MODULE, MAIN):
            return preds

        def add(source: NodeRef, kind: str, line: int, receiver: tuple = ("plain", None)) -> None:
            if source == ref:
                return
            edge = preds.get(source)
            if edge is None:
                edge = preds[source] = Edge(kind, [line])
            else:
                if line not in edge.lines:
                    edge.lines.append(line)
                if edge.kind != kind and _EDGE_RANK[kind] < _EDGE_RANK[edge.kind]:
                    edge.kind = kind
            edge.receivers.add(receiver)

        number, name = ref
        view = self.view(number)
        definition = view.defs.get(name)
        kind = definition.kind if definition else "unknown"
        parent = name.rpartition(".")[0]
        if parent:
            owner = view.defs.get(parent)
            if owner is not None and owner.kind == "class":
                last = name.rpartition(".")[2]
                if last in CONSTRUCTOR_METHODS:
                    add((number, parent), "constructs", owner.line)
                elif _kinds.framework_class(self, (number, parent)):
                    add((number, parent), "member", owner.line)
            elif owner is not None and owner.kind in ("function", "method"):
                add((number, parent), "defines", owner.line)

        if kind in ("function", "method") and definition is not None:
            # `@agent.tool`, `@agent.system_prompt`, `@mcp.tool()` on an object made at
            # module level: that object (the agent, the server) will call the function.
            for decorator in definition.decorators:
                holder, _, tail = decorator.rpartition(".")
                if tail not in _kinds.REGISTRATION_DECORATORS:
                    continue  # a route or a command is an entry point; `@dispatcher.span` wraps in place
                if holder and holder.partition(".")[0] in view.roots:
                    for found in self.resolve_dotted(holder, strict=True):
                        if self.kind(found) in ("variable", "attribute"):
                            add(found, "registers", definition.line)

        owner = view.defs.get(parent) if parent else None
        target_class = (number, parent) if kind == "method" and owner is not None and owner.kind == "class" else None
        segments = {name.rpartition(".")[2]}
        if kind == "class":
            segments.add("cls")  # `cls(...)` in the class's own classmethods
        searched: set[str] = set()
        while segments - searched:
            segment = (segments - searched).pop()
            searched.add(segment)
            self._scan(segment, ref, kind, target_class, segments, add)
        if kind == "attribute" and not preds:
            add((number, parent), "member", view.defs[parent].line)
        return preds

    def same_project(self, number: int, other: int) -> bool:
        """Whether two files belong to one project (``projects.ProjectMap``: markers or
        `project-roots`). Only asked when the module names of the project collide
        (two apps of a monorepo with their own `app.prompts`), so the common answer
        costs nothing."""
        if number == other:
            return True
        settings = getattr(self.files, "settings", None)
        if settings is None:
            return True
        if self._project_map is None:
            from agentlint.engine.boundaries import ProjectMap

            self._project_map = ProjectMap(settings)
        roots = []
        for n in (number, other):
            root = self._project_of.get(n)
            if root is None:
                root = self._project_of[n] = self._project_map.root_for(self.entries[n].path)
            roots.append(root)
        return roots[0] == roots[1]

    def _collides(self, ref: NodeRef) -> bool:
        return len(self.by_module.get(self.entries[ref[0]].module, ())) > 1

    def _segment_uses(self, segment: str, numbers: Iterable[int] | None = None) -> "_SegmentUses":
        """Every use of ``segment`` in the project (or in the files ``numbers``), resolved
        once and grouped by what it reaches: the methods of a broad name (``run``,
        ``chat``) are asked about one after another, and each then looks up its own uses
        instead of rescanning every file that mentions the name."""
        if numbers is None:
            found = self._segments.get(segment)
            if found is None:
                # Files where only locals of unknown type use the name: nothing to resolve
                # there, only calls to count for "stopped early" (never for builtin-like
                # or dunder names), read from the use lines without decoding the facts.
                live = self.files.files_using(segment, True)
                found = self._segments[segment] = self._gather(segment, live)
                if _counts_when_stopped(segment):
                    resolvable = set(live)
                    for number in self.files.files_using(segment):
                        if number not in resolvable:
                            found.unresolved += [
                                (number, scope, dotted, line, True)
                                for scope, dotted, line, is_call in uses_mentioning(self.entries[number].uses(), segment)
                                if is_call and dotted.rpartition(".")[2] == segment
                            ]
            return found
        return self._gather(segment, numbers)

    def _gather(self, segment: str, numbers: Iterable[int]) -> "_SegmentUses":
        out = _SegmentUses({}, [], [], [])
        for number in numbers:
            part = self._file_uses(number, segment)
            for target, uses in part.hits.items():
                out.hits.setdefault(target, []).extend(uses)
            out.overrides += part.overrides
            out.classes += part.classes
            out.imports += part.imports
            out.unresolved += part.unresolved
        return out

    def _file_uses(self, number: int, segment: str) -> "_SegmentUses":
        key = (number, segment)
        found = self._file_segments.get(key)
        if found is not None:
            return found
        found = self._file_segments[key] = _SegmentUses({}, [], [], [])
        view = self.view(number)
        for scope, dotted, line, is_call in view.mentioning(segment):
            use = (number, scope, dotted, line, is_call)
            targets = self.resolve_use(number, scope, dotted)
            for target in targets:
                found.hits.setdefault(target, []).append(use)
            # `editor.run()` on a module-level `editor = Editor(...)`: the call goes to
            # `Editor.run`, and it also reads `editor` (and what its constructor got).
            parts = dotted.split(".")
            if len(parts) > 1 and segment in parts[:-1] and "()" not in dotted:
                prefix = ".".join(parts[: parts.index(segment) + 1])
                for target in self.resolve_use(number, scope, prefix):
                    if target not in targets and self.kind(target) in ("variable", "attribute"):
                        found.hits.setdefault(target, []).append((number, scope, prefix, line, False))
            if is_call and dotted.rpartition(".")[2] == segment:
                if not targets and self.unknown_receiver(view, dotted):
                    found.unresolved.append(use)
                # A call that may reach an override in a subclass: `self.m()` in a base
                # class, or `x.m()` with `x: Base`.
                head, _, rest = dotted.partition(".")
                dispatch = self.enclosing_class(number, scope) if head in SELF_NAMES and rest == segment else None
                tag, base = self.receiver(number, scope, dotted)
                if dispatch is not None or tag == "type":
                    found.overrides.append((use, dispatch, base if tag == "type" else None))
        found.classes = [(number, definition) for definition in view.subclasses_naming(segment)]
        found.imports = [(number, local, qualified) for local, qualified in view.imports_of(segment)]
        return found

    def unknown_receiver(self, view: FileView, dotted: str) -> bool:
        """`x.m()` where ``x`` is neither an imported library nor `super()`."""
        head, dot, _ = dotted.partition(".")
        if not dot or head.startswith("super("):
            return False
        if head in view.roots and head not in self._project_tops():
            return False  # `asyncio.run`, `client.chat.completions.create` on an imported module
        return True

    def _project_tops(self) -> set[str]:
        if self._tops is None:
            self._tops = {name.partition(".")[0] for name in self.by_module}
        return self._tops

    def unresolved_calls(self, ref: NodeRef) -> list[tuple[str, int]]:
        """(path, line) of the calls of ``ref``'s name that reach nothing known (see
        ``_SegmentUses.unresolved``): where the search may have stopped too early."""
        if self.kind(ref) not in ("function", "method"):
            return []
        kept = self.memo_in.get(self.node_key(ref) + _UNRESOLVED)
        if isinstance(kept, list):
            try:
                return [(str(path), int(line)) for path, line in kept]
            except (TypeError, ValueError):
                pass
        name = ref[1].rpartition(".")[2]
        if not _counts_when_stopped(name):
            return []
        seen = []
        for number, _scope, _dotted, line, _call in self._segment_uses(name).unresolved:
            if self.same_project(number, ref[0]):
                seen.append((self.entries[number].path, line))
        return sorted(set(seen))

    def subclasses(self, cls: NodeRef) -> list[NodeRef]:
        """The classes of the project that name ``cls`` as a base (under its name or an
        alias it is imported as)."""
        out: list[NodeRef] = []
        names = [cls[1].rpartition(".")[2]]
        for name in names:
            uses = self._segment_uses(name)
            for number, definition in uses.classes:
                sub = (number, definition.name)
                if sub not in out and cls in self.bases(sub):
                    out.append(sub)
            for _number, local, qualified in uses.imports:
                if local not in names and cls in self.resolve_dotted(qualified):
                    names.append(local)
        return out

    def _constructor_files(self, cls: NodeRef) -> set[int]:
        """Where `K.__init__` can be called from: the files of K and of its subclasses
        (``super().__init__()``, ``self.__init__()``) and those naming K or a subclass
        (``K.__init__(self)``)."""
        files: set[int] = set()
        for member in [cls, *self.descendants(cls)]:
            files.add(member[0])
            files.update(self.files.files_using(member[1].rpartition(".")[2]))
        return files

    def _scan(self, segment: str, ref: NodeRef, kind: str, target_class, segments: set[str], add) -> None:
        """The uses of ``ref`` through the name ``segment``."""
        if target_class is not None and segment == ref[1].rpartition(".")[2] and segment in CONSTRUCTOR_METHODS:
            # Every class has an `__init__`: search only where this one can be reached.
            uses = self._segment_uses(segment, sorted(self._constructor_files(target_class)))
        elif segment == "cls" and kind == "class":
            uses = self._segment_uses(segment, [ref[0]])
        else:
            uses = self._segment_uses(segment)
        collides = self._collides(ref)
        # Another application of the monorepo with a module of the same name is not a user.
        foreign = (lambda number: not self.same_project(number, ref[0])) if collides else (lambda number: False)
        last = ref[1].rpartition(".")[2]
        for number, scope, dotted, line, is_call in uses.hits.get(ref, ()):
            if foreign(number):
                continue
            view = self.view(number)
            if self._is_decorator(view, scope, dotted, line):
                continue  # `@agent.tool` above a def: the `registers` link says it
            if kind == "class":
                # Only `K(...)` (or `cls(...)` in K) constructs K (and runs its `__init__`);
                # `isinstance(x, K)`, `super(K, self)`, a type hint or `K.unknown_method()` do not.
                if not is_call or dotted.replace("()", "").rpartition(".")[2] not in (last, "cls"):
                    continue
                use = "calls"
            elif not is_call or kind in ("variable", "attribute"):
                use = "reads" if kind in ("variable", "attribute") else "uses"
            else:
                use = "calls"
            receiver = self.receiver(number, scope, dotted) if target_class is not None else ("plain", None)
            add(self.site(number, scope, line), use, line, receiver)
        if target_class is not None and segment == last:
            for (number, scope, dotted, line, _call), dispatch, base in uses.overrides:
                if foreign(number) or ref in self.resolve_use(number, scope, dotted):
                    continue
                if dispatch is not None and dispatch != target_class and dispatch in self.ancestors(target_class):
                    add(self.site(number, scope, line), "calls", line, ("dispatch", dispatch))
                elif base is not None and base != target_class and base in self.ancestors(target_class):
                    # `x.m()` with `x: Base` reaches the override `C.m` of a subclass C.
                    add(self.site(number, scope, line), "calls", line, ("type", base))
        if kind == "class":
            for number, definition in uses.classes:
                sub = (number, definition.name)
                if not foreign(number) and ref in self.bases(sub):
                    add(sub, "inherits", definition.line)
        for number, local, qualified in uses.imports:
            if local in segments or foreign(number):
                continue
            if ref in self.resolve_dotted(qualified):
                segments.add(local)  # re-exported under another name: search that one too

    def _is_decorator(self, view: FileView, scope: str, dotted: str, line: int) -> bool:
        """Is this use the decorator of a definition just below it?"""
        if scope != MODULE and view.defs.get(scope) is not None and view.defs[scope].kind != "class":
            return False
        for start, _end, name in view.children.get(scope if scope != MODULE else MODULE, ()):
            if 0 < start - line <= 20:
                definition = view.defs.get(name)
                if definition is not None and any(
                    d == dotted or d.endswith("." + dotted) for d in definition.decorators
                ):
                    return True
        return False

    def receiver(self, number: int, scope: str, dotted: str) -> tuple:
        """What a method call's receiver is known to be (see ``Edge.receivers``)."""
        key = (number, scope, dotted)
        known = self._receivers.get(key)
        if known is None:
            known = self._receivers[key] = self._receiver(number, scope, dotted)
        return known

    def _receiver(self, number: int, scope: str, dotted: str) -> tuple:
        head, _, rest = dotted.partition(".")
        if head in SELF_NAMES and rest and "." not in rest:
            cls = self.enclosing_class(number, scope)
            return ("self", cls) if cls is not None else ("plain", None)
        if "()." in dotted:
            made = dotted.partition("().")[0]
            if made == "super":
                cls = self.enclosing_class(number, scope)
                return ("self", cls) if cls is not None else ("plain", None)
            for cls in self._resolve_name(number, made):
                if self.kind(cls) == "class":
                    return ("type", cls)
            return ("plain", None)
        parts = dotted.split(".")
        view = self.view(number)
        types: list[tuple[int, str]] = []
        if head in SELF_NAMES and len(parts) > 2:
            cls = self.enclosing_class(number, scope)
            if cls is not None:
                types = self.self_attr_types(cls, parts[1])
        elif (scope, head) in view.bindings and len(parts) > 1:
            types = [(number, t) for t in view.bindings[(scope, head)]]
        else:
            owner = self.resolve_dotted(".".join(parts[:-1])) if len(parts) > 1 and head in view.roots else []
            for ref in owner:
                if self.kind(ref) == "class":
                    return ("type", ref)
                types += [(ref[0], t) for t in self.types_of(ref)]
        for owner_number, type_ in types:
            for cls in self._resolve_name(owner_number, type_):
                if self.kind(cls) == "class":
                    return ("type", cls)
                for inner in self.types_of(cls) if self.kind(cls) == "variable" else ():
                    for found in self._resolve_name(cls[0], inner):
                        if self.kind(found) == "class":
                            return ("type", found)
        return ("plain", None)

    # -- whole graph ------------------------------------------------------------------------
    def full(self):
        """Every edge of the project as a networkx DiGraph (slow on big projects)."""
        import networkx as nx

        graph = nx.DiGraph()
        for number in range(len(self.entries)):
            view = self.view(number)
            for name in view.defs:
                graph.add_node(self.node_id((number, name)))
        for number in range(len(self.entries)):
            for name in list(self.view(number).defs):
                ref = (number, name)
                for source, edge in self.predecessors(ref).items():
                    graph.add_edge(self.node_id(source), self.node_id(ref), kind=edge.kind, lines=sorted(edge.lines))
        return graph


def _namespace_names(path: str, module: str, known: dict[str, list[str]]) -> list[str]:
    """Longer names of ``module`` when its top package sits in namespace packages
    (folders without ``__init__.py``, such as ``llama_index/`` or ``google/``): the facts
    name ``llama_index/core/x.py`` ``core.x``, its importers ``llama_index.core.x``."""
    if not module:
        return []
    directory, _, filename = path.rpartition(os.sep)
    prefixes = known.get(directory)
    if prefixes is None:
        package = module if filename == "__init__.py" else module.rpartition(".")[0]
        folder = os.path.abspath(directory or ".")
        for _ in range(package.count(".") + 1 if package else 0):
            folder = os.path.dirname(folder)
        prefixes = []
        name, parent = os.path.basename(folder), folder
        for _ in range(2):
            if not name.isidentifier() or os.path.isfile(os.path.join(parent, "__init__.py")):
                break
            prefixes.append(name if not prefixes else f"{name}.{prefixes[-1]}")
            parent = os.path.dirname(parent)
            name = os.path.basename(parent)
        known[directory] = prefixes
    return [f"{prefix}.{module}" for prefix in prefixes]


_EDGE_RANK = {
    "calls": 0, "reads": 1, "inherits": 2, "uses": 3, "registers": 4, "constructs": 5, "defines": 6, "member": 7,
}


# -- the blast radius ----------------------------------------------------------------------


_INCOMPATIBLE = object()


def _narrow(graph: Graph, a: NodeRef | None, b: NodeRef | None):
    """The more specific of two class constraints, or _INCOMPATIBLE when unrelated."""
    if a is None:
        return b
    if b is None:
        return a
    if b in graph.ancestors(a):
        return a
    if a in graph.ancestors(b):
        return b
    return _INCOMPATIBLE


def _step(graph: Graph, constraint: NodeRef | None, node: NodeRef, edge: Edge, source: NodeRef | None = None) -> set:
    """The class constraints under which a predecessor is reached through ``edge``.

    A constraint says "``self`` is an instance of this class": it appears when a
    ``self.m()`` call in a base class is followed down to an override (the base method
    reaches the override only for instances of the subclass), and it rules out callers
    whose receiver is an unrelated class (a sibling subclass)."""
    out: set = set()
    if constraint is not None and source is not None and edge.kind in ("member", "constructs", "inherits"):
        # From a method up to its class, or from a base class down to a subclass: the
        # instance is still a `constraint`; a sibling subclass is not one.
        narrowed = _narrow(graph, constraint, source)
        return set() if narrowed is _INCOMPATIBLE else {narrowed}
    for tag, cls in edge.receivers:
        if tag == "dispatch":
            owner = (node[0], node[1].rpartition(".")[0])
            narrowed = _narrow(graph, constraint, owner)
            if narrowed is not _INCOMPATIBLE and narrowed is not None and source is not None:
                # `Base.summarize` calls `self.act()`, reaching the override `C.act` only
                # when `self` is a C; if C overrides `summarize` too, the base one never
                # runs on a C.
                method = source[1].rpartition(".")[2]
                if graph.kind(source) == "method" and graph.lookup_member(narrowed, method) not in ([source], []):
                    narrowed = _INCOMPATIBLE
        elif tag == "self":
            narrowed = _narrow(graph, constraint, cls)
            if narrowed is not _INCOMPATIBLE and narrowed == cls and constraint is None:
                narrowed = None
        elif tag == "type":
            narrowed = None if _narrow(graph, constraint, cls) is not _INCOMPATIBLE else _INCOMPATIBLE
        else:
            narrowed = None
        if narrowed is not _INCOMPATIBLE:
            out.add(narrowed)
    return out


def reverse_reach(graph: Graph, targets: Iterable[NodeRef], depth: int | None = None):
    """Breadth-first over predecessors from ``targets``: (networkx DiGraph of the nodes
    reached, {node: distance}). The search carries a class constraint through methods
    (see ``_step``), so a base-class method that calls an overridden method does not
    bring in the callers that use a sibling subclass."""
    import networkx as nx

    out = nx.DiGraph()
    distance: dict[NodeRef, int] = {}
    seen: set = set()
    # (node, class constraint, member): `member` is the attribute or method a class was
    # reached from through a `member` link (`B.attr` unread, so `B` uses it); a subclass
    # that overrides it does not use `B.attr`, so `inherits` links to it are not followed.
    frontier: list[tuple[NodeRef, NodeRef | None, NodeRef | None]] = []
    for target in targets:
        if target not in distance:
            distance[target] = 0
            frontier.append((target, None, None))
            seen.add((target, None, None))
            out.add_node(target)
    level = 0
    while frontier and (depth is None or level < depth):
        level += 1
        following: list[tuple[NodeRef, NodeRef | None, NodeRef | None]] = []
        for node, constraint, member in frontier:
            for source, edge in graph.predecessors(node).items():
                if member is not None and edge.kind == "inherits":
                    if graph.lookup_member(source, member[1].rpartition(".")[2]) not in ([member], []):
                        continue  # the subclass has its own: it never uses this one
                states = _step(graph, constraint, node, edge, source)
                if not states:
                    continue
                out.add_edge(source, node, kind=edge.kind, lines=sorted(edge.lines))
                if source not in distance:
                    distance[source] = level
                if edge.kind in ("calls", "reads", "uses") and graph.kind(source) == "class":
                    # Code in a class body (bases, a metaclass, class-level statements)
                    # runs once, when the class is defined: whoever constructs the
                    # class later does not run it again. The class is a root here.
                    continue
                if edge.kind == "member":
                    carried = node
                elif edge.kind == "inherits":
                    carried = member
                else:
                    carried = None
                for state in states:
                    if (source, state, carried) not in seen:
                        seen.add((source, state, carried))
                        following.append((source, state, carried))
        frontier = following
    return out, distance
