"""What `check` prints: the report in the format asked for, and a progress counter
on a terminal."""

from __future__ import annotations

import os
import sys

from agentlint import __version__
from agentlint.cli.common import use_color
from agentlint.engine.config import Settings
from agentlint.engine.discovery import outside_project
from agentlint.facts.source import read_regular
from agentlint.report.write import Report, write_report
from agentlint.rules import registry


def errors(diagnostics) -> bool:
    """Whether any finding fails the run (notes never do)."""
    return any(d.severity == "error" for d in diagnostics)


def emit(
    diagnostics,
    settings: Settings,
    output_file: str | None,
    statistics: bool,
    quiet: bool,
    files_checked: int,
    *,
    unsafe_fixes: bool = False,
    fixed: int = 0,
    stream=None,
) -> None:
    def read_source(path: str) -> str | None:
        """A checked file's text for code frames; never another file's through a link."""
        if outside_project(path, settings.root) is not None:
            return None
        try:
            return read_regular(path, settings.max_file_size).decode("utf-8", errors="replace")
        except OSError:
            return None

    if stream is None:
        stream = open(output_file, "w", encoding="utf-8") if output_file else sys.stdout
    try:
        report = Report(
            diagnostics=diagnostics,
            rules=registry.all_rules(),
            files_checked=files_checked,
            root=settings.root,
            read_source=read_source,
            color=use_color(stream) and not output_file,
            statistics=statistics,
            tool_version=__version__,
            unsafe_fixes=unsafe_fixes,
            fixed=fixed,
        )
        write_report(settings.output_format, report, stream)
        stream.flush()
    finally:
        if output_file:
            stream.close()


def progress_printer():
    """A one-line counter on stderr, for long runs on a terminal only."""
    if not sys.stderr.isatty() or os.environ.get("CI"):
        return None
    state = {"shown": False}

    def show(done: int, total: int) -> None:
        if done < 0:
            if state["shown"]:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            return
        if total >= 200 and (done % 50 == 0 or done == total):
            sys.stderr.write(f"\rChecking files: {done}/{total}")
            sys.stderr.flush()
            state["shown"] = True

    return show
