"""AGL401's comparison of prompt texts: which copies are the same prompt, and how they drift.

Two texts (``facts.prompt_text``: normalised, shingled) of different places are

- *identical*: the same normalised text (placeholder names and whitespace aside);
- a *near* copy: most of the shorter text's shingles are in the other one
  (containment at least ``NEAR``, and at least 8 shingles shared). Containment, not
  Jaccard, so a copy with a section added is still a copy;
- a *variant*: containment at least ``VARIANT`` with at least 20 shingles shared, and
  the same opening (the first six words): the same agent's prompt, extended. Different
  agents written on one scaffold do not open alike;
- sharing a *fragment*: an identical run of at least ``FRAGMENT_RUN`` tokens (an output
  format, a rule block) pasted into both. Fragments do not make the texts copies.

Shingles held by very many texts (boilerplate such as "you are a helpful assistant")
are left out of the comparison.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from functools import lru_cache
from itertools import combinations
from typing import Sequence

from agentlint.facts import prompt_text as pt

NEAR = 0.8
VARIANT = 0.6
FRAGMENT_RUN = 25
_OPENING = 6
_COMMON = 60
"""A shingle held by more texts than this (or 5% of them) is boilerplate."""
_FRAGMENT_SHARED = FRAGMENT_RUN - pt.SHINGLE + 1

IDENTICAL, NEAR_COPY, VARIANT_COPY, FRAGMENT = "identical", "near", "variant", "fragment"


def common_cap(count: int) -> int:
    """How many of ``count`` texts may hold a shingle before it is boilerplate."""
    return max(_COMMON, count // 20)


def text_edges(
    texts: Sequence[str], shingles: Sequence[tuple[int, ...]], comparable, cap: int,
) -> list[tuple[int, int, str, str]]:
    """(i, j, kind, fragment) for the pairs of texts that are copies or share a fragment;
    ``comparable(i, j)`` says whether a pair may be compared at all. ``cap``: the
    ``common_cap`` of all the project's texts (these may be some of them)."""
    postings: dict[int, list[int]] = defaultdict(list)
    for i, hashes in enumerate(shingles):
        for h in hashes:
            postings[h].append(i)
    # each pair of texts under one shingle counted once (a text's shingles are distinct),
    # by `Counter`'s own loop: a run of the whole project compares every pair of prompts
    shared: Counter[tuple[int, int]] = Counter()
    for ids in postings.values():
        if 2 <= len(ids) <= cap:
            shared.update(combinations(ids, 2))
    out = []
    opening_cache: dict[int, list[str]] = {}
    runs = _LongestRuns(texts)

    def opening(i: int) -> list[str]:
        found = opening_cache.get(i)
        if found is None:
            found = opening_cache[i] = pt.content_tokens(pt.tokens(texts[i][:200]))[:_OPENING]
        return found

    for (a, b), n in shared.items():
        if not comparable(a, b):
            continue
        if texts[a] == texts[b]:
            out.append((a, b, IDENTICAL, ""))
            continue
        smaller = min(len(shingles[a]), len(shingles[b])) or 1
        containment = n / smaller
        if containment >= NEAR and n >= 8:
            out.append((a, b, NEAR_COPY, ""))
        elif containment >= VARIANT and n >= 20 and opening(a) == opening(b):
            out.append((a, b, VARIANT_COPY, ""))
        elif n >= _FRAGMENT_SHARED:
            run = runs.between(a, b)
            if len(run) >= FRAGMENT_RUN:
                out.append((a, b, FRAGMENT, " ".join(run)))
    # identical texts in many places share every posting; the cap may have hidden them
    by_text: dict[str, list[int]] = defaultdict(list)
    for i, text in enumerate(texts):
        by_text[text].append(i)
    seen = {(a, b) for a, b, kind, _ in out if kind == IDENTICAL}
    for ids in by_text.values():
        if len(ids) < 2 or len(ids) > 200:
            continue
        for x in range(len(ids)):
            for y in range(x + 1, len(ids)):
                pair = (ids[x], ids[y])
                if pair not in seen and comparable(*pair):
                    out.append((*pair, IDENTICAL, ""))
    return out


class _LongestRuns:
    """The longest run of tokens two of ``texts`` share. A text is compared with many
    others (a project's prompts share their boilerplate): each one's tokens are found
    once, and each second text's index (what `SequenceMatcher` builds for its second
    sequence) is built once for all the texts compared with it."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = texts
        self._tokens: dict[int, list[str]] = {}
        self._matchers: dict[int, difflib.SequenceMatcher] = {}

    def _words(self, i: int) -> list[str]:
        found = self._tokens.get(i)
        if found is None:
            found = self._tokens[i] = pt.content_tokens(pt.tokens(self._texts[i]))
        return found

    def between(self, a: int, b: int) -> list[str]:
        wa, wb = self._words(a), self._words(b)
        matcher = self._matchers.get(b)
        if matcher is None:
            matcher = self._matchers[b] = difflib.SequenceMatcher(None, autojunk=False)
            matcher.set_seq2(wb)
        matcher.set_seq1(wa)
        match = matcher.find_longest_match(0, len(wa), 0, len(wb))
        return wa[match.a : match.a + match.size]


def _words(text: str) -> list[str]:
    if pt.has_cjk(text):
        return re.findall(r"[A-Za-z0-9_']+|\S", text)
    return text.split()


@lru_cache(maxsize=256)
def drift(a: str, b: str, *, sentences: bool = True) -> str:
    """How text ``b`` differs from ``a``: "identical", or the first change, its sentence
    (for prose) and how many more changes follow. Kept for the last few pairs: a
    finding's message and its first note describe the same pair."""
    wa, wb = _words(a), _words(b)
    ops = [o for o in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes() if o[0] != "equal"]
    if not ops:
        return "identical"
    tag, i1, i2, j1, j2 = ops[0]
    sentence = 1 + sum(1 for w in wa[:i1] if w.endswith((".", "?", "!", ":", "。", "：", "？", "！")))
    joiner = "" if pt.has_cjk(a) else " "
    old, new = _clip(joiner.join(wa[i1:i2])), _clip(joiner.join(wb[j1:j2]))
    change = {"replace": f"'{old}' -> '{new}'", "delete": f"drops '{old}'", "insert": f"adds '{new}'"}[tag]
    more = f" (+{len(ops) - 1} more)" if len(ops) > 1 else ""
    where = f" in sentence {sentence}" if sentences else ""
    return f"already differs: {change}{where}{more}"


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
