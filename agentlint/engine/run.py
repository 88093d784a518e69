"""Running many files: read each one, take its result from the cache or analyse it (in a
process pool when there are many), then the project phase and the final filtering.

Partial runs (pre-commit passes only the changed files): the project rules still see
the project's other files, through their cached facts (``boundaries``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from agentlint.engine import boundaries, line_shift, phase_parts
from agentlint.engine.cache import Cache, cached_facts, open_cache
from agentlint.engine.config import Settings
from agentlint.engine.files import absolute_path
from agentlint.engine.finalize import finalize
from agentlint.engine.results import FileResult, cacheable, project_phase_wanted, read_source, unreadable
from agentlint.engine.stat_index import StatIndex
from agentlint.facts.module_names import forget_packages
from agentlint.facts.types import FileFacts
from agentlint.rules import registry
from agentlint.rules.builtin import INTERNAL_ERROR, engine_diagnostic
from agentlint.rules.diagnostics import Diagnostic
from agentlint.rules.lazy import lazy_module

# The analysis, loaded only when a file must be analysed: a run answered from the cache
# (most pre-commit and CI runs) would spend half its time importing it.
analysis = lazy_module("agentlint.engine.analyze")
worker = lazy_module("agentlint.engine.worker")


@dataclass
class RunResult:
    diagnostics: list[Diagnostic]
    results: dict[str, FileResult] = field(default_factory=dict)
    files_checked: int = 0
    cache_hits: int = 0
    context: Mapping[str, FileFacts] | None = None
    """Facts of project files that were not checked (a partial run; see projects.py)."""


def _content_key(path: str, limit: int, index: StatIndex | None) -> tuple[str | None, str | None]:
    """The file's cache key (from the stat index when the file has not changed since it
    was last read, else from its bytes), or the reason it cannot be read."""
    if index is None:
        content = read_source(path, limit)
        return (None, content) if isinstance(content, str) else (Cache.key(path, content), None)
    key, stamp = index.lookup(path)
    if key is not None:
        return key, None
    content = read_source(path, limit)
    if isinstance(content, str):
        return None, content
    key = Cache.key(path, content)
    index.record(path, stamp, key)
    return key, None


MAX_JOBS = 64
"""`--jobs` above this (or above the number of files) starts no more processes."""

IN_PROCESS_MAX = 16
"""Runs with at most this many files to analyse stay in-process (start-up matters)."""

def run(
    files: list[str],
    settings: Settings,
    *,
    jobs: int | None = None,
    use_cache: bool = True,
    stdin: tuple[str, bytes] | None = None,
    progress: Callable[[int, int], None] | None = None,
    keep_facts: bool | None = True,
    paths: Sequence[str] | None = None,
) -> RunResult:
    """Check ``files``. With ``keep_facts=None`` the results carry facts only when a
    selected project rule needs them (`check` does this: facts are most of a run's
    memory); callers that read facts (explain) keep the default.

    ``paths`` are the paths given on the command line (`files` were discovered from
    them). When they do not cover a project of the files (pre-commit passes changed
    files), the project rules also see the project's other files, through their
    cached facts (see ``boundaries``), and report only in ``files``."""
    ((_, result),) = run_groups(
        [(settings, files)], jobs=jobs, use_cache=use_cache, stdin=stdin, progress=progress,
        keep_facts=keep_facts, paths=paths,
    )
    return result


def run_groups(
    groups: Sequence[tuple[Settings, list[str]]],
    *,
    jobs: int | None = None,
    use_cache: bool = True,
    stdin: tuple[str, bytes] | None = None,
    progress: Callable[[int, int], None] | None = None,
    keep_facts: bool | None = True,
    paths: Sequence[str] | None = None,
    settings_of: Callable[[str], Settings] | None = None,
    remember_partial: bool = True,
) -> list[tuple[Settings, RunResult]]:
    """``run`` for files of several configurations (``groups``: settings and the files
    they hold for), analysed in one pool. Each group has its own cache folder and
    settings fingerprint, and its own project phase: project rules compare files that
    share a configuration. ``stdin`` belongs to the first group. ``settings_of(path)``
    gives a file's settings: in a partial run, the project's other files that another
    configuration holds for are left out of a group's project phase (as a full run
    leaves them out). A partial run whose project files all have the project facts of a
    remembered project phase takes its findings and reads no other file's facts, unless
    ``remember_partial`` is false (`--fix` checks again with those facts)."""
    forget_packages()
    keeps: list[bool | str] = [
        ("project" if project_phase_wanted(settings) else False) if keep_facts is None else keep_facts
        for settings, _ in groups
    ]
    caches = [open_cache(s.cache_dir, s.fingerprint()) if use_cache else None for s, _ in groups]
    indexes = [StatIndex(c.directory) if c is not None else None for c in caches]
    results: list[dict[str, FileResult]] = [{} for _ in groups]
    hits = [0] * len(groups)
    todo: list[tuple[str, int]] = []
    remembered: list[list[Diagnostic] | None] = [None] * len(groups)
    project_keys: list[str | None] = [None] * len(groups)
    others: "list[list[str] | None]" = [None] * len(groups)
    """Per group, the files of its projects that were not passed, once known."""
    projects = [boundaries.ProjectMap(settings) for settings, _ in groups]
    """Per group, which project each file belongs to: found once for the files of a
    partial run and the project phase after it."""
    for index, (settings, files) in enumerate(groups):
        cache, keep = caches[index], keeps[index]
        keys: dict[str, str] = {}
        if cache is None:
            # no entry to look up: the files are read once, where they are analysed
            todo += [(path, index) for path in files]
            continue
        for path in files:
            key, reason = _content_key(path, settings.max_file_size, indexes[index])
            if reason is not None:
                results[index][path] = unreadable(path, reason)
            else:
                keys[path] = key
        if keep == "project" and paths is not None and not (stdin and index == 0):
            # Nothing changed since the last run of these files (same contents, same
            # settings, no file of their projects left out): its project findings hold,
            # and no file's facts need reading.
            others[index] = boundaries.context_files(files, paths, settings, projects[index], indexes[index])
            if not others[index]:
                cwd = os.getcwd()
                project_keys[index] = cache.project_key(
                    [(f"{p}\0{absolute_path(p, cwd)}", keys.get(p, "-")) for p in files]
                )
                remembered[index] = _remembered(cache, project_keys[index])
                if remembered[index] is not None:
                    keep = keeps[index] = False
        stat_index = indexes[index]
        for path, key in keys.items():
            cached = stat_index.findings(path) if keep is False and stat_index is not None else None
            if cached is None:
                cached = cache.get(key, facts=keep is not False)
                if cached is not None and keep is False and stat_index is not None:
                    stat_index.keep_findings(path, key, cached)
            if cached is not None:
                try:
                    results[index][path] = FileResult.from_json(cached, path, with_facts=keep)
                    hits[index] += 1
                    continue
                except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
                    pass  # an entry from a broken write or an old layout: rebuild it
            todo.append((path, index))
    if stdin is not None and groups:
        results[0][stdin[0]] = analysis.analyze_content(stdin[0], stdin[1], groups[0][0])

    done = sum(len(r) for r in results)
    total = sum(len(files) for _, files in groups) + (1 if stdin else 0)
    settings_list = [s for s, _ in groups]
    with_cache = [c is not None for c in caches]
    for path, index, key, data in _analyze_all(todo, settings_list, jobs, with_cache, keeps):
        results[index][path] = FileResult.from_json(data, path, with_facts=keeps[index])
        stat_index = indexes[index]
        if stat_index is not None and key and cacheable(data):
            stat_index.keep_findings(path, key, Cache.findings_line(key, data))  # as the worker cached it
        done += 1
        if progress is not None:
            progress(done, total)

    out: list[tuple[Settings, RunResult]] = []
    for index, (settings, _files) in enumerate(groups):
        group_results = results[index]
        crashes: list[tuple[str, str]] = []
        cache, project_key, stat_index = caches[index], project_keys[index], indexes[index]
        phase: _PartialKeys | None = None
        reads: set[str] | None = None
        context = None
        known: dict[str, list[Diagnostic]] = {}
        if keeps[index] and paths is not None:
            other_files = _other_files(
                group_results, paths, settings, settings_of, others[index], stat_index, projects[index]
            )
            if others[index]:  # a partial run with a cache
                remember = remember_partial and keeps[index] == "project"
                partial_run = _partial_phase(group_results, other_files, settings, cache, stat_index, crashes, remember)
                context, phase, remembered[index] = partial_run.context, partial_run.keys, partial_run.found
                known = partial_run.known or {}
                if phase is not None:
                    project_key, reads = phase.exact, set(partial_run.reads)
            else:
                context = _context_facts(other_files, settings, cache, crashes, stat_index)
        if stat_index is not None:
            stat_index.save()
        found: list[dict[str, list[Diagnostic]]] = []
        diagnostics = finalize(
            group_results, settings, registry.all_rules(), context=context,
            project_diagnostics=remembered[index], on_project=found.append, projects=projects[index],
            project_reads=reads, known_parts=known,
        )
        if cache is not None and project_key is not None and remembered[index] is None and found and not crashes:
            partial = {} if phase is None or reads is None else {
                "moved_key": phase.moved, "lines": phase.lines,
                "texts": {p: _content_key(p, settings.max_file_size, stat_index)[0] for p in sorted(reads)},
                **_parts_record(phase, found[0], settings),
            }
            cache.put_project(project_key, [[d.path, d.to_json()] for part in found[0].values() for d in part],
                              **partial)
            if stat_index is not None and partial:
                stat_index.save()  # the keys of the modules read, when the index had none
        # A project file not given to check whose facts crashed: said there, the run goes on.
        diagnostics += [engine_diagnostic(INTERNAL_ERROR, path, message) for path, message in crashes]
        out.append((settings, RunResult(diagnostics, group_results, len(group_results), hits[index], context)))
    return out


def facts_json(
    files: list[str], settings: Settings, *, jobs: int | None = None, use_cache: bool = True
) -> Iterable[tuple[str, dict[str, Any]]]:
    """(path, facts in their JSON form, as cached) for each of ``files``: what
    `explain` indexes, one file at a time. The facts come from `check`'s full result
    when the cache has one, else from a facts-only entry (``cache.facts_only_key``);
    a miss is read with ``ast`` only, no rule and no LibCST parse (a tenth of the cost
    of a full analysis), in the process pool, and stored facts-only. No project phase
    runs and no result is decoded."""
    forget_packages()
    cache = open_cache(settings.cache_dir, settings.fingerprint()) if use_cache else None
    index = StatIndex(cache.directory) if cache is not None else None
    todo: list[str] = []
    for path in files:
        key, reason = _content_key(path, settings.max_file_size, index)
        if reason is not None:
            yield path, unreadable(path, reason).facts.to_json()
            continue
        facts = cached_facts(cache, key) if cache is not None and key is not None else None
        if facts is not None:
            yield path, facts
        else:
            todo.append(path)
    if index is not None:
        index.save()
    for path, _index, _key, data in _analyze_all([(p, 0) for p in todo], [settings], jobs, [cache is not None], ["facts-only"]):
        yield path, data["facts"]


def _other_files(
    results: Mapping[str, FileResult], paths: Sequence[str], settings: Settings,
    settings_of: Callable[[str], Settings] | None, others: list[str] | None, listings: StatIndex | None,
    projects: boundaries.ProjectMap,
) -> list[str]:
    """The files of the checked files' projects that were not checked (those of the same
    configuration, when ``settings_of`` tells); ``others``: those files, when the caller
    found them already. ``listings`` and ``projects``: see ``boundaries.context_files``."""
    if not project_phase_wanted(settings):
        return []
    if others is None:
        others = boundaries.context_files([p for p in results if p != "-"], paths, settings, projects, listings)
    if settings_of is not None:
        others = [p for p in others if settings_of(p) is settings]
    return others


def project_digest(facts: FileFacts) -> str:
    """A digest of what the project phase reads of a file (``PROJECT_FACT_KEYS``), the
    same for its facts read from the cache or just extracted."""
    return line_shift.json_digest(facts.project_json(framework_imports=True))


def _other_digests(
    others: Mapping[str, str | None], index: StatIndex, context: Mapping[str, FileFacts],
) -> list[tuple[str, str]] | None:
    """(path, digest of its project facts) of each file not checked (``others``: with its
    content key): from the index, else from ``context`` (then kept in the index). None
    when one is unknown."""
    pairs = []
    for path, key in others.items():
        digest = index.digest(key)
        if digest is None and key is not None and path in context:
            digest = project_digest(context[path])
            index.keep_digest(key, digest)
        if digest is None:
            return None
        pairs.append((path, digest))
    return pairs


class _PartialKeys(NamedTuple):
    exact: str
    """Over every file's project facts."""
    moved: str
    """Over the checked files' project facts without their lines (``line_shift``)."""
    lines: dict[str, list[int]]
    """The lines of each checked file's project facts."""
    others: str
    """Over the other files' project facts alone (``phase_parts``)."""
    projects: dict[str, dict[str, Any]]
    """Each checked file's project facts in JSON, which each part's digests read."""

    def part_digests(self, reads: Mapping[str, frozenset[str] | None]) -> dict[str, phase_parts.PartDigests]:
        return {path: phase_parts.part_digests(project, reads) for path, project in self.projects.items()}


