"""`# noqa` comments with ruff's semantics, and AGL900 for the ones that did nothing."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Iterable, Mapping

from agentlint.rules.builtin import ENGINE_CODE_SET, UNUSED_SUPPRESSION
from agentlint.rules.diagnostics import Diagnostic, Position, RuleMeta, Span


@dataclass(frozen=True)
class Suppression:
    """A `# noqa` comment: `codes` is empty for a blanket `# noqa`."""

    line: int
    column: int
    codes: tuple[str, ...]


_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)


_RELEVANT = re.compile(r"#\s*noqa(?!:\s?[A-Z]+[0-9])|#\s*noqa:[^\n]*AGL", re.IGNORECASE)
"""A blanket `# noqa`, or one naming an agentlint code: the only ones that matter here
(`# noqa: E501` neither suppresses our findings nor is ours to judge)."""


def find_suppressions(text: str) -> tuple[Suppression, ...]:
    """Every relevant `# noqa` in a comment (never in a string)."""
    if _RELEVANT.search(text) is None:
        return ()
    out: list[Suppression] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                _scan(tok.string, tok.start[0], tok.start[1], out)
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError):
        # Fall back to a line scan for files tokenize rejects.
        out.clear()
        for number, line in enumerate(text.splitlines(), 1):
            at = line.find("#")
            if at >= 0:
                _scan(line[at:], number, at, out)
    return tuple(out)


def _scan(comment: str, line: int, column: int, out: list[Suppression]) -> None:
    match = _NOQA.search(comment)
    if match is None:
        return
    codes = tuple(c.upper() for c in _CODE.findall(match.group("codes") or ""))
    out.append(Suppression(line, column + match.start() + 1, codes))


def apply_suppressions(
    diagnostics: Iterable[Diagnostic],
    suppressions: Iterable[Suppression],
    *,
    path: str,
    enabled: frozenset[str],
    rules: Mapping[str, RuleMeta],
) -> list[Diagnostic]:
    """Drop suppressed diagnostics and add AGL900 for suppressions that did nothing."""
    by_line: dict[int, Suppression] = {}
    for s in suppressions:
        by_line.setdefault(s.line, s)
    used: set[tuple[int, str]] = set()
    kept: list[Diagnostic] = []
    for d in diagnostics:
        s = by_line.get(d.line)
        if s is not None and d.code not in ENGINE_CODE_SET:
            if not s.codes:
                continue
            if d.code in s.codes:
                used.add((s.line, d.code))
                continue
        kept.append(d)
    if UNUSED_SUPPRESSION.code not in enabled:
        return kept
    for s in by_line.values():
        if UNUSED_SUPPRESSION.code in s.codes:
            continue
        unused = []
        for code in s.codes:
            if not code.startswith("AGL") or (s.line, code) in used:
                continue
            if code not in rules:
                unused.append((code, "unknown code"))
            elif code in enabled and code not in ENGINE_CODE_SET:
                unused.append((code, "nothing to suppress"))
        if unused:
            listed = ", ".join(f"`{c}` ({why})" for c, why in unused)
            kept.append(
                Diagnostic(
                    code=UNUSED_SUPPRESSION.code,
                    name=UNUSED_SUPPRESSION.name,
                    message=f"Unused `noqa` directive: {listed}",
                    path=path,
                    span=Span(Position(s.line, s.column), Position(s.line, s.column)),
                    help=UNUSED_SUPPRESSION.help,
                )
            )
    return kept
