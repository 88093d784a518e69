"""Rule documentation, rendered from the one source: each rule's RuleMeta.

`python -m agentlint.report.rule_docs [DIR]` writes docs/rules/<CODE>.md for every rule.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agentlint.rules.diagnostics import RuleMeta
from agentlint.rules.registry import all_rules, rule_module


def render_rule(meta: RuleMeta) -> str:
    flags = []
    flags.append("on by default" if meta.default_selected else "opt-in (select it by code)")
    flags.append("fix available" if meta.fixable else "no fix")
    head = f"# {meta.code} {meta.name}\n\n{meta.summary}\n\n*{'; '.join(flags)}.*\n\n"
    return head + meta.docs.strip() + "\n\n" + _where(meta.code)


_ENGINE_TESTS = {"AGL001": "tests/test_bad_input.py", "AGL002": "tests/test_bad_input.py", "AGL003": "tests/test_bad_input.py"}
"""The engine's own codes have no fixture folder: their cases are files that cannot be read."""


def _where(code: str) -> str:
    """Where a newcomer finds the rule: its module, its fixtures and their test, this page."""
    module = rule_module(code).replace(".", "/") + ".py"
    if code in _ENGINE_TESTS:
        cases = f"its cases are in `{_ENGINE_TESTS[code]}`"
    else:
        cases = f"its cases (flagged and near-miss) are in `fixtures/rules/{code}/`, checked by `tests/test_fixtures.py`"
    return f"## Where it lives\nThe code is in `{module}`; {cases}; this page is `docs/rules/{code}.md`.\n"


def write_pages(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for code, meta in all_rules().items():
        page = folder / f"{code}.md"
        page.write_text(render_rule(meta), encoding="utf-8")
        written.append(page)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules")
    for page in write_pages(target):
        print(page)
