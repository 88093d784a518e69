"""The ast tree decides which files LibCST parses (``Rule.needs_cst``): a saving that must
change no finding. Every LibCST rule runs on real code (the fixtures, the tests and
agentlint's own source, which has handlers of every kind) with and without the decision,
and the findings must be the same. `bench/prefilter_soundness.py` runs the same
comparison over a corpus."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agentlint.api import settings_for
from agentlint.engine import analyze
from agentlint.facts.module import extract_facts
from agentlint.rules.registry import per_file_rules
from agentlint.rules.silent_broad_except import SilentBroadExcept

ROOT = Path(__file__).resolve().parent.parent
CST_CODES = [rule.meta.code for rule in per_file_rules()]


def _files() -> list[Path]:
    found = []
    for folder in ("fixtures", "tests", "agentlint", "bench"):
        found += sorted((ROOT / folder).rglob("*.py")) + sorted((ROOT / folder).rglob("*.ipynb"))
    return found


def _findings(path: Path, settings, monkeypatch, prefilter: bool):
    monkeypatch.setattr(analyze, "CST_PREFILTER", prefilter)
    result = analyze.analyze_content(str(path), path.read_bytes(), settings)
    return sorted(repr(d) for d in result.diagnostics)


def test_the_decision_changes_no_finding(monkeypatch):
    settings = settings_for(select=CST_CODES)
    files = _files()
    assert len(files) > 200
    differ = []
    for path in files:
        if _findings(path, settings, monkeypatch, True) != _findings(path, settings, monkeypatch, False):
            differ.append(str(path.relative_to(ROOT)))
    assert not differ, f"the ast decision changed the findings of {differ}"


def test_a_run_of_per_file_rules_alone_finds_what_a_full_run_finds():
    """Selected alone, the LibCST rules skip the cost and prompt facts and build the agent
    model only where they run: their findings stay those of a run of every rule."""
    alone = settings_for(select=CST_CODES)
    everything = settings_for(select=["ALL"])
    differ = []
    for path in _files():
        content = path.read_bytes()
        full = analyze.analyze_content(str(path), content, everything).diagnostics
        wanted = sorted(repr(d) for d in full if d.code in CST_CODES)
        found = analyze.analyze_content(str(path), content, alone).diagnostics
        if sorted(repr(d) for d in found if d.code in CST_CODES) != wanted:
            differ.append(str(path.relative_to(ROOT)))
    assert not differ, differ


def _needs(source: str, **settings) -> bool:
    tree = ast.parse(source)
    return SilentBroadExcept.needs_cst(tree, extract_facts("m.py", tree, source), settings)


@pytest.mark.parametrize(
    "body",
    [
        "    raise\n",
        "    logger.exception('lookup failed')\n",
        "    self._log.warning('x')\n",
        "    print('x', file=sys.stderr)\n",
        "    if retry:\n        raise RuntimeError('gave up') from None\n",
        "    sentry_sdk.capture_exception()\n",
    ],
)
def test_handlers_the_ast_clears(body):
    assert not _needs("import sys\ntry:\n    f()\nexcept Exception:\n" + body)


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    f()\nexcept Exception:\n    pass\n",
        "try:\n    f()\nexcept:\n    return_value = None\n",
        "try:\n    f()\nexcept (KeyError, Exception):\n    def later():\n        raise\n",
        "from builtins import Exception as Broad\ntry:\n    f()\nexcept Broad:\n    pass\n",
        "try:\n    f()\nexcept Exception:\n    audit.send('x')\n",
    ],
)
def test_handlers_left_to_the_rule(source):
    assert _needs(source)


def test_settings_reach_the_decision():
    source = "try:\n    f()\nexcept Exception:\n    audit.send('x')\n"
    assert not _needs(source, **{"logger-objects": ["audit"]})
    assert not _needs(source.replace("audit.send", "notify_ops"), **{"reporter-callables": ["notify_ops"]})


def test_narrow_handlers_need_no_parse():
    assert not _needs("try:\n    f()\nexcept (KeyError, ValueError):\n    pass\n")
