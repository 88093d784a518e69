"""``gitlab``: a GitLab Code Quality report (a JSON array of issues).

The fingerprint identifies a finding across commits: it hashes the file's path (relative
to the project root), the code, the message and the text of the finding's first line
with whitespace normalised, but not the line number, so findings keep their identity
when code above them moves. Identical findings in one file are told apart by their
order in the file.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any, TextIO

from agentlint.report._common import Report, SourceLines, json_text, posix, relative_to_root


def gitlab_issues(report: Report) -> list[dict[str, Any]]:
    sources = SourceLines(report.read_source)
    seen: Counter[tuple[str, ...]] = Counter()
    issues = []
    for d in report.diagnostics:
        path = relative_to_root(d.path, report.root) or posix(d.path)
        line_text = sources.line(d.path, d.span.start.line) or ""
        key = (path, d.code, d.message, " ".join(line_text.split()))
        occurrence = seen[key]
        seen[key] += 1
        digest = hashlib.sha256("\0".join((*key, str(occurrence))).encode("utf-8", "surrogatepass"))
        issues.append(
            {
                "check_name": d.code,
                "description": f"{d.code} {d.message}",
                "fingerprint": digest.hexdigest()[:32],
                "location": {
                    "lines": {
                        "begin": d.span.start.line,
                        "end": max(d.span.start.line, d.span.end.line),
                    },
                    "path": path,
                },
                "severity": "info" if d.severity == "note" else "major",
            }
        )
    return issues


def write_gitlab(report: Report, out: TextIO) -> None:
    out.write(json_text(gitlab_issues(report), indent=2))
    out.write("\n")