class _CheckedDigests(NamedTuple):
    """A checked file's project facts, digested with and without their lines."""

    exact: str
    free: str
    lines: list[int]
    project: dict[str, Any]
    """The facts, in JSON."""


def _checked_digests(results: Mapping[str, FileResult]) -> dict[str, _CheckedDigests]:
    out = {}
    for path, result in results.items():
        if path != "-":
            project = result.facts.project_json(framework_imports=True)  # once for every digest
            out[path] = _CheckedDigests(line_shift.json_digest(project), *line_shift.free_digest(project), project)
    return out


def _partial_keys(
    checked: Mapping[str, _CheckedDigests], others: list[tuple[str, str]], cache: Cache
) -> _PartialKeys:
    """The keys of a partial run's project phase over (path, digest) of every project
    file (``others``: those not checked): an edit that moves none of the project facts
    keeps the exact one, an edit that only moves lines of the checked files' the other.
    A file is named by its path as given, with the working folder named once: the same
    as naming each by its absolute path too (the other keys do), without 1,200 path
    joins in a large project."""
    mine = [(p, c) for p, c in checked.items()]
    rest = [*others, (f"\0working folder\0{os.getcwd()}", "")]
    return _PartialKeys(
        cache.project_key([(name, c.exact) for name, c in mine] + rest + [("\0partial", "")]),
        cache.project_key([(name, c.free) for name, c in mine] + rest + [("\0partial, lines moved", "")]),
        {p: c.lines for p, c in checked.items()},
        cache.project_key(rest + [("\0partial, the other files", "")]),
        {p: c.project for p, c in checked.items()},
    )


