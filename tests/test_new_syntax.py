"""Code written for a newer Python than the running one is still analysed (facts, tools,
model rules), with its own lines and columns, and parsing never prints the
interpreter's warnings about the analysed code."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from agentlint.api import check_source
from agentlint.facts.source import lower

NEW = textwrap.dedent(
    '''\
    from agents import function_tool

    type Ids[T] = list[T]

    @function_tool
    def refund[T](customer_id: str, note: T) -> str:
        label = f"{"quoted"} and {'x'}"
        return label

    class Box[T](Base):
        pass

    escaped = "\\d"
    '''
)


def test_lowering_keeps_lines_and_columns() -> None:
    lowered = lower(NEW)
    assert lowered is not None
    old_lines, new_lines = NEW.splitlines(), lowered.splitlines()
    assert len(old_lines) == len(new_lines)
    for old, new in zip(old_lines, new_lines):
        assert len(old) == len(new), (old, new)
    assert new_lines[2].startswith("Ids") and new_lines[2].endswith("= list[T]")
    assert new_lines[5].index("(customer_id") == old_lines[5].index("(customer_id")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(lowered, "<lowered>", "exec")


def test_tool_in_new_syntax_is_analysed_with_its_own_columns() -> None:
    [finding] = check_source(NEW, "app/mod.py", select=["AGL201"])
    assert (finding.line, finding.span.start.column) == (6, NEW.splitlines()[5].index("customer_id") + 1)


def test_real_syntax_errors_are_still_reported() -> None:
    [finding] = check_source("def broken(:\n    pass\n", "app/mod.py", select=["AGL201"])
    assert finding.code == "AGL001"
    assert lower("def broken(:\n    pass\n") is None


def test_no_interpreter_warnings_on_stderr(tmp_path) -> None:
    (tmp_path / "noisy.py").write_text('import re\nPATTERN = re.compile("\\d+")\nx = 1 is 1\n', encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-W", "default", "-m", "agentlint", "check", "noisy.py", "--no-cache"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stderr, result.stderr
