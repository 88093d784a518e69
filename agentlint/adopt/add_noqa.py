"""`check --add-noqa`: suppress every current finding with a `# noqa: CODE` comment.

The directive goes at the end of the reported line (the line a `# noqa` must be on,
see ``suppression.py``). A line that already has a `# noqa: X` gets the new codes added
to that directive (only the first `noqa` in a comment counts); any other comment is
kept and the directive is appended after it. Nothing is written when:

- the line ends inside a multi-line string or with a backslash continuation (a
  comment cannot go there; the finding is left and reported);
- the file does not parse, or would parse to a different syntax tree afterwards;
- the findings are not all gone when the new text is checked again (the file changed
  since it was checked), or the file changed on disk while we worked.

Engine findings (AGL001-AGL003: unparsable or unreadable files, crashed rules) cannot be
suppressed and are left.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from agentlint.engine.fixes import NotWritten, write_fixed
from agentlint.engine.suppression import parse_directive
from agentlint.facts.source import decode, read_regular
from agentlint.facts.source import parse_quietly as _parse_quietly
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.builtin import ENGINE_CODE_SET
from agentlint.rules.diagnostics import Diagnostic

_LINE = lazy_compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


@dataclass
class Outcome:
    added: int = 0
    """Lines that got a new or extended directive."""
    files: int = 0
    left: list[Diagnostic] = field(default_factory=list)
    """Findings that are still reported (not suppressible, or not safe to edit)."""


@dataclass
class _Plan:
    text: str | None
    """The new text, or None when the file is left alone."""
    lines: int = 0
    left: list[Diagnostic] = field(default_factory=list)
    problem: str = ""


def add_directives(text: str, wanted: dict[int, set[str]]) -> tuple[str, set[int], int]:
    """``text`` with `# noqa` directives for ``wanted`` (line -> codes) added, the
    lines that could not take one, and how many lines changed. Raises SyntaxError or
    tokenize.TokenError when the text cannot be tokenized."""
    comments: dict[int, tuple[int, str]] = {}
    spanning: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = (tok.start[1], tok.string)
        elif tok.type not in (tokenize.NEWLINE, tokenize.NL) and tok.end[0] > tok.start[0]:
            spanning.update(range(tok.start[0], tok.end[0]))
    lines = _LINE.findall(text)
    refused: set[int] = set()
    changed = 0
    for number, codes in wanted.items():
        if not 1 <= number <= len(lines) or number in spanning:
            refused.add(number)
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        if number in comments:
            column, comment = comments[number]
            merged = merge_comment(comment.rstrip(), codes)
            if merged is None:
                continue
            body = body[:column] + merged
        else:
            if body.rstrip().endswith("\\"):
                refused.add(number)
                continue
            body = body.rstrip(" \t") + "  # noqa: " + ", ".join(sorted(codes))
        lines[number - 1] = body + ending
        changed += 1
    return "".join(lines), refused, changed


def merge_comment(comment: str, codes: Iterable[str]) -> str | None:
    """The comment with a directive for ``codes``: merged into its first `# noqa: X`
    (the only one agentlint reads), else appended. An invalid directive (`# noqa: see
    ticket 123`, which suppresses nothing) gets the codes, its text kept as a comment
    after them (`# noqa: AGL302  # see ticket 123`). None when nothing needs adding."""
    directive = parse_directive(comment)
    wanted = ", ".join(sorted(codes))
    if directive is None:
        return f"{comment}  # noqa: {wanted}"
    if directive.invalid:
        rest = comment[directive.end :].lstrip(" \t")[1:].strip()  # past the colon
        tail = f"  # {rest}" if rest else ""
        return f"{comment[: directive.start]}# noqa: {wanted}{tail}"
    if directive.codes is None:
        return None  # a blanket `# noqa` already suppresses everything on the line
    missing = sorted(set(codes) - set(directive.codes))
    if not missing:
        return None
    return comment[: directive.end] + ", " + ", ".join(missing) + comment[directive.end :]


def plan_file(
    path: str,
    content: bytes,
    diagnostics: Sequence[Diagnostic],
    recheck: Callable[[str, bytes], Sequence[Diagnostic]] | None,
    project_codes: frozenset[str] = frozenset(),
) -> tuple[_Plan, str]:
    """What `--add-noqa` would write for one file (and the encoding it is in)."""

    plan = _Plan(None)
    suppressible = [d for d in diagnostics if d.code not in ENGINE_CODE_SET]
    plan.left = [d for d in diagnostics if d.code in ENGINE_CODE_SET]
    if not suppressible:
        return plan, "utf-8"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(content).readline)
        text = decode(content)
        before = ast.dump(_parse_quietly(text))
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, MemoryError, RecursionError):
        plan.left += suppressible
        plan.problem = "not changed: it does not parse"
        return plan, "utf-8"
    wanted: dict[int, set[str]] = {}
    for d in suppressible:
        wanted.setdefault(d.line, set()).add(d.code)
    try:
        new_text, refused, changed = add_directives(text, wanted)
    except (tokenize.TokenError, SyntaxError):
        plan.left += suppressible
        plan.problem = "not changed: it cannot be tokenized"
        return plan, encoding
    plan.left += [d for d in suppressible if d.line in refused]
    if refused:
        where = ", ".join(str(n) for n in sorted(refused))
        plan.problem = f"no `# noqa` added on line {where}: the line ends inside a string or with a backslash"
    if new_text == text:
        return plan, encoding
    try:
        after = ast.dump(_parse_quietly(new_text))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        after = None
    if after != before:
        plan.left = list(diagnostics)
        plan.problem = "not changed: adding the comments would change the code (please report this)"
        return plan, encoding
    if recheck is not None:
        # The findings must be where the run saw them in the bytes we edit, and gone
        # afterwards. Project-rule findings are not in a one-file check: not verified.
        targeted = {(d.line, d.code) for d in suppressible if d.line not in refused and d.code not in project_codes}
        present = {(d.line, d.code) for d in recheck(path, content)}
        still = {(d.line, d.code) for d in recheck(path, new_text.encode(encoding))} & targeted
        if not targeted <= present or still:
            plan.left = list(diagnostics)
            plan.problem = "not changed: the file changed since it was checked; run again"
            return plan, encoding
    plan.text = new_text
    plan.lines = changed
    return plan, encoding


def add_noqa(
    diagnostics: Sequence[Diagnostic],
    recheck: Callable[[str, bytes], Sequence[Diagnostic]] | None,
    warn: Callable[[str], None],
    project_codes: frozenset[str] = frozenset(),
    root: "str | Callable[[str], str]" = ".",
) -> Outcome:
    """Add directives for ``diagnostics`` (a run's final findings) to their files.
    ``root`` is the project folder a file may not link out of, or a function giving
    it for each file (files of one run may have different configurations)."""

    outcome = Outcome()
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    for path, found in by_path.items():
        if all(d.code in ENGINE_CODE_SET for d in found):
            outcome.left += found
            continue
        if path.endswith(".ipynb") or any(d.cell is not None for d in found):
            warn(f"{path}: not changed: --add-noqa does not edit notebooks; add `# noqa: CODE` in the cells by hand")
            outcome.left += found
            continue
        content = _read(path)
        if content is None:
            warn(f"{path}: not changed: it cannot be read")
            outcome.left += found
            continue
        plan, encoding = plan_file(path, content, found, recheck, project_codes)
        if plan.problem:
            warn(f"{path}: {plan.problem}")
        outcome.left += plan.left
        if plan.text is None:
            continue
        try:
            write_fixed(path, content, plan.text.encode(encoding), root(path) if callable(root) else root)
        except NotWritten as exc:
            warn(f"{path}: {str(exc).replace('not fixed:', 'not changed:')}")
            outcome.left += [d for d in found if d not in plan.left]
            continue
        except OSError as exc:
            warn(f"{path}: not changed: cannot write it ({exc.strerror or exc})")
            outcome.left += [d for d in found if d not in plan.left]
            continue
        outcome.added += plan.lines
        outcome.files += 1
    outcome.left.sort(key=Diagnostic.sort_key)
    return outcome


def _read(path: str) -> bytes | None:
    try:
        return read_regular(path)
    except OSError:
        return None
