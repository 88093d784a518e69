"""`agentlint explain SYMBOL`: who reads a prompt, a model alias or any symbol.

The answer comes from the graph (``agentlint.explain.graph``) when the symbol is in it, and from
a text search (the grep fallback) always: text files (YAML, JSON, TOML, Markdown,
Jinja, `.env` examples, `.txt` prompts) that mention the symbol or its value, and
Python lines that mention it but that the graph did not link (a string passed to
``getattr``, a receiver whose type is unknown, a comment). The absence of a graph
never blocks an answer.

SYMBOL forms:

- ``app.prompts.SYSTEM_PROMPT``: a dotted name (a suffix such as ``prompts.SYSTEM_PROMPT``
  works when it is unique; re-exports such as ``app.SYSTEM_PROMPT`` are followed);
- ``SYSTEM_PROMPT``: a bare name, resolved when one definition has it;
- ``app/prompts.py:SYSTEM_PROMPT`` (or ``prompts.py:Cls.method``);
- ``'"gpt-4.1"'``: a quoted string (a model alias, a prompt's text): the places in the
  code where it is a string literal, then their callers;
- ``prompts/triage.md``: a prompt file, reached through the code that names it
  (``open("prompts/triage.md")``, ``Path(__file__).parent / "prompts" / "triage.md"``,
  ``env.get_template("triage.md")``...).
"""

from __future__ import annotations

import ast
import bisect
import difflib
import os
from dataclasses import dataclass, field
from typing import Any

from agentlint.engine.files import read_bytes
from agentlint.explain.graph import Graph
from agentlint.explain.index import MAX_TEXT_FILE, TEXT_SUFFIXES, ProjectFiles
from agentlint.explain.kinds import GROUPS, is_root, labels
from agentlint.explain.nodes import DiGraph, NodeRef
from agentlint.explain.reach import reverse_reach
from agentlint.facts import notebooks
from agentlint.facts.source import parse_lowered, read_regular
from agentlint.facts.source import parse_quietly as _parse_quietly
from agentlint.lazy_regex import lazy_compile

_IDENTIFIER = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
MAX_VALUE_SEARCH = 200
"""A constant's value is also searched for when it is at most this long (a model alias,
a short template name), not a whole prompt."""
MAX_MENTIONS = 200
MAX_STOPPED_EXAMPLES = 3


class UsageError(Exception):
    """SYMBOL is malformed or ambiguous: exit 2 with this message."""

    def __init__(self, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.candidates = candidates or []


@dataclass
class Query:
    raw: str
    mode: str
    """`symbol`, `string` or `file`."""
    value: str
    path: str | None = None
    """For `path.py:NAME`: the path part."""


def _looks_like_file(dotted: str) -> bool:
    """`triage.md`, `prompts/x.prompt`: a file name; `app.prompts.PROMPT`, `mod.Prompt`:
    a symbol (file suffixes are written in lower case)."""
    last = dotted.rpartition(".")[2]
    return "." in dotted and last.islower() and ("." + last) in TEXT_SUFFIXES


def parse_symbol(raw: str) -> Query:
    text = raw.strip()
    if not text:
        raise UsageError("SYMBOL is empty")
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        if len(text) == 2:
            raise UsageError("SYMBOL is an empty string")
        return Query(raw, "string", text[1:-1])
    head, colon, name = text.rpartition(":")
    if colon and head.endswith((".py", ".pyi", ".ipynb")) and _IDENTIFIER.match(name):
        return Query(raw, "symbol", name, path=head)
    if _IDENTIFIER.match(text) and not _looks_like_file(text):
        return Query(raw, "symbol", text)
    if "/" in text or "\\" in text or text.lower().endswith(TEXT_SUFFIXES) or os.path.isfile(text):
        return Query(raw, "file", text.replace("\\", "/"))
    return Query(raw, "string", text)


@dataclass
class TextMatch:
    path: str
    line: int
    text: str
    needle: str
    python: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "text": self.text, "match": self.needle, "python": self.python}


