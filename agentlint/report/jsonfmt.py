"""``json`` and ``json-lines``: ruff's JSON objects, plus ``name`` and ``related``.

Each object has ruff's keys: ``cell`` (the notebook cell, 1-based among all cells, with
``location`` in that cell; null outside notebooks), ``code``, ``end_location``,
``filename`` (absolute), ``fix``, ``location``, ``message``, ``noqa_row``, ``url`` (the
rule's page from `docs-url`, null when it is not set).
Locations are ``{"column", "row"}``, 1-based; end columns are exclusive, as in ruff.
"""

from __future__ import annotations

import os
from typing import Any, TextIO

from agentlint.knowledge.test_code import is_test_path
from agentlint.report._common import Report, json_text, statistics
from agentlint.rules.diagnostics import Diagnostic, Position, Span

RUFF_KEYS = frozenset(
    {
        "cell",
        "code",
        "end_location",
        "filename",
        "fix",
        "location",
        "message",
        "noqa_row",
        "url",
    }
)
EXTRA_KEYS = frozenset({"name", "related", "severity", "test"})


def _location(position: "Position") -> dict[str, int]:
    return {"column": position.column, "row": position.line}


def _span(span: Span) -> dict[str, Any]:
    return {"location": _location(span.start), "end_location": _location(span.end)}


def diagnostic_object(d: Diagnostic, docs_url: str | None = None) -> dict[str, Any]:
    """The JSON object for one diagnostic (keys in ruff's alphabetical order)."""
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": "safe" if d.fix.safe else "unsafe",
            "edits": [{"content": e.content, **_span(e.span)} for e in d.fix.edits],
            "message": d.fix.message,
        }
    related = [
        {
            "filename": os.path.abspath(r.path),
            **_span(r.span),
            "message": r.message,
            **({"cell": r.cell} if r.cell is not None else {}),
        }
        for r in d.related
    ]
    data: dict[str, Any] = {
        "cell": d.cell,
        "code": d.code,
        "end_location": _location(d.span.end),
        "filename": os.path.abspath(d.path),
        "fix": fix,
        "location": _location(d.span.start),
        "message": d.message,
        "name": d.name,
        "noqa_row": d.span.start.line,
        "related": related,
        "severity": d.severity,
        "test": is_test_path(d.path),
        "url": docs_url.replace("{code}", d.code) if docs_url else None,
    }
    return data


def statistics_objects(report: Report) -> list[dict[str, Any]]:
    """``--statistics`` in JSON, as ruff writes it: one object per code, most frequent
    first, with ``fixable`` true when every finding of that code is fixable."""
    return [
        {"code": code, "count": count, "fixable": fixed == count, "fixable_count": fixed, "name": name}
        for code, name, count, fixed in statistics(report)
    ]


def write_json(report: Report, out: TextIO) -> None:
    if report.statistics:
        objects = statistics_objects(report)
    else:
        objects = [diagnostic_object(d, report.docs_url) for d in report.diagnostics]
    out.write(json_text(objects, indent=2, sort_keys=True))
    out.write("\n")


def write_json_lines(report: Report, out: TextIO) -> None:
    objects = statistics_objects(report) if report.statistics else None
    for item in objects if objects is not None else (diagnostic_object(d, report.docs_url) for d in report.diagnostics):
        line = json_text(item, sort_keys=True, separators=(",", ":"))
        out.write(line + "\n")
