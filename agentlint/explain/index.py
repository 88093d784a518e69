"""The project's facts for `explain`, loaded fast: one index file next to the cache.

`explain` needs the facts of every file of the project and the list of text files the
grep fallback searches. Both come from the per-file cache (``engine.run.facts_json``) the first
time, and are then kept in one index file per (paths, settings, working folder):

- a header (JSON, one line): the folders walked and the ignore files looked for
  (`.gitignore`, `info/exclude`), with their modification and change times, and the
  text files found;
- one line per Python file: display path, size, mtime (ns), content key, module, and
  where its facts sit in the data part of the file (compact JSON, then its calls and
  reads as text lines, then the identifier segments they mention);
- the postings: segment -> numbers of the files that mention it (`=` after a number:
  the file only defines or binds that name; `~`: only uses on locals of unknown type name
  it);
- the data part, from which a file's facts are sliced and decoded only when the
  question touches that file.

A warm `explain` stats the folders (a file added, removed or renamed changes its
folder's times), the ignore files and each Python file. Unchanged files are taken
from the index without reading them; changed or new files go through ``engine.run.facts_json``
(the per-file cache, analysing only misses), and the index is rewritten atomically.
Facts are decoded only for the files the question touches (found through the
postings). A missing, stale or corrupt index is rebuilt; it never blocks an answer.

A file modified within two seconds of the index write (its mtime may not have moved)
is re-read and compared by content hash, as git does for racy index entries.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from agentlint import __version__
from agentlint.engine.cache import Cache
from agentlint.engine.config import Settings
from agentlint.engine.discovery import _Matcher, display_path, ignore_files_of, stamp_of, stamps_hold, walk_tree
from agentlint.engine.files import atomic_write
from agentlint.engine.run import facts_json
from agentlint.explain.nodes import ARGS_MARK, ARGS_SEPARATOR, chain_names, head_name
from agentlint.facts.ast_helpers import MODULE_SCOPE, SELF_NAMES
from agentlint.facts.types import FACTS_VERSION
from agentlint.facts.source import read_regular
from agentlint.lazy_regex import lazy_compile

INDEX_FORMAT = 10
RACY_NS = 2_000_000_000

TEXT_SUFFIXES = (
    ".md", ".markdown", ".mdx", ".txt", ".rst", ".yaml", ".yml", ".json", ".jsonl", ".toml",
    ".ini", ".cfg", ".conf", ".j2", ".jinja", ".jinja2", ".tmpl", ".tpl", ".mustache",
    ".hbs", ".prompt", ".prompty", ".xml", ".html", ".csv",
)
"""Non-Python files the grep fallback searches (plus `.env.example`-style files)."""
ENV_EXAMPLES = (".env.example", ".env.sample", ".env.template", ".env.dist", "env.example", "example.env")
"""Real `.env` files are never read: they hold secrets, and only examples are meant to be shared."""
MAX_TEXT_FILE = 1024 * 1024


def is_text_file(name: str) -> bool:
    lower = name.lower()
    if lower.endswith(TEXT_SUFFIXES):
        return True
    return lower in ENV_EXAMPLES or (lower.startswith(".env.") and lower.endswith((".example", ".sample", ".template")))


# -- compact facts -------------------------------------------------------------------


def encode_facts(facts: dict[str, Any]) -> tuple[str, str, str]:
    """A file's facts in their JSON form (``FileFacts.to_json``, as cached) as (compact
    JSON of everything but the calls and reads, the calls and reads as text lines,
    space-separated identifier segments). Working from the cached JSON, not from
    decoded ``FileFacts``, keeps building the index of a big project cheap.

    Calls and reads are most of the facts and a question needs the few that mention
    one name: kept as lines (``C|R <tab> scope <tab> dotted <tab> line``), they are
    searched as text and split only where they match."""
    imports = facts["imports"]
    definitions = facts["definitions"]
    calls = facts["calls"]
    references = facts["references"]
    bindings = facts.get("bindings", ())
    data = [
        facts["module"],
        [[i["local"], i["qualified"], i["line"]] for i in imports],
        [
            [d["name"], d["kind"], d["line"], d["end_line"], list(d["decorators"]), list(d["bases"]), list(d.get("returns", ()))]
            for d in definitions
        ],
        [[b["scope"], b["name"], b["type"], b["line"]] for b in bindings],
        [list(b) for b in facts.get("main_blocks", ())],
        bool(facts["complete"]),
    ]
    reads = [(r["scope"], r["name"], r["line"]) for r in references]
    annotations = tuple((r["scope"], r["name"], r["line"]) for r in facts.get("annotation_references", ()))
    uses = [
        f"C\t{c['scope']}\t{c['callee']}\t{c['line']}{_arguments(c)}\n" for c in calls
    ]
    uses += [f"R\t{scope}\t{name}\t{line}\n" for scope, name, line in _without(reads, annotations)]
    # Segments a question scans for (named by a call, a read, an import, a base or a
    # decorator), and the others, marked `=`: names only defined or bound here, which
    # find a definition but hold no use of anything.
    # A use `x.update()` whose head is a local with no known type (not `self`, not an
    # import, no binding, no nested def of that name) can reach nothing in the project:
    # a segment named only by such uses is marked `~` (see ``ProjectFiles.files_using``).
    roots = {facts["module"].partition(".")[0]} | {i["qualified"].partition(".")[0] for i in imports}
    bound = {(b["scope"], b["name"]) for b in bindings}
    def_names = {d["name"] for d in definitions}

    def live(scope: str, dotted: str) -> bool:
        head, dot, _ = dotted.partition(".")
        if not dot or "(" in head:
            return True
        head = head_name(head)
        if head in SELF_NAMES or head in roots or (scope, head) in bound:
            return True
        prefix = scope
        while prefix and prefix != MODULE_SCOPE:
            if f"{prefix}.{head}" in def_names:
                return True
            prefix = prefix.rpartition(".")[0]
        return False

    used: set[str] = set()
    for i in imports:
        used.update(i["local"].split("."))
        used.update(i["qualified"].split("."))
    for d in definitions:
        for dotted in (*d["decorators"], *d["bases"]):
            used.update(dotted.split("."))
    dead: set[str] = set()
    for c in calls:
        (used if live(c["scope"], c["callee"]) else dead).update(chain_names(c["callee"]))
    for scope, name, _line in reads:
        (used if live(scope, name) else dead).update(chain_names(name))
    dead -= used
    used |= dead
    defined: set[str] = set()
    for d in definitions:
        defined.update(d["name"].split("."))
    for b in bindings:
        defined.update(_NAMES.findall(b["type"]))
        defined.update(b["name"].split("."))
    used.discard("")
    used.discard("*")
    defined -= used
    defined.discard("")
    defined.discard("*")
    segments = sorted(used - dead) + sorted("~" + name for name in dead) + sorted("=" + name for name in defined)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False), "".join(uses), " ".join(segments)


_NAMES = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _arguments(call: dict[str, Any]) -> str:
    args = call.get("args")
    return ARGS_MARK + ARGS_SEPARATOR.join(args) if args else ""


def _without(items: list, removed: tuple) -> list:
    """``items`` minus ``removed``, as multisets, order kept."""
    if not removed:
        return list(items)
    left: dict = {}
    for item in removed:
        left[item] = left.get(item, 0) + 1
    out = []
    for item in items:
        if left.get(item):
            left[item] -= 1
        else:
            out.append(item)
    return out


class Entry:
    """One Python file of the index; its facts stay encoded until asked for."""

    __slots__ = ("path", "size", "mtime_ns", "key", "module", "complete", "_data", "_spans", "_facts")

    def __init__(
        self, path: str, size: int, mtime_ns: int, key: str, module: str, data: bytes, spans: tuple[int, int, int, int],
        complete: bool = True,
    ) -> None:
        self.path, self.size, self.mtime_ns, self.key, self.module = path, size, mtime_ns, key, module
        self.complete = complete
        """False when the file could not be parsed (its facts are empty)."""
        self._data = data
        self._spans = spans
        """Where the JSON facts start, and the lengths of the JSON, the uses and the segments."""
        self._facts: list | None = None

    @staticmethod
    def new(
        path: str, size: int, mtime_ns: int, key: str, module: str, blob: str, uses: str, segments: str, complete: bool
    ) -> "Entry":
        parts = [blob.encode("utf-8", "surrogatepass"), uses.encode("utf-8", "surrogatepass"), segments.encode("utf-8", "surrogatepass")]
        spans = (0, *map(len, parts))
        return Entry(path, size, mtime_ns, key, module, b"".join(parts), spans, complete)  # type: ignore[arg-type]

    def _slice(self, which: int) -> bytes:
        start, *lengths = self._spans
        start += sum(lengths[:which])
        return self._data[start : start + lengths[which]]

    def blob_bytes(self) -> bytes:
        return self._slice(0)

    def uses(self) -> str:
        """The calls and reads, one per line (see ``encode_facts``)."""
        return self._slice(1).decode("utf-8", "surrogatepass")

    def segments(self) -> str:
        return self._slice(2).decode("utf-8", "surrogatepass")

    def stored(self) -> bytes:
        return self._slice(0) + self._slice(1) + self._slice(2)

    def lengths(self) -> tuple[int, int, int]:
        return self._spans[1], self._spans[2], self._spans[3]

    def facts(self) -> list:
        """[module, imports, definitions, bindings, main_blocks, complete]."""
        if self._facts is None:
            self._facts = json.loads(self.blob_bytes())
        return self._facts


@dataclass
class ProjectFiles:
    """What `explain` reads: every Python file's facts (lazily decoded) and the text files."""

    entries: list[Entry] = field(default_factory=list)
    text_files: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    postings_raw: dict[str, str] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    memo_path: str | None = None
    """Where the resolved predecessors of earlier questions are kept (see ``read_memo``)."""
    memo_key: str | None = None
    """The index write the memo belongs to: any change to the project makes a new one."""
    settings: Any = None
    """The run's settings (project boundaries: ``projects.ProjectMap``)."""
    _postings: dict[str, list[int]] = field(default_factory=dict)

    _using: dict[tuple[str, bool], list[int]] = field(default_factory=dict)

    def files_mentioning(self, segment: str) -> list[int]:
        """The files that define, bind or use a name with ``segment`` as a part."""
        found = self._postings.get(segment)
        if found is None:
            raw = self.postings_raw.get(segment, "")
            found = self._postings[segment] = [int(x.rstrip("=~")) for x in raw.split()] if raw else []
        return found

    def files_using(self, segment: str, resolvable: bool = False) -> list[int]:
        """The files whose calls, reads, imports, bases or decorators name ``segment``
        (not those that only define or bind it). ``resolvable``: only those where a use
        of it can reach something (not only `x.segment` on a local of unknown type)."""
        key = (segment, resolvable)
        found = self._using.get(key)
        if found is None:
            raw = self.postings_raw.get(segment, "")
            skip = "=~" if resolvable else "="
            found = self._using[key] = (
                [int(x.rstrip("~")) for x in raw.split() if x[-1] not in skip] if raw else []
            )
        return found

    def segments(self) -> Iterable[str]:
        return self.postings_raw.keys()


