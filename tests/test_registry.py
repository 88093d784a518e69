"""The registry: the rule classes carry the catalog's metadata, each kind's classes are of
that kind, and listing the rules imports none of their implementations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentlint.rules import registry
from agentlint.rules.api import ModelRule, ProjectRule, Rule
from agentlint.rules.builtin import ENGINE_CODE_SET, UNUSED_SUPPRESSION

KINDS = {
    "per-file": (registry.per_file_rules, Rule),
    "model": (registry.model_rules, ModelRule),
    "project": (registry.project_rules, ProjectRule),
}

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_class_carries_its_catalog_entry_and_is_of_its_kind(kind: str) -> None:
    rules, base = KINDS[kind]
    classes = rules()
    assert classes, kind
    for cls in classes:
        assert issubclass(cls, base), cls
        assert cls.meta is registry.all_rules()[cls.meta.code], cls
        assert registry.rule_module(cls.meta.code) == cls.__module__
    assert registry.codes_of(kind) == {cls.meta.code for cls in classes}
    assert len(classes) == len(registry.codes_of(kind))


def test_every_code_is_a_rule_of_one_kind_or_the_engines() -> None:
    kinds = [registry.codes_of(kind) for kind in KINDS]
    assert sum(len(codes) for codes in kinds) == len(frozenset().union(*kinds))  # no code in two kinds
    assert set(registry.all_rules()) == frozenset().union(*kinds) | ENGINE_CODE_SET | {UNUSED_SUPPRESSION.code}


def _implementations() -> list[str]:
    return sorted({registry.rule_module(code) for kind in KINDS for code in registry.codes_of(kind)})


def test_listing_the_rules_imports_no_rule_implementation() -> None:
    # A run answered from the cache only lists the rules: it must not pay for the analysis.
    heavy = [*_implementations(), "agentlint.rules.api", "agentlint.facts.types"]
    code = (
        "import sys\n"
        "import agentlint.rules.registry as registry\n"
        "registry.all_rules()\n"
        "[registry.rule_module(code) for code in registry.all_rules()]\n"
        "[registry.codes_of(kind) for kind in ('per-file', 'model', 'project')]\n"
        f"loaded = sorted(m for m in {heavy!r} if m in sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_asking_for_the_classes_imports_their_modules() -> None:
    """The check above can fail: the same probe sees the modules once the classes are asked for."""
    code = (
        "import sys\n"
        "import agentlint.rules.registry as registry\n"
        "registry.project_rules()\n"
        "assert 'agentlint.rules.cost_formulas' in sys.modules and 'agentlint.rules.api' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_a_rule_reports_only_in_files_holding_its_needed_text():
    # ``Entry.needs_text`` spares loading a per-file rule's module for a file without
    # it: the rule must never report in such a file. Every finding of the fixtures is
    # in a file that holds it, and analysing every fixture with every per-file rule
    # loaded finds the same as with the gate.
    from pathlib import Path

    from agentlint.api import settings_for
    from agentlint.engine import analyze

    root = Path(__file__).resolve().parent.parent / "fixtures"
    needs = {entry.meta.code: entry.needs_text for entry in registry._PER_FILE}
    assert needs["AGL302"] == b"except" and needs["AGL601"] == needs["AGL602"] == b"agent_framework"
    settings = settings_for()
    checked = 0
    for path in sorted(root.rglob("*.py")):
        content = path.read_bytes()
        gated = analyze.analyze_content(str(path), content, settings)
        for diagnostic in gated.diagnostics:
            if diagnostic.code in needs:
                assert needs[diagnostic.code] in content, (path, diagnostic.code)
                checked += 1
        original = registry.per_file_rules
        try:
            registry.per_file_rules = lambda content=None: original()  # every rule, as before the gate
            every = analyze.analyze_content(str(path), content, settings)
        finally:
            registry.per_file_rules = original
        assert [d.to_json() for d in every.diagnostics] == [d.to_json() for d in gated.diagnostics], path
    assert checked > 50
