"""Writing a run's report in the format asked for.

=============  ==============================================================
``full``       ``path:line:col: CODE message``, a code frame, help and notes
``concise``    one ``path:line:col: CODE message`` line per finding
``json``       a JSON array of ruff-shaped objects
``json-lines`` the same objects, one compact JSON object per line
``sarif``      SARIF 2.1.0 (GitHub code scanning and other SARIF viewers)
``github``     GitHub Actions workflow commands (``::error ...``)
``gitlab``     a GitLab Code Quality report
=============  ==============================================================

Each format lives in its own module, imported when that format is asked for: a
pre-commit run prints ``full`` and should not pay for importing the others.
"""

from __future__ import annotations

import importlib
from typing import TextIO

from agentlint.report._common import FORMATS, Report

_WRITERS = {
    "full": ("agentlint.report.text", "write_full"),
    "concise": ("agentlint.report.text", "write_concise"),
    "json": ("agentlint.report.jsonfmt", "write_json"),
    "json-lines": ("agentlint.report.jsonfmt", "write_json_lines"),
    "sarif": ("agentlint.report.sarif", "write_sarif"),
    "github": ("agentlint.report.github", "write_github"),
    "gitlab": ("agentlint.report.gitlab", "write_gitlab"),
}


def write_report(fmt: str, report: Report, out: TextIO) -> None:
    """Write ``report`` to ``out`` in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in _WRITERS:
        raise ValueError(f"unknown output format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    module, function = _WRITERS[fmt]
    getattr(importlib.import_module(module), function)(report, out)
