"""What `check` prints: the report in the format asked for, and a progress counter
on a terminal."""

from __future__ import annotations

import io
import os
import sys

from agentlint import __version__
from agentlint.cli.common import fail, use_color
from agentlint.engine.config import Settings
from agentlint.engine.discovery import outside_project, repository_root
from agentlint.engine.files import atomic_write
from agentlint.facts.source import read_regular
from agentlint.report.write import Report, write_report
from agentlint.rules import registry


def errors(diagnostics) -> bool:
    """Whether any finding fails the run (notes never do)."""
    return any(d.severity == "error" for d in diagnostics)


SARIF_RESULTS_SHOWN = 5000
"""GitHub code scanning shows at most this many results of a run (and rejects a run of
more than 25,000)."""


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
    settings_for=None,
) -> None:
    """Write the report. ``settings`` are the run's (the working folder's: the output
    format, `docs-url`); ``settings_for(path)`` gives a file's own (its project root and
    size limit, for reading its source), when they differ."""
    own = settings_for or (lambda path: settings)

    def read_source(path: str) -> str | None:
        """A checked file's text for code frames; never another file's through a link."""
        file_settings = own(path)
        if outside_project(path, file_settings.root) is not None:
            return None
        try:
            return read_regular(path, file_settings.max_file_size).decode("utf-8", errors="replace")
        except OSError:
            return None

    if settings.output_format == "sarif" and len(diagnostics) > SARIF_RESULTS_SHOWN and not statistics:
        print(
            f"agentlint: warning: the SARIF report holds {len(diagnostics):,} results; GitHub code scanning "
            f"shows at most {SARIF_RESULTS_SHOWN:,} of a run (and rejects more than 25,000): narrow the run "
            "(--select, per-file-ignores) or report only new findings (--baseline)",
            file=sys.stderr,
        )

    to_file = stream is None and output_file is not None
    if to_file:
        stream = io.StringIO()
    elif stream is None:
        stream = sys.stdout
    report = Report(
        diagnostics=diagnostics,
        rules=registry.all_rules(),
        files_checked=files_checked,
        root=repository_root(),
        read_source=read_source,
        color=use_color(stream) and not output_file,
        statistics=statistics,
        tool_version=__version__,
        unsafe_fixes=unsafe_fixes,
        fixed=fixed,
        summary=not quiet,
        docs_url=settings.docs_url,
    )
    write_report(settings.output_format, report, stream)
    if to_file:
        write_output_file(output_file, stream.getvalue())
    else:
        stream.flush()


def _new_file_mode(path: str) -> int:
    """The mode an ordinary `open(path, "w")` would give: kept when the file exists,
    else 0o666 less the umask (a temporary file starts at 0o600)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_output_file(path: str, text: str) -> None:
    """`-o FILE`: its folder is created when missing, and the report lands whole or not
    at all (a full disk leaves no empty report behind: CI must not read half of one)."""
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            # `-o /dev/stdout`, a FIFO, a device: written to, never replaced
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            return
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        atomic_write(path, text.encode("utf-8"), mode=_new_file_mode(path))
    except OSError as exc:
        fail(f"cannot write the report to {path}: {exc.strerror or exc}")


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

