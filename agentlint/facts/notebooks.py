"""Jupyter notebooks (`.ipynb`): the Python in their code cells, and where it came from.

A notebook is checked as one *virtual source*: its code cells joined in order, each
line kept where it is, so a virtual line maps 1:1 to a line of one cell. IPython syntax
that is not Python is replaced by a neutral line of the same indentation, so the line
count never changes:

- line magics and shell escapes (`%pip install x`, `!ls`, `x = !ls`, `y = %time f()`,
  `obj?`, `?obj`), continued with a trailing backslash or not, become `pass` (or
  `x = ...` when they assign, so the name stays defined);
- a line that IPython runs as a magic without its `%` (automagic, on by default:
  `pip install x`, `cd data`, `load_ext autoreload`) when it is not Python as written
  (`pip = 3` stays Python), becomes `pass` too;
- a cell that starts with a cell magic (`%%bash`, `%%html`, `%%writefile f`) is not
  Python and is left out, except the magics whose body is Python (`%%time`,
  `%%timeit`, `%%capture`, `%%prun`, `%%debug`, `%%python`, ...), where only the
  magic line is replaced.

Cells are numbered the way a reader counts them: 1-based, among *all* cells (markdown
and raw cells count), so "cell 4" is the fourth cell from the top. Lines are 1-based
within the cell.

A cell that does not parse (a typo in one cell) costs only that cell: IPython compiles
each cell apart, so ``drop_broken_cells`` blanks it (keeping its lines, so the cell map
holds) and the engine reports AGL001 at it while the other cells are checked.

Markdown and raw cells, outputs and metadata are never read as code. A notebook whose
kernel language is not Python has no code to check.

Everything the engine keeps (diagnostics, facts, `# noqa` comments, the cache) is in
virtual lines; ``CellMap.locate`` turns a virtual line into (cell, line) when the
findings are reported (``engine.notebook_cells``).
"""

from __future__ import annotations

import bisect
import json
import os
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

from agentlint.facts.source import read_regular, split_lines
from agentlint.lazy_regex import lazy_compile

SUFFIX = ".ipynb"

PYTHON_CELL_MAGICS = frozenset(
    {"time", "timeit", "capture", "prun", "debug", "python", "python3", "pypy", "python2"}
)
"""Cell magics whose body is Python: the cell is checked, only its magic line is not."""

AUTOMAGIC = frozenset(
    {
        "pip", "conda", "mamba", "micromamba", "cd", "ls", "ll", "pwd", "env", "set_env", "load_ext",
        "reload_ext", "unload_ext", "matplotlib", "autoreload", "aimport", "pylab", "time", "timeit",
        "who", "whos", "who_ls", "run", "cat", "mkdir", "rmdir", "rm", "cp", "mv", "clear", "history",
        "store", "alias", "unalias", "pushd", "popd", "dhist", "bookmark", "precision", "xmode", "load",
        "save", "less", "more", "man", "reset", "config", "sx", "system", "rerun", "recall", "tb",
    }
)
"""Line magics (and shell aliases) IPython runs when typed without `%` (automagic)."""
_AUTOMAGIC = lazy_compile(r"^[ \t]*(?P<word>[A-Za-z_]\w*)(?:[ \t]+\S|[ \t]*$)")

_ASSIGNED_ESCAPE = lazy_compile(r"^(?P<indent>[ \t]*)(?P<target>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*[!%]")
_HELP = lazy_compile(r"^[ \t]*[?]|^[ \t]*[\w.\[\]()]+[?]{1,2}[ \t]*$")


_SURROGATE = lazy_compile(r"[\ud800-\udfff]")


def is_notebook(path: str) -> bool:
    return path.lower().endswith(SUFFIX)


class NotebookError(ValueError):
    """The file is not a notebook agentlint can read; the message says why."""


@dataclass(frozen=True)
class CellMap:
    """Which cell each virtual line comes from: per code cell checked, its first
    virtual line, its cell number and its line count (sorted by first line)."""

    ranges: tuple[tuple[int, int, int], ...] = ()

    def locate(self, line: int) -> tuple[int, int]:
        """(cell, line in the cell) of virtual ``line``. A line past the end (a syntax
        error at the end of the file) belongs to the last cell."""
        if not self.ranges:
            return 1, line
        starts = [r[0] for r in self.ranges]
        index = max(0, bisect.bisect_right(starts, line) - 1)
        first, cell, _count = self.ranges[index]
        return cell, max(1, line - first + 1)

    def virtual_line(self, cell: int, line: int) -> int | None:
        for first, number, count in self.ranges:
            if number == cell and 1 <= line <= max(count, 1):
                return first + line - 1
        return None

    def to_json(self) -> list[list[int]]:
        return [list(r) for r in self.ranges]

    @staticmethod
    def from_json(data: Iterable[Sequence[int]]) -> "CellMap":
        return CellMap(tuple((int(a), int(b), int(c)) for a, b, c in data))


