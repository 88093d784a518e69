"""Applying fixes: text edits, the check -> fix loop, and atomic writes.

A `Fix` is a set of text edits that stand or fall together. Per round, the fixes of a
file are taken in source order; a fix whose edits overlap one already taken waits for
the next round (the file is checked again in between, so its findings and fixes are
recomputed from the new text). A fix identical to one already taken (several findings
sharing one fix, such as a renamed import and its uses) is applied once and counted for
each finding. The loop stops when no fix applies, when a round's result would not
parse, or after ``MAX_ROUNDS`` rounds.

Nothing is written unless the result parses with LibCST, a file that does not parse is
never touched, and writes go through a temporary file in the same folder and
``os.replace`` (the file's mode is kept).
"""

from __future__ import annotations

import difflib
import io
import os
import stat
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from agentlint.engine.cst_pass import for_libcst
from agentlint.engine.discovery import outside_project
from agentlint.engine.files import create_temporary, remove_stale_temporaries
from agentlint.facts.source import decode, read_regular
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.diagnostics import Diagnostic, Fix
from agentlint.rules.lazy import libcst_module

cst = libcst_module()

MAX_ROUNDS = 10
"""Check -> fix rounds per file; fixes that overlap need one round each."""

_NEWLINE = lazy_compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offset of the first character of each line (lines numbered the way LibCST and
    the parser number them: ``\\r\\n``, ``\\r`` and ``\\n`` end a line)."""
    starts = [0]
    starts.extend(m.end() for m in _NEWLINE.finditer(text))
    return starts


def _offset(starts: list[int], text: str, line: int, column: int) -> int | None:
    if not 1 <= line <= len(starts):
        return None
    offset = starts[line - 1] + column - 1
    limit = starts[line] if line < len(starts) else len(text)
    if column < 1 or offset > limit:
        return None
    return offset


def _ranges(fix: Fix, starts: list[int], text: str) -> list[tuple[int, int, str]] | None:
    out = []
    for edit in fix.edits:
        begin = _offset(starts, text, edit.span.start.line, edit.span.start.column)
        end = _offset(starts, text, edit.span.end.line, edit.span.end.column)
        if begin is None or end is None or end < begin:
            return None
        out.append((begin, end, edit.content))
    out.sort()
    return out


def _overlap(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    if a[0] == a[1] == b[0] == b[1]:
        return True  # two insertions at one point: their order would be a guess
    return a[0] < b[1] and b[0] < a[1]


def apply_fixes(text: str, fixes: Sequence[Fix]) -> tuple[str, list[int]]:
    """Apply as many of ``fixes`` as do not overlap, in source order. Returns the new
    text and the indexes of the fixes applied (a fix identical to an applied one counts
    as applied)."""
    starts = line_starts(text)
    located = []
    for index, fix in enumerate(fixes):
        ranges = _ranges(fix, starts, text)
        if ranges:
            located.append((ranges[0][0], index, ranges))
    located.sort(key=lambda item: (item[0], item[1]))
    taken: list[tuple[int, int, str]] = []
    taken_keys: set[tuple] = set()
    applied: list[int] = []
    for _, index, ranges in located:
        key = tuple(ranges)
        if key in taken_keys:
            applied.append(index)
            continue
        if any(_overlap(r, t) for r in ranges for t in taken):
            continue
        # Two edits of one fix may not overlap either.
        if any(_overlap(a, b) for i, a in enumerate(ranges) for b in ranges[i + 1 :]):
            continue
        taken.extend(ranges)
        taken_keys.add(key)
        applied.append(index)
    pieces = []
    position = 0
    for begin, end, content in sorted(taken):
        pieces.append(text[position:begin])
        pieces.append(content)
        position = end
    pieces.append(text[position:])
    return "".join(pieces), sorted(applied)


def parses(text: str) -> bool:
    try:
        cst.parse_module(for_libcst(text))
    except Exception:
        return False
    return True


def compile_error(text: str, path: str) -> str | None:
    """Why ``text`` does not compile (`compile(..., "exec")`, which also catches what a
    parse alone accepts: a repeated keyword, a misplaced `nonlocal`), or None."""
    try:
        with warnings.catch_warnings():  # `"x"()` and the like warn: not ours to print
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc.msg or str(exc)
    except (ValueError, RecursionError, MemoryError) as exc:
        return str(exc) or type(exc).__name__
    return None


def wanted(diagnostic: Diagnostic, unsafe: bool) -> bool:
    """Whether a run with (or without) ``--unsafe-fixes`` applies this finding's fix."""
    return diagnostic.fix is not None and bool(diagnostic.fix.edits) and (diagnostic.fix.safe or unsafe)


@dataclass
class FileFix:
    """What fixing one file did (or, for ``--diff``, would do)."""

    path: str
    original: bytes
    fixed_text: str | None = None
    """The fixed text, or None when nothing changed."""
    encoding: str = "utf-8"
    fixed: list[Diagnostic] = field(default_factory=list)
    """The findings whose fixes were applied, over all rounds."""
    error: str | None = None
    """Why the file was left alone (it could not be read or parsed, or a fix broke it)."""
    dropped: list[str] = field(default_factory=list)
    """Fixes not applied because the code they produced would not compile, each said."""

    @property
    def changed(self) -> bool:
        return self.fixed_text is not None

    def fixed_bytes(self) -> bytes:
        assert self.fixed_text is not None
        return self.fixed_text.encode(self.encoding)


