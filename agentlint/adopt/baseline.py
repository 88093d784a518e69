"""Baselines: record today's findings, then report only the new ones.

A finding is identified by a :class:`FindingKey`: its path relative to the project
root, its code, the normalised source text of the reported span and an occurrence
index (the n-th finding with the same path, code and text, in file order). Line
numbers are never part of it, so code added above a finding does not bring it back,
while a new finding that looks like an old one in another file (or one more copy in
the same file) is still new. :func:`finding_keys` computes the keys of a run's findings;
:meth:`FindingKey.fingerprint` is a short hash of one (SARIF ``partialFingerprints``).

The baseline file is JSON with one entry per line, sorted, so diffs review well::
    {
      "agentlint-baseline": 1,
      "findings": [
        {"path": "app/tools.py", "code": "AGL302", "source": "except Exception:", "occurrence": 0}
      ]
    }

Entries are matched after ``# noqa`` and ``per-file-ignores``. An entry is *stale* when
its file and its code were checked in this run and no finding matches it any more
(fixed, or the code changed); entries of files or codes that were not checked (a
pre-commit run on the changed files, ``--select``) are neither stale nor pruned.
"""

from __future__ import annotations

import bisect
import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from agentlint.engine.files import atomic_write
from agentlint.facts.source import UnreadableFile, read_regular
from agentlint.lazy_regex import lazy_compile
from agentlint.report.identity import FindingKey, finding_keys, key_path
from agentlint.rules.builtin import INTERNAL_ERROR
from agentlint.rules.diagnostics import Diagnostic

FORMAT_KEY = "agentlint-baseline"
FORMAT_VERSION = 1
NOT_RECORDED = frozenset({INTERNAL_ERROR.code})
"""A crashed rule is never baselined: it fails every run until it is fixed."""

_CODE = lazy_compile(r"^[A-Z]+[0-9]+$")
_ENTRY_FIELDS = ("path", "code", "source", "occurrence")


# -- the file ------------------------------------------------------------------------


class BaselineError(Exception):
    """A baseline file that cannot be used, located: ``FILE:LINE: what is wrong``."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


_SURROGATE = lazy_compile(r"[\ud800-\udfff]")


def _json_line(data: dict) -> str:
    """One entry as JSON text; a lone surrogate (a byte of a file name that is not UTF-8)
    is written as its JSON escape, which reads back as the same path."""
    text = json.dumps(data, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text) if _SURROGATE.search(text) else text


MAX_BASELINE_BYTES = 64 * 1024 * 1024
"""A baseline larger than this is not one agentlint wrote."""


@dataclass
class Baseline:
    path: str
    entries: dict[FindingKey, int] = field(default_factory=dict)
    """Key -> the line of the file it is on."""

    @staticmethod
    def load(path: str) -> "Baseline":
        try:
            raw = read_regular(path, MAX_BASELINE_BYTES)
        except FileNotFoundError:
            raise BaselineError(path, "baseline file not found (write one with `agentlint check --write-baseline FILE`)") from None
        except UnreadableFile as exc:
            raise BaselineError(path, f"cannot read the baseline file: {exc}") from None
        except OSError as exc:
            raise BaselineError(path, f"cannot read the baseline file: {exc.strerror or exc}") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise BaselineError(path, "not UTF-8 text", line) from None
        return parse(text, path)


def parse(text: str, path: str = "<baseline>") -> Baseline:
    """Read a baseline file's text; every problem is a :class:`BaselineError` with the
    line it is on."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise BaselineError(path, f"not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except _DuplicateKey as exc:
        raise BaselineError(path, f"`{exc.args[0]}` appears twice in one object") from None
    except (RecursionError, ValueError) as exc:
        raise BaselineError(path, f"not a baseline agentlint can read ({'nested too deeply' if isinstance(exc, RecursionError) else exc})") from None
    if not isinstance(data, dict):
        raise BaselineError(path, f"expected a JSON object with `{FORMAT_KEY}` and `findings`, got {_kind(data)}", 1)
    key_lines, entry_lines = _locate(text)
    for key in data:
        if key not in (FORMAT_KEY, "findings"):
            raise BaselineError(path, f"unknown key `{key}`{_suggest(key, (FORMAT_KEY, 'findings'))}", key_lines.get(key))
    version = data.get(FORMAT_KEY)
    if version is None:
        raise BaselineError(path, f"not an agentlint baseline: no `{FORMAT_KEY}` key", 1)
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise BaselineError(
            path, f"unsupported baseline version {version!r} (this agentlint reads version {FORMAT_VERSION})", key_lines.get(FORMAT_KEY)
        )
    findings = data.get("findings")
    if not isinstance(findings, list):
        raise BaselineError(path, f"`findings` must be a list, got {_kind(findings)}", key_lines.get("findings", 1))
    baseline = Baseline(path)
    for index, entry in enumerate(findings):
        line = entry_lines[index] if index < len(entry_lines) else None
        key = _entry(entry, path, line)
        if key in baseline.entries:
            raise BaselineError(
                path, f"duplicate entry (the same as line {baseline.entries[key]}); remove one of them", line
            )
        baseline.entries[key] = line or 0
    return baseline


