"""`check --baseline`, `--write-baseline` and `--add-noqa`: the glue between `agentlint check` (``cli.check``)
and ``baseline`` / ``add_noqa``. Everything here runs after the findings are
final (project phase, `per-file-ignores`, `# noqa`). Notes go to stderr, so a machine
format on stdout is never disturbed.

Exit status: `--write-baseline` exits 0 once the file is written (2 when a rule
crashed); `--baseline` leaves it to the findings that are new (stale entries alone do
not fail a run: they are listed on stderr, and `--write-baseline` removes them);
`--add-noqa` reports what it could not suppress, so it exits 0 when nothing is left.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import click

from agentlint.engine.finalize import file_diagnostics, has_internal_errors
from agentlint.rules import registry
from agentlint.rules.diagnostics import Diagnostic
from agentlint.rules.lazy import lazy_module

# Loaded when their options are given: a plain `check` (every pre-commit run) uses none.
bl = lazy_module("agentlint.adopt.baseline")
identity = lazy_module("agentlint.report.identity")
noqa_writer = lazy_module("agentlint.adopt.add_noqa")

MAX_STALE_LISTED = 20


def _note(message: str) -> None:
    click.echo(f"agentlint: {message}", err=True)


@dataclass
class Adoption:
    baseline_file: str | None
    write_baseline_file: str | None
    add_noqa: bool
    loaded: object | None = None
    """The baseline read before the run (a `baseline.Baseline`)."""
    notes: list[str] = field(default_factory=list)
    """Printed to stderr after the report (a summary under it, like ruff's)."""

    def print_notes(self) -> None:
        for line in self.notes:
            click.echo(line, err=True)
        self.notes.clear()

    def run(
        self,
        diagnostics: Sequence[Diagnostic],
        settings,
        checked: Sequence[str],
        stdin,
        *,
        quiet: bool,
        fail: Callable[[str], None],
        settings_for: Callable[[str], Any] | None = None,
    ) -> list[Diagnostic]:
        """``settings`` are the run's (baseline paths are relative to their root);
        ``settings_for(path)`` gives a file's own when files of the run have different
        configurations (the codes enabled for it, what `--add-noqa` checks again)."""
        read = identity.file_reader(stdin)
        self._settings_for = settings_for or (lambda path: settings)
        enabled = settings.enabled if settings_for is None else (lambda path: settings_for(path).enabled)
        scope = bl.Scope.of(checked, enabled, settings.root)
        if self.write_baseline_file:
            self._write(diagnostics, scope, read, fail)
        diagnostics = list(diagnostics)
        if self.loaded is not None:
            diagnostics = self._filter(diagnostics, scope, read, quiet)
        if self.add_noqa:
            diagnostics = self._add_noqa(diagnostics, settings)
        return diagnostics

    def _write(self, diagnostics, scope, read, fail) -> None:
        path = self.write_baseline_file
        try:
            written = bl.write(path, diagnostics, scope, read, self.loaded)  # type: ignore[arg-type]
        except OSError as exc:
            fail(f"{path}: cannot write the baseline: {exc.strerror or exc}")
        plural = "" if written.total == 1 else "s"
        changes = f"{written.added} added, {written.removed} removed"
        if written.kept_outside:
            changes += f", {written.kept_outside} kept for files or rules not checked in this run"
        _note(f"wrote {written.total} finding{plural} to {path} ({changes})")
        if has_internal_errors(diagnostics):
            fail("a rule crashed (AGL003); its findings are not in the baseline. Please report it with the file.")
        sys.exit(0)

    def _filter(self, diagnostics, scope, read, quiet: bool) -> list[Diagnostic]:
        outcome = bl.apply(diagnostics, self.loaded, scope, read)  # type: ignore[arg-type]
        if outcome.matched and not quiet:
            were = "finding is" if outcome.matched == 1 else "findings are"
            self.notes.append(f"agentlint: {outcome.matched} {were} in the baseline {self.baseline_file} and not shown")
        if outcome.stale:
            count = len(outcome.stale)
            entry, match, them = ("entry", "matches", "it") if count == 1 else ("entries", "match", "them")
            self.notes.append(
                f"agentlint: warning: {count} baseline {entry} in {self.baseline_file} no longer {match} a finding "
                f"(fixed, or the code changed); `agentlint check --write-baseline {self.baseline_file}` removes {them}:"
            )
            for key, line in outcome.stale[:MAX_STALE_LISTED]:
                self.notes.append(f"  {self.baseline_file}:{line}: {bl.describe(key)}")
            if count > MAX_STALE_LISTED:
                self.notes.append(f"  ... and {count - MAX_STALE_LISTED} more")
        return outcome.new

    def _add_noqa(self, diagnostics, settings) -> list[Diagnostic]:
        settings_for = self._settings_for

        def recheck(path: str, content: bytes):
            return file_diagnostics(path, content, settings_for(path))

        project_codes = registry.codes_of("project")
        outcome = noqa_writer.add_noqa(
            diagnostics,
            recheck,
            lambda m: self.notes.append(f"agentlint: warning: {m}"),
            project_codes,
            lambda path: settings_for(path).root,
        )
        directives = "directive" if outcome.added == 1 else "directives"
        files = "file" if outcome.files == 1 else "files"
        self.notes.append(f"agentlint: added {outcome.added} `noqa` {directives} to {outcome.files} {files}")
        return outcome.left


def prepare(
    baseline_file: str | None,
    write_baseline_file: str | None,
    add_noqa: bool,
    *,
    stdin: bool,
    fix: bool,
    diff: bool,
    fail: Callable[[str], None],
) -> Adoption | None:
    """Check the options go together and read the baseline before anything runs, so a
    broken baseline stops the run at once (exit 2, naming the file and the line)."""
    if not (baseline_file or write_baseline_file or add_noqa):
        return None

    if baseline_file and write_baseline_file:
        fail("--baseline and --write-baseline cannot be combined (--write-baseline reads the existing file itself)")
    if write_baseline_file and (fix or diff or add_noqa):
        fail("--write-baseline cannot be combined with --fix, --diff or --add-noqa")
    if add_noqa and (fix or diff):
        fail("--add-noqa cannot be combined with --fix or --diff")
    if add_noqa and stdin:
        fail("--add-noqa edits files; it cannot read the source from stdin")
    adoption = Adoption(baseline_file, write_baseline_file, add_noqa)
    try:
        if baseline_file:
            adoption.loaded = bl.Baseline.load(baseline_file)
        elif write_baseline_file:
            if os.path.exists(write_baseline_file):
                adoption.loaded = bl.Baseline.load(write_baseline_file)
    except bl.BaselineError as exc:
        hint = "" if baseline_file else " (delete the file to write a new one)"
        fail(f"{exc}{hint}")
    return adoption