class _Partial(NamedTuple):
    """What a partial run knows of its project phase before it runs."""

    context: dict[str, FileFacts] | None
    """The other files' facts, when the phase runs."""
    keys: _PartialKeys | None
    """The keys to remember the phase under, when every file's digest is known."""
    found: list[Diagnostic] | None = None
    """The findings of a remembered phase that holds whole (nothing runs)."""
    known: dict[str, list[Diagnostic]] | None = None
    """The findings of the parts of a remembered phase that hold (``phase_parts``)."""
    reads: frozenset[str] = frozenset()
    """The modules the declaration read, when its findings are known."""


def _partial_phase(
    results: Mapping[str, FileResult], others: list[str], settings: Settings, cache: Cache | None,
    index: StatIndex | None, crashes: list[tuple[str, str]], remember: bool,
) -> _Partial:
    """For a partial run: the remembered findings when no project file's project facts
    changed since a remembered phase, or only the lines of the checked files' did (no
    other file's facts are read then); else the other files' facts, with the findings of
    the parts of the phase whose facts did not change. The keys are known when every
    file's digest is (the first such run keeps the digests of the facts it reads)."""
    if not remember or cache is None or index is None:
        return _Partial(_context_facts(others, settings, cache, crashes, index), None)
    # each file's key once (a stat, or a read of a file changed since the index saw it)
    keys = {path: _content_key(path, settings.max_file_size, index)[0] for path in others}
    checked = _checked_digests(results)
    digests = _other_digests(keys, index, {})
    phase = _partial_keys(checked, digests, cache) if digests is not None else None
    record = cache.get_project_record() if phase is not None else None
    known: dict[str, list[Diagnostic]] = {}
    reads: frozenset[str] = frozenset()
    parts = phase_parts.part_reads(settings.enabled)
    if phase is not None and record is not None:
        texts = _same_texts(record, settings, index)
        found = _remembered_partial(record, phase) if texts is not None else None
        if found is not None:
            return _Partial(None, phase, found)
        kept = phase_parts.kept_parts(record, parts, phase.part_digests(parts), phase.others, texts is not None)
        for part, stored in kept.items():
            decoded = _decoded(stored)
            if decoded is None:
                known = {}  # a record from a broken write: the parts depend on each other
                break
            known[part] = decoded
        if phase_parts.DECLARE in known and texts is not None:
            reads = frozenset(texts)
    # with parts known, the others read only some facts: only those are decoded
    context = _context_facts(others, settings, cache, crashes, index, keys, _read_by(known, parts))
    if phase is None and context and not crashes:
        digests = _other_digests(keys, index, context)
        phase = _partial_keys(checked, digests, cache) if digests is not None else None
    return _Partial(context, phase, None, known, reads)