class _DuplicateKey(Exception):
    pass


def _no_duplicate_keys(pairs):
    seen: dict = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _suggest(word: str, options: Iterable[str]) -> str:
    match = difflib.get_close_matches(word, list(options), n=1, cutoff=0.5)
    return f"; did you mean `{match[0]}`?" if match else ""


def _entry(entry, path: str, line: int | None) -> FindingKey:
    if not isinstance(entry, dict):
        raise BaselineError(path, f"each finding must be an object with {', '.join(_ENTRY_FIELDS)}; got {_kind(entry)}", line)
    for name in entry:
        if name not in _ENTRY_FIELDS:
            raise BaselineError(path, f"unknown field `{name}`{_suggest(name, _ENTRY_FIELDS)}", line)
    for name in _ENTRY_FIELDS:
        if name not in entry:
            raise BaselineError(path, f"the finding has no `{name}`", line)
    p, code, source, occurrence = (entry[n] for n in _ENTRY_FIELDS)
    if not isinstance(p, str) or not p:
        raise BaselineError(path, f"`path` must be a non-empty string, got {p!r}", line)
    if not isinstance(code, str) or not _CODE.match(code):
        raise BaselineError(path, f"`code` must be a rule code such as AGL302, got {code!r}", line)
    if not isinstance(source, str):
        raise BaselineError(path, f"`source` must be a string, got {source!r}", line)
    if type(occurrence) is not int or occurrence < 0:
        raise BaselineError(path, f"`occurrence` must be a whole number >= 0, got {occurrence!r}", line)
    return FindingKey(p, code, source, occurrence)


_WS = lazy_compile(r"[ \t\n\r]*")


def _locate(text: str) -> tuple[dict[str, int], list[int]]:
    """For a text that is valid JSON with an object at the top: the line of each
    top-level key, and the line each element of the `findings` list starts on."""
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_at(offset: int) -> int:
        return bisect.bisect_left(newlines, offset) + 1

    decoder = json.JSONDecoder()
    key_lines: dict[str, int] = {}
    entries: list[int] = []

    def skip(pos: int) -> int:
        return _WS.match(text, pos).end()  # type: ignore[union-attr]

    pos = skip(0) + 1  # past "{"
    while True:
        pos = skip(pos)
        if pos >= len(text) or text[pos] == "}":
            break
        key_start = pos
        key, pos = decoder.raw_decode(text, pos)
        key_lines[key] = line_at(key_start)
        pos = skip(pos) + 1  # past ":"
        pos = skip(pos)
        if key == "findings" and text[pos] == "[":
            entries = []
            pos += 1
            while True:
                pos = skip(pos)
                if text[pos] == "]":
                    pos += 1
                    break
                entries.append(line_at(pos))
                _, pos = decoder.raw_decode(text, pos)
                pos = skip(pos)
                if text[pos] == ",":
                    pos += 1
        else:
            _, pos = decoder.raw_decode(text, pos)
        pos = skip(pos)
        if pos < len(text) and text[pos] == ",":
            pos += 1
    return key_lines, entries


