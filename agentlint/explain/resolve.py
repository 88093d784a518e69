"""Resolution over the project's facts: which definitions a dotted name, a use in a
scope or a receiver stands for (imports, re-exports, classes and their bases, receiver
types, instance attributes), and where each use sits. ``graph.Graph`` builds the
predecessors of a node on top of this; see its module docstring for the edges.
"""

from __future__ import annotations

import bisect
from typing import Any, Iterable

from agentlint.engine.boundaries import ProjectMap
from agentlint.explain.nodes import (
    _STDLIB,
    MAIN,
    MAX_HOPS,
    MODULE,
    SELF_NAMES,
    Definition,
    Edge,
    FileView,
    NodeRef,
    _counts_when_stopped,
    _namespace_names,
    _SegmentUses,
    _view,
    head_name,
    uses_mentioning,
)


class Resolution:
    """Names, uses and receivers resolved to the project's definitions; memoised per question."""

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
        self._gathering: set[str] = set()
        self.labels_memo: dict[NodeRef, list[tuple[str, str]]] = {}
        """What kind of place each node is (``kinds.labels``)."""

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
        lazy = view.bindings.get((MODULE, f"__getattr__:{rest[0]}"))
        if lazy:
            # A package that imports on first use (its module `__getattr__`).
            return self.resolve_from(number, ".".join([lazy[0], *rest[1:]]), hops + 1, strict)
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
            found = self.typed_members(ref, rest)
            if found:
                return found
        return [ref]

    def typed_members(self, ref: NodeRef, rest: list[str]) -> list[NodeRef]:
        """``rest`` looked up on what the variable or attribute ``ref`` holds (its type
        expressions; see ``values.Values``)."""
        raise NotImplementedError

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
            # While it is resolved (a parameter's callers may lead back here): nothing.
            self._resolved[key] = ()
            known = self._resolved[key] = tuple(dict.fromkeys(self._resolve_use(number, scope, dotted)))
        return known

    def _resolve_use(self, number: int, scope: str, dotted: str) -> list[NodeRef]:
        """(the values layer: ``values.Values``)"""
        raise NotImplementedError

    def receivers(self, number: int, scope: str, dotted: str) -> tuple[tuple, ...]:
        """What a method call's receiver is known to be (see ``Edge.receivers``; the
        values layer)."""
        raise NotImplementedError

    # -- where a use sits --------------------------------------------------------------
    def sites(self, number: int, scope: str, line: int, is_call: bool) -> list[NodeRef]:
        """The nodes a use belongs to (``site``); a call in the statement that first sets
        an instance attribute (`self.scorer = make_scorer(...)` in `__init__`) is also a
        call of that method: constructing the object runs it."""
        found = self.site(number, scope, line)
        if is_call and found[1] != scope and scope != MODULE and self.kind(found) == "attribute":
            return [found, (number, scope)]
        return [found]

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
            self._project_map = ProjectMap(settings)
        roots = []
        for n in (number, other):
            root = self._project_of.get(n)
            if root is None:
                root = self._project_of[n] = self._project_map.root_for(self.entries[n].path)
            roots.append(root)
        return roots[0] == roots[1]

    def _segment_uses(self, segment: str, numbers: Iterable[int] | None = None) -> "_SegmentUses":
        """Every use of ``segment`` in the project (or in the files ``numbers``), resolved
        once and grouped by what it reaches: the methods of a broad name (``run``,
        ``chat``) are asked about one after another, and each then looks up its own uses
        instead of rescanning every file that mentions the name."""
        if numbers is None:
            found = self._segments.get(segment)
            if found is None:
                if segment in self._gathering:
                    # Asked again while gathered (a parameter whose callers lead back to
                    # the same name): what is known so far, nothing.
                    return _SegmentUses({}, [], [], [])
                # Files where only locals of unknown type use the name: nothing to resolve
                # there, only calls to count for "stopped early" (never for builtin-like
                # or dunder names), read from the use lines without decoding the facts.
                live = self.files.files_using(segment, True)
                self._gathering.add(segment)
                try:
                    found = self._segments[segment] = self._gather(segment, live)
                finally:
                    self._gathering.discard(segment)
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
            # The use keeps the whole name: which field of the object it reads.
            parts = dotted.split(".")
            if len(parts) > 1 and segment in parts[:-1] and "(" not in dotted and "[" not in dotted:
                prefix = ".".join(parts[: parts.index(segment) + 1])
                for target in self.resolve_use(number, scope, prefix):
                    if target not in targets and self.kind(target) in ("variable", "attribute"):
                        found.hits.setdefault(target, []).append((number, scope, dotted, line, False))
            if is_call and dotted.rpartition(".")[2] == segment:
                if not targets and self.unknown_receiver(view, dotted):
                    found.unresolved.append(use)
                # A call that may reach an override in a subclass: `self.m()` in a base
                # class, or `x.m()` with `x: Base` (not `x = Base()`: exactly a Base).
                head, _, rest = dotted.partition(".")
                if head in SELF_NAMES and rest == segment:
                    dispatch = self.enclosing_class(number, scope)
                    if dispatch is not None:
                        found.overrides.append((use, dispatch, None))
                else:
                    for tag, base in self.receivers(number, scope, dotted):
                        if tag == "type":
                            found.overrides.append((use, None, base))
        found.classes = [(number, definition) for definition in view.subclasses_naming(segment)]
        found.imports = [(number, local, qualified) for local, qualified in view.imports_of(segment)]
        return found

    def unknown_receiver(self, view: FileView, dotted: str) -> bool:
        """`x.m()` where ``x`` is neither an imported library nor `super()`."""
        head, dot, _ = dotted.partition(".")
        if not dot or head.startswith("super("):
            return False
        head = head_name(head)
        if head in view.roots and head not in self._project_tops():
            return False  # `asyncio.run`, `client.chat.completions.create` on an imported module
        return True

    def _project_tops(self) -> set[str]:
        if self._tops is None:
            self._tops = {name.partition(".")[0] for name in self.by_module}
        return self._tops

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


