"""Nodes and edges of the explain graph, and each file's facts as the graph reads them.

A node is a definition (``NodeRef``: the file's number in the index and the dotted name
inside it) or one of two pseudo-nodes per module, ``<module>`` and ``<main>``; an edge
(``Edge``) points from the user to the used. ``FileView`` decodes one file's facts from
the index lazily: definitions on first look-up, uses only when a question asks.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from agentlint.lazy_regex import lazy_compile

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


GRAPH_VERSION = 4
"""Version of the resolution rules; kept predecessors (the memo) of another are dropped."""


NodeRef = tuple[int, str]
"""(file number, definition name) — a node before it is given its string id."""


def _counts_when_stopped(name: str) -> bool:
    """Whether calls of ``name`` on unknown receivers say where the search may have
    stopped: not for `.update()`, `.get()` (dicts and lists) or dunders."""
    return not (name.startswith("__") or name in _BUILTIN_METHODS)


_OPS = lazy_compile(r"\(\)|\[[^\]]*\]")
_HEAD = lazy_compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*(?=[.[(]|\Z)|[A-Za-z_][A-Za-z0-9_]*")
"""A name, or a module name that is not one (`05_fast_agent` of a numbered example, or
`agent-demo` of a notebook), up to a dot, a call or a subscript: the facts qualify that module's own
names with it."""


def chain_names(dotted: str) -> list[str]:
    """The names of a use (``facts.bindings`` chains): `agents[reviewer].run` ->
    `agents`, `run`; `pkg.Foo().m` -> `pkg`, `Foo`, `m`; `self.cmd_*` -> `self`, `cmd_*`."""
    if "(" in dotted or "[" in dotted:
        dotted = _OPS.sub("", dotted)
    return dotted.split(".")


def head_name(dotted: str) -> str:
    """The first name of a use or type expression (`agents` of `agents[reviewer].run`)."""
    found = _HEAD.match(dotted)
    return found.group(0) if found else ""


BY_NAME = "dispatched by name"
"""The link from a use of a name built at run time (`getattr(self, f"cmd_{name}")`) to
each definition it may name."""


def by_name(dotted: str) -> bool:
    """A use of a name built or looked up at run time (`self.cmd_*`, `self.outline?`)."""
    return dotted.endswith(("*", "?"))


def memo_nodes(memo: dict) -> int:
    """How many nodes a memo holds (each function also has its unresolved calls)."""
    return sum(1 for key in memo if not key.endswith(_UNRESOLVED))


class _Edges:
    """``graph.edges(data=True)`` and ``graph.edges[u, v]``, as networkx spells them."""

    __slots__ = ("_graph",)

    def __init__(self, graph: "DiGraph") -> None:
        self._graph = graph

    def __call__(self, data: bool = False) -> list:
        succ = self._graph._succ
        if data:
            return [(u, v, d) for u, targets in succ.items() for v, d in targets.items()]
        return [(u, v) for u, targets in succ.items() for v in targets]

    def __getitem__(self, pair: tuple) -> dict:
        return self._graph._succ[pair[0]][pair[1]]

    def __iter__(self):
        return iter(self())

    def __len__(self) -> int:
        return sum(len(targets) for targets in self._graph._succ.values())


class DiGraph:
    """A directed graph with the few operations the answer uses (nodes in insertion
    order, edge data dicts, degrees, successors), as networkx names them; importing
    networkx costs 0.1-0.2 s, most of a warm answer."""

    def __init__(self) -> None:
        self._succ: dict[Any, dict[Any, dict]] = {}
        self._pred: dict[Any, dict[Any, dict]] = {}

    def add_node(self, node: Any) -> None:
        if node not in self._succ:
            self._succ[node] = {}
            self._pred[node] = {}

    def add_edge(self, source: Any, target: Any, **data: Any) -> None:
        self.add_node(source)
        self.add_node(target)
        found = self._succ[source].get(target)
        if found is None:
            found = self._succ[source][target] = {}
            self._pred[target][source] = found
        found.update(data)

    @property
    def nodes(self) -> list:
        return list(self._succ)

    @property
    def edges(self) -> _Edges:
        return _Edges(self)

    def successors(self, node: Any) -> list:
        return list(self._succ.get(node, ()))

    def predecessors(self, node: Any) -> list:
        return list(self._pred.get(node, ()))

    def out_degree(self, node: Any) -> int:
        return len(self._succ.get(node, ()))

    def in_degree(self, node: Any) -> int:
        return len(self._pred.get(node, ()))

    def __contains__(self, node: Any) -> bool:
        return node in self._succ

    def __len__(self) -> int:
        return len(self._succ)


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
    """Calls and reads as text lines (see ``index.encode_facts``)."""
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
    _arguments: dict[tuple[str, str, int], list[str]] | None = None
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
            for row in self.uses_text.split("\n"):
                if not row:
                    continue
                tag, where, dotted, line = row.split("\t")[:4]
                if tag == "C":
                    grouped.setdefault(where, []).append((where, dotted, int(line)))
            self._calls_by_scope = grouped
        return self._calls_by_scope.get(scope, [])

    def arguments(self, scope: str, dotted: str, line: int) -> list[str]:
        """What the call of ``dotted`` at ``line`` passes (``CallFact.args``: `0=self`)."""
        return self.passing().get((scope, dotted, line), [])

    def passing(self) -> dict[tuple[str, str, int], list[str]]:
        """(scope, callee, line) -> what the call passes, for every call that passes something."""
        if self._arguments is None:
            found: dict[tuple[str, str, int], list[str]] = {}
            text = self.uses_text
            at = text.find(ARGS_MARK)
            while at >= 0:
                start = text.rfind("\n", 0, at) + 1
                stop = text.find("\n", at)
                fields = text[start:stop].split("\t")
                found.setdefault((fields[1], fields[2], int(fields[3])), []).extend(fields[4][1:].split(ARGS_SEPARATOR))
                at = text.find(ARGS_MARK, stop)
            self._arguments = found
        return self._arguments


def uses_mentioning(text: str, segment: str) -> list[tuple[str, str, int, bool]]:
    """(scope, dotted, line, is_call) of the use lines (``index.encode_facts``)
    whose dotted name has ``segment`` as a part."""
    found: list[tuple[str, str, int, bool]] = []
    seen: set[int] = set()
    # A dotted part starts the third column (after a tab) or follows a dot, and is
    # followed by a dot, `()`, `[` or the tab before the line number.
    for needle in ("\t" + segment, "." + segment):
        at = text.find(needle)
        while at >= 0:
            end = at + len(needle)
            if end < len(text) and text[end] in ".\t([":
                start = text.rfind("\n", 0, at) + 1
                if start not in seen:
                    stop = text.find("\n", end)
                    tag, scope, dotted, line = text[start:stop].split("\t")[:4]
                    if segment in chain_names(dotted):
                        seen.add(start)
                        found.append((scope, dotted, int(line), tag == "C"))
            at = text.find(needle, end)
    return found


ARGS_MARK = "\t\x1e"
"""Starts the fifth column of a call line: what it passes (``CallFact.args``)."""
ARGS_SEPARATOR = "\x1f"


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