def fix_content(
    path: str,
    content: bytes,
    check: Callable[[str, bytes], Iterable[Diagnostic]],
    *,
    unsafe: bool = False,
    max_rounds: int = MAX_ROUNDS,
) -> FileFix:
    """Run check -> fix rounds on one file's bytes. ``check(path, content)`` returns the
    file's findings (suppressions applied). Nothing is written here."""
    result = FileFix(path, content)
    if path.lower().endswith(".ipynb"):
        result.error = "not fixed: --fix does not rewrite notebooks yet; apply the fixes in the cells by hand"
        return result
    try:
        text = decode(content)
    except (UnicodeDecodeError, SyntaxError, LookupError):
        result.error = "not valid UTF-8 or declared encoding"
        return result
    result.encoding = _encoding(content)
    if not parses(text):
        result.error = "the file does not parse"
        return result
    # Every result must compile as the original does; code written for a newer Python
    # than this one (which does not compile here) is held to parsing with LibCST.
    compiles_now = compile_error(text, path) is None

    def broken(candidate: str) -> str | None:
        if compiles_now:
            return compile_error(candidate, path)
        return None if parses(candidate) else "the result does not parse"

    current = text
    diagnostics = list(check(path, content))
    refused: set[tuple] = set()
    for _ in range(max_rounds):
        candidates = [d for d in diagnostics if wanted(d, unsafe) and _fix_key(d) not in refused]
        if not candidates:
            break
        new_text, applied = apply_fixes(current, [d.fix for d in candidates])  # type: ignore[misc]
        if not applied or new_text == current:
            break
        if broken(new_text) is not None:
            # A fix that breaks the file is a bug: keep the fixes that compile one by one,
            # drop (and say) the ones that do not.
            kept: list[Diagnostic] = []
            for d in candidates:
                trial, trial_applied = apply_fixes(current, [k.fix for k in (*kept, d)])  # type: ignore[misc]
                reason = broken(trial)
                if reason is None:
                    kept.append(d)
                else:
                    refused.add(_fix_key(d))
                    result.dropped.append(
                        f"{d.code} fix at line {d.line} not applied: the code it produces would not compile ({reason})"
                    )
            if not kept:
                break
            candidates = kept
            new_text, applied = apply_fixes(current, [d.fix for d in candidates])  # type: ignore[misc]
            if not applied or new_text == current or broken(new_text) is not None:
                break
        try:
            new_bytes = new_text.encode(result.encoding)
        except UnicodeEncodeError:
            result.error = f"the fixed text cannot be saved as {result.encoding}"
            break
        result.fixed.extend(candidates[i] for i in applied)
        current = new_text
        diagnostics = list(check(path, new_bytes))
    if current != text:
        result.fixed_text = current
    return result


def _fix_key(d: Diagnostic) -> tuple:
    """A fix as it stays from round to round (its lines move when others are applied)."""
    return (d.code, d.message, tuple(e.content for e in d.fix.edits) if d.fix else ())


def _encoding(content: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(content).readline)
    except SyntaxError:
        return "utf-8"
    return encoding


class NotWritten(Exception):
    """A fixed file left as it was; the message says why, for the user."""


def write_fixed(path: str, original: bytes, data: bytes, root: str) -> None:
    """Replace the content ``original`` of the user's file ``path`` with ``data``, or
    raise ``NotWritten`` and touch nothing:

    - a symlink is followed only to a file inside ``root`` (its target is rewritten, the
      link stays); a read-only file is not rewritten;
    - the file must still hold ``original`` (an editor may have saved it meanwhile); it
      is read again just before the replacement;
    - owner, group and permission bits are kept; a file with several hard links is
      rewritten in place, so every link sees the fix; any other file is replaced by an
      atomic rename, so a reader never sees half of it.
    """
    if outside_project(path, root) is not None:
        raise NotWritten("not fixed: it is a symlink to a file outside the project")
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except OSError as exc:
        raise NotWritten(f"not fixed: cannot read it again ({exc.strerror or exc})") from None
    if not stat.S_IMODE(st.st_mode) & 0o222 or not os.access(target, os.W_OK):
        raise NotWritten("not fixed: the file is read-only")
    if _current(target) != original:
        raise NotWritten("not fixed: the file changed while it was being fixed; run again")
    if st.st_nlink > 1:
        _write_in_place(target, data)
        return
    folder = os.path.dirname(target)
    remove_stale_temporaries(folder)
    fd, tmp = create_temporary(folder, os.path.basename(target)[-16:])
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError:
            pass  # not ours to give away (not root): the new file stays ours, as an editor's would
        if _current(target) != original:
            raise NotWritten("not fixed: the file changed while it was being fixed; run again")
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _current(path: str) -> bytes | None:
    try:
        return read_regular(path)
    except OSError:
        return None


def _write_in_place(path: str, data: bytes) -> None:
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
        fh.flush()
        os.fsync(fh.fileno())


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)
