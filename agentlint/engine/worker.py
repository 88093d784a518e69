"""Analysing files for a run, in the process pool's workers or in the run's own
process: each file is read, analysed and cached where it is analysed, and only what the
run keeps of its facts goes back. Loaded only when some file misses the cache.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from agentlint.engine.analyze import analyze_content, facts_only_json
from agentlint.engine.cache import Cache
from agentlint.engine.config import Settings
from agentlint.engine.results import FileResult, cacheable, project_phase_wanted, read_source, unreadable
from agentlint.facts.module_names import module_name_for
from agentlint.facts.types import PROJECT_FACT_KEYS, FileFacts
from agentlint.rules.builtin import INTERNAL_ERROR, engine_diagnostic

# What ``init_worker`` was given: per configuration of the run, its settings, its cache
# (None without one) and what to keep of the facts.
_WORKER_SETTINGS: list[Settings] = []
_WORKER_CACHE: "list[Cache | None]" = []
_WORKER_KEEP: "list[bool | str]" = []


_NOT_PROJECT_FACTS = {name: () for name in FileFacts.__dataclass_fields__ if name not in PROJECT_FACT_KEYS}
"""The other facts (definitions, calls, references, ...: all tuples), emptied when only
the project phase will read a result."""


def init_worker(
    settings: "Settings | Sequence[Settings]",
    use_cache: "bool | Sequence[bool]" = False,
    keep_facts: "bool | str | Sequence[bool | str]" = True,
) -> None:
    """The worker's settings: one per configuration of the run (files are sent with
    the index of theirs), with its cache and what to keep of the facts."""
    global _WORKER_SETTINGS, _WORKER_CACHE, _WORKER_KEEP
    _WORKER_SETTINGS = [settings] if isinstance(settings, Settings) else list(settings)
    count = len(_WORKER_SETTINGS)
    caching = list(use_cache) if isinstance(use_cache, (list, tuple)) else [use_cache] * count
    _WORKER_CACHE = [Cache(s.cache_dir, s.fingerprint()) if on else None for s, on in zip(_WORKER_SETTINGS, caching)]
    _WORKER_KEEP = list(keep_facts) if isinstance(keep_facts, (list, tuple)) else [keep_facts] * count


def analyze_one(path: str, group: int = 0) -> tuple[str, dict]:
    """Analyse one file (in a pool worker, or in the run's own process when few files
    miss the cache). The worker reads the file itself and writes its cache entry
    itself, and sends back only the facts the run keeps: the parent never holds the
    sources, nor every file's full facts, of a whole run."""
    settings, cache, keep_facts = _WORKER_SETTINGS[group], _WORKER_CACHE[group], _WORKER_KEEP[group]
    content = read_source(path, settings.max_file_size)
    if isinstance(content, str):
        return "", unreadable(path, content).to_json()
    key = Cache.key(path, content) if cache is not None else ""  # a run without cache keys nothing
    if keep_facts == "facts-only":
        return key, {"facts": facts_only_json(path, content, key, settings, cache)}
    project = project_phase_wanted(settings)
    try:
        # without a cache, a result's facts end with the run: only what its rules read
        result = analyze_content(path, content, settings, all_facts=cache is not None or keep_facts is True)
        if (cache is None and keep_facts is False) or not project:
            # nothing will read the facts: do not spend a tenth of the run encoding them
            result = replace(result, facts=FileFacts(result.facts.module, complete=result.facts.complete))
        elif cache is None and keep_facts == "project":
            # nothing keeps the facts the project phase does not read: do not encode them
            result = replace(result, facts=replace(result.facts, **_NOT_PROJECT_FACTS))
        data = result.to_json()
        if not project:
            # Per-file rules alone saw only part of the facts: the entry holds none (a
            # later `explain` or partial run must not take them for the whole).
            facts = data.pop("facts")
            data["module"], data["complete"] = facts["module"], facts["complete"]
    except Exception as exc:  # a bug outside any one rule: this file gets AGL003, the run goes on
        crashed = engine_diagnostic(INTERNAL_ERROR, path, f"Analysis crashed: {type(exc).__name__}: {exc}")
        data = FileResult(path, (crashed,), FileFacts(module=module_name_for(path), complete=False)).to_json()
    if cache is not None and cacheable(data):
        cache.put(key, data)
    if keep_facts is not True and "facts" in data:
        facts = data["facts"]
        keep = PROJECT_FACT_KEYS if keep_facts == "project" else ("module", "complete")
        data["facts"] = {k: facts[k] for k in keep if k in facts}
    return key, data


def analyze_chunk(todo: list[tuple[str, int]]) -> list[tuple[str, int, str, dict]]:
    return [(path, index, *analyze_one(path, index)) for path, index in todo]