def _read_by(known: Mapping[str, Any], parts: Mapping[str, frozenset[str] | None]) -> frozenset[str] | None:
    """The project facts the parts of the phase that run read (``parts``: what each part
    reads; None: all, or no part known)."""
    if not known:
        return None
    needed: set[str] = set()
    for part, reads in parts.items():
        if part in known:
            continue
        if reads is None:
            return None
        needed |= reads
    return frozenset(needed)


def _same_texts(record: Mapping[str, Any], settings: Settings, index: StatIndex) -> dict[str, str] | None:
    """The modules whose text a remembered phase read, with their content keys, when
    each is the same now; else None."""
    texts = record.get("texts")
    if not isinstance(texts, dict) or any(
        _content_key(path, settings.max_file_size, index)[0] != key for path, key in texts.items()
    ):
        return None
    return texts


def _remembered_partial(record: Mapping[str, Any], phase: _PartialKeys) -> list[Diagnostic] | None:
    """The remembered findings of a partial run's project phase: those of the same
    project facts, else those of the same facts before lines of the checked files moved,
    moved with them (``line_shift``). The modules whose text it read are the same."""
    stored = record.get("diagnostics")
    if record.get("key") != phase.exact:
        if record.get("moved_key") != phase.moved:
            return None
        stored = _moved_findings(record, phase.lines)
    return _decoded(stored)


