"""Generated programs (hypothesmith, a bounded number of examples): the analysis never
crashes (no AGL003) on valid Python, and `--fix` is idempotent (a second round finds
nothing to fix and changes nothing)."""

from __future__ import annotations

import warnings

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import sys  # noqa: E402

from agentlint.api import check_source, settings_for  # noqa: E402
from agentlint.engine.analyze import RECURSION_LIMIT  # noqa: E402
from agentlint.engine.finalize import file_diagnostics  # noqa: E402
from agentlint.engine.fixes import fix_content  # noqa: E402

sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))  # as the engine sets it

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles what it generates

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

# Agent-shaped snippets stitched to generated code, so the rules have something to chew on.
SNIPPETS = st.sampled_from(
    [
        "",
        "from agent_framework import ChatAgent, ai_function\nagent = ChatAgent(chat_client=c, name='x')\n",
        "from agents import function_tool\n@function_tool\ndef refund(customer_id: str, amount: float) -> str:\n    try:\n        return str(1)\n    except Exception as e:\n        return str(e)\n",
        "def check_input(text) -> bool:\n    try:\n        return client.chat.completions.create(model='m') == 'yes'\n    except Exception:\n        return True\n",
        "SYSTEM_PROMPT = 'You are a careful assistant who answers questions about orders.'\n",
        "cost = usage.prompt_tokens * 0.00001 + usage.completion_tokens * 0.00003\n",
    ]
)


def _compiles(source: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, "gen.py", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


@FUZZ
@given(code=hypothesmith.from_grammar(), prefix=SNIPPETS)
def test_no_crash_on_generated_programs(code: str, prefix: str) -> None:
    source = prefix + code
    if not _compiles(source):
        return  # the grammar makes some programs the compiler rejects
    found = check_source(source, "gen.py", select=["ALL"])
    crashes = [d.message for d in found if d.code == "AGL003"]
    assert not crashes, crashes


@FUZZ
@given(code=hypothesmith.from_grammar(), prefix=SNIPPETS)
def test_fix_is_idempotent_on_generated_programs(code: str, prefix: str) -> None:
    source = prefix + code
    if not _compiles(source):
        return
    settings_ = settings_for(select=["ALL"])
    check = lambda path, content: file_diagnostics(path, content, settings_)  # noqa: E731
    first = fix_content("gen.py", source.encode("utf-8"), check, unsafe=True)
    if not first.changed:
        return
    fixed = first.fixed_bytes()
    assert _compiles(fixed.decode("utf-8"))
    second = fix_content("gen.py", fixed, check, unsafe=True)
    assert not second.changed, "a second --fix changed the file again"