@dataclass
class Answer:
    query: Query
    graph: Graph
    targets: list[NodeRef] = field(default_factory=list)
    pseudo: str | None = None
    """The id of the node standing for a string or a file (modes `string`, `file`)."""
    files: list[str] = field(default_factory=list)
    """Mode `file`: the project files the path names."""
    reach: Any = None
    """``nodes.DiGraph`` over NodeRefs (and the pseudo node), edges user -> used."""
    distance: dict = field(default_factory=dict)
    depth: int | None = None
    text_matches: list[TextMatch] = field(default_factory=list)
    python_mentions: list[TextMatch] = field(default_factory=list)
    mentions_left_out: int = 0
    notes: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.targets or self.files or self.text_matches or self.python_mentions or self.readers())

    def readers(self) -> list:
        if self.reach is None:
            return []
        return [n for n, d in self.distance.items() if d == 1]

    def callers(self) -> list:
        return [n for n, d in self.distance.items() if d >= 2]


# -- finding the symbol ---------------------------------------------------------------------


def _defs_named(graph: Graph, last: str) -> list[NodeRef]:
    out = []
    for number in graph.files.files_mentioning(last):
        for name in graph.view(number).defs:
            if name == last or name.endswith("." + last):
                out.append((number, name))
    return out


def _same_file(entry_path: str, given: str) -> bool:
    a = entry_path.replace(os.sep, "/")
    b = given.replace(os.sep, "/").lstrip("./") if not os.path.isabs(given) else given.replace(os.sep, "/")
    if a == b or os.path.abspath(entry_path) == os.path.abspath(given):
        return True
    return a.endswith("/" + b)


def find_symbol(graph: Graph, query: Query) -> list[NodeRef]:
    """The definitions SYMBOL names. Raises UsageError when it is ambiguous; returns []
    when nothing in the graph has that name."""
    name = query.value
    last = name.rpartition(".")[2]
    if query.path is not None:
        numbers = [n for n, e in enumerate(graph.entries) if _same_file(e.path, query.path)]
        if not numbers:
            raise UsageError(f"`{query.path}` is not a Python file of the project" + _closest_paths(graph, query.path))
        found = [(n, name) for n in numbers if name in graph.view(n).defs]
        if not found:
            names = [d for n in numbers for d in graph.view(n).defs]
            close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
            hint = f"; closest names there: {', '.join(close)}" if close else ""
            raise UsageError(f"`{name}` is not defined in `{query.path}`{hint}")
        return found
    candidates = _defs_named(graph, last)
    if "." in name:
        exact = [c for c in candidates if graph.qualified(c) == name]
        if exact:
            return exact
        via = graph.resolve_dotted(name, strict=True)
        if via:
            return list(dict.fromkeys(via))
        suffix = [c for c in candidates if graph.qualified(c).endswith("." + name)]
        if len(suffix) > 1:
            raise _ambiguous(graph, name, suffix)
        return suffix
    bare = [c for c in candidates if c[1].rpartition(".")[2] == name]
    if len(bare) > 1:
        raise _ambiguous(graph, name, bare)
    return bare


def _ambiguous(graph: Graph, name: str, refs: list[NodeRef]) -> UsageError:
    shown = sorted(refs, key=lambda r: (graph.entries[r[0]].path, graph.line(r)))
    lines = [
        f"{graph.qualified(r)}  ({graph.kind(r)}, {graph.entries[r[0]].path}:{graph.line(r)})" for r in shown
    ]
    return UsageError(
        f"`{name}` is defined {len(refs)} times; name one of them (a dotted name or PATH:NAME)",
        lines,
    )


def _closest_paths(graph: Graph, given: str) -> str:
    close = difflib.get_close_matches(given, [e.path for e in graph.entries], n=3, cutoff=0.5)
    return f"; closest: {', '.join(close)}" if close else ""


