"""Where a notebook cell's line and column sit in the `.ipynb` file itself.

Findings in a notebook are located in a cell (the cell's own lines, as Jupyter shows
them). A viewer that shows the file — GitHub code scanning reads SARIF regions as lines
of the file — needs the place in the notebook's JSON text: the line and column of the
character inside the JSON string that holds that piece of the cell's source.
"""

from __future__ import annotations

import json
import re
from typing import Sequence

from agentlint.lazy_regex import lazy_compile

_WS = lazy_compile(r"[ \t\n\r]*")
_NEWLINE = lazy_compile(r"\r\n|\r|\n")
_ESCAPE = lazy_compile(r"\\(?:u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})?|.)", re.S)


class NotebookText:
    """The `.ipynb` file's text and, for each cell, the JSON string tokens of its source."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self.cells: list[list[tuple[int, int]]] | None = _source_tokens(text)

    def position(self, cell: int, line: int, column: int) -> tuple[int, int] | None:
        """(line, column), 1-based, in the file of ``line``:``column`` of ``cell``
        (1-based among all cells); None when the file does not hold that place."""
        if self.cells is None or not 1 <= cell <= len(self.cells):
            return None
        tokens = self.cells[cell - 1]
        pieces = [_decode(self.text, start, end) for start, end in tokens]
        offset = _offset("".join(pieces), line, column)
        if offset is None:
            return None
        for number, ((start, end), piece) in enumerate(zip(tokens, pieces), 1):
            if offset < len(piece) or (offset == len(piece) and number == len(tokens)):
                raw = _raw_index(self.text, start, end, offset)
                return self._line_column(raw)
            offset -= len(piece)
        return None

    def _line_column(self, index: int) -> tuple[int, int]:
        lo, hi = 0, len(self._newlines)
        while lo < hi:  # newlines before ``index``
            mid = (lo + hi) // 2
            if self._newlines[mid] < index:
                lo = mid + 1
            else:
                hi = mid
        line_start = self._newlines[lo - 1] + 1 if lo else 0
        return lo + 1, index - line_start + 1


def _offset(source: str, line: int, column: int) -> int | None:
    """The index in ``source`` of 1-based ``line`` and ``column``."""
    if line < 1 or column < 1:
        return None
    starts = [0] + [m.end() for m in _NEWLINE.finditer(source)]
    if line > len(starts):
        return None
    start = starts[line - 1]
    end = starts[line] if line < len(starts) else len(source)
    return min(start + column - 1, end)


def _decode(text: str, start: int, end: int) -> str:
    return json.loads(text[start:end])


def _raw_index(text: str, start: int, end: int, offset: int) -> int:
    """The index in ``text`` of the ``offset``-th decoded character of the JSON string
    token ``text[start:end]`` (its quotes included)."""
    position = start + 1
    stop = end - 1
    while offset > 0 and position < stop:
        if text[position] == "\\":
            match = _ESCAPE.match(text, position)
            step = match.end() - position if match else 2
            if match and len(match.group(0)) == 12:  # a surrogate pair
                decoded = json.loads(f'"{match.group(0)}"')
                if len(decoded) == 2:  # not a valid pair: two characters
                    step = 6
        else:
            step = 1
        position += step
        offset -= 1
    return position


class _Scan:
    """Just enough of a JSON reader to find where each cell's source is written."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 1 if text.startswith("\ufeff") else 0
        self._decoder = json.JSONDecoder()
        self.skip()

    def skip(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def peek(self, char: str) -> bool:
        return self.text[self.pos] == char

    def eat(self, char: str) -> bool:
        if self.pos < len(self.text) and self.text[self.pos] == char:
            self.pos += 1
            self.skip()
            return True
        return False

    def value(self) -> tuple[int, int]:
        """Read any value; its (start, end) in the text."""
        start = self.pos
        _, self.pos = self._decoder.raw_decode(self.text, self.pos)
        end = self.pos
        self.skip()
        return start, end

    def key(self) -> str:
        if not self.peek('"'):
            raise ValueError("expected a key")
        start, end = self.value()
        if not self.eat(":"):
            raise ValueError("expected ':'")
        return json.loads(self.text[start:end])

    def cell(self) -> list[tuple[int, int]]:
        """The source tokens of the cell object at the current position."""
        tokens: list[tuple[int, int]] = []
        self.eat("{")
        while not self.peek("}"):
            name = self.key()
            if name == "source" and self.peek('"'):
                tokens = [self.value()]
            elif name == "source" and self.peek("["):
                tokens = []
                self.eat("[")
                while not self.peek("]"):
                    string = self.peek('"')
                    token = self.value()
                    if string:
                        tokens.append(token)
                    self.eat(",")
                self.eat("]")
            else:
                self.value()
            self.eat(",")
        self.eat("}")
        return tokens


def _source_tokens(text: str) -> list[list[tuple[int, int]]] | None:
    """For each cell, the (start, end) of the JSON string tokens of its `source`; None
    when the text is not a notebook object with a `cells` list."""
    try:
        scan = _Scan(text)
        if not scan.eat("{"):
            return None
        while not scan.peek("}"):
            name = scan.key()
            if name == "cells" and scan.peek("["):
                cells: list[list[tuple[int, int]]] = []
                scan.eat("[")
                while not scan.peek("]"):
                    if scan.peek("{"):
                        cells.append(scan.cell())
                    else:
                        scan.value()
                        cells.append([])
                    scan.eat(",")
                return cells
            scan.value()
            scan.eat(",")
    except (ValueError, IndexError, RecursionError):
        return None
    return None


def region_in_file(notebook: NotebookText, cell: int, start: tuple[int, int], end: tuple[int, int]) -> Sequence[int] | None:
    """(startLine, startColumn, endLine, endColumn) in the file, or None."""
    first = notebook.position(cell, *start)
    last = notebook.position(cell, *end)
    if first is None:
        return None
    if last is None or last < first:
        last = first
    return (*first, *last)
