"""``github``: GitHub Actions workflow commands, one ``::error`` line per finding.

GitHub shows each one as an annotation on the file and line; file paths are relative to
the repository's top (as the workflow's checkout is), also when the job runs in a
sub-folder. Values are escaped as the Actions toolkit does: ``%``, CR and LF everywhere,
and ``:`` and ``,`` in properties.
"""

from __future__ import annotations

from typing import TextIO

from agentlint.report._common import Report, posix, printable, relative_to_root


def escape_data(value: str) -> str:
    """The toolkit's escapes; any other control character or undecodable byte of a file
    name is then written as a visible escape (``printable``)."""
    return printable(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def write_github(report: Report, out: TextIO) -> None:
    for d in report.diagnostics:
        start, end = d.span.start, d.span.end
        properties = (
            ("title", f"agentlint ({d.code})"),
            ("file", relative_to_root(d.path, report.root) or posix(d.path)),
            ("line", str(start.line)),
            ("col", str(start.column)),
            ("endLine", str(end.line)),
            ("endColumn", str(end.column)),
        )
        joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        message = f"{d.code} {d.message}"
        # Annotations have no related locations: the other places go into the message,
        # one per line (GitHub shows the message's line breaks).
        for r in d.related:
            where = f"{relative_to_root(r.path, report.root) or posix(r.path)}:{r.span.start.line}:{r.span.start.column}"
            message += f"\nother place: {where} {r.message}".rstrip()
        command = "notice" if d.severity == "note" else "error"
        out.write(f"::{command} {joined}::{escape_data(message)}\n")
