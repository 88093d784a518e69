"""One file's analysis leaves no cyclic garbage: its trees and agent model are freed by
reference counting, which is why the collector can be paused while a file is analysed
(``engine.collector``). A reference back to an owner (a finder keeping its model, a
report keeping its rule) would keep a whole tree alive until a collection; with the
collector paused, until the file is done."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from agentlint.api import settings_for
from agentlint.engine import analyze
from agentlint.engine.collector import collections_paused
from agentlint.facts.source import lower
from agentlint.rules.registry import all_rules, per_file_rules

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.py")) + sorted((ROOT / "fixtures").rglob("*.ipynb"))


def _leftovers(run) -> list[str]:
    """The types (of `ast`, LibCST and agentlint) of what ``run`` left as cyclic garbage."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return sorted({f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage
                       if type(o).__module__.partition(".")[0] in ("ast", "libcst", "agentlint")})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


@pytest.mark.parametrize("all_facts", [True, False])
@pytest.mark.parametrize("rules", ["all", "per-file"])
def test_analysing_a_file_leaves_no_cyclic_garbage(rules, all_facts):
    codes = [r.meta.code for r in per_file_rules()] if rules == "per-file" else list(all_rules())
    settings = settings_for(select=codes)

    def run() -> None:
        for path in FIXTURES:
            analyze.analyze_content(str(path.relative_to(ROOT)), path.read_bytes(), settings, all_facts=all_facts)

    assert _leftovers(run) == []


def test_the_facts_of_another_file_leave_no_cyclic_garbage():
    settings = settings_for(None)

    def run() -> None:
        for path in FIXTURES:
            if path.suffix == ".py":
                analyze.facts_only(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"), settings)

    assert _leftovers(run) == []


def test_lowering_newer_syntax_leaves_no_cyclic_garbage():
    source = "type Pairs[T] = list[tuple[T, T]]\nwho = f\"{'world'}\"\n"
    lowered = []
    assert _leftovers(lambda: lowered.append(lower(source))) == []
    assert lowered[0] is not None and len(lowered[0]) == len(source)


def test_the_collector_is_paused_inside_and_restored_after():
    assert gc.isenabled()
    with collections_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collections_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "a caller that turned it off keeps it off"
    finally:
        gc.enable()