def _parts_record(
    phase: _PartialKeys, found: Mapping[str, list[Diagnostic]], settings: Settings
) -> dict[str, Any]:
    """What a partial run's remembered phase keeps of each of its parts: the digests of
    what the part reads of each checked file, and its findings (``phase_parts``)."""
    digests = phase.part_digests(phase_parts.part_reads(settings.enabled))
    return {"others": phase.others, "parts": {
        part: {"files": {path: by_part[part] for path, by_part in digests.items()},
               "diagnostics": [[d.path, d.to_json()] for d in diagnostics]}
        for part, diagnostics in found.items()
    }}


def _moved_findings(record: Mapping[str, Any], lines: Mapping[str, list[int]]) -> list[list[Any]] | None:
    """A remembered phase's findings with the checked files' lines moved from those it
    kept to ``lines``; None when they cannot be moved for sure (``line_shift``)."""
    kept = record.get("lines")
    stored = record.get("diagnostics")
    if not isinstance(kept, dict) or not isinstance(stored, list):
        return None
    try:
        return line_shift.moved_with_lines(stored, kept, lines)
    except (TypeError, ValueError):
        return None  # a record from a broken write


def _context_facts(
    others: list[str], settings: Settings, cache: Cache | None, crashes: list[tuple[str, str]],
    index: StatIndex | None = None, keys: Mapping[str, str | None] | None = None,
    only: frozenset[str] | None = None,
) -> dict[str, FileFacts] | None:
    """The facts of ``others`` (files of the project not checked in this run): from the
    cache's context files when they have theirs (``Cache.get_context``), else from each
    file's entry; the context is written again when it did not hold them all. ``keys``:
    their content keys, when the caller has them; ``only``: the project facts read, when
    not all (``boundaries.load_context_facts``)."""
    if not others:
        return None
    if keys is None and index is not None:
        keys = {path: _content_key(path, settings.max_file_size, index)[0] for path in others}
    known = cache.get_context(only) if cache is not None else {}
    if only is not None and keys is not None and any(keys.get(path) not in known for path in others):
        # files changed since the context was kept: it is written again, whole
        known, only = cache.get_context() if cache is not None else {}, None
    kept: dict[str, dict[str, Any]] = {}
    facts = boundaries.load_context_facts(
        others, settings, cache, lambda path: read_source(path, settings.max_file_size), crashes,
        key_of=keys.get if keys is not None else None, known=known, kept=kept, only=only,
    )
    if cache is not None and not crashes and only is None and kept.keys() != known.keys():
        cache.put_context(kept)  # (with ``only``, the facts kept are not whole)
    return facts