@dataclass(frozen=True)
class VirtualSource:
    text: str
    cells: CellMap
    sources: dict[int, str]
    """The original source of each code cell checked, by cell number (for code frames)."""


def load(content: bytes) -> dict[str, Any]:
    """The notebook's JSON; NotebookError when it is not a readable nbformat 4 notebook."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotebookError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"not valid notebook JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise NotebookError("not valid notebook JSON (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer over Python's 4,300-digit limit
        raise NotebookError(f"not a notebook agentlint can read ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a Jupyter notebook (no `cells` list at the top level)")
    major = data.get("nbformat")
    if not isinstance(major, int) or isinstance(major, bool):
        raise NotebookError("not a Jupyter notebook (no integer `nbformat`)")
    if major < 4:
        raise NotebookError(f"nbformat {major} notebooks are not supported; save it as nbformat 4 (`jupyter nbconvert --to notebook`)")
    for number, cell in enumerate(data["cells"], 1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is not a JSON object")
        source = cell.get("source", "")
        if not isinstance(source, str) and not (
            isinstance(source, list) and all(isinstance(s, str) for s in source)
        ):
            raise NotebookError(f"cell {number} has a `source` that is neither a string nor a list of strings")
        if _SURROGATE.search(cell_source(cell)):
            raise NotebookError(f"cell {number} holds a lone surrogate (a `\\ud800`-style escape), which is not text")
    return data


def cell_source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def is_python(data: dict[str, Any]) -> bool:
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return True
    for key in ("language_info", "kernelspec"):
        info = metadata.get(key)
        if isinstance(info, dict):
            language = info.get("name" if key == "language_info" else "language")
            if isinstance(language, str) and language:
                return language.lower() in ("python", "python3", "ipython", "ipython3")
    return True


def _lines(source: str) -> list[str]:
    """The cell's lines without their ends (a final newline ends the last line)."""
    lines = split_lines(source)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _cell_magic(lines: list[str]) -> str | None:
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("%%"):
            word = stripped[2:].split(None, 1)
            return word[0] if word else ""
        return None
    return None


def _is_escape(line: str) -> bool:
    stripped = line.lstrip()
    if not stripped:
        return False
    if stripped[0] in "%!":
        return True
    if _ASSIGNED_ESCAPE.match(line):
        return True
    if bool(_HELP.match(line)) and not stripped.startswith("#"):
        return True
    return _is_automagic(stripped)


_PYTHON_AFTER_NAME = lazy_compile(r"[ \t]*(?:=(?!=)|,|\(|\[|\.[A-Za-z_]|[-+*/%&|^@<>]=|:[^:])")
"""What makes `config = {`, `history[0]`, `system(...)` or `time.sleep(1)` Python whatever
follows: IPython runs a line as a magic only when no assignment, call, index or attribute
comes after the name (a line that opens a bracket does not compile alone)."""


def _is_automagic(stripped: str) -> bool:
    """`pip install x`: a magic's name followed by words, where Python sees none."""
    match = _AUTOMAGIC.match(stripped)
    if match is None or match.group("word") not in AUTOMAGIC or stripped.rstrip() == match.group("word"):
        return False
    if _PYTHON_AFTER_NAME.match(stripped, match.end("word")):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(stripped, "<cell>", "exec", dont_inherit=True)
    except SyntaxError:
        return True
    except (ValueError, RecursionError, MemoryError):
        return False
    return False


def _scan(line: str, quote: str, depth: int) -> tuple[str, int, bool]:
    """Python's lexical state after ``line``, given the state before it: the open
    string's quote (`'`, `"`, `\'\'\'`, `\"\"\"`, or "" when none), the bracket
    depth, and whether a backslash continues the line."""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            i += 1
            continue
        if ch == "#":
            break
        if ch in "'\"":
            triple = ch * 3
            quote = triple if line.startswith(triple, i) else ch
            i += len(quote)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        i += 1
    continued = line.endswith("\\") and not (quote and len(quote) == 3)
    if len(quote) == 1 and not continued:
        quote = ""  # an unterminated one-line string ends with its line
    return quote, depth, continued


