"""``sarif``: a SARIF 2.1.0 log with one run, for GitHub code scanning and other viewers.

Paths are given relative to the repository's top folder (the git top level of the working
folder, else the working folder) through the ``%SRCROOT%`` base id, as code scanning
expects (files outside it get an absolute ``file:`` URI). A finding in a notebook is
located in the `.ipynb` file's own lines (the JSON text a viewer shows), its cell and the
position in the cell kept in the location's properties. Related locations are linked from
the message (``[other place](1)``), which is how GitHub shows them. Rule pages are linked
(``helpUri``) only when `docs-url` says where they are published. Columns count Unicode code points
(``run.columnKind``), like every agentlint position; end columns are exclusive, which is
what SARIF's ``endColumn`` means. ``AGL003`` (a rule crashed) is also reported as a tool
execution notification and makes the invocation unsuccessful.
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from pathlib import Path
from typing import Any, Sequence, TextIO
from urllib.parse import quote

from agentlint import __version__
from agentlint.facts.ast_helpers import first_line
from agentlint.knowledge.test_code import is_test_path
from agentlint.lazy_regex import lazy_compile
from agentlint.report._common import Report, docs_home, json_text, relative_to_root, rule_url
from agentlint.report.notebook_lines import NotebookText, region_in_file
from agentlint.report.identity import finding_keys
from agentlint.rules.diagnostics import Diagnostic, RuleMeta, Span

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
INTERNAL_ERROR_CODE = "AGL003"

_SECTION = lazy_compile(r"^##\s+What it does\s*$(.*?)(?=^##\s|\Z)", re.MULTILINE | re.DOTALL)


def _full_description(meta: RuleMeta) -> str:
    """The "What it does" section of the rule's docs, as one paragraph."""
    match = _SECTION.search(meta.docs or "")
    if match:
        text = " ".join(match.group(1).split())
        if text:
            return text
    return meta.summary or meta.name or meta.code


FAMILIES = {
    "AGL0": "engine",
    "AGL1": "cost",
    "AGL2": "tool-boundary",
    "AGL3": "verdicts-and-fail-open",
    "AGL4": "prompt-composition",
    "AGL5": "agent-composition",
    "AGL6": "renamed-api",
    "AGL9": "meta",
}
"""Rule families by code prefix (``properties.tags`` of each rule)."""

FINGERPRINT_KEY = "agentlintFinding/v1"
"""The ``partialFingerprints`` key: the baseline's key of the finding (path, code,
normalised source text, occurrence), so a finding keeps its identity across line moves."""


def family(code: str) -> str:
    return FAMILIES.get(code[:4], "other")


def _descriptor(code: str, meta: "RuleMeta | None", name: str, docs_url: str | None = None) -> dict[str, Any]:
    url = rule_url(code, docs_url)
    link = {"helpUri": url} if url else {}
    if meta is None:
        # A code reported but missing from the registry: still describe it minimally.
        return {
            "id": code,
            "name": name or code,
            "shortDescription": {"text": name or code},
            **link,
            "defaultConfiguration": {"level": "error"},
            "properties": {"tags": ["agentlint", family(code)]},
        }
    summary = meta.summary or meta.name or code
    docs = meta.docs.strip() if meta.docs else ""
    return {
        "id": code,
        "name": meta.name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": _full_description(meta)},
        "help": {"text": docs or summary, "markdown": docs or summary},
        **link,
        "defaultConfiguration": {"level": "error"},
        "properties": {
            "fixable": meta.fixable,
            "defaultSelected": meta.default_selected,
            "tags": ["agentlint", family(code)],
        },
    }


