"""Rule metadata has one source; the docs pages are rendered from it and kept in step."""

import re
from pathlib import Path

import pytest

from agentlint.report.rule_docs import render_rule
from agentlint.rules.registry import all_rules

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "Configuration")


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_every_rule_has_a_current_docs_page(code):
    page = DOCS / f"{code}.md"
    assert page.is_file(), f"{code} has no docs page; run `python -m agentlint.report.rule_docs`"
    assert page.read_text(encoding="utf-8") == render_rule(all_rules()[code]), (
        f"{page} is out of date; run `python -m agentlint.report.rule_docs`"
    )


def test_every_docs_page_has_a_rule():
    orphans = sorted(p.stem for p in DOCS.glob("*.md") if p.stem not in all_rules())
    assert not orphans, f"docs pages without a rule: {orphans}"


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rule_pages_have_the_sections_in_order(code):
    text = all_rules()[code].docs
    positions = [text.find(f"## {s}\n") for s in SECTIONS]
    assert all(p >= 0 for p in positions), f"{code} misses a section: {list(zip(SECTIONS, positions))}"
    assert positions == sorted(positions), f"{code}: sections out of order"


def test_lint_rules_name_their_standard():
    for code, meta in all_rules().items():
        if not code.startswith(("AGL0", "AGL9")):
            assert "## Standard\n" in meta.docs, f"{code} does not say which standard it enforces"


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rule_page_names_where_the_rule_lives(code):
    """From a code to its module, fixtures and page in one step: every path it names exists."""
    root = DOCS.parent.parent
    tail = render_rule(all_rules()[code]).split("## Where it lives\n", 1)[1]
    paths = re.findall(r"`([\w./]+)`", tail)
    assert paths and paths[0].startswith("agentlint/"), tail
    for path in paths:
        assert (root / path).exists(), f"{code}: `{path}` does not exist"


PORTUGUESE = re.compile(r"\b(não|é|uma|também|quando|então|nunca|mora|cobrado)\b|ção\b|ções\b")


@pytest.mark.parametrize("code", sorted(c for c in all_rules() if not c.startswith(("AGL0", "AGL9"))))
def test_standard_sections_cite_by_name_in_english(code):
    """The standards are not shipped with agentlint: a page cites one by name and section,
    in the page's language, never by a path into a package the reader does not have."""
    section = all_rules()[code].docs.split("## Standard\n", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"the [\w-]+ standard", section), f"{code}: name the standard"
    assert not re.search(r"[\w-]+/[\w./-]+\.md", section), f"{code}: a path into an unshipped package"
    assert not PORTUGUESE.search(section), f"{code}: the Standard section is not in English"
