"""The text scans that stand in for a regular expression's search over a whole module
(`str.find` first, the expression only where a piece of text it needs is found) give
what the search itself gives."""

import random
import re
from pathlib import Path

import pytest

from agentlint.facts import prompt_text as pt
from agentlint.facts.agents.sinks import _ASKS, _asking_lines
from agentlint.knowledge import guards
from agentlint.rules._guard_texts import has_registration_text, may_gate, registration_texts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ASKING = (
    "def tool(x):\n"
    "    answer = input('go?')  # input(\n"
    "    myinput(x)\n"
    "    if not confirm(x): return\n"
    "    request_confirmation(x); self.ask(x)\n"
    "\n"
    "    wait_for_event('approved')\n"
    "    interrupt({'q': x})"
)


def _sources():
    yield ASKING
    for path in sorted(FIXTURES.rglob("*.py")):
        yield path.read_text(encoding="utf-8", errors="replace")


def test_asking_lines_are_the_lines_the_expression_finds():
    lines = ASKING.splitlines()
    assert _asking_lines("\n".join(lines), lines) == [2, 4, 5, 7, 8]  # not `myinput(`
    asking = 0
    for source in _sources():
        lines = source.splitlines()
        expected = [n for n, line in enumerate(lines, 1) if _ASKS.search(line)]
        assert _asking_lines("\n".join(lines), lines) == expected
        asking += bool(expected)
    assert asking > 5


def _registered_by_search(source: str, keywords: frozenset[str]) -> bool:
    """The definition: a match of either pattern at any position, a keyword or call
    starting a word, a suffix ending one."""
    (starts, _), (suffixes, _) = registration_texts(keywords)
    for pattern, after_word in ((starts, False), (suffixes, True)):
        for start in range(len(source)):
            if pattern.match(source, start):
                if (start > 0 and (source[start - 1].isalnum() or source[start - 1] == "_")) == after_word:
                    return True
    return False


@pytest.mark.parametrize(("source", "registered"), [
    ("Agent(guardrails=[check])", True),
    ("Agent(input_guardrails = [check])", True),
    ("app.get('/', dependencies=[Depends(check)])", True),
    ("x = NotDepends(check)", False),
    ("my_guardrails = load()", True),  # a keyword's suffix ending a word
    ("_guardrails()", False),
    ("guardrails", False),
])
def test_registration_text(source, registered):
    keywords = frozenset(guards.GUARD_KEYWORDS)
    assert has_registration_text(source, keywords) is registered
    assert _registered_by_search(source, keywords) is registered


@pytest.mark.parametrize("extra", [frozenset(), frozenset({"_validator", "checks"})], ids=["default", "suffix-keyword"])
def test_registration_text_is_the_search_on_every_fixture(extra):
    keywords = frozenset(guards.GUARD_KEYWORDS) | extra
    found = 0
    for source in _sources():
        expected = _registered_by_search(source, keywords)
        assert has_registration_text(source, keywords) is expected
        found += expected
    assert found > 3


_GATE_DEFINITION = (r"(?:\b(?:if|elif|while|assert|not|and|or)|=)\s*(?:not\s+)?(?:await\s+)?"
                    r"(?:[\w.]+\.)?{name}\s*\(")


def _gated_by_search(source: str, name: str) -> bool:
    """The definition: the pattern searched over the whole text."""
    return re.search(_GATE_DEFINITION.format(name=re.escape(name)), source) is not None


@pytest.mark.parametrize(("source", "gated"), [
    ("if not is_safe(x):", True),
    ("ok = await self.policy.is_safe (x)", True),
    ("while\n  not\tis_safe(\n  x)", True),
    ("x==is_safe(y)", True),  # the `=` of `==` starts a match too
    ("is_safe(x)", False),
    ("cannot is_safe(x)", False),  # `not` must start a word
    ("if not my_is_safe(x):", False),
    ("if not obj().is_safe(x):", False),
    ("if is_safe:", False),
])
def test_a_tested_call(source, gated):
    assert may_gate(source, "is_safe") is gated
    assert _gated_by_search(source, "is_safe") is gated


def test_a_tested_call_is_the_search_on_every_fixture_and_on_random_text():
    found = 0
    for source in _sources():
        for name in sorted(set(re.findall(r"def (\w+)", source)))[:40]:
            expected = _gated_by_search(source, name)
            assert may_gate(source, name) is expected, name
            found += expected
    assert found > 20
    pieces = ["if", "elif", "not", "and", "or", "await", "=", "==", " ", "\n", "\t", ".", "self", "a.b", "check",
              "check_ok", "(", ")", "x", "_", "\u00e9", "\u2028", "while", "assert", "cannot", "(check", "=check"]
    rng = random.Random(7)
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        assert may_gate(text, "check") is _gated_by_search(text, "check"), repr(text)


def test_cjk_characters_are_those_of_the_ranges_by_code_point():
    # ``prompt_text`` finds CJK characters by code point, as the character class of
    # these ranges would: every edge of every range, other scripts, emoji, astral planes
    ranges = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
    edges = [0x303F, 0x3040, 0x30FF, 0x3100, 0x33FF, 0x3400, 0x9FFF, 0xA000, 0xABFF, 0xAC00, 0xD7AF, 0xD7B0]
    alphabet = [chr(c) for c in [*range(32, 127), *edges, 0xE9, 0x2019, 0x4E2D, 0x1F600, 0x20000]]
    rng = random.Random(7)
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert pt.has_cjk(text) == (ranges.search(text) is not None), repr(text)
        assert list(pt._cjk_characters(text)) == ranges.findall(text), repr(text)
    assert pt.word_count("请 回答 the question") == 1.5 + 2  # three CJK characters, two words
