"""The text tests AGL301's guard signals start with, before any tree is read: whether a
module's text can register a guard (a guard keyword argument, a conditional edge, a
route dependency) and whether it tests a call of a function (`if not check(x):`). Each
is tried only where the words it needs stand (`str.find`): a regular expression that
starts with an alternation, searched over a whole module, costs far more.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agentlint.facts.ast_helpers import occurrences
from agentlint.knowledge import guards


def may_gate(source: str, name: str) -> bool:
    """Cheap: the text tests a call of ``name`` (`if not name(`, `ok = name(`, ...).
    The pattern, which starts with an alternation, is tried only around the calls of
    ``name``: from where the word characters, dots and spaces before the name start (what
    a match holds before it, but the `=` it may start with) to the call's parenthesis."""
    search = re.compile(rf"(?:\b(?:if|elif|while|assert|not|and|or)|=)\s*(?:not\s+)?(?:await\s+)?"
                        rf"(?:[\w.]+\.)?{re.escape(name)}\s*\(").search
    size = len(source)
    for at in occurrences(source, name):
        end = at + len(name)
        while end < size and source[end].isspace():
            end += 1
        if end == size or source[end] != "(":
            continue
        start = at
        while start > 0 and (source[start - 1].isalnum() or source[start - 1] in "_." or source[start - 1].isspace()):
            start -= 1
        if search(source, max(0, start - 1), end + 1) is not None:
            return True
    return False


@lru_cache(maxsize=8)
def registration_words(keywords: frozenset[str]) -> tuple[str, ...]:
    """A piece of text each match of ``registration_texts`` holds (tested with `in`, faster).
    A word that holds another one is left out (`input_guardrails` holds `guardrail`): a
    text holding it holds the shorter one, and an absent word costs a read of the whole
    text."""
    words = {*keywords, *guards.GUARD_KEYWORD_SUFFIXES, *guards.EDGE_CONDITION_METHODS, *guards.GATE_CALLS}
    return tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))


@lru_cache(maxsize=8)
def registration_texts(keywords: frozenset[str]) -> "tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]":
    """Text without which a module registers no guard: a guard keyword argument, a
    conditional edge or a route dependency (`guardrails=`, `Depends(`), and a keyword
    with a guard's suffix (`output_guardrails=`). Two patterns without the word
    boundaries, which ``has_registration_text`` checks on each match, each with the
    words one of which every match of it starts with."""
    calls = sorted({*guards.EDGE_CONDITION_METHODS, *guards.GATE_CALLS})
    names = "|".join(sorted(re.escape(k) for k in keywords))
    starts = re.compile(rf"(?:{names})\s*=|(?:{'|'.join(re.escape(c) for c in calls)})\s*\(")
    suffixes = re.compile(rf"(?:{'|'.join(re.escape(s) for s in guards.GUARD_KEYWORD_SUFFIXES)})\s*=")
    return (starts, (*sorted(keywords), *calls)), (suffixes, tuple(guards.GUARD_KEYWORD_SUFFIXES))


def has_registration_text(source: str, keywords: frozenset[str], present: "tuple[str, ...] | None" = None) -> bool:
    """``registration_texts`` match where a keyword or call starts a word, or where a
    suffix ends one. ``present``: the ``registration_words`` the text holds (found here
    when not given); a word that holds none of them is not in the text either, and is
    not looked for."""
    if present is None:
        present = tuple(word for word in registration_words(keywords) if word in source)
    (starts, start_words), (suffixes, suffix_words) = registration_texts(keywords)
    return (_matches_after(starts, _holding(start_words, present), source, after_word=False)
            or _matches_after(suffixes, _holding(suffix_words, present), source, after_word=True))


@lru_cache(maxsize=64)
def _holding(words: "tuple[str, ...]", present: "tuple[str, ...]") -> "tuple[str, ...]":
    """The ``words`` that hold one of ``present``."""
    return tuple(word for word in words if any(part in word for part in present))


def _matches_after(pattern: "re.Pattern[str]", words: "tuple[str, ...]", source: str, *, after_word: bool) -> bool:
    """``pattern`` matches at a position whose previous character is a word character
    (`\\w`) or, with ``after_word`` false, at one whose previous character is not one.
    It is tried only where one of ``words`` starts (each match starts with one)."""
    for word in words:
        for start in occurrences(source, word):
            if ((start > 0 and (source[start - 1].isalnum() or source[start - 1] == "_")) == after_word
                    and pattern.match(source, start)):
                return True
    return False