def render(keys: Iterable[FindingKey]) -> str:
    """The file's text: sorted, one entry per line, a trailing newline."""
    ordered = sorted(set(keys))
    lines = ["{", f'  "{FORMAT_KEY}": {FORMAT_VERSION},']
    if not ordered:
        lines.append('  "findings": []')
    else:
        lines.append('  "findings": [')
        body = [_json_line(k.to_json()) for k in ordered]
        lines += [f"    {entry}," for entry in body[:-1]] + [f"    {body[-1]}"]
        lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- using it ------------------------------------------------------------------------


@dataclass
class Scope:
    """What a run checked: entries outside it are left alone."""

    root: str
    paths: frozenset[str]
    """Key paths of the files checked."""
    codes: frozenset[str]
    """Codes enabled in the run (in every file, when ``codes_by_path`` is None)."""
    codes_by_path: Mapping[str, frozenset[str]] | None = None
    """Key path -> the codes enabled for that file, when files of the run have
    different configurations."""

    @staticmethod
    def of(
        checked_paths: Iterable[str], enabled: "Iterable[str] | Callable[[str], Iterable[str]]", root: str
    ) -> "Scope":
        """``enabled`` is the run's codes, or a function giving the codes of a file."""
        checked = list(checked_paths)
        if callable(enabled):
            by_path = {key_path(p, root): frozenset(enabled(p)) for p in checked}
            codes = frozenset().union(*by_path.values()) if by_path else frozenset()
            return Scope(root, frozenset(by_path), codes, by_path)
        return Scope(root, frozenset(key_path(p, root) for p in checked), frozenset(enabled))

    def covers(self, key: FindingKey) -> bool:
        if key.path not in self.paths:
            return False
        codes = self.codes if self.codes_by_path is None else self.codes_by_path.get(key.path, frozenset())
        return key.code in codes


@dataclass
class Outcome:
    new: list[Diagnostic]
    """Findings not in the baseline, in the order given."""
    matched: int
    stale: list[tuple[FindingKey, int]]
    """Entries in scope that matched nothing, with their line in the file."""


def apply(
    diagnostics: Sequence[Diagnostic],
    baseline: Baseline,
    scope: Scope,
    read_source: Callable[[str], "str | None"],
) -> Outcome:
    """Split the run's (final) findings into new ones and baselined ones."""
    keys = finding_keys(diagnostics, root=scope.root, read_source=read_source)
    new = [d for d, k in zip(diagnostics, keys) if k not in baseline.entries]
    found = set(keys)
    stale = sorted(
        ((k, line) for k, line in baseline.entries.items() if scope.covers(k) and k not in found),
        key=lambda item: item[0],
    )
    return Outcome(new, len(diagnostics) - len(new), stale)


@dataclass
class Written:
    total: int
    added: int
    removed: int
    kept_outside: int
    """Entries of files or codes this run did not check, kept as they were."""


def write(
    path: str,
    diagnostics: Sequence[Diagnostic],
    scope: Scope,
    read_source: Callable[[str], "str | None"],
    previous: Baseline | None,
) -> Written:
    """Record the run's findings in ``path`` (atomically); entries of the previous
    baseline that the run did not cover are kept, the rest are replaced."""

    recorded = [d for d in diagnostics if d.code not in NOT_RECORDED]
    keys = set(finding_keys(recorded, root=scope.root, read_source=read_source))
    old = set(previous.entries) if previous else set()
    outside = {k for k in old if not scope.covers(k)}
    total = keys | outside
    atomic_write(path, render(total).encode("utf-8"))
    return Written(len(total), len(total - old), len(old - total), len(outside))


def describe(key: FindingKey) -> str:
    source = key.source if len(key.source) <= 80 else key.source[:77] + "..."
    nth = f" (occurrence {key.occurrence})" if key.occurrence else ""
    return f"{key.path}: {key.code} `{source}`{nth}"
