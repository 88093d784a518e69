"""The ast tree decides which files LibCST parses (``Rule.needs_cst``): a saving that must
change no finding. Every LibCST rule runs on real code (the fixtures, the tests and
agentlint's own source, which has handlers of every kind) with and without the decision,
and the findings must be the same. `bench/prefilter_soundness.py` runs the same
comparison over a corpus."""

from __future__ import annotations

import ast
import re
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
    # not the hidden folders `bench/` builds locally (its corpus, the peers' virtualenv)
    return [path for path in found if not any(part.startswith(".") for part in path.relative_to(ROOT).parts)]


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


ONE_EXPRESSION = re.compile(
    rb"except\b[^:]*?Exception|except[ \t\f\\\r\n]*:|import\b[^\n]*\bException\b"
    rb"|=\s*\(?\s*(?:builtins\.)?(?:Base)?Exception\b"
)
"""AGL302's byte prefilter written as one expression: what ``SilentBroadExcept.prefilter``
must answer, faster."""


@pytest.mark.parametrize(
    "text",
    [
        b"try:\n    f()\nexcept Exception:\n    pass\n",
        b"try:\n    f()\nexcept (KeyError,\n        BaseException) as e:\n    pass\n",
        b"try:\n    f()\nexcept \\\n  :\n    pass\n",
        b"try:\n    f()\nexcept ValueError:\n    pass\n",
        b"x = 'except'\nexcept_hook = 1\nexcepted: int\n",
        b"from builtins import Exception as Broad\n",
        b"Broad = (\n    builtins.BaseException,)\n",
        b"Broad = (KeyError, Exception)\n",
        b"raise Exception('no handler')\n",
        b"",
    ],
)
def test_the_byte_prefilter_answers_as_one_expression(text):
    assert bool(SilentBroadExcept.prefilter.search(text)) == bool(ONE_EXPRESSION.search(text))


def test_the_byte_prefilter_answers_as_one_expression_on_real_code():
    files = _files()
    assert all(
        bool(SilentBroadExcept.prefilter.search(c)) == bool(ONE_EXPRESSION.search(c))
        for c in (path.read_bytes() for path in files)
    )


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
    "body",
    [
        "    return {'error': str(exc)}\n",
        "    yield exc\n",
        "    self.last_error = exc\n",
        "    failures.append((job, exc))\n",
        "    notify(reason=exc)\n",
        "    (primary or fallback).discard(exc)\n",
        "    close_failed = True\n",
        "    self.error_count += 1\n",
        "    if retry:\n        errors, last = [], exc\n",
    ],
)
def test_handlers_the_ast_clears_by_the_exception_passed_on(body):
    assert not _needs("try:\n    f()\nexcept Exception as exc:\n" + body)


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    f()\nexcept Exception:\n    pass\n",
        "try:\n    f()\nexcept:\n    return_value = None\n",
        "try:\n    f()\nexcept (KeyError, Exception):\n    def later():\n        raise\n",
        "from builtins import Exception as Broad\ntry:\n    f()\nexcept Broad:\n    pass\n",
        "try:\n    f()\nexcept Exception:\n    audit.send('x')\n",
        # the exception read where the rule does not count it as passed on
        "try:\n    f()\nexcept Exception as exc:\n    repr(exc)\n",
        "try:\n    f()\nexcept Exception as exc:\n    def later():\n        return exc\n",
        "try:\n    f()\nexcept Exception as exc:\n    (lambda error: error)(exc)\n",
        "try:\n    f()\nexcept Exception:\n    return exc\n",
        # failure text and string keys are left to the rule, which reads literals as written
        "try:\n    f()\nexcept Exception:\n    status = 'failed'\n",
        "try:\n    f()\nexcept Exception:\n    stats['errors'] = 1\n",
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


