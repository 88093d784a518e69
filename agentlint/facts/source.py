"""Reading code written for a newer Python than the one agentlint runs on.

Facts and the agent model come from the running interpreter's ``ast``, which rejects
syntax newer than itself: PEP 695 type parameters and ``type`` aliases (3.12), PEP 701
f-strings that reuse their own quotes (3.12). LibCST parses all of them. When ``ast``
fails and LibCST succeeds, :func:`lower` rewrites just those constructs into an older
equivalent with the same line structure — ``type X[T] = v`` becomes ``X = v``,
``def f[T](...)`` becomes ``def f(...)``, an f-string the interpreter cannot read becomes
a plain string spanning the same lines — so the facts keep their line numbers. What
the rewrite drops (type parameters, the expressions inside such f-strings) carries no
tool, call or prompt that the rules read, except calls inside those f-strings, which
are lost; the file's facts say so (``complete`` stays true, the engine adds no error).

Every ``ast.parse`` of user code goes through :func:`parse_quietly`: the interpreter's
``SyntaxWarning``/``DeprecationWarning`` about the analysed code (`"\\d"` escapes,
`is` with a literal) are not agentlint's to print.
"""

from __future__ import annotations

import ast
import io
import os
import stat
import sys
import tokenize
import warnings
from functools import lru_cache

from agentlint.lazy_regex import lazy_compile

_LINE_BREAK = lazy_compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as the parser numbers them: ended by ``\\r\\n``, ``\\r`` or
    ``\\n`` only (``str.splitlines`` also ends one at a form feed and at other characters
    that do not end a line of source, which would shift line numbers). Without a ``\\r``,
    `str.split` gives the same list several times faster than the expression."""
    return text.split("\n") if "\r" not in text else _LINE_BREAK.split(text)


def parse_quietly(text: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """``ast.parse`` without the interpreter's warnings about the analysed code."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=filename, mode=mode)


def parse_lowered(text: str, filename: str = "<unknown>") -> ast.Module:
    """The `ast` tree of ``text``, quietly; newer syntax than this interpreter reads
    (PEP 695, PEP 701) is read from a lowered copy with the same lines and columns
    when LibCST can parse the file. Raises SyntaxError otherwise."""
    try:
        return parse_quietly(text, filename)  # type: ignore[return-value]
    except SyntaxError as exc:
        lowered = lower(text) if sys.version_info < (3, 12) and newer_syntax(text, exc) else None
        if lowered is None:
            raise
        return parse_quietly(lowered, filename)  # type: ignore[return-value]


_NEWER = lazy_compile(r"^\s*(?:type\s+\w+|(?:async\s+)?def\s+\w+\s*\[|class\s+\w+\s*\[)")


def newer_syntax(text: str, error: SyntaxError) -> bool:
    """Does this syntax error look like 3.12 syntax (a PEP 701 f-string, PEP 695 type
    parameters or a `type` alias) rather than a mistake? Only then is LibCST asked
    (never for "too deeply nested" input, which can crash its native parser)."""
    message = str(getattr(error, "msg", "") or "")
    if "nested" in message or "too complex" in message:
        return False
    if "f-string" in message:
        return True
    lines = text.splitlines()
    number = getattr(error, "lineno", None) or 0
    return 0 < number <= len(lines) and bool(_NEWER.match(lines[number - 1]))


