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
  ``kinds``) uses its methods and attributes; any other class uses a class
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
builds the graph of the blast radius. ``Graph.full()`` builds every edge (for
tests and small projects); both agree by construction (one resolver).
"""

from __future__ import annotations

from agentlint.explain.kinds import framework_class
from agentlint.explain.nodes import (
    _UNRESOLVED,
    BY_NAME,
    CONSTRUCTOR_METHODS,
    MAIN,
    DiGraph,
    MODULE,
    Edge,
    FileView,
    NodeRef,
    _counts_when_stopped,
    by_name,
    chain_names,
)
from agentlint.explain.values import Values
from agentlint.knowledge.frameworks import REGISTRATION_DECORATORS

_DATA_DECORATORS = frozenset({"dataclass", "define", "frozen", "attrs", "s"})
"""Decorators that make a class a data class: its fields are filled when an object is made."""
_DATA_BASES = frozenset({"BaseModel", "BaseSettings", "TypedDict", "NamedTuple", "Struct", "RootModel"})
"""Bases of data classes (pydantic, typing, msgspec)."""


_EDGE_RANK = {
    "calls": 0, BY_NAME: 1, "reads": 2, "inherits": 3, "uses": 4, "registers": 5, "constructs": 6, "defines": 7,
    "member": 8,
}
_PLAIN = (("plain", None),)
_NAMED_TAGS = ("field", "keyed")
"""Receiver tags that carry a name (a field read, a key condition), not a class."""


class Graph(Values):
    """The predecessors of a node (who uses it), resolved lazily; see the module docstring."""

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
                [tag, None, cls] if cls is None or tag in _NAMED_TAGS else [tag, self.entries[cls[0]].path, cls[1]]
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
                    if tag in _NAMED_TAGS:
                        restored.add((tag, cls_name))
                        continue
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

        def add(source: NodeRef, kind: str, line: int, receivers: tuple = _PLAIN) -> None:
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
            edge.receivers.update(receivers)

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
                elif framework_class(self, (number, parent)) and not self.is_instance_attribute(ref):
                    # Its framework calls its methods and reads its class attributes; what
                    # its own methods keep in `self` is theirs.
                    add((number, parent), "member", owner.line)
            elif owner is not None and owner.kind in ("function", "method"):
                add((number, parent), "defines", owner.line)

        if kind in ("function", "method") and definition is not None:
            # `@agent.tool`, `@agent.system_prompt`, `@mcp.tool()` on an object made at
            # module level: that object (the agent, the server) will call the function.
            for decorator in definition.decorators:
                holder, _, tail = decorator.rpartition(".")
                if tail not in REGISTRATION_DECORATORS:
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
        elif kind in ("method", "function"):
            segments |= self._built_names(name.rpartition(".")[2])
        searched: set[str] = set()
        while segments - searched:
            segment = (segments - searched).pop()
            searched.add(segment)
            self._scan(segment, ref, kind, target_class, segments, add)
        if kind in ("function", "method"):
            self.result_holders(ref, add)
        if kind == "attribute" and not preds and not self._data_container((number, parent)):
            # nothing reads it by name: the class is what it belongs to. Not so for a field
            # of a data class (a dataclass, a pydantic model, a TypedDict): an object of it
            # is built with every field, and only a read of this one uses it
            add((number, parent), "member", view.defs[parent].line)
        return preds

    def _data_container(self, ref: NodeRef) -> bool:
        for cls in [ref, *self.ancestors(ref)]:
            definition = self.definition(cls)
            if definition is None:
                continue
            if any(d.rpartition(".")[2].partition("(")[0] in _DATA_DECORATORS for d in definition.decorators):
                return True
            if any(b.rpartition(".")[2].partition("[")[0] in _DATA_BASES for b in definition.bases):
                return True
        return False

    def _built_names(self, last: str) -> set[str]:
        """The run-time names that may look ``last`` up: `cmd_*` for `cmd_add`
        (`getattr(self, f"cmd_{name}")`), `cmd_add?` (from a table of names)."""
        if self._prefixes is None:
            self._prefixes = [segment for segment in self.files.segments() if segment.endswith("*")]
        found = {segment for segment in self._prefixes if last.startswith(segment[:-1])}
        if self.files.files_mentioning(last + "?"):
            found.add(last + "?")
        return found

    _prefixes: list[str] | None = None

    def _collides(self, ref: NodeRef) -> bool:
        return len(self.by_module.get(self.entries[ref[0]].module, ())) > 1

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
            names = chain_names(dotted)
            if kind == "class":
                # Only `K(...)` (or `cls(...)` in K, or a call of what holds K: `AGENTS[name](...)`)
                # constructs K (and runs its `__init__`); `isinstance(x, K)`, `super(K, self)`,
                # a type hint or `K.unknown_method()` do not.
                if not is_call or not (names[-1] in (last, "cls") or "." not in dotted or dotted.endswith(("]", ")"))):
                    continue
                use = "calls"
            elif by_name(dotted):
                use = BY_NAME  # `getattr(self, f"cmd_{name}")`: every method it may name
            elif not is_call or kind in ("variable", "attribute"):
                use = "reads" if kind in ("variable", "attribute") else "uses"
            else:
                use = "calls"
            receivers = _PLAIN
            if target_class is not None:
                # How the method was reached: only the receivers whose class has it.
                receivers = tuple(
                    tag for tag in self.receivers(number, scope, dotted)
                    if tag[0] != "exact" or ref in self.members_named(tag[1], names[-1])
                ) or _PLAIN
            elif kind in ("variable", "attribute") and last in names[:-1]:
                # `config.llm.model` reads the field `model` of `config.llm`, not all of it.
                receivers = (("field", names[names.index(last) + 1]),) + self._self_reader(number, scope, names)
            elif kind == "attribute" and (names[0] in ("self", "cls") or dotted == self.qualified(ref)):
                # `self.agent` (the facts also write a read of `Cls.agent` in Cls's own
                # methods as its qualified name): read from an instance of the enclosing class.
                receivers = self._self_reader(number, scope, ["self"])
                owner = (ref[0], ref[1].rpartition(".")[0])
                if not receivers or owner not in self.ancestors(receivers[0][1]):
                    receivers = _PLAIN
            elif use == "reads":
                # `{"reviewer": REVIEW_PROMPT, ...}[role]`: read only when `role` is "reviewer".
                keyed = view.bindings.get((scope, "=" + dotted))
                if keyed:
                    receivers = tuple(("keyed", condition) for condition in keyed)
            for site in self.sites(number, scope, line, use == "calls"):
                add(site, use, line, receivers)
            if use == "reads" and not is_call:
                # `Reviewer(system=REVIEW_PROMPT)` with `self.system = system` in its
                # `__init__`: the attribute holds the value too, and its readers read it.
                for stored in self.stored_arguments(number, scope, dotted, line):
                    add(stored, "reads", self.line(stored))
        if target_class is not None and segment == last:
            for (number, scope, dotted, line, _call), dispatch, base in uses.overrides:
                if foreign(number) or ref in self.resolve_use(number, scope, dotted):
                    continue
                if dispatch is not None and dispatch != target_class and dispatch in self.ancestors(target_class):
                    for site in self.sites(number, scope, line, True):
                        add(site, "calls", line, (("dispatch", dispatch),))
                elif base is not None and base != target_class and base in self.ancestors(target_class):
                    # `x.m()` with `x: Base` reaches the override `C.m` of a subclass C.
                    for site in self.sites(number, scope, line, True):
                        add(site, "calls", line, (("type", base),))
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

    def _self_reader(self, number: int, scope: str, names: list[str]) -> tuple:
        """`self.agent...` read in a method of C: ("self", C), so a value a subclass keeps
        in a base class's attribute is not read from a sibling subclass."""
        if names[0] not in ("self", "cls"):
            return ()
        cls = self.enclosing_class(number, scope)
        return (("self", cls),) if cls is not None else ()

    def result_holders(self, ref: NodeRef, add) -> None:
        """Attributes that keep what ``ref`` returns, given to a constructor or to
        `super().__init__` (`role_agent = create_agent(...)`, then
        `super().__init__(role_agent)` with `self.agent = role_agent`): they hold its
        result, and who reads them uses it."""
        last = ref[1].rpartition(".")[2]
        wanted = self.qualified(ref) + "()" if self.kind(ref) == "function" else None
        files = {use[0] for use in self._segment_uses(last).hits.get(ref, ()) if use[4]}
        for number in sorted(files):
            view = self.view(number)
            for (scope, callee, line), entries in view.passing().items():
                for entry in entries:
                    key, _, te = entry.partition("=")
                    if te != wanted and not (wanted is None and te.endswith(f".{last}()") and ref in self._chain_targets(number, scope, te[:-2])):
                        continue
                    # Only the object's own attributes (`super().__init__(agent)`, `self.setup(agent)`):
                    # a value handed to another object is that object's business.
                    owner = self.enclosing_class(number, scope) if callee.startswith(("super()", "self.")) else None
                    if owner is None:
                        continue
                    tags = (("holder", owner), ("via", (number, scope)))
                    for target in self.resolve_use(number, scope, callee):
                        for stored in self._stored_parameter(target, key):
                            add(stored, "calls", line if stored[0] == number else self.line(stored), tags)

    def stored_arguments(self, number: int, scope: str, dotted: str, line: int) -> list[NodeRef]:
        """The attributes that keep a value passed on ``line`` (the read ``dotted`` as an
        argument of a call there): `self.NAME = param` in the method called (a
        constructor: its class's `__init__`), or the field NAME of a dataclass or
        pydantic class constructed with `NAME=value`."""
        view = self.view(number)
        out: list[NodeRef] = []
        for _scope, callee, call_line in view.calls_in(scope):
            if call_line != line:
                continue
            for entry in view.arguments(scope, callee, call_line):
                key, _, te = entry.partition("=")
                if te == dotted:
                    for target in self.resolve_use(number, scope, callee):
                        out += self._stored_parameter(target, key)
        return list(dict.fromkeys(out))

    def _stored_parameter(self, callee: NodeRef, key: str) -> list[NodeRef]:
        kind = self.kind(callee)
        out: list[NodeRef] = []
        if kind == "class":
            if not key.isdigit():
                for found in self.lookup_member(callee, key):
                    if self.kind(found) == "attribute":
                        out.append(found)  # a field set by the constructor
            methods = self.lookup_member(callee, "__init__")
        elif kind == "method":
            methods = [callee]
        else:
            return out
        for method in methods:
            owner = method[1].rpartition(".")[0]
            position = str(int(key) + 1) if key.isdigit() else None
            prefix = "{" + method[1] + ":"
            view = self.view(method[0])
            for (scope, name), types in view.bindings.items():
                if scope != owner or not name.startswith("self."):
                    continue
                for te in types:
                    if te.startswith(prefix) and te.endswith("}"):
                        _, slot, pname = te[1:-1].rsplit(":", 2)
                        if pname == key or slot == position:
                            # `self.NAME = param`, or `self.NAME=` for a typed parameter.
                            found = (method[0], f"{owner}.{name[5:].rstrip('=')}")
                            if self.kind(found) == "attribute":
                                out.append(found)
        return out

    def keyed_edge(self, source: NodeRef, target: NodeRef, edge: Edge, conditions: frozenset) -> Edge | None:
        """``edge`` as far as its calls of ``target`` can satisfy one of ``conditions``
        (`0:role=reviewer`: the parameter `role`, first after `self`, is "reviewer"), or
        None. A call that passes another constant for it cannot; any other call can.
        For an attribute that keeps the result, the calls are where it was given
        (`via`), and only the classes given it there are kept."""
        definition = self.definition(target)
        offset = 1 if self.kind(target) == "method" and not (definition and "staticmethod" in definition.decorators) else 0
        via = [site for tag, site in edge.receivers if tag == "via"]
        passing: list[NodeRef] = []
        seen = False
        for site in via or [source]:
            view = self.view(site[0])
            for _scope, callee, line in view.calls_in(site[1]):
                if (not via and line not in edge.lines) or target not in self.resolve_use(site[0], site[1], callee):
                    continue
                seen = True
                if self._passes(view.arguments(site[1], callee, line), conditions, offset):
                    passing.append(site)
                    break
        if not seen:
            return edge
        if not passing:
            return None
        if not via:
            return edge
        owners = {self.enclosing_class(site[0], site[1]) for site in passing}
        kept = {
            (tag, cls) for tag, cls in edge.receivers
            if (tag == "via" and cls in passing) or (tag == "holder" and cls in owners) or tag not in ("via", "holder")
        }
        return Edge(edge.kind, edge.lines, kept)

    @staticmethod
    def _passes(arguments: list[str], conditions: frozenset, offset: int) -> bool:
        passed = dict(entry.split("=", 1) for entry in arguments)
        for condition in conditions:
            where, _, key = condition.partition("=")
            slot, _, pname = where.partition(":")
            given = passed.get(pname)
            if given is None and slot.isdigit():
                given = passed.get(str(int(slot) - offset))
            if given is None or given[:1] != "'" or given[1:] == key:
                return True
        return False

    def is_instance_attribute(self, ref: NodeRef) -> bool:
        """An attribute first set in a method (`self.agent = agent`), not in the class body."""
        definition = self.definition(ref)
        if definition is None or definition.kind != "attribute":
            return False
        view = self.view(ref[0])
        owner = ref[1].rpartition(".")[0]
        return any(
            start <= definition.line <= end and view.defs[name].kind == "method"
            for start, end, name in view.children.get(owner, ())
        )

    def holds_objects(self, ref: NodeRef) -> bool:
        """Does a variable or attribute hold instances of the project's classes (whose
        methods the graph follows), rather than text or a library's object?"""
        values = self.deref(ref)
        return bool(values) and all(value[0] == "inst" for value in values)

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

    # -- whole graph ------------------------------------------------------------------------
    def full(self):
        """Every edge of the project as a ``nodes.DiGraph`` (slow on big projects)."""
        graph = DiGraph()
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