def suggestions(graph: Graph, name: str) -> list[str]:
    """Closest defined names (qualified) to an unknown SYMBOL."""
    last = name.rpartition(".")[2]
    vocabulary = list(graph.files.segments())
    # A misspelt name keeps its first letter nearly always; comparing only those is
    # ten times cheaper on a big project.
    first = last[:1].lower()
    close = difflib.get_close_matches(last, [v for v in vocabulary if v[:1].lower() == first], n=8, cutoff=0.75)
    lowered = last.lower()
    close += [v for v in vocabulary if lowered in v.lower() and v not in close][:8] if len(last) >= 4 else []
    out: list[str] = []
    for word in close:
        for ref in _defs_named(graph, word):
            if ref[1].rpartition(".")[2] == word:
                out.append(graph.qualified(ref))
        if len(out) >= 8:
            break
    return list(dict.fromkeys(out))[:8]


# -- text search ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Needle:
    """What to look for in text: a literal, with the boundaries it must have.

    ``identifier``: not inside a longer identifier (`PROMPT` is not in `PROMPTS`);
    otherwise a value such as `gpt-4.1`: not inside a longer token (`gpt-4.1-mini`).
    ``not_assigned``: not followed by `=` (a keyword argument or a local variable of
    the same name is not a use). ``quoted``: between matching quotes only."""

    text: str
    identifier: bool = True
    not_assigned: bool = False
    quoted: bool = False

    def positions(self, text: str) -> list[int]:
        out = []
        needle, size = self.text, len(self.text)
        start = text.find(needle)
        while start >= 0:
            end = start + size
            if self._fits(text, start, end):
                out.append(start)
            start = text.find(needle, start + 1)
        return out

    def _fits(self, text: str, start: int, end: int) -> bool:
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        if self.quoted:
            return before in ("'", '"') and after == before
        if before and (before.isalnum() or before == "_"):
            return False
        if after and (after.isalnum() or after == "_"):
            return False
        if not self.identifier:
            if before in (".", "-") or after == "-":
                return False
            if after == "." and end + 1 < len(text) and (text[end + 1].isalnum() or text[end + 1] == "_"):
                return False
        if self.not_assigned:
            rest = text[end : end + 40].lstrip(" \t")
            if rest.startswith("=") and not rest.startswith("=="):
                return False
        return True


def _read_text(path: str, limit: int | None = MAX_TEXT_FILE) -> str | None:
    try:
        data = read_regular(path, limit)  # never a FIFO or device; over the limit raises
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def _matches(path: str, text: str, needles: list[Needle], python: bool) -> list[TextMatch]:
    out: list[TextMatch] = []
    lines: list[str] | None = None
    seen: set[int] = set()
    for needle in needles:
        line, position = 1, 0
        for start in needle.positions(text):
            line += text.count("\n", position, start)
            position = start
            if line in seen:
                continue
            seen.add(line)
            if lines is None:
                lines = text.split("\n")
            shown = lines[line - 1].strip()
            if len(shown) > 160:
                shown = shown[:157] + "..."
            out.append(TextMatch(path, line, shown, needle.text, python))
    out.sort(key=lambda m: m.line)
    return out


def search_text_files(files: ProjectFiles, needles: list[Needle]) -> list[TextMatch]:
    """The grep fallback over the project's non-Python text files."""
    needles = [n for n in needles if n.text]
    if not needles:
        return []
    out: list[TextMatch] = []
    for path in files.text_files:
        text = _read_text(path)
        if text is None or not any(n.text in text for n in needles):
            continue
        out += _matches(path, text, needles, False)
    return out


def _python_sources(files: ProjectFiles, needles: list[str]):
    """(file number, path, source) of the Python files whose bytes hold a needle."""
    encoded = [n.encode("utf-8", "surrogateescape") for n in needles if n]
    for number, entry in enumerate(files.entries):
        try:
            data = read_bytes(entry.path)
        except OSError:
            continue
        if any(n in data for n in encoded):
            text = notebooks.python_text(entry.path, data)  # a notebook: its code cells
            if text is not None:
                yield number, entry.path, text