def lower(text: str) -> str | None:
    """``text`` rewritten so the running ``ast`` can read it, keeping every line and
    column of what is left, or None when LibCST cannot parse it either (then it is a
    real syntax error)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
        positions = wrapper.resolve(PositionProvider)
    except Exception:
        return None
    finder = _newer_syntax_finder()(text, wrapper.module, positions)
    try:
        wrapper.visit(finder)
    except Exception:
        return None
    out = text
    for start, end, replacement in sorted(finder.edits, reverse=True):
        out = out[:start] + replacement + out[end:]
    return out


@lru_cache(maxsize=1)
def _newer_syntax_finder() -> type:
    """The LibCST visitor of ``lower``: it collects the edits that blank newer syntax out.
    Made once, on first use (LibCST is imported only for a file that needs lowering);
    it keeps the tree's positions on the instance, so that nothing outlives the file."""
    import libcst as cst

    class NewerSyntaxFinder(cst.CSTVisitor):
        def __init__(self, text: str, module, positions) -> None:
            super().__init__()
            self.text, self.module, self.positions = text, module, positions
            self.edits: list[tuple[int, int, str]] = []
            self.offsets = [0]
            for line in text.splitlines(keepends=True):
                self.offsets.append(self.offsets[-1] + len(line))

        def offset(self, pos) -> int:
            return self.offsets[pos.line - 1] + pos.column

        def blank(self, start: int, end: int, keep: str = "") -> None:
            chunk = self.text[start:end]
            body = "".join(c if c in "\r\n" else " " for c in chunk[len(keep):])
            self.edits.append((start, end, keep + body))

        def visit_TypeParameters(self, node) -> None:
            where = self.positions[node]
            self.blank(self.offset(where.start), self.offset(where.end))

        def visit_TypeAlias(self, node) -> None:
            # `type X[T] = v` -> `X      = v`: the name moves to the statement's start
            start = self.offset(self.positions[node].start)
            name = node.name.value
            name_end = self.offset(self.positions[node.name].end)
            end = self.offset(self.positions[node.type_parameters].end) if node.type_parameters is not None else name_end
            self.blank(start, end, keep=name)
            return False  # type: ignore[return-value]

        def visit_FormattedString(self, node) -> bool:
            code = self.module.code_for_node(node)
            try:
                parse_quietly(code, mode="eval")
                return False
            except SyntaxError:
                pass
            where = self.positions[node]
            start, end = self.offset(where.start), self.offset(where.end)
            quote = node.start[-3:] if node.start.endswith(("'\'\'\'", '"""')) else node.start[-1]
            if "\n" in code and len(quote) == 1:
                quote = quote * 3
            inner = "".join(c if c in "\r\n" else " " for c in code[len(node.start) : len(code) - len(node.end)])
            inner += " " * max(0, len(code) - 2 * len(quote) - len(inner))  # the prefix's width
            self.edits.append((start, end, quote + inner + quote))
            return False

    return NewerSyntaxFinder


def decode(content: bytes) -> str:
    """Decode as Python does (PEP 263 cookie, UTF-8 by default, BOM allowed)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(content).readline)
    return content.decode(encoding)


# -- reading a source file ----------------------------------------------------------
# A FIFO named `x.py` would block a plain ``open().read()`` forever and `x.py ->
# /dev/zero` would be read until memory runs out: every read opens without blocking,
# checks with ``fstat`` that the file is a regular one and how big it is, and reads at
# most the bound.


class UnreadableFile(OSError):
    """A path that is not read: not a regular file, or larger than the bound. The
    message says why, in words for the user."""


def read_regular(path: str, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed), at most ``limit``.
    Raises ``UnreadableFile`` for a FIFO, socket, device or folder and for a file over
    ``limit`` bytes (decided from ``fstat``, before reading), ``OSError`` otherwise."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UnreadableFile("is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFile("not a regular file (a FIFO, socket or device); only regular files are read")
        if limit is not None and st.st_size > limit:
            raise UnreadableFile(too_large(st.st_size, limit))
        chunks = []
        left = (limit if limit is not None else st.st_size) + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if limit is not None and len(data) > limit:  # it grew while being read
            raise UnreadableFile(too_large(len(data), limit))
        return data
    finally:
        os.close(fd)


def too_large(size: int, limit: int) -> str:
    return (
        f"file is {size / 1048576:.1f} MiB, above `max-file-size` "
        f"({limit / 1048576:.1f} MiB); raise it to check this file"
    )