def test_only_the_statements_that_can_hold_a_finding_are_parsed(monkeypatch):
    """A silent handler deep in a long file: LibCST parses its top-level statement alone,
    and the finding keeps the file's line and the name of the tool around it."""
    filler = "".join(f"def helper_{i}(x):\n    try:\n        return x()\n    except Exception:\n        raise\n\n" for i in range(40))
    source = (
        "from agents import function_tool\n\n" + filler
        + "@function_tool\ndef lookup(city: str) -> str:\n    try:\n        return fetch(city)\n"
        "    except Exception:\n        return ''\n"
    )
    line = source.splitlines().index("    except Exception:", source.count("\n") - 3) + 1
    parsed = []
    real = analyze.run_on_statements
    monkeypatch.setattr(analyze, "run_on_statements", lambda *a: parsed.append(a[6]) or real(*a))
    settings = settings_for(select=["AGL302"])
    found = analyze.analyze_content("tools.py", source.encode(), settings).diagnostics
    assert parsed == [[41]], "only the tool's statement is given to LibCST"
    assert [(d.code, d.span.start.line) for d in found] == [("AGL302", line)]
    assert "inside tool `lookup`" in found[0].message


def test_only_the_members_of_a_class_that_can_hold_a_finding_are_parsed(monkeypatch):
    """A file that is one big class (most library modules): LibCST sees the class header
    and the one method whose handler is silent, and the finding keeps its line, its
    column and the class and method names around it."""
    from agentlint.engine import cst_pass

    methods = "".join(
        f"    @staticmethod\n    def helper_{i}(x):\n        try:\n            return x()\n"
        f"        except Exception:\n            raise\n\n"
        for i in range(30)
    )
    source = (
        "from agents import function_tool\n\n\n"
        "@decorate\nclass Search(  # a header over two lines\n    Base,\n):\n"
        '    """The docstring, which is not parsed again."""\n\n    # a comment before the members\n'
        + methods
        + "    @function_tool\n    def lookup(self, city: str) -> str:\n        try:\n            return fetch(city)\n"
        "        except Exception:\n            return ''\n"
        + methods.replace("helper_", "after_")
    )
    lines = source.splitlines()
    line = lines.index("    def lookup(self, city: str) -> str:") + 4
    parsed: list = []
    texts: list[str] = []
    real_regions, real_cst = analyze.run_on_statements, cst_pass.run_cst_rules
    monkeypatch.setattr(analyze, "run_on_statements", lambda *a: parsed.append(a[6]) or real_regions(*a))
    monkeypatch.setattr(cst_pass, "run_cst_rules", lambda path, text, *a, **k: texts.append(text) or real_cst(path, text, *a, **k))
    settings = settings_for(select=["AGL302"])
    found = analyze.analyze_content("tools.py", source.encode(), settings).diagnostics
    assert parsed == [[(1, (31,))]], "the class with its one member that can hold a finding"
    assert len(texts) == 1 and "helper_" not in texts[0] and "after_" not in texts[0] and "docstring" not in texts[0]
    assert [(d.code, d.span.start.line, d.span.start.column) for d in found] == [("AGL302", line, 9)]
    whole = analyze_without_decision(source, settings)
    assert [(d.code, d.span, d.message) for d in found] == [(d.code, d.span, d.message) for d in whole]


def analyze_without_decision(source: str, settings):
    analyze.CST_PREFILTER = False
    try:
        return analyze.analyze_content("tools.py", source.encode(), settings).diagnostics
    finally:
        analyze.CST_PREFILTER = True


def test_a_run_of_per_file_rules_models_the_file_only_when_a_rule_asks_for_its_tools(monkeypatch):
    """AGL302 names the tool a silent handler is in: in a run of per-file rules alone the
    model's tool finder runs for that (not the whole model), and only when a handler
    inside a function reports."""
    built = []
    real = analyze.tools_of
    monkeypatch.setattr(analyze, "tools_of", lambda *a: built.append(a) or real(*a))
    monkeypatch.setattr(analyze, "build_model", lambda *a: pytest.fail("the whole model was built"))
    settings = settings_for(select=["AGL302"])
    module_level = "from agents import function_tool\n\ntry:\n    import fast\nexcept Exception:\n    fast = None\n"
    found = analyze.analyze_content("tools.py", module_level.encode(), settings).diagnostics
    assert [d.code for d in found] == ["AGL302"] and built == []
    in_tool = (
        "from agents import function_tool\n\n\n@function_tool\ndef lookup(city: str) -> str:\n"
        "    try:\n        return fetch(city)\n    except Exception:\n        return ''\n"
        "    try:\n        return fetch(city.lower())\n    except Exception:\n        return ''\n"
    )
    found = analyze.analyze_content("tools.py", in_tool.encode(), settings).diagnostics
    assert [d.code for d in found] == ["AGL302", "AGL302"] and len(built) == 1
    assert all("inside tool `lookup`" in d.message for d in found)