def python_lines(source: str) -> list[str] | None:
    """The cell's lines with IPython syntax neutralised, or None when the cell is not
    Python (a cell magic such as `%%bash`). Only lines that start a statement are read
    as IPython: a `%` or `!` inside a string or brackets stays as it is."""
    lines = _lines(source)
    magic = _cell_magic(lines)
    if magic is not None and magic not in PYTHON_CELL_MAGICS:
        return None
    out: list[str] = []
    escaped, escaped_indent = False, ""  # the indent of the escape a backslash continues
    quote, depth, continued = "", 0, False
    for line in lines:
        if escaped:
            out.append(escaped_indent + "pass  # IPython")
            escaped = line.rstrip().endswith("\\")
            continue
        if not quote and not depth and not continued and _is_escape(line):
            escaped_indent = line[: len(line) - len(line.lstrip())]
            assigned = _ASSIGNED_ESCAPE.match(line)
            out.append(
                f"{escaped_indent}{assigned.group('target')} = ...  # IPython"
                if assigned
                else f"{escaped_indent}pass  # IPython"
            )
            escaped = line.rstrip().endswith("\\")
            continue
        quote, depth, continued = _scan(line, quote, depth)
        out.append(line)
    return out


def virtual_source(data: dict[str, Any]) -> VirtualSource:
    """The code cells of a loaded notebook as one Python source, with its cell map."""
    parts: list[str] = []
    ranges: list[tuple[int, int, int]] = []
    sources: dict[int, str] = {}
    line = 1
    if is_python(data):
        for number, cell in enumerate(data["cells"], 1):
            if cell.get("cell_type") != "code":
                continue
            source = cell_source(cell)
            lines = python_lines(source)
            if lines is None:
                continue
            sources[number] = source
            ranges.append((line, number, len(lines)))
            parts.extend(lines)
            line += len(lines)
    text = "".join(p + "\n" for p in parts)
    return VirtualSource(text, CellMap(tuple(ranges)), sources)


def read(content: bytes) -> VirtualSource:
    return virtual_source(load(content))


@dataclass(frozen=True)
class BrokenCell:
    """A code cell that does not parse on its own: where (virtual line, column) and why."""

    cell: int
    line: int
    column: int
    message: str


def drop_broken_cells(
    source: VirtualSource, parse: Callable[[str], object]
) -> tuple[VirtualSource, list[BrokenCell]]:
    """``source`` with each code cell that ``parse`` rejects (SyntaxError or
    ValueError) blanked line by line, and those cells; IPython compiles every cell
    apart, so the others stand on their own. Called only when the whole source does
    not parse."""
    lines = source.text.split("\n")
    broken: list[BrokenCell] = []
    for first, number, count in source.cells.ranges:
        cell_text = "\n".join(lines[first - 1 : first - 1 + count]) + "\n"
        try:
            parse(cell_text)
        except (SyntaxError, ValueError) as exc:
            line = min(max(getattr(exc, "lineno", None) or 1, 1), max(count, 1))
            column = getattr(exc, "offset", None) or 1
            message = getattr(exc, "msg", None) or str(exc)
            broken.append(BrokenCell(number, first + line - 1, column, message))
            lines[first - 1 : first - 1 + count] = [""] * count
    if not broken:
        return source, []
    return VirtualSource("\n".join(lines), source.cells, source.sources), broken


@lru_cache(maxsize=64)
def _on_disk(path: str, mtime: int, size: int) -> VirtualSource | None:
    try:
        return read(read_regular(path))
    except (OSError, NotebookError):
        return None


def from_disk(path: str) -> VirtualSource | None:
    """The virtual source of the notebook at ``path`` (cached by stat), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _on_disk(os.path.abspath(path), st.st_mtime_ns, st.st_size)


def locate_on_disk(path: str, line: int) -> tuple[int, int] | None:
    """(cell, line) of virtual ``line`` in the notebook at ``path``, or None."""
    source = from_disk(path)
    return None if source is None else source.cells.locate(line)


def where(path: str, line: int) -> str:
    """`path:line`, or `path:cell N:line` for a notebook."""
    if is_notebook(path):
        found = locate_on_disk(path, line)
        if found is not None:
            return f"{path}:cell {found[0]}:{found[1]}"
    return f"{path}:{line}"


def split_cell(source: str) -> list[str]:
    """A cell's lines as numbered in findings (what the code frames show)."""
    return _lines(source)


def python_text(path: str, data: bytes) -> str | None:
    """The Python source of a file's bytes as the engine reads it: the virtual source of
    a notebook (None when it cannot be read), the decoded text of anything else."""
    if not is_notebook(path):
        return data.decode("utf-8", errors="replace")
    try:
        return read(data).text
    except NotebookError:
        return None


def cell_located(item: dict[str, Any]) -> dict[str, Any]:
    """A JSON-ready ``{"path", "line", ...}`` with ``line`` in its cell and ``cell``
    added, when the path is a notebook (`explain` output)."""
    path, line = item.get("path"), item.get("line")
    if not path or not isinstance(line, int) or not is_notebook(path):
        return item
    found = locate_on_disk(path, line)
    if found is None:
        return item
    return {**item, "cell": found[0], "line": found[1]}