# -- the answer ------------------------------------------------------------------------------


def explain(
    files: ProjectFiles, raw: str, depth: int | None = None, grep: bool = True, memo: dict | None = None
) -> Answer:
    """The answer for SYMBOL ``raw``. ``memo``: predecessors kept from earlier questions on
    the same index (``index.read_memo``); the new ones are in ``answer.graph.memo_out``."""
    query = parse_symbol(raw)
    if query.mode == "file" and _IDENTIFIER.match(query.value) and not _files_named(files, query.value):
        query = Query(raw, "symbol", query.value)  # `app.prompts.md`: no such file, so a symbol
    graph = Graph(files, memo)
    answer = Answer(query, graph, depth=depth)
    if query.mode == "symbol":
        _explain_symbol(answer, files, grep)
    elif query.mode == "string":
        _explain_string(answer, files, grep)
    else:
        _explain_file(answer, files, grep)
    broken = [e.path for e in files.entries if not e.complete]
    if broken:
        shown = ", ".join(broken[:5]) + (f" and {len(broken) - 5} more" if len(broken) > 5 else "")
        answer.notes.append(
            f"{len(broken)} Python file{'s' if len(broken) > 1 else ''} could not be parsed, so "
            f"{'their' if len(broken) > 1 else 'its'} code is not in the graph (the text search still reads "
            f"{'them' if len(broken) > 1 else 'it'}): {shown}"
        )
    return answer


def _explain_symbol(answer: Answer, files: ProjectFiles, grep: bool) -> None:
    graph, query = answer.graph, answer.query
    targets = find_symbol(graph, query)
    answer.targets = targets
    last = query.value.rpartition(".")[2]
    if targets:
        answer.reach, answer.distance = reverse_reach(graph, targets, answer.depth)
        answer.values = _short_values(graph, targets)
    else:
        close = suggestions(graph, query.value)
        answer.notes.append(
            f"`{query.value}` is not defined in the {len(files.entries)} Python files searched"
            + (f"; closest names: {', '.join(close)}" if close else "")
        )
        # It may be a string after all (`o3`, `sonnet`, a tool name): where the code
        # holds it as a literal, and who calls that code.
        literal = Answer(Query(query.raw, "string", query.value), graph, depth=answer.depth)
        _explain_string(literal, files, grep=False)
        if literal.readers():
            answer.pseudo, answer.reach, answer.distance = literal.pseudo, literal.reach, literal.distance
            answer.notes.append(f"found as the string {literal.pseudo} in the code (below)")
    if not grep:
        return
    needles = [Needle(last)] + [Needle(v, identifier=False) for v in answer.values]
    members = [r[1] for r in targets if graph.kind(r) in ("method", "attribute") and "." in r[1]]
    if members and len(members) == len(targets):
        # `run` alone is everywhere in prose; `Agent.run` is what names this one.
        needles = [Needle(".".join(m.split(".")[-2:])) for m in members] + needles[1:]
    answer.text_matches = search_text_files(files, needles)
    _python_mentions(answer, files, last)


def _short_values(graph: Graph, targets: list[NodeRef]) -> list[str]:
    """The string values of constant targets that are short enough to grep for."""
    out: list[str] = []
    for ref in targets:
        definition = graph.definition(ref)
        if definition is None or definition.kind not in ("variable", "attribute"):
            continue
        source = _read_text(graph.entries[ref[0]].path, None)
        if source is not None and notebooks.is_notebook(graph.entries[ref[0]].path):
            source = notebooks.python_text(graph.entries[ref[0]].path, source.encode("utf-8"))
        if source is None:
            continue
        lines = source.split("\n")[definition.line - 1 : definition.end_line]
        try:
            tree = _parse_quietly("\n".join(line.strip() if i == 0 else line for i, line in enumerate(lines)))
        except SyntaxError:
            continue
        for stmt in tree.body:
            value = getattr(stmt, "value", None)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                text = value.value
                if text and len(text) <= MAX_VALUE_SEARCH and "\n" not in text:
                    out.append(text)
    return list(dict.fromkeys(out))


