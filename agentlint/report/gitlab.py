"""``gitlab``: a GitLab Code Quality report (a JSON array of issues).

Paths are relative to the repository's top folder (the git top level of the working
folder), as GitLab expects. The fingerprint identifies a finding across commits: it is
the finding's key, as in SARIF and baselines (``report.identity``): the path, the code,
the reported source text with whitespace normalised and its occurrence, never the line
number nor the message. So a finding keeps its identity when code above it moves, and
when its message changes (a duplicated formula's message counts the other copies: a
third copy must not make the first two look new). Identical findings in one file are
told apart by their order in the file.
"""

from __future__ import annotations

from typing import Any, TextIO

from agentlint.report._common import Report, json_text, posix, relative_to_root
from agentlint.report.identity import finding_keys
from agentlint.report.notebook_lines import NotebookText


def gitlab_issues(report: Report) -> list[dict[str, Any]]:
    keys = finding_keys(report.diagnostics, root=report.root, read_source=report.read_source)
    notebooks: dict[str, NotebookText | None] = {}
    issues = []
    for d, key in zip(report.diagnostics, keys):
        path = relative_to_root(d.path, report.root) or posix(d.path)
        begin, end = d.span.start.line, max(d.span.start.line, d.span.end.line)
        if d.cell is not None:  # a notebook: the lines of the .ipynb file, as GitLab shows it
            lines = _file_lines(notebooks, report, d)
            if lines is not None:
                begin, end = lines
        issues.append(
            {
                "check_name": d.code,
                "description": f"{d.code} {d.message}",
                "fingerprint": key.fingerprint(),
                "location": {
                    "lines": {"begin": begin, "end": end},
                    "path": path,
                },
                "severity": "info" if d.severity == "note" else "major",
            }
        )
    return issues


def _file_lines(notebooks: dict, report: Report, d) -> tuple[int, int] | None:
    if d.path not in notebooks:
        try:
            text = report.read_source(d.path)
        except (OSError, UnicodeError, ValueError):
            text = None
        notebooks[d.path] = NotebookText(text) if text else None
    notebook = notebooks[d.path]
    if notebook is None:
        return None
    first = notebook.position(d.cell, d.span.start.line, max(1, d.span.start.column))
    last = notebook.position(d.cell, d.span.end.line, max(1, d.span.end.column))
    if first is None:
        return None
    return first[0], max(first[0], last[0] if last else first[0])


def write_gitlab(report: Report, out: TextIO) -> None:
    out.write(json_text(gitlab_issues(report), indent=2))
    out.write("\n")
