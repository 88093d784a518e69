"""The human formats, ``full`` and ``concise``, and ``--statistics``; modelled on ruff.

``full``::

    src/agent.py:12:5: AGL302 Broad `except` swallows the error silently
       |
    11 |     try:
    12 |         run()
       |         ^^^^^ AGL302
    13 |     except Exception:
       |
      = help: Log or re-raise the exception.

    Found 1 error.

``concise`` prints only the first line of each finding, then the same summary.
"""

from __future__ import annotations

import unicodedata
from typing import TextIO

from agentlint.report._common import Report, SourceLines, is_fixable, printable, statistics
from agentlint.rules.builtin import UNREADABLE_FILE
from agentlint.rules.diagnostics import Diagnostic, Span

CONTEXT_LINES = 2
"""Lines of source shown before and after the span (blank edge lines are trimmed)."""
MAX_SPAN_LINES = 10
"""Multi-line spans longer than this show their first and last lines only."""
HEAD_LINES = 4
TAIL_LINES = 3
TAB_WIDTH = 4

# Zero-width joiners are part of emoji and some scripts; every other format character
# (bidi overrides, BOM, ...) is shown escaped so a code frame cannot be made to lie.
_KEEP_FORMAT_CHARS = frozenset("\u200c\u200d")


class _Style:
    """ANSI styling that is a no-op when colour is off."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def _sgr(self, codes: str, text: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{codes}m{text}\x1b[0m"

    def bold(self, text: str) -> str:
        return self._sgr("1", text)

    def error(self, text: str) -> str:
        return self._sgr("1;31", text)

    def cyan(self, text: str) -> str:
        return self._sgr("36", text)

    def gutter(self, text: str) -> str:
        return self._sgr("1;34", text)

    def success(self, text: str) -> str:
        return self._sgr("1;32", text)


def write_full(report: Report, out: TextIO) -> None:
    """The default format: each finding with a code frame, help and notes."""
    write_text(report, out, full=True)


def write_concise(report: Report, out: TextIO) -> None:
    """One `path:line:col: CODE message` line per finding."""
    write_text(report, out, full=False)


def write_text(report: Report, out: TextIO, *, full: bool) -> None:
    style = _Style(report.color)
    diagnostics = report.diagnostics
    fixable = sum(1 for d in diagnostics if is_fixable(d, report.unsafe_fixes))
    show_fix_status = report.fix_hint and fixable > 0

    if report.statistics:
        _write_statistics(report, out, style)
        if report.summary:
            _write_summary(report, out, style, fixable)
        return

    sources = SourceLines(report.read_source) if full else None
    # notes (what agentlint could not check) come after the findings, which are what to act on
    ordered = [d for d in diagnostics if d.severity != "note"] + [d for d in diagnostics if d.severity == "note"]
    for diagnostic in ordered:
        out.write(_header(diagnostic, style, show_fix_status, report.unsafe_fixes) + "\n")
        if sources is not None:
            for line in _details(diagnostic, report, sources, style):
                out.write(line + "\n")
            out.write("\n")
    if report.summary:
        _write_summary(report, out, style, fixable)


def _header(d: Diagnostic, style: _Style, show_fix_status: bool, unsafe_fixes: bool = False) -> str:
    sep = style.cyan(":")
    cell = f"cell {d.cell}{sep}" if d.cell is not None else ""
    location = f"{style.bold(printable(d.path))}{sep}{cell}{d.span.start.line}{sep}{d.span.start.column}{sep}"
    fix = f"[{style.cyan('*')}] " if show_fix_status and is_fixable(d, unsafe_fixes) else ""
    message = printable(d.message)
    if d.severity == "note":
        return f"{location} {style.cyan(d.code)} note: {message}"
    return f"{location} {style.error(d.code)} {fix}{message}"


def _details(
    d: Diagnostic, report: Report, sources: SourceLines, style: _Style
) -> list[str]:
    lines = sources.lines(d.path) if d.cell is None else sources.cell_lines(d.path, d.cell)
    # no frame for a file that could not be read: its bytes are not source to show
    show = lines is not None and d.code != UNREADABLE_FILE.code
    frame, width = _frame(lines, d.span, d.code, style) if show else ([], 1)
    result = list(frame)
    indent = " " * (width + 1)
    eq = style.gutter("=")

    help_text = d.help
    if not help_text:
        meta = report.rules.get(d.code)
        help_text = meta.help if meta is not None else ""
    if not help_text and d.fix is not None:
        help_text = d.fix.message
    if help_text:
        result.append(f"{indent}{eq} {style.bold('help')}: {help_text}")
    for related in d.related:
        cell = f"cell {related.cell}:" if related.cell is not None else ""
        where = f"{printable(related.path)}:{cell}{related.span.start.line}:{related.span.start.column}"
        note = f"other place: {where} {printable(related.message)}".rstrip()
        result.append(f"{indent}{eq} {style.bold('note')}: {note}")
    return result


# -- code frames ---------------------------------------------------------------------


def _char_display(ch: str) -> tuple[str, int]:
    """How one character is shown in a frame, and how many columns it takes."""
    if ch == "\t":
        return " " * TAB_WIDTH, TAB_WIDTH
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code), 1  # control pictures: ␀ ␁ ...
    if code == 0x7F:
        return "\u2421", 1
    category = unicodedata.category(ch)
    if category == "Cf" and ch not in _KEEP_FORMAT_CHARS:
        shown = f"<U+{code:04X}>"
        return shown, len(shown)
    if category in ("Mn", "Me", "Cf"):
        return ch, 0
    return ch, 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _render(line: str) -> tuple[str, list[int]]:
    """The displayed text of a source line, and the display offset of each character
    (``offsets[i]`` is where character ``i`` starts; the last entry is the width)."""
    if line.isascii() and line.isprintable():
        return line, list(range(len(line) + 1))  # each character shown as it is, one column wide
    parts: list[str] = []
    offsets = [0]
    position = 0
    for ch in line:
        shown, width = _char_display(ch)
        parts.append(shown)
        position += width
        offsets.append(position)
    return "".join(parts), offsets


def _frame(
    lines: list[str], span: Span, label: str, style: _Style
) -> tuple[list[str], int]:
    """The code frame of ``span`` and its gutter width; no frame when the span is not
    inside the file."""
    count = len(lines)
    l1, c1 = span.start.line, span.start.column
    l2, c2 = span.end.line, span.end.column
    if not 1 <= l1 <= count:
        return [], 1
    if (l2, c2) < (l1, c1):
        l2, c2 = l1, c1
    if l2 > count:
        l2, c2 = count, len(lines[count - 1]) + 1
    if l2 > l1 and c2 <= 1:
        # The span ends at the very start of a line: it really ends with the line before.
        l2 -= 1
        c2 = len(lines[l2 - 1]) + 1
    c1 = max(1, min(c1, len(lines[l1 - 1]) + 1))
    c2 = max(1, min(c2, len(lines[l2 - 1]) + 1))
    if l2 == l1 and c2 < c1:
        c2 = c1

    first = max(1, l1 - CONTEXT_LINES)
    last = min(count, l2 + CONTEXT_LINES)
    while first < l1 and not lines[first - 1].strip():
        first += 1
    while last > l2 and not lines[last - 1].strip():
        last -= 1

    elide_after: int | None = None
    shown = list(range(first, last + 1))
    if l2 - l1 + 1 > MAX_SPAN_LINES:
        elide_after = l1 + HEAD_LINES - 1
        tail_start = l2 - TAIL_LINES + 1
        shown = [n for n in shown if n <= elide_after or n >= tail_start]

    width = len(str(last))
    if elide_after is not None:
        width = max(width, 3)
    blank_gutter = style.gutter(" " * width + " |")
    multi = l2 > l1

    def code_row(number: str, marker: str, body: str) -> str:
        gutter = style.gutter(f"{number:>{width}} |")
        body = body.rstrip()
        if not body:
            marker = marker.rstrip()
            if not marker:
                return gutter
        return f"{gutter} {style.error(marker) if marker.strip() else marker}{body}"

    def note_row(text: str) -> str:
        return f"{blank_gutter} {text}"

    rows = [blank_gutter]
    if not multi:
        for n in shown:
            text, offsets = _render(lines[n - 1])
            rows.append(code_row(str(n), "", text))
            if n == l1:
                start = offsets[c1 - 1]
                carets = max(1, offsets[c2 - 1] - start)
                rows.append(note_row(" " * start + style.error("^" * carets + " " + label)))
        rows.append(blank_gutter)
        return rows, width

    starts_at_indent = not lines[l1 - 1][: c1 - 1].strip()
    for n in shown:
        text, offsets = _render(lines[n - 1])
        if n < l1 or n > l2:
            rows.append(code_row(str(n), "  ", text))
        elif n == l1:
            rows.append(code_row(str(n), "/ " if starts_at_indent else "  ", text))
            if not starts_at_indent:
                rows.append(note_row(style.error(" " + "_" * (offsets[c1 - 1] + 1) + "^")))
        else:
            rows.append(code_row(str(n), "| ", text))
        if n == elide_after:
            rows.append(code_row("...", "| ", ""))
        if n == l2:
            end = offsets[c2 - 2] if c2 >= 2 else 0
            rows.append(note_row(style.error("|" + "_" * (end + 1) + "^ " + label)))
    rows.append(blank_gutter)
    return rows, width


# -- summary and statistics ----------------------------------------------------------


def _write_summary(report: Report, out: TextIO, style: _Style, fixable: int) -> None:
    notes = sum(1 for d in report.diagnostics if d.severity == "note")
    total = len(report.diagnostics) - notes
    also = f" ({notes} note{'' if notes == 1 else 's'} above)" if notes else ""
    if report.fixed:
        found = total + report.fixed
        out.write(
            f"Found {found} error{'' if found == 1 else 's'} "
            f"({report.fixed} fixed, {total} remaining){also}.\n"
        )
    elif total == 0 and not report.files_checked and not notes:
        out.write("No files checked.\n")  # the run says on stderr that it found none
    elif total == 0:
        files = f"{report.files_checked} file{'' if report.files_checked == 1 else 's'} checked"
        noted = f", {notes} note{'' if notes == 1 else 's'}" if notes else ""
        out.write(style.success("All checks passed!") + f" ({files}{noted})\n")
    else:
        out.write(f"Found {total} error{'' if total == 1 else 's'}{also}.\n")
    if not report.fix_hint:
        return
    hidden = 0
    if not report.unsafe_fixes:
        hidden = sum(1 for d in report.diagnostics if d.fix is not None and not d.fix.safe)
    hidden_text = (
        f"{hidden} hidden fix{'' if hidden == 1 else 'es'} can be enabled with the --unsafe-fixes option"
    )
    if fixable:
        line = f"[{style.cyan('*')}] {fixable} fixable with the --fix option"
        line += f" ({hidden_text}).\n" if hidden else ".\n"
        out.write(line)
    elif hidden:
        out.write(f"No fixes available ({hidden_text}).\n")


def _write_statistics(report: Report, out: TextIO, style: _Style) -> None:
    """``count<TAB>code<TAB>[*] name`` per code, most frequent first (flake8/ruff)."""
    table = statistics(report)
    if not table:
        return
    names = {code: name for code, name, _, _ in table}
    fixable = {code: fixed for code, _, _, fixed in table}
    counts = {code: count for code, _, count, _ in table}
    rows = [(code, count) for code, _, count, _ in table]
    count_width = len(str(rows[0][1]))
    code_width = max(len(code) for code in counts)
    any_fixable = any(fixable.values()) and report.fix_hint
    for code, count in rows:
        marker = ""
        if any_fixable:
            if fixable[code] == count:
                marker = f"[{style.cyan('*')}] "
            elif fixable[code]:
                marker = f"[{style.cyan('~')}] "
            else:
                marker = "[ ] "
        # Pad before styling so ANSI codes do not count towards the width.
        count_text = style.bold(f"{count:>{count_width}}")
        code_text = style.error(f"{code:<{code_width}}")
        out.write(f"{count_text}\t{code_text}\t{marker}{names[code]}\n")