def _linked_lines(answer: Answer) -> set[tuple[str, int]]:
    graph = answer.graph
    linked: set[tuple[str, int]] = set()
    if answer.reach is None:
        return linked
    for source, target, data in answer.reach.edges(data=True):
        if isinstance(source, tuple):
            for line in data.get("lines", ()):
                linked.add((graph.entries[source[0]].path, line))
    return linked


def _python_mentions(answer: Answer, files: ProjectFiles, name: str) -> None:
    """Python lines that mention ``name`` (or a short value of it) and that the graph did
    not account for: not a definition or import of that name, not a linked use, not a
    use the graph resolved to something else."""
    graph = answer.graph
    linked = _linked_lines(answer)
    targets = set(answer.targets)
    for ref in answer.targets:
        definition = graph.definition(ref)
        if definition is not None:
            for line in range(definition.line, definition.end_line + 1):
                linked.add((graph.entries[ref[0]].path, line))
    # Assignments are definitions, shown above; when the graph has none (an instance
    # attribute set in `__init__`), the assignment is where the value lives: keep it.
    ident = Needle(name, not_assigned=bool(answer.targets))
    # The same value elsewhere in Python counts as a string literal, quoted.
    values = [Needle(v, quoted=True) for v in answer.values]
    out: list[TextMatch] = []
    colliding = [ref for ref in answer.targets if graph._collides(ref)]
    for number, path, text in _python_sources(files, [name, *answer.values]):
        if colliding and not any(graph.same_project(number, ref[0]) for ref in colliding):
            continue  # another application of the monorepo (its own module of that name)
        view = graph.view(number)
        accounted: set[int] = set()
        for local, qualified, line in view.import_list:
            if local == name or qualified.rpartition(".")[2] == name:
                accounted.add(line)
        for def_name, definition in view.defs.items():
            if def_name.rpartition(".")[2] == name:
                accounted.add(definition.line)
        for scope, dotted, line, _is_call in view.mentioning(name):
            resolved = graph.resolve_use(number, scope, dotted)
            if resolved and not (set(resolved) & targets):
                accounted.add(line)  # a use of another definition with that name
            elif not resolved and "." in dotted and not graph.unknown_receiver(view, dotted):
                accounted.add(line)  # `asyncio.run(...)`: a library's function of that name
        left = [
            m for m in _matches(path, text, [ident, *values], True)
            if (path, m.line) not in linked and m.line not in accounted
        ]
        if left and any(m.needle == name for m in left):
            # A name on a later line of a parenthesised import is still that import.
            lines = text.split("\n")
            left = [m for m in left if not (m.needle == name and _in_parenthesised_import(lines, m.line))]
        out += left
    answer.mentions_left_out = max(0, len(out) - MAX_MENTIONS)
    answer.python_mentions = out[:MAX_MENTIONS]


def _in_parenthesised_import(lines: list[str], line: int) -> bool:
    """Is 1-based ``line`` inside `from x import (...)` (a name on a later line of it)?"""
    for number in range(line - 1, max(0, line - 200), -1):
        text = lines[number - 1].strip()
        if ")" in text and number != line:
            return False
        if text.startswith(("from ", "import ")):
            return "(" in text
    return False


def _explain_string(answer: Answer, files: ProjectFiles, grep: bool) -> None:
    value = answer.query.value
    answer.pseudo = f'"{value}"'

    def matches(constant: str) -> bool:
        return constant == value

    _explain_literal(answer, files, [value], matches, "literal", grep, [Needle(value, identifier=False)])


def _files_named(files: ProjectFiles, wanted: str) -> list[str]:
    """The project files (text or Python) a path names, else the path itself when it is
    a file outside what was searched."""
    found = [p for p in files.text_files + [e.path for e in files.entries] if _same_file(p, wanted)]
    return found or ([wanted] if os.path.isfile(wanted) else [])


