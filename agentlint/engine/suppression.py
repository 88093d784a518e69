"""`# noqa` comments with ruff's semantics, and AGL900 for the ones that did nothing."""

from __future__ import annotations

import io
import re
import sys
import tokenize
from dataclasses import dataclass
from typing import Iterable, Mapping

from agentlint.lazy_regex import lazy_compile
from agentlint.rules.builtin import ENGINE_CODE_SET, UNUSED_SUPPRESSION
from agentlint.rules.diagnostics import Diagnostic, Position, RuleMeta, Span


INVALID = "!invalid"
"""First of the ``codes`` of a directive that is not one (see ``Suppression.invalid``)."""


@dataclass(frozen=True)
class Suppression:
    """A `# noqa` comment: `codes` is empty for a blanket `# noqa`. An invalid
    directive (`# noqa: see ticket 123`) suppresses nothing; it is kept, as
    ``(INVALID, its text)``, so that every run (cached or not) warns about it."""

    line: int
    column: int
    codes: tuple[str, ...]

    @property
    def invalid(self) -> bool:
        return bool(self.codes) and self.codes[0] == INVALID

    @property
    def text(self) -> str:
        """The directive as written (invalid directives only)."""
        return self.codes[1] if self.invalid and len(self.codes) > 1 else "# noqa"


@dataclass(frozen=True)
class Directive:
    """A `# noqa` directive read from a comment, as ruff reads it."""

    start: int
    """Where it starts in the comment (its `#`)."""
    end: int
    """Where its codes end (after `noqa` for a blanket one): codes are added there."""
    codes: tuple[str, ...] | None
    """The codes; None for a blanket `# noqa` (and for an invalid directive)."""
    invalid: bool = False
    text: str = ""


_START = lazy_compile(r"#\s*noqa", re.IGNORECASE)
_CODE_AT = lazy_compile(r"[A-Z]+[0-9]+")
_SEPARATORS = lazy_compile(r"[,\s]*")
_WORD = lazy_compile(r"[A-Za-z0-9_]")


def parse_directive(comment: str) -> Directive | None:
    """The first `# noqa` directive in ``comment`` (ruff's grammar), or None.

    `# noqa` alone (or followed by a space and any text) is blanket. `# noqa:` must be
    followed by codes — upper-case letters then digits (`AGL302`) — separated by commas
    or spaces; text after the last code is ignored. A `# noqa:` with no code after it
    (`# noqa: silent-broad-except`, `# noqa: see ticket 123`, `# noqa: agl302`) or a
    code running into letters (`# noqa: AGL3O2`) is invalid: it suppresses nothing."""
    for match in _START.finditer(comment):
        at = match.end()
        if at < len(comment) and _WORD.match(comment, at):
            continue  # `# noqaish`: another word
        rest = comment[at:].lstrip(" \t")
        if not rest.startswith(":"):
            return Directive(match.start(), at, None)
        position = _SEPARATORS.match(comment, len(comment) - len(rest) + 1).end()  # type: ignore[union-attr]
        codes: list[str] = []
        end = position
        while True:
            code = _CODE_AT.match(comment, position)
            if code is None:
                break
            if code.end() < len(comment) and _WORD.match(comment, code.end()):
                codes = []  # `AGL3O2`, `AGL302x`: not a code list
                break
            codes.append(code.group(0))
            end = code.end()
            position = _SEPARATORS.match(comment, end).end()  # type: ignore[union-attr]
        if not codes:
            return Directive(match.start(), match.end(), None, invalid=True, text=comment[match.start():].strip())
        return Directive(match.start(), end, tuple(codes))
    return None


def _relevant(line: str) -> bool:
    """Whether a line's `# noqa` matters here: blanket, invalid, or naming an agentlint
    code (`# noqa: E501` neither suppresses our findings nor is ours to judge)."""
    directive = parse_directive(line)
    if directive is None:
        return False
    return directive.codes is None or any(c.startswith("AGL") for c in directive.codes)


def _line_from(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def find_suppressions(text: str) -> tuple[Suppression, ...]:
    """Every relevant `# noqa` in a comment (never in a string)."""
    if not any(_relevant(_line_from(text, m.start())) for m in _START.finditer(text)):
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
    directive = parse_directive(comment)
    if directive is None:
        return
    if directive.invalid:
        out.append(Suppression(line, column + directive.start + 1, (INVALID, directive.text)))
        return
    out.append(Suppression(line, column + directive.start + 1, directive.codes or ()))


_WARNED: set[tuple[str, int, str]] = set()


def reset_warnings() -> None:
    """Forget the directives warned about (a new run warns again)."""
    _WARNED.clear()


def _escape(text: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f\ud800-\udfff]", lambda m: f"\\x{ord(m.group(0)) & 0xFF:02x}", text)


def warn_invalid(path: str, suppression: Suppression) -> None:
    """Say once per run, on stderr, that a directive is invalid and suppresses nothing."""
    key = (path, suppression.line, suppression.text)
    if key in _WARNED:
        return
    _WARNED.add(key)
    print(
        f"agentlint: warning: {_escape(path)}:{suppression.line}: invalid `# noqa` directive "
        f"`{_escape(suppression.text)}`: expected `# noqa` or a list of upper-case codes "
        f"(`# noqa: AGL302, AGL301`); it suppresses nothing",
        file=sys.stderr,
    )


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
        if s.invalid:
            warn_invalid(path, s)
            continue
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
