"""``sarif``: a SARIF 2.1.0 log with one run, for GitHub code scanning and other viewers.

Paths are given relative to the project root through the ``%SRCROOT%`` base id (files
outside the root get an absolute ``file:`` URI). Columns count Unicode code points
(``run.columnKind``), like every agentlint position; end columns are exclusive, which is
what SARIF's ``endColumn`` means. ``AGL003`` (a rule crashed) is also reported as a tool
execution notification and makes the invocation unsuccessful.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from agentlint.reporters import HOMEPAGE_URL, rule_url
from agentlint.reporters._common import relative_to_root

if TYPE_CHECKING:
    from agentlint.reporters import Report
    from agentlint.types import Diagnostic, RuleMeta, Span

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
INTERNAL_ERROR_CODE = "AGL003"

_SECTION = re.compile(r"^##\s+What it does\s*$(.*?)(?=^##\s|\Z)", re.MULTILINE | re.DOTALL)


def _full_description(meta: "RuleMeta") -> str:
    """The "What it does" section of the rule's docs, as one paragraph."""
    match = _SECTION.search(meta.docs or "")
    if match:
        text = " ".join(match.group(1).split())
        if text:
            return text
    return meta.summary or meta.name or meta.code


def _descriptor(code: str, meta: "RuleMeta | None", name: str) -> dict[str, Any]:
    if meta is None:
        # A code reported but missing from the registry: still describe it minimally.
        return {
            "id": code,
            "name": name or code,
            "shortDescription": {"text": name or code},
            "helpUri": rule_url(code),
            "defaultConfiguration": {"level": "error"},
        }
    summary = meta.summary or meta.name or code
    docs = meta.docs.strip() if meta.docs else ""
    return {
        "id": code,
        "name": meta.name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": _full_description(meta)},
        "help": {"text": docs or summary, "markdown": docs or summary},
        "helpUri": rule_url(code),
        "defaultConfiguration": {"level": "error"},
        "properties": {"fixable": meta.fixable, "defaultSelected": meta.default_selected},
    }


def _root_uri(root: str) -> str:
    uri = Path(os.path.abspath(root)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


class _Locations:
    def __init__(self, root: str):
        self.root = root
        self._cache: dict[str, dict[str, str]] = {}

    def artifact(self, path: str) -> dict[str, str]:
        found = self._cache.get(path)
        if found is None:
            rel = relative_to_root(path, self.root)
            if rel is None:
                found = {"uri": Path(os.path.abspath(path)).as_uri()}
            else:
                found = {"uri": quote(rel, safe="/"), "uriBaseId": SRCROOT}
            self._cache[path] = found
        return found

    def physical(self, path: str, span: "Span") -> dict[str, Any]:
        return {"artifactLocation": dict(self.artifact(path)), "region": _region(span)}


def _region(span: "Span") -> dict[str, int]:
    start, end = span.start, span.end
    if (end.line, end.column) < (start.line, start.column):
        end = start
    return {
        "startLine": max(1, start.line),
        "startColumn": max(1, start.column),
        "endLine": max(1, end.line),
        "endColumn": max(1, end.column),
    }


def _message(text: str) -> dict[str, str]:
    return {"text": text}


def _result(d: "Diagnostic", index: int, locations: _Locations) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": index,
        "level": "error",
        "message": _message(d.message),
        "locations": [{"physicalLocation": locations.physical(d.path, d.span)}],
    }
    if d.related:
        related = []
        for number, r in enumerate(d.related, start=1):
            item: dict[str, Any] = {
                "id": number,
                "physicalLocation": locations.physical(r.path, r.span),
            }
            if r.message:
                item["message"] = _message(r.message)
            related.append(item)
        result["relatedLocations"] = related
    if d.fix is not None and d.fix.edits:
        result["fixes"] = [
            {
                "description": _message(d.fix.message or "Apply the fix"),
                "artifactChanges": [
                    {
                        "artifactLocation": dict(locations.artifact(d.path)),
                        "replacements": [
                            {
                                "deletedRegion": _region(edit.span),
                                "insertedContent": {"text": edit.content},
                            }
                            for edit in d.fix.edits
                        ],
                    }
                ],
            }
        ]
        if not d.fix.safe:
            result["properties"] = {"fixApplicability": "unsafe"}
    return result


def sarif_log(report: "Report") -> dict[str, Any]:
    """The SARIF log as a JSON-ready dict."""
    names: dict[str, str] = {}
    for d in report.diagnostics:
        names.setdefault(d.code, d.name)
    codes = sorted(set(report.rules) | set(names))
    index = {code: i for i, code in enumerate(codes)}
    descriptors = [_descriptor(code, report.rules.get(code), names.get(code, "")) for code in codes]

    locations = _Locations(report.root)
    results = [_result(d, index[d.code], locations) for d in report.diagnostics]
    notifications = [
        {
            "level": "error",
            "message": _message(d.message),
            "locations": [{"physicalLocation": locations.physical(d.path, d.span)}],
            "associatedRule": {"id": d.code, "index": index[d.code]},
        }
        for d in report.diagnostics
        if d.code == INTERNAL_ERROR_CODE
    ]
    invocation: dict[str, Any] = {
        "executionSuccessful": not notifications,
        "properties": {"filesChecked": report.files_checked},
    }
    if notifications:
        invocation["toolExecutionNotifications"] = notifications

    if report.tool_version:
        version = report.tool_version
    else:
        from agentlint import __version__ as version

    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "agentlint",
                        "version": version,
                        "informationUri": HOMEPAGE_URL,
                        "rules": descriptors,
                    }
                },
                "invocations": [invocation],
                "originalUriBaseIds": {SRCROOT: {"uri": _root_uri(report.root)}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def write_sarif(report: "Report", out: TextIO) -> None:
    out.write(json.dumps(sarif_log(report), indent=2, ensure_ascii=False))
    out.write("\n")