def _explain_file(answer: Answer, files: ProjectFiles, grep: bool) -> None:
    wanted = answer.query.value.replace("\\", "/")
    while wanted.startswith("./"):
        wanted = wanted[2:]
    base = wanted.rpartition("/")[2]
    answer.pseudo = f"file:{wanted}"
    answer.files = _files_named(files, wanted)

    def matches(constant: str) -> bool:
        text = constant.replace("\\", "/")
        while text.startswith("./"):
            text = text[2:]
        if not text or not text.endswith(base):
            return False
        return text == wanted or wanted.endswith("/" + text) or text.endswith("/" + wanted)

    needles = list(dict.fromkeys([wanted, base]))
    _explain_literal(answer, files, [base], matches, "names the file", grep, [Needle(n, identifier=False) for n in needles])


def _lines_holding(text: str, needles: list[str]) -> list[int]:
    """Sorted 1-based numbers of the lines where any of ``needles`` occurs."""
    found: set[int] = set()
    for needle in needles:
        line, position = 1, 0
        at = text.find(needle)
        while at >= 0:
            line += text.count("\n", position, at)
            position = at
            found.add(line)
            at = text.find(needle, at + 1)
    return sorted(found)


def _string_constants(tree: ast.AST, lines: list[int]):
    """The string constants of ``tree`` whose lines span one of ``lines``: a walk that
    skips every subtree not spanning such a line (most of a big file)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            start = getattr(child, "lineno", None)
            if start is not None:
                end = getattr(child, "end_lineno", None) or start
                index = bisect.bisect_left(lines, start)
                if index == len(lines) or lines[index] > end:
                    continue  # no interesting line inside this subtree
            if isinstance(child, ast.Constant):
                if isinstance(child.value, str):
                    yield child
                continue
            stack.append(child)


def _explain_literal(answer, files, needles, matches, edge_kind, grep, text_needles) -> None:
    graph = answer.graph
    sites: dict[NodeRef, list[int]] = {}
    mentions: list[TextMatch] = []
    for number, path, text in _python_sources(files, needles):
        exact: set[int] = set()
        try:
            tree = parse_lowered(text, path)  # a 3.12 f-string elsewhere in the file loses nothing here
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if tree is not None:
            for node in _string_constants(tree, _lines_holding(text, needles)):
                if matches(node.value):
                    line = node.lineno
                    exact.add(line)
                    sites.setdefault(graph.node_at(number, line), []).append(line)
        if grep:
            mentions += [m for m in _matches(path, text, text_needles, True) if m.line not in exact]
    answer.targets = []
    reach, distance = reverse_reach(graph, list(sites), None if answer.depth is None else answer.depth - 1)
    out = DiGraph()
    out.add_node(answer.pseudo)
    for source, lines in sites.items():
        out.add_edge(source, answer.pseudo, kind=edge_kind, lines=sorted(set(lines)))
    for source, target, data in reach.edges(data=True):
        out.add_edge(source, target, **data)
    answer.reach = out
    answer.distance = {answer.pseudo: 0, **{node: d + 1 for node, d in distance.items()}}
    answer.mentions_left_out = max(0, len(mentions) - MAX_MENTIONS)
    answer.python_mentions = mentions[:MAX_MENTIONS]
    if grep:
        answer.text_matches = search_text_files(files, text_needles)
    if not sites:
        answer.notes.append(
            "no Python code holds it as a string literal"
            + (" (only text matches below)" if answer.text_matches or answer.python_mentions else "")
        )


# -- describing nodes --------------------------------------------------------------------------


def describe(answer: Answer, node: Any) -> dict[str, Any]:
    graph = answer.graph
    if not isinstance(node, tuple):
        return {"id": node, "name": node, "qualified": node, "kind": answer.query.mode, "path": None, "line": None}
    path = graph.entries[node[0]].path
    found = labels(graph, node)
    groups = _groups(found)
    return notebooks.cell_located({
        "id": graph.node_id(node),
        "name": node[1],
        "qualified": graph.qualified(node),
        "kind": graph.kind(node),
        "path": path,
        "line": graph.line(node),
        "depth": answer.distance.get(node),
        "groups": groups,
        "why": [why for _, why in found],
    })


def _groups(labels: list[tuple[str, str]]) -> list[str]:
    groups = [g for g in GROUPS if any(label == g for label, _ in labels)]
    if "tests" in groups:
        return ["tests"]
    return groups


def to_json(answer: Answer) -> dict[str, Any]:
    graph = answer.graph
    nodes = list(answer.reach.nodes) if answer.reach is not None else []
    described = {n: describe(answer, n) for n in nodes}
    for ref in answer.targets:
        described.setdefault(ref, describe(answer, ref))

    def ident(node: Any) -> str:
        return described[node]["id"] if node in described else str(node)

    def lines_of(node: Any, lines: list) -> list:
        # In a notebook, a use's line is given as "cell N:L" (see ``facts.notebooks``).
        path = graph.entries[node[0]].path if isinstance(node, tuple) else None
        if not path or not notebooks.is_notebook(path):
            return lines
        located = [notebooks.locate_on_disk(path, line) for line in lines]
        return [f"cell {c[0]}:{c[1]}" if c else line for c, line in zip(located, lines)]

    def order(node: Any) -> tuple:
        d = described[node]
        return (d.get("depth") or 0, d["path"] or "", d["line"] or 0, d["name"])

    reached = [n for n in nodes if answer.distance.get(n, 0) >= 1]
    by_group: dict[str, list[str]] = {g: [] for g in (*GROUPS, "other")}
    for node in sorted(reached, key=order):
        groups = described[node]["groups"] or ["other"]
        for g in groups:
            by_group[g].append(ident(node))
    root_nodes = [n for n in sorted(reached, key=order) if answer.reach.out_degree(n) and not answer.reach.in_degree(n)]
    roots = [ident(n) for n in root_nodes]
    stopped = []
    if answer.depth is None:
        for node in root_nodes:
            if not isinstance(node, tuple) or set(described[node]["groups"]) & {"entry points", "tests"}:
                continue
            if is_root(graph, node):
                continue  # a tool: the search stops there on purpose
            calls = graph.unresolved_calls(node)
            if calls:
                stopped.append({
                    "id": ident(node),
                    "qualified": described[node]["qualified"],
                    "name": node[1].rpartition(".")[2],
                    "calls": len(calls),
                    "examples": [f"{path}:{line}" for path, line in calls[:MAX_STOPPED_EXAMPLES]],
                })
    edges = []
    if answer.reach is not None:
        for source, target, data in answer.reach.edges(data=True):
            edges.append({"from": ident(source), "to": ident(target), "kind": data.get("kind"), "lines": lines_of(source, data.get("lines", []))})
        edges.sort(key=lambda e: (e["to"], e["from"]))
    readers = []
    for node in sorted(answer.readers(), key=order):
        entry = dict(described[node])
        entry["via"] = [
            {"to": ident(t), "kind": answer.reach.edges[node, t]["kind"], "lines": lines_of(node, answer.reach.edges[node, t]["lines"])}
            for t in answer.reach.successors(node)
            if answer.distance.get(t) == 0
        ]
        readers.append(entry)
    return {
        "symbol": answer.query.raw,
        "mode": answer.query.mode,
        "found": answer.found,
        "definitions": [described[r] for r in answer.targets],
        "files": answer.files,
        "values": answer.values,
        "readers": readers,
        "callers": [described[n] for n in sorted(answer.callers(), key=order)],
        "groups": by_group,
        "roots": roots,
        "stopped": stopped,
        "edges": edges,
        "depth": answer.depth,
        "text_matches": [m.to_json() for m in answer.text_matches],
        "python_mentions": [notebooks.cell_located(m.to_json()) for m in answer.python_mentions],
        "python_mentions_left_out": answer.mentions_left_out,
        "notes": answer.notes,
    }
