"""A remembered project phase carried over an edit that only moved lines.

A pre-commit run after an edit to a file of a large project (a comment added, a
function's body changed where it holds no project fact) finds the file's project facts
moved, not changed. Its project findings are then the remembered ones with that file's
lines moved the same way, and the project's other files need not be read.

``free_digest`` is the digest of a file's project facts with every line left out; two
versions of a file with the same one differ at most in their lines. ``line_map`` pairs
the old lines with the new ones, and ``shifted`` moves the remembered findings. Each
refuses (returns None, and the project phase runs) whenever it cannot be sure:

- the lines must move in order (an edit never swaps two facts) and a line that is 0 (no
  definition: module-level code) stays 0; a column that changed changes the digest;
- a finding in a moved file must sit on lines of its facts (a line between two facts may
  have moved otherwise than both);
- no message of a finding the run reports may name a line that moved (the project rules
  write lines into some);
- no such finding may carry a fix (its edits would have to move too).

The findings in files the run does not check are kept as remembered: the run reports
none of them. When the whole phase holds, lines moved, its moved findings are not
remembered (the next run moves the remembered ones again); when only some of its parts
hold (``phase_parts``), the phase the run remembers holds their findings as moved, with
the lines their facts have now.

The lines a prompt site lists in its text (``LINE_LIST_SITES``) are lines too. Any other
line written in a fact's text (`(line 12)`) is part of the digest: a file whose text
names a line that moved has a new digest, and its project phase runs again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, Mapping

from agentlint.lazy_regex import lazy_compile

LINE_FIELDS = frozenset({"line", "end_line", "at_line", "scope_line"})
"""The fields of the project facts that hold a line (``facts.types``)."""

LINE_LIST_SITES = frozenset({"blocks", "messages"})
"""The prompt sites (``PromptSiteFact.what``) whose ``text`` lists lines, comma-separated:
those of the local assignments a prompt's parts were followed to."""

_NUMBER = lazy_compile(r"\d+")

Remembered = list[list[Any]]
"""Project findings as the cache keeps them: [path, the finding's JSON] each."""


def json_digest(value: Any) -> str:
    """The digest of a JSON value, its keys sorted (a file's project facts)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def free_digest(project: Mapping[str, Any]) -> tuple[str, list[int]]:
    """(the digest of ``project``, a file's project facts in JSON, with each line set to
    0; the lines, in the order the facts hold them)."""
    lines: list[int] = []
    return json_digest(_without_lines(project, lines)), lines


def _without_lines(value: Any, lines: list[int]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in LINE_FIELDS and type(item) is int:
                lines.append(item)
                out[key] = 0
            else:
                out[key] = _without_lines(item, lines)
        text = out.get("text")
        if out.get("what") in LINE_LIST_SITES and isinstance(text, str) and text:
            listed = text.split(",")
            if all(part.isascii() and part.isdigit() for part in listed):
                lines.extend(int(part) for part in listed)
                out["text"] = ",".join("0" for _ in listed)
        return out
    if isinstance(value, list):
        return [_without_lines(item, lines) for item in value]
    return value


def line_map(old: list[int], new: list[int]) -> dict[int, int] | None:
    """Each old line of a file's facts -> its new line, given the lines ``free_digest``
    listed for two versions with the same digest; None when the lines did not move in
    order (then the facts were not only moved)."""
    if len(old) != len(new):
        return None
    forward: dict[int, int] = {}
    backward: dict[int, int] = {}
    for before, after in zip(old, new):
        if (before == 0) != (after == 0):
            return None  # 0 says "no line" (module level): it never moves
        if forward.setdefault(before, after) != after or backward.setdefault(after, before) != before:
            return None
    forward.pop(0, None)
    ordered = [forward[line] for line in sorted(forward)]
    if any(a >= b for a, b in zip(ordered, ordered[1:])):
        return None
    return forward


def moved_with_lines(
    remembered: Remembered, old: Mapping[str, Any], new: Mapping[str, list[int]]
) -> Remembered | None:
    """The remembered findings with the lines of each checked file (``new``: path -> the
    lines ``free_digest`` lists now) moved from those it listed then (``old``, as
    remembered); None when they cannot be moved for sure."""
    maps: dict[str, dict[int, int]] = {}
    for path, lines in new.items():
        before = old.get(path)
        if before == lines:
            continue
        found = line_map(before, lines) if isinstance(before, list) else None
        if found is None:
            return None
        maps[path] = found
    return shifted(remembered, maps, new)


def shifted(
    remembered: Remembered, maps: Mapping[str, dict[int, int]], checked: Iterable[str]
) -> Remembered | None:
    """The remembered findings with the lines of the files of ``maps`` (path -> old
    line -> new line) moved; None when one of them cannot be moved for sure. Only the
    findings in ``checked`` (the files of the run) are moved: a partial run reports no
    other, and keeps the others as they were remembered."""
    moved = {old for lines in maps.values() for old, new in lines.items() if old != new}
    if not moved:
        return remembered
    reported = {*checked, "<project>"}
    out: Remembered = []
    for path, data in remembered:
        if path not in reported:
            out.append([path, data])
            continue
        if not isinstance(data, dict) or data.get("fix") or "cell" in data:
            return None
        if _names_moved_line((data.get("message", ""), data.get("help", "")), moved):
            return None
        span = _moved_span(data.get("span"), maps.get(path))
        related = []
        for item in data.get("related", ()):
            if not isinstance(item, dict) or "cell" in item or _names_moved_line((item.get("message", ""),), moved):
                return None
            related_span = _moved_span(item.get("span"), maps.get(item.get("path")))
            if related_span is None:
                return None
            related.append({**item, "span": related_span})
        if span is None:
            return None
        moved_data = {**data, "span": span}
        if related:
            moved_data["related"] = related
        out.append([path, moved_data])
    return out


def _names_moved_line(texts: Iterable[Any], moved: set[int]) -> bool:
    """Whether one of ``texts`` holds a number that is a line that moved (a count that
    happens to equal one is refused too: the phase then runs again)."""
    return any(
        not isinstance(text, str) or any(int(n) in moved for n in _NUMBER.findall(text)) for text in texts
    )


def _moved_span(span: Any, lines: dict[int, int] | None) -> list[int] | None:
    """A span ([line, column, end line, end column]) with its lines moved by ``lines``
    (None: the file did not move); None when a line of it is no line of the facts."""
    if not isinstance(span, list) or len(span) != 4:
        return None
    if lines is None:
        return span
    start, end = lines.get(span[0]), lines.get(span[2])
    if start is None or end is None:
        return None
    return [start, span[1], end, span[3]]