def _build_postings(entries: list[Entry]) -> dict[str, str]:
    collected: dict[str, list[str]] = {}
    for number, entry in enumerate(entries):
        label = str(number)
        for segment in entry.segments().split():
            mark = label
            if segment[0] in "=~":
                segment, mark = segment[1:], label + segment[0]
            bucket = collected.get(segment)
            if bucket is None:
                collected[segment] = [mark]
            else:
                bucket.append(mark)
    return {segment: " ".join(ids) for segment, ids in collected.items()}


# -- the walk --------------------------------------------------------------------------


@dataclass
class Walk:
    py_files: list[str] = field(default_factory=list)
    text_files: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    dirs: "dict[str, list[int] | None]" = field(default_factory=dict)
    """Each folder walked -> its ``discovery.stamp_of``."""
    gitignores: "dict[str, list[int] | None]" = field(default_factory=dict)
    """Each ignore file looked for -> its stamp (``discovery.ignore_files_of``)."""


def _kind(name: str) -> bool | None:
    """Python files (True), the text files explain greps (False), or neither (None)."""
    if name.endswith((".py", ".pyi", ".ipynb")):
        return True
    return False if is_text_file(name) else None


def walk(paths: list[str], settings: Settings) -> Walk:
    """The Python files `check` would check (the same order as ``discovery.discover``),
    plus the text files, the folders walked (with mtimes) and the ignore files
    consulted, honouring the same excludes and `.gitignore` rules."""


    out = Walk()
    matcher = _Matcher(settings)
    seen: set[str] = set()

    def add(display: str, real: str, python: bool) -> None:
        if real not in seen:
            seen.add(real)
            (out.py_files if python else out.text_files).append(display)

    for given in paths:
        try:
            os.stat(given)
        except OSError as exc:
            reason = "symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
            out.problems.append((display_path(given), reason))
            continue
        if not os.path.isdir(given):
            name = os.path.basename(given)
            if name.endswith((".py", ".pyi", ".ipynb")) or not is_text_file(name):
                add(display_path(given), os.path.realpath(given), True)
            else:
                add(display_path(given), os.path.realpath(given), False)
            continue
        walk_tree(
            given,
            matcher,
            add,
            lambda display, reason: out.problems.append((display, reason)),
            kind=_kind,
            on_folder=lambda folder: out.dirs.__setitem__(os.path.abspath(folder), stamp_of(folder)),
        )
    out.gitignores = ignore_files_of(matcher)
    return out


