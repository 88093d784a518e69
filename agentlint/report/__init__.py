"""Output formats: how a run's findings are written out.

Only this small module is imported at start-up; each format lives in its own module,
imported by :func:`write_report` when that format is asked for.

=============  ==============================================================
``full``       ``path:line:col: CODE message``, a code frame, help and notes
``concise``    one ``path:line:col: CODE message`` line per finding
``json``       a JSON array of ruff-shaped objects
``json-lines`` the same objects, one compact JSON object per line
``sarif``      SARIF 2.1.0 (GitHub code scanning and other SARIF viewers)
``github``     GitHub Actions workflow commands (``::error ...``)
``gitlab``     a GitLab Code Quality report
=============  ==============================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence, TextIO

if TYPE_CHECKING:
    from agentlint.rules.diagnostics import Diagnostic, RuleMeta

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab")

HOMEPAGE_URL = "https://agentlint.dev"
"""The project's home page (SARIF ``tool.driver.informationUri``)."""

RULE_DOCS_URL_BASE = "https://agentlint.dev/rules/"
"""Each rule's documentation page is this base followed by its code. The one place the
docs URL is spelled: the JSON ``url``, SARIF ``helpUri`` and anything else use
:func:`rule_url`."""


def rule_url(code: str) -> str:
    """The documentation page of rule ``code``."""
    return RULE_DOCS_URL_BASE + code


@dataclass
class Report:
    """Everything a reporter needs to write one run's results."""

    diagnostics: Sequence["Diagnostic"]
    """Already sorted and filtered; paths as to display (relative to cwd when possible)."""
    rules: Mapping[str, "RuleMeta"]
    """Every known rule by code (SARIF descriptors, help text, names)."""
    files_checked: int
    root: str
    """Absolute project root directory (SARIF ``originalUriBaseIds``, GitLab paths)."""
    read_source: Callable[[str], "str | None"]
    """Path -> file text, for code frames and fingerprints; None when unavailable."""
    color: bool = False
    """ANSI colours; only the ``full`` and ``concise`` formats use them."""
    statistics: bool = False
    """Text formats print counts by code instead of the findings (like ruff's
    ``--statistics``); machine formats ignore it."""
    fix_hint: bool = True
    """Text formats mark fixable findings with ``[*]`` and count them in the summary."""
    unsafe_fixes: bool = False
    """``--unsafe-fixes``: findings with an unsafe fix count as fixable too."""
    fixed: int = 0
    """Findings fixed by ``--fix`` in this run (the summary says how many)."""
    tool_version: str = ""


def write_report(fmt: str, report: Report, out: TextIO) -> None:
    """Write ``report`` to ``out`` in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "full" or fmt == "concise":
        from agentlint.report.text import write_text

        write_text(report, out, full=fmt == "full")
    elif fmt == "json":
        from agentlint.report.jsonfmt import write_json

        write_json(report, out)
    elif fmt == "json-lines":
        from agentlint.report.jsonfmt import write_json_lines

        write_json_lines(report, out)
    elif fmt == "sarif":
        from agentlint.report.sarif import write_sarif

        write_sarif(report, out)
    elif fmt == "github":
        from agentlint.report.github import write_github

        write_github(report, out)
    elif fmt == "gitlab":
        from agentlint.report.gitlab import write_gitlab

        write_gitlab(report, out)
    else:
        raise ValueError(f"unknown output format {fmt!r}; expected one of: {', '.join(FORMATS)}")


__all__ = [
    "FORMATS",
    "HOMEPAGE_URL",
    "RULE_DOCS_URL_BASE",
    "Report",
    "rule_url",
    "write_report",
]
