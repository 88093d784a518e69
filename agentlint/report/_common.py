"""What every format shares: the ``Report`` a run hands to a writer, the rule
documentation URLs, source lines for code frames, and path helpers (kept free of heavy
imports)."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from agentlint.facts import notebooks
from agentlint.facts.source import split_lines
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.diagnostics import Diagnostic, RuleMeta

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab")

def rule_url(code: str, docs_url: str | None = None) -> str | None:
    """The published page of rule ``code``: `docs-url` with `{code}` filled in, or None
    when `docs-url` is not set (the rule pages ship in `docs/rules/`; no report links to
    a site that may not exist)."""
    return docs_url.replace("{code}", code) if docs_url else None


def docs_home(docs_url: str | None) -> str | None:
    """Where the rule pages are published: `docs-url` up to its last `/` before
    `{code}` (SARIF ``informationUri``), or None."""
    if not docs_url:
        return None
    return docs_url[: docs_url.index("{code}")].rpartition("/")[0] + "/"


@dataclass
class Report:
    """Everything a reporter needs to write one run's results."""

    diagnostics: Sequence[Diagnostic]
    """Already sorted and filtered; paths as to display (relative to cwd when possible)."""
    rules: Mapping[str, RuleMeta]
    """Every known rule by code (SARIF descriptors, help text, names)."""
    files_checked: int
    root: str
    """Absolute folder that SARIF and GitLab paths are relative to: the repository's
    top (``discovery.repository_root``), else the working folder."""
    read_source: Callable[[str], "str | None"]
    """Path -> file text, for code frames and fingerprints; None when unavailable."""
    color: bool = False
    """ANSI colours; only the ``full`` and ``concise`` formats use them."""
    statistics: bool = False
    """Text formats print counts by code instead of the findings (like ruff's
    ``--statistics``); machine formats ignore it."""
    fix_hint: bool = True
    """Text formats mark fixable findings with ``[*]`` and count them in the summary."""
    unsafe_fixes: bool = False
    """``--unsafe-fixes``: findings with an unsafe fix count as fixable too."""
    fixed: int = 0
    """Findings fixed by ``--fix`` in this run (the summary says how many)."""
    tool_version: str = ""
    summary: bool = True
    """Text formats end with a summary line (`-q` leaves it out: findings only)."""
    docs_url: str | None = None
    """`docs-url`: the rule pages' URL with `{code}` (None: no links)."""

    def rule_url(self, code: str) -> str | None:
        return rule_url(code, self.docs_url)


class SourceLines:
    """Reads each file at most once and hands out its lines (1-based)."""

    def __init__(self, read_source: Callable[[str], "str | None"]):
        self._read = read_source
        self._cache: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._cache:
            try:
                text = self._read(path)
            except (OSError, UnicodeError, ValueError):
                text = None
            self._cache[path] = split_lines(text) if text is not None else None
        return self._cache[path]

    def line(self, path: str, number: int, cell: int | None = None) -> str | None:
        lines = self.lines(path) if cell is None else self.cell_lines(path, cell)
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]

    def cell_lines(self, path: str, cell: int) -> list[str] | None:
        """The lines of one cell of a notebook (as written, IPython syntax and all)."""
        key = f"{path}\0cell {cell}"
        if key not in self._cache:
            lines = None
            try:
                text = self._read(path)
                if text is not None:
                    cells = notebooks.load(text.encode("utf-8"))["cells"]
                    if 1 <= cell <= len(cells):
                        lines = notebooks.split_cell(notebooks.cell_source(cells[cell - 1]))
            except (OSError, UnicodeError, ValueError):
                lines = None
            self._cache[key] = lines
        return self._cache[key]


def is_safe_fix(diagnostic: Diagnostic) -> bool:
    """Whether ``--fix`` applies the diagnostic's fix (ruff's "fixable")."""
    return diagnostic.fix is not None and diagnostic.fix.safe


def is_fixable(diagnostic: Diagnostic, unsafe_fixes: bool = False) -> bool:
    """Whether ``--fix`` applies the diagnostic's fix; with ``--unsafe-fixes`` unsafe
    fixes count too."""
    return diagnostic.fix is not None and (diagnostic.fix.safe or unsafe_fixes)


_UNPRINTABLE = lazy_compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    ch = match.group(0)
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that is not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` safe to print and to encode: control characters (newlines, terminal
    escape sequences) and undecodable bytes of file names are written as escapes, so a
    file name can neither forge an output line nor crash the writer."""
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


def json_text(data: object, **options) -> str:
    """``json.dumps`` for the machine formats: UTF-8 text (``ensure_ascii=False``) in
    which no lone surrogate of an undecodable file name survives."""
    text = json.dumps(data, ensure_ascii=False, **options)
    if not _SURROGATE.search(text):
        return text
    # inside a JSON string the escape's backslash is itself escaped: the value reads `\xff`
    return _SURROGATE.sub(lambda m: _escape(m).replace("\\", "\\\\"), text)


_SURROGATE = lazy_compile(r"[\ud800-\udfff]")


def posix(path: str) -> str:
    return path.replace(os.sep, "/") if os.sep != "/" else path


def relative_to_root(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` with forward slashes, or None when it is outside."""
    absolute = os.path.abspath(path)
    try:
        rel = os.path.relpath(absolute, os.path.abspath(root))
    except ValueError:  # another drive on Windows
        return None
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return posix(rel)


def statistics(report: Report) -> list[tuple[str, str, int, int]]:
    """(code, name, count, fixable count) per code, most frequent first."""
    counts: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    names: dict[str, str] = {}
    for d in report.diagnostics:
        counts[d.code] += 1
        if is_fixable(d, report.unsafe_fixes):
            fixable[d.code] += 1
        names.setdefault(d.code, d.name)
    for code in names:
        meta = report.rules.get(code)
        if meta is not None:
            names[code] = meta.name
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(code, names[code], count, fixable[code]) for code, count in rows]