def _remembered(cache: Cache, key: str) -> list[Diagnostic] | None:
    return _decoded(cache.get_project(key))


def _decoded(stored: Any) -> list[Diagnostic] | None:
    if not isinstance(stored, list):
        return None
    try:
        return [Diagnostic.from_json(data, path) for path, data in stored]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _analyze_all(
    todo: list[tuple[str, int]],
    settings: Sequence[Settings],
    jobs: int | None,
    use_cache: Sequence[bool],
    keep_facts: "Sequence[bool | str]",
):
    """(path, group, cache key, result JSON) for each (path, group) of ``todo``."""
    if not todo:
        return  # all from the cache: the analysis is not even loaded
    # never more workers than files to analyse, nor than a machine can usefully run
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1, MAX_JOBS))
    if jobs <= 1 or len(todo) <= IN_PROCESS_MAX:
        worker.init_worker(settings, use_cache, keep_facts)
        for path, index in todo:
            key, data = worker.analyze_one(path, index)
            yield path, index, key, data
        return
    # The pool's modules cost a run that needs no pool (one changed file) a tenth of its time.
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    method = "fork" if sys.platform.startswith("linux") else None
    context = multiprocessing.get_context(method)
    # Largest files first, so that the last chunks are small ones and no worker is left
    # with a big file while the others wait (a stat each; a file gone sorts last).
    todo = sorted(todo, key=_size, reverse=True)
    chunk = max(1, min(32, len(todo) // (jobs * 8) or 1))
    chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]
    with ProcessPoolExecutor(
        # reading `worker.init_worker` loads the analysis here, before the fork: the
        # workers share it instead of each importing it
        max_workers=jobs, mp_context=context, initializer=worker.init_worker,
        initargs=(list(settings), list(use_cache), list(keep_facts)),
    ) as pool:
        # Consume results as they complete (in-order consumption would buffer every
        # result that finished behind a slow file, facts and all), and keep only a few
        # chunks in flight: a finished future holds its whole result (every file's
        # facts) for as long as anything refers to it.
        remaining = iter(chunks)
        pending: set = set()
        while True:
            while len(pending) < jobs * 4:
                next_chunk = next(remaining, None)
                if next_chunk is None:
                    break
                pending.add(pool.submit(worker.analyze_chunk, next_chunk))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield from future.result()
            del done, future


def _size(item: tuple[str, int]) -> int:
    try:
        return os.stat(item[0]).st_size
    except OSError:
        return -1