def _root_uri(root: str) -> str:
    uri = Path(os.path.abspath(root)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


class _Locations:
    def __init__(self, root: str, read_source=None):
        self.root = root
        self._read = read_source
        self._cache: dict[str, dict[str, str]] = {}
        self._notebooks: dict[str, NotebookText | None] = {}

    def artifact(self, path: str) -> dict[str, str]:
        found = self._cache.get(path)
        if found is None:
            rel = relative_to_root(path, self.root)
            if rel is None:
                found = {"uri": Path(os.path.abspath(path)).as_uri()}
            else:
                found = {"uri": quote(os.fsencode(rel), safe="/"), "uriBaseId": SRCROOT}
            self._cache[path] = found
        return found

    def _notebook(self, path: str) -> NotebookText | None:
        if path not in self._notebooks:
            text = None
            if self._read is not None:
                try:
                    text = self._read(path)
                except (OSError, UnicodeError, ValueError):
                    text = None
            self._notebooks[path] = NotebookText(text) if text else None
        return self._notebooks[path]

    def physical(self, path: str, span: Span, cell: int | None = None) -> dict[str, Any]:
        """The artifact and region; for a notebook cell, the region in the file's lines
        (None when the notebook cannot be read: then the cell's lines)."""
        region = _region(span)
        if cell is not None:
            notebook = self._notebook(path)
            start, end = (region["startLine"], region["startColumn"]), (region["endLine"], region["endColumn"])
            found = region_in_file(notebook, cell, start, end) if notebook is not None else None
            if found is not None:
                region = dict(zip(("startLine", "startColumn", "endLine", "endColumn"), found))
        return {"artifactLocation": dict(self.artifact(path)), "region": region}


def _cell_properties(cell: int, span: Span) -> dict[str, Any]:
    """Where a notebook finding is in its cell (the region is in the file's lines)."""
    region = _region(span)
    return {"cell": cell, "cellRegion": region}


def _region(span: Span) -> dict[str, int]:
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


_BRACKETS = lazy_compile(r"([\[\]])")


def _linked_message(text: str, related: "Sequence[Any]") -> dict[str, str]:
    """The message with a link to each related location (``[other place](1)``): GitHub
    shows related locations only through links in the message. Brackets of the text
    itself are escaped, as SARIF asks of a message with embedded links."""
    links = []
    for number, r in enumerate(related, start=1):
        label = _BRACKETS.sub(r"\\\1", r.message) if r.message else "other place"
        links.append(f"[{label}]({number})")
    body = _BRACKETS.sub(r"\\\1", text).rstrip()
    return {"text": f"{body} ({'; '.join(links)})"}


def _result(
    d: Diagnostic, index: int, locations: _Locations, fingerprint: str | None = None, scope: "tuple[str, str] | None" = None
) -> dict[str, Any]:
    location: dict[str, Any] = {"physicalLocation": locations.physical(d.path, d.span, d.cell)}
    if d.cell is not None:  # a notebook: the region is in the file, the cell is kept here
        location["properties"] = _cell_properties(d.cell, d.span)
    if scope is not None:
        location["logicalLocations"] = [{"fullyQualifiedName": scope[0], "name": scope[0].rpartition(".")[2], "kind": scope[1]}]
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": index,
        "level": "note" if d.severity == "note" else "error",
        "message": _linked_message(d.message, d.related) if d.related else _message(d.message),
        "locations": [location],
    }
    if is_test_path(d.path):
        result["properties"] = {"tags": ["test-code"]}
    if fingerprint is not None:
        result["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint}
    if d.related:
        related = []
        for number, r in enumerate(d.related, start=1):
            item: dict[str, Any] = {
                "id": number,
                "physicalLocation": locations.physical(r.path, r.span, r.cell),
            }
            if r.cell is not None:
                item["properties"] = _cell_properties(r.cell, r.span)
            if r.message:
                item["message"] = _message(r.message)
            related.append(item)
        result["relatedLocations"] = related
    if d.fix is not None and d.fix.edits and d.cell is None:
        # (a fix in a notebook cell is not an edit of the file's JSON text: not offered)
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
            result.setdefault("properties", {})["fixApplicability"] = "unsafe"
    return result


def sarif_log(report: Report) -> dict[str, Any]:
    """The SARIF log as a JSON-ready dict."""
    names: dict[str, str] = {}
    for d in report.diagnostics:
        names.setdefault(d.code, d.name)
    codes = sorted(set(report.rules) | set(names))
    index = {code: i for i, code in enumerate(codes)}
    descriptors = [_descriptor(code, report.rules.get(code), names.get(code, ""), report.docs_url) for code in codes]

    locations = _Locations(report.root, report.read_source)
    keys = finding_keys(report.diagnostics, root=report.root, read_source=report.read_source)
    scopes = _Scopes(report.read_source)
    results = [
        _result(d, index[d.code], locations, key.fingerprint(), scopes.enclosing(d.path, d.span.start.line))
        for d, key in zip(report.diagnostics, keys)
    ]
    notifications = [
        {
            "level": "error",
            "message": _message(d.message),
            "locations": [{"physicalLocation": locations.physical(d.path, d.span, d.cell)}],
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

    version = report.tool_version or __version__
    driver: dict[str, Any] = {"name": "agentlint", "version": version}
    home = docs_home(report.docs_url)
    if home:
        driver["informationUri"] = home
    driver["rules"] = descriptors
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "invocations": [invocation],
                "originalUriBaseIds": {
                    SRCROOT: {
                        "uri": _root_uri(report.root),
                        "description": {"text": "The repository's top folder (the git top level, else the working folder)"},
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


class _Scopes:
    """The innermost function or class holding a line (SARIF ``logicalLocations``), from
    the file's `ast` (each file with findings is parsed once)."""

    def __init__(self, read_source) -> None:
        self._read = read_source
        self._defs: dict[str, list[tuple[int, int, str, str]]] = {}

    def enclosing(self, path: str, line: int) -> "tuple[str, str] | None":
        defs = self._defs.get(path)
        if defs is None:
            defs = self._defs[path] = self._index(path)
        best = None
        for start, end, name, kind in defs:
            if start <= line <= end and (best is None or start >= best[0]):
                best = (start, end, name, kind)
        return (best[2], best[3]) if best else None

    def _index(self, path: str) -> list[tuple[int, int, str, str]]:
        try:
            text = self._read(path)
        except (OSError, UnicodeError, ValueError):
            text = None
        if not text or not path.endswith((".py", ".pyi")):
            return []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
        out: list[tuple[int, int, str, str]] = []

        def walk(body, prefix: str, in_class: bool) -> None:
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{node.name}"
                    kind = "type" if isinstance(node, ast.ClassDef) else ("member" if in_class else "function")
                    start = first_line(node)
                    out.append((start, node.end_lineno or node.lineno, name, kind))
                    walk(node.body, name + ".", isinstance(node, ast.ClassDef))
                elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
                    for field in ("body", "orelse", "finalbody"):
                        walk(getattr(node, field, []) or [], prefix, in_class)
                    for handler in getattr(node, "handlers", []):
                        walk(handler.body, prefix, in_class)

        walk(tree.body, "", False)
        return out


def write_sarif(report: Report, out: TextIO) -> None:
    out.write(json_text(sarif_log(report), indent=2))
    out.write("\n")