# -- the index file ----------------------------------------------------------------------


def index_path(paths: list[str], settings: Settings) -> str:
    payload = {
        "format": INDEX_FORMAT,
        "facts": FACTS_VERSION,
        "version": __version__,
        "python": list(sys.version_info[:2]),
        "cwd": os.getcwd(),
        "paths": [os.path.abspath(p) for p in paths],
        "root": settings.root,
        "exclude": list(settings.exclude),
        "extend-exclude": list(settings.extend_exclude),
        "gitignore": settings.respect_gitignore,
        "max-file-size": settings.max_file_size,
    }
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:20]
    return os.path.join(settings.cache_dir, "explain", f"{_generation()}-{digest}.idx")


def _generation() -> str:
    """What makes an index unreadable by this agentlint: older ones are removed."""
    return f"v{INDEX_FORMAT}.{FACTS_VERSION}.{__version__}"


def _prune(folder: str) -> None:
    """Remove indexes written by another agentlint (format, facts or version): they
    can never be read again and each is about the size of the project's facts."""
    keep = _generation() + "-"
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.endswith((".idx", ".idx.memo")) and not name.startswith(keep):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


_MAGIC = b"AGLX1 "


def _read_index(path: str) -> tuple[dict, list[Entry], dict[str, str]] | None:
    """Layout: ``AGLX1 <meta length, 20 digits>\n``, then the meta text (a JSON header
    line, one line per file, ``#postings``, one line per segment), then the data: each
    file's facts and segments, at the offsets its line gives. Facts are sliced out of
    the data only when asked for."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    try:
        if not data.startswith(_MAGIC):
            return None
        meta_length = int(data[len(_MAGIC) : len(_MAGIC) + 20])
        start = len(_MAGIC) + 21
        base = start + meta_length
        lines = data[start:base].decode("utf-8", "surrogatepass").split("\n")
        header = json.loads(lines[0])
        if header.get("format") != INDEX_FORMAT:
            return None
        count = header["count"]
        entries = []
        for line in lines[1 : count + 1]:
            path_, size, mtime, key, module, complete, offset, blob, uses, segments = line.split("\t")
            spans = (base + int(offset), int(blob), int(uses), int(segments))
            entries.append(Entry(path_, int(size), int(mtime), key, module, data, spans, complete == "1"))
        if len(entries) != count or lines[count + 1] != "#postings":
            return None
        if len(data) != base + header["data"]:
            return None
        postings = {}
        for line in lines[count + 2 :]:
            if line:
                segment, _, ids = line.partition("\t")
                postings[segment] = ids
        return header, entries, postings
    except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError):
        return None


def _write_index(path: str, header: dict, entries: list[Entry], postings: dict[str, str]) -> bool:
    if any("\t" in e.path or "\n" in e.path for e in entries):
        return False  # such names would need escaping; a rare layout simply goes without an index
    chunks: list[bytes] = []
    lines = []
    offset = 0
    for e in entries:
        chunks.append(e.stored())
        blob, uses, segments = e.lengths()
        lines.append(
            f"{e.path}\t{e.size}\t{e.mtime_ns}\t{e.key}\t{e.module}\t{int(e.complete)}\t{offset}\t{blob}\t{uses}\t{segments}"
        )
        offset += blob + uses + segments
    parts = [json.dumps({**header, "count": len(entries), "data": offset}, separators=(",", ":")), *lines, "#postings"]
    parts += [f"{segment}\t{ids}" for segment, ids in postings.items() if "\t" not in segment and "\n" not in segment]
    meta = "\n".join(parts).encode("utf-8", "surrogatepass")
    folder = os.path.dirname(path)
    try:
        # the cache folder must be ours (new, empty or tagged) before anything goes in it
        if Cache(os.path.dirname(folder), "").claim() is not None:
            return False
        os.makedirs(folder, exist_ok=True)
        _prune(folder)
        atomic_write(path, b"".join([_MAGIC + b"%020d\n" % len(meta), meta, *chunks]))
    except OSError:
        return False  # an unwritable cache folder only costs speed
    return True


def _walk_still_valid(header: dict) -> bool:
    return stamps_hold(header.get("dirs", {}), header.get("gitignores", {}))


def _content_key(path: str, limit: int) -> str | None:
    try:
        return Cache.key(path, read_regular(path, limit))
    except OSError:
        return None


def load(
    paths: list[str],
    settings: Settings,
    *,
    use_cache: bool = True,
    jobs: int | None = None,
    analyse: Callable[[list[str]], Iterable[tuple[str, dict[str, Any]]]] | None = None,
    full_settings: Callable[[], Settings] | None = None,
) -> ProjectFiles:
    """Every file's facts for ``paths``; see the module docstring.

    ``analyse`` gives (path, facts as JSON) for the paths it is passed (default:
    ``engine.run.facts_json`` with the settings that ``full_settings`` gives, the rules
    loaded, so its per-file cache entries are the ones `check` reads and writes).
    """
    started = time.perf_counter()
    stats: dict[str, Any] = {"index": "none", "reused": 0, "analysed": 0}
    location = index_path(paths, settings) if use_cache else None
    previous = _read_index(location) if location else None
    header: dict = {}
    old: dict[str, Entry] = {}
    if previous is not None:
        header, entries, postings = previous
        old = {e.path: e for e in entries}
        stats["index"] = "read"
    if previous is not None and _walk_still_valid(header):
        py_files = [e.path for e in entries]
        text_files = header.get("text_files", [])
        problems = [tuple(p) for p in header.get("problems", [])]
        dirs, gitignores = header["dirs"], header["gitignores"]
    else:
        found = walk(paths, settings)
        py_files, text_files, problems = found.py_files, found.text_files, found.problems
        dirs, gitignores = found.dirs, found.gitignores
        stats["walked"] = True
    written_ns = header.get("written_ns", 0)
    fresh: list[Entry | None] = []
    todo: list[str] = []
    for path in py_files:
        entry = old.get(path)
        if entry is not None:
            try:
                st = os.stat(path)
            except OSError:
                entry = None
            else:
                if st.st_size != entry.size or st.st_mtime_ns != entry.mtime_ns:
                    entry = None
                elif abs(written_ns - st.st_mtime_ns) < RACY_NS and _content_key(path, settings.max_file_size) != entry.key:
                    entry = None
        if entry is None:
            todo.append(path)
        fresh.append(entry)
    if todo:
        # Stat and hash before analysing: a file that changes meanwhile then looks
        # changed next time, never the other way round.
        before = {}
        for path in todo:
            try:
                st = os.stat(path)
                before[path] = (st.st_size, st.st_mtime_ns, _content_key(path, settings.max_file_size) or "")
            except OSError:
                before[path] = (-1, -1, "")
        analysed = (analyse or _engine_facts(full_settings() if full_settings else settings, use_cache, jobs))(todo)
        made = {}
        for path, facts in analysed:
            if isinstance(facts, dict) and "crash" in facts:
                # said once, where it happened: the answer goes on without this file's facts
                problems.append((display_path(path), f"internal error, left out of the graph ({facts['crash']}); please report it"))
            if isinstance(facts, dict) and facts.get("broken_cells"):
                cells = ", ".join(str(c) for c in facts["broken_cells"])
                problems.append((display_path(path), f"cell {cells} does not parse; the graph has the notebook's other cells"))
            try:
                blob, uses, segments = encode_facts(facts)
            except (KeyError, TypeError, AttributeError):
                continue  # a cache entry of another layout: left out of this index, asked again next time
            size, mtime, key = before[path]
            made[path] = Entry.new(path, size, mtime, key, facts["module"], blob, uses, segments, bool(facts["complete"]))
        fresh = [e if e is not None else made.get(p) for p, e in zip(py_files, fresh)]
        stats["analysed"] = len(todo)
    entries_now = [e for e in fresh if e is not None]
    stats["reused"] = len(entries_now) - len(todo)
    changed = previous is None or bool(todo) or "walked" in stats or len(entries_now) != len(old)
    memo_key = str(header.get("written_ns")) if previous is not None and not changed else None
    if changed:
        postings = _build_postings(entries_now)
        if location:
            new_header = {
                "format": INDEX_FORMAT,
                "written_ns": time.time_ns(),
                "dirs": dirs,
                "gitignores": gitignores,
                "text_files": text_files,
                "problems": [list(p) for p in problems],
            }
            if _write_index(location, new_header, entries_now, postings):
                stats["index"] = "written"
                memo_key = str(new_header["written_ns"])
    stats["seconds"] = round(time.perf_counter() - started, 3)
    return ProjectFiles(
        entries_now, list(text_files), [tuple(p) for p in problems], postings, stats,
        memo_path=location + ".memo" if location and memo_key else None, memo_key=memo_key,
        settings=settings,
    )


def read_memo(files: ProjectFiles, version: int) -> dict[str, list]:
    """The predecessors resolved by earlier questions on this very index (a graph built
    lazily and kept): node key -> rows. Empty when the project changed since."""
    if not files.memo_path:
        return {}
    try:
        with open(files.memo_path, "rb") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("key") != files.memo_key or data.get("graph") != version:
        return {}
    preds = data.get("preds")
    return preds if isinstance(preds, dict) else {}


MAX_MEMO = 50_000
"""Nodes kept in the memo (a few MB); past that it starts again from the last question's."""


def write_memo(files: ProjectFiles, version: int, old: dict[str, list], new: dict[str, list]) -> None:
    if not files.memo_path or not new:
        return
    preds = {**old, **new} if len(old) + len(new) <= MAX_MEMO else new
    data = {"key": files.memo_key, "graph": version, "preds": preds}
    try:
        atomic_write(files.memo_path, json.dumps(data, separators=(",", ":")).encode("utf-8"))
    except OSError:
        pass


def _engine_facts(
    settings: Settings, use_cache: bool, jobs: int | None
) -> Callable[[list[str]], Iterable[tuple[str, dict[str, Any]]]]:
    def analyse(files: list[str]) -> Iterable[tuple[str, dict[str, Any]]]:
        return facts_json(files, settings, jobs=jobs, use_cache=use_cache)

    return analyse
