"""What identifies a finding across edits: path, code, the reported source text
(whitespace collapsed) and its occurrence, never line numbers. SARIF fingerprints and
baselines both use these keys, so a finding keeps its identity in both."""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from agentlint.facts.source import split_lines
from agentlint.report._common import SourceLines
from agentlint.rules.diagnostics import Diagnostic

MAX_SOURCE_CHARS = 200
"""Longer span texts are kept as a prefix plus a hash of the whole text."""


@dataclass(frozen=True, order=True)
class FindingKey:
    """What identifies a finding across edits (no line numbers)."""

    path: str
    """Relative to the project root, with forward slashes."""
    code: str
    source: str
    """The reported span's source text, whitespace runs collapsed to one space."""
    occurrence: int = 0
    """0 for the first finding with this path, code and text in the file, 1 for the next."""

    def fingerprint(self) -> str:
        """A stable 32-hex-digit hash of the key (for SARIF ``partialFingerprints``)."""
        payload = "\0".join((self.path, self.code, self.source, str(self.occurrence)))
        return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def to_json(self) -> dict:
        return {"path": self.path, "code": self.code, "source": self.source, "occurrence": self.occurrence}


def key_path(path: str, root: str) -> str:
    """``path`` relative to ``root`` with forward slashes (``..`` when outside it);
    symlinked folders are resolved on both sides."""
    absolute = os.path.abspath(path)
    absolute = os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))
    try:
        rel = os.path.relpath(absolute, os.path.realpath(root))
    except ValueError:  # another drive on Windows
        rel = absolute
    return rel.replace(os.sep, "/")


def normalise(text: str) -> str:
    """Whitespace runs collapsed to one space; a long text becomes a prefix + hash."""
    text = " ".join(text.split())
    if len(text) > MAX_SOURCE_CHARS:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        text = f"{text[:160]}... [sha256:{digest}]"
    return text


def span_text(diagnostic: Diagnostic, lines: Sequence[str] | None) -> str:
    """The normalised source text of the reported span; for an empty span (a syntax
    error, an unused `noqa`), the text of its line; "" when the source is unknown."""
    if not lines:
        return ""
    start, end = diagnostic.span.start, diagnostic.span.end
    if not 1 <= start.line <= len(lines):
        return ""
    if (end.line, end.column) <= (start.line, start.column) or end.line > len(lines):
        return normalise(lines[start.line - 1])
    if start.line == end.line:
        text = lines[start.line - 1][start.column - 1 : end.column - 1]
    else:
        parts = [lines[start.line - 1][start.column - 1 :]]
        parts += lines[start.line : end.line - 1]
        parts.append(lines[end.line - 1][: end.column - 1])
        text = "\n".join(parts)
    return normalise(text) or normalise(lines[start.line - 1])


def finding_keys(
    diagnostics: Sequence[Diagnostic], *, root: str, read_source: Callable[[str], "str | None"]
) -> list[FindingKey]:
    """The key of each diagnostic, in the order given. Occurrence indexes count the
    findings with the same path, code and text in file order (by position, then
    message), whatever order they are given in."""
    texts: dict[str, list[str] | None] = {}

    def lines_of(path: str) -> list[str] | None:
        if path not in texts:
            try:
                text = read_source(path)
            except (OSError, UnicodeError, ValueError):
                text = None
            texts[path] = split_lines(text) if text is not None else None
        return texts[path]

    sources = None

    def lines_for(d: Diagnostic) -> list[str] | None:
        nonlocal sources
        if d.cell is None:
            return lines_of(d.path)
        if sources is None:  # a notebook: the finding's lines are its cell's
            sources = SourceLines(read_source)
        return sources.cell_lines(d.path, d.cell)

    base = [(key_path(d.path, root), d.code, span_text(d, lines_for(d))) for d in diagnostics]
    order = sorted(range(len(diagnostics)), key=lambda i: (base[i], diagnostics[i].span.start, diagnostics[i].message))
    seen: Counter = Counter()
    keys: list[FindingKey | None] = [None] * len(diagnostics)
    for i in order:
        keys[i] = FindingKey(*base[i], seen[base[i]])
        seen[base[i]] += 1
    return keys  # type: ignore[return-value]


def file_reader(stdin: "tuple[str, bytes] | None" = None) -> Callable[[str], "str | None"]:
    """Path -> text; the source read from stdin stands for its `--stdin-filename`."""

    def read(path: str) -> str | None:
        if stdin is not None and path == stdin[0]:
            return stdin[1].decode("utf-8", errors="replace")
        try:
            with open(path, encoding="utf-8", errors="replace", newline="") as fh:
                return fh.read()
        except OSError:
            return None

    return read
