"""Codes the engine itself reports. They have metadata and docs pages like any rule, and
the helpers below make their diagnostics."""

from __future__ import annotations

from agentlint.rules.diagnostics import Diagnostic, Position, RuleMeta, Span

SYNTAX_ERROR = RuleMeta(
    code="AGL001",
    name="syntax-error",
    summary="The file could not be parsed as Python, so no rule ran on it.",
    help="Fix the syntax error, or exclude the file with `extend-exclude`.",
    docs="""\
## What it does
Reports a file that LibCST cannot parse (a syntax error, code nested too deeply to
parse, or a NUL byte in the source). No other rule runs on such a file.

## Why is this bad?
A file that cannot be parsed cannot be checked: any finding in it goes unseen. The run
goes on with every other file.

## Example
```python
def broken(:
    pass
```

## Use instead
Fix the syntax, or exclude generated or vendored files with `extend-exclude`.

## Fix safety
No fix.

## Configuration
Always on: it cannot be ignored, because ignoring it would hide unchecked files.
""",
)

UNREADABLE_FILE = RuleMeta(
    code="AGL002",
    name="unreadable-file",
    summary="The file could not be read as UTF-8 Python source, so no rule ran on it.",
    help="Check the path and the file's permissions and encoding, or exclude it.",
    docs="""\
## What it does
Reports a path that could not be read: it does not exist, it is not readable, it is
not UTF-8, it is larger than `max-file-size`, or it is a symlink loop. The message
names the reason. The run goes on with every other file.

## Why is this bad?
A file that cannot be read cannot be checked.

## Example
A file saved as Latin-1 with a non-ASCII character and no encoding declaration.

## Use instead
Save Python source as UTF-8 (PEP 3120), fix the path, or exclude the file.

## Fix safety
No fix.

## Configuration
Always on. `max-file-size` (bytes, default 10 MiB) sets the size above which a file is
skipped with this diagnostic.
""",
)

INTERNAL_ERROR = RuleMeta(
    code="AGL003",
    name="internal-error",
    summary="A rule crashed on this file; the other rules still ran.",
    help="Please report this with the file (or a reduced example) to the agentlint issue tracker.",
    docs="""\
## What it does
Reports that a rule raised an exception while checking a file. The message names the
rule and the exception. The other rules still ran on the file, and the other files were
still checked, but the run exits with status 2.

## Why is this bad?
The crashed rule did not check this file, so its findings may be missing.

## Example
Not applicable: this is a bug in agentlint, not in your code.

## Use instead
Report the crash. Meanwhile `--ignore` the crashing rule or exclude the file.

## Fix safety
No fix.

## Configuration
Always on.
""",
)

UNUSED_SUPPRESSION = RuleMeta(
    code="AGL900",
    name="unused-suppression",
    summary="A `# noqa` comment names an agentlint code that did not fire on its line.",
    help="Remove the unused code from the `# noqa` comment.",
    docs="""\
## What it does
Reports a `# noqa: AGLnnn` comment naming an agentlint code that reported nothing on
that line in this run, or naming a code that does not exist. Codes of other tools
(`E501`, `BLE001`, ...) and blanket `# noqa` comments are left alone; codes of rules
that are not selected in this run are not judged.

## Why is this bad?
A stale suppression hides the next real finding on that line, and tells readers that
something is wrong where nothing is.

## Example
```python
try:
    run()
except ValueError:  # noqa: AGL302
    retry()
```

## Use instead
```python
try:
    run()
except ValueError:
    retry()
```

## Fix safety
No fix yet.

## Configuration
None. Like ruff's `RUF100`, it judges only codes selected in the run.
""",
)

ENGINE_CODES = (SYNTAX_ERROR, UNREADABLE_FILE, INTERNAL_ERROR)
"""Codes that are always on and cannot be suppressed or ignored."""

ENGINE_CODE_SET = frozenset(m.code for m in ENGINE_CODES)


def engine_diagnostic(meta: RuleMeta, path: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    """A diagnostic of one of the engine's codes at ``line``:``column`` of ``path``."""
    pos = Position(max(line, 1), max(column, 1))
    return Diagnostic(meta.code, meta.name, message, path, Span(pos, pos), help=meta.help)


def crash_diagnostic(path: str, meta: RuleMeta, exc: BaseException) -> Diagnostic:
    """AGL003 for rule ``meta`` having raised ``exc`` on ``path`` (the run goes on)."""
    return engine_diagnostic(
        INTERNAL_ERROR,
        path,
        f"Rule {meta.code} ({meta.name}) crashed on this file: {type(exc).__name__}: {exc}",
    )
