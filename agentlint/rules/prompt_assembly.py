"""AGL401 prompt-assembled-in-multiple-places: one prompt, written or built in several places."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import chain
from typing import Mapping

from agentlint.facts import prompt_text as pt
from agentlint.facts.types import FileFacts, PromptSiteFact
from agentlint.knowledge.test_code import is_test_path
from agentlint.rules.api import ProjectRule
from agentlint.rules.catalog.prompts import PROMPT_ASSEMBLED_IN_MULTIPLE_PLACES
from agentlint.rules.cost_places import make, place_label, sanctioned, span_of
from agentlint.rules.diagnostics import Diagnostic, RelatedLocation
from agentlint.rules.prompt_resolve import Names, Parameters, entries
from agentlint.rules.prompt_text_match import (
    FRAGMENT, IDENTICAL, NEAR_COPY, VARIANT_COPY, common_cap, drift, text_edges,
)

_MAX_RELATED = 20
_PER_PLACE = 3
_LOADED = ("file:", "template:", "prompt:")
TEMPLATE, BLOCKS, MESSAGES = "template", "blocks", "messages"
_STRENGTH = {IDENTICAL: 0, NEAR_COPY: 1, TEMPLATE: 2, BLOCKS: 2, MESSAGES: 2, VARIANT_COPY: 3, FRAGMENT: 9}


@dataclass
class _Unit:
    path: str
    place: tuple[str, str, int]
    """(path, scope, scope line): a definition, or a file's module-level code."""
    site: PromptSiteFact
    label: str = ""
    """What it is, for messages: a template's or blocks' names, the message list."""


class PromptAssembledInMultiplePlaces(ProjectRule):
    reads = frozenset({"prompts"})
    meta = PROMPT_ASSEMBLED_IN_MULTIPLE_PLACES

    def check(self) -> list[Diagnostic]:
        facts = self.context.facts
        min_words = max(8, int(self.settings.get("min-prompt-words", 15)))
        names = Names(facts)
        parameters = Parameters(names, facts)
        units: list[_Unit] = []
        texts: list[int] = []
        keyed: dict[tuple, list[int]] = defaultdict(list)
        for path in sorted(facts):
            file_facts = facts[path]
            if not file_facts.prompt_sites:
                continue
            test = is_test_path(path)
            for site in file_facts.prompt_sites:
                place = (path, site.scope, site.scope_line)
                what = site.what
                if what == "text":
                    if pt.word_count(site.text) < min_words or (test and site.shape == "fallback"):
                        continue
                    texts.append(len(units))
                    units.append(_Unit(path, place, site))
                elif what == "render":
                    block = names.prompt_block(site.blocks[0], path)
                    if block is not None:
                        keyed[(TEMPLATE, block, site.shape)].append(len(units))
                        units.append(_Unit(path, place, site, f"`{block[1]}`"))
                elif what == "blocks":
                    own = _own_blocks(site, path, names)
                    if own:
                        keyed[(BLOCKS, own)].append(len(units))
                        units.append(_Unit(path, place, site, ", ".join(_block_label(b) for b in own)))
                elif what == "messages":
                    resolved = entries(site, path, parameters)
                    if _comparable_messages(resolved):
                        keyed[(MESSAGES, resolved)].append(len(units))
                        units.append(_Unit(path, place, site, _messages_label(resolved)))
        if not units:
            return []

        def comparable(a: int, b: int) -> bool:
            ua, ub = units[a], units[b]
            # each notebook is an application of its own; a notebook and the modules
            # of its application are compared
            return ua.place != ub.place and not _two_notebooks(ua.path, ub.path)

        cap = common_cap(len(texts))
        reported = self.context.reported
        if reported is not None:
            # a partial run reports only in its files: the clusters of their prompts alone
            wanted = _linked(units, texts, keyed, reported, cap)
            texts = [i for i in texts if i in wanted]
            keyed = {key: [i for i in ids if i in wanted] for key, ids in keyed.items()}
        edges: list[tuple[int, int, str, str]] = []
        if texts:
            found = text_edges([units[i].site.text for i in texts], [units[i].site.shingles for i in texts],
                               lambda a, b: comparable(texts[a], texts[b]), cap)
            edges += [(texts[a], texts[b], kind, detail) for a, b, kind, detail in found]
        for key, ids in keyed.items():
            if len(ids) < 2 or len({units[i].place for i in ids}) < 2:
                continue
            for x in range(len(ids)):
                for y in range(x + 1, len(ids)):
                    a, b = ids[x], ids[y]
                    if not comparable(a, b):
                        continue
                    if key[0] == BLOCKS and not _skeletons_agree(units[a].site.shape, units[b].site.shape):
                        continue
                    edges.append((a, b, key[0], ""))
        return self._findings(facts, units, edges)

    def _findings(self, facts: Mapping[str, FileFacts], units: list[_Unit], edges) -> list[Diagnostic]:
        strong = list(range(len(units)))
        weak = list(range(len(units)))

        def find(parent: list[int], x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        adjacent: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
        for a, b, kind, detail in edges:
            parent = weak if kind == FRAGMENT else strong
            parent[find(parent, a)] = find(parent, b)
            adjacent[a].append((b, kind, detail))
            adjacent[b].append((a, kind, detail))
        # one expression seen as several units (a message list, the template rendered
        # in it, the blocks it is assembled from) is one copy
        in_place: dict[tuple[str, str, int], list[int]] = defaultdict(list)
        for i in adjacent:
            if any(kind != FRAGMENT for _, kind, _ in adjacent[i]):
                in_place[units[i].place].append(i)
        for ids in in_place.values():
            starts: dict[int, list[int]] = defaultdict(list)
            for i in ids:
                starts[units[i].site.line].append(i)
            for i in ids:
                site = units[i].site
                if site.what in ("messages", "blocks") and site.text:  # the lines its parts come from
                    for line in site.text.split(","):
                        for j in starts.get(int(line), ()):
                            strong[find(strong, j)] = find(strong, i)
            ids.sort(key=lambda i: _extent(units[i].site))
            reach, owner = (0, 0), None
            for i in ids:
                start, end = _extent(units[i].site)
                if owner is not None and start <= reach:
                    strong[find(strong, i)] = find(strong, owner)
                    reach = max(reach, end)
                else:
                    owner, reach = i, end
        # one finding per (place, cluster): copies joined by fragments only form their own
        clusters: dict[tuple, list[int]] = defaultdict(list)
        for i in adjacent:
            if any(kind != FRAGMENT for _, kind, _ in adjacent[i]):
                clusters[("copy", find(strong, i))].append(i)
            else:
                clusters[("fragment", find(weak, i))].append(i)
        composers = list(self.settings.get("prompt-composers", ()))
        found: list = []
        for members in clusters.values():
            by_place: dict[tuple[str, str, int], list[int]] = defaultdict(list)
            for i in members:
                by_place[units[i].place].append(i)
            if len(by_place) < 2:
                continue
            first = {p: min(ids, key=lambda i: (units[i].site.line, units[i].site.column)) for p, ids in by_place.items()}
            for place, ids in by_place.items():
                path, scope, _line = place
                module = facts[path].module
                if composers and sanctioned(path, module, scope, composers):
                    continue
                # two notebooks are never compared, also when a module copies both
                others = [p for p in by_place if p != place and not _two_notebooks(path, p[0])]
                if not others:
                    continue
                if not is_test_path(path) and all(is_test_path(p[0]) for p in others):
                    continue  # a test's copy of the product's prompt is the test's finding
                best = self._edges_to(units, ids, by_place, adjacent)
                others.sort(key=lambda p: (best[p][0][0] if p in best else 99, p[0], units[first[p]].site.line))
                unit = units[first[place]]
                related = []
                for other in others[:_MAX_RELATED]:
                    o = units[first[other]]
                    how = self._describe(units, best.get(other, ()))
                    note = " (a sanctioned composer)" if composers and sanctioned(
                        other[0], facts[other[0]].module, other[1], composers) else ""
                    related.append(RelatedLocation(o.path, span_of(o.site), f"also in {place_label(other[1])}: {how}{note}"))
                lead = best.get(others[0], ())
                message = self._message(units, unit, lead, len(others))
                found.append((place, frozenset(others), unit, message, related))
        return self._fold(found)

    def _fold(self, found) -> list[Diagnostic]:
        """At most ``_PER_PLACE`` findings for one place copied into the same other places
        (a whole function copied): the last one names the lines of the rest."""
        groups: dict[tuple, list] = defaultdict(list)
        for item in found:
            groups[(item[0], item[1])].append(item)
        out: list[Diagnostic] = []
        for items in groups.values():
            items.sort(key=lambda item: (item[2].site.line, item[2].site.column))
            kept, rest = items[:_PER_PLACE], items[_PER_PLACE:]
            for n, (_place, _others, unit, message, related) in enumerate(kept):
                if rest and n == len(kept) - 1:
                    lines = ", ".join(str(item[2].site.line) for item in rest)
                    message += f"; {len(rest)} more prompts of this place are copied into the same places (lines {lines})"
                out.append(make(self.meta, unit.path, unit.site, message, related))
        return out

    @staticmethod
    def _edges_to(units, ids, by_place, adjacent) -> dict:
        """Other place -> the edges between one of ``ids`` and that place, strongest
        first: (strength, kind, partner unit, detail, unit)."""
        out: dict = defaultdict(list)
        for i in ids:
            for j, kind, detail in adjacent.get(i, ()):
                other = units[j].place
                if other != units[i].place and other in by_place:
                    out[other].append((_STRENGTH[kind], kind, j, detail, i))
        for edges in out.values():
            edges.sort(key=lambda e: e[0])
        return out

    def _describe(self, units, edges) -> str:
        """How two places' copies compare: a difference any of their edges shows (the
        copies that already differ matter most), else the strongest edge's word."""
        if not edges:
            return "the same prompt (through another copy)"
        first = None
        for edge in edges:  # in order, and no further than needed: each can cost a diff
            description = self._how(units, edge)
            if description.startswith("already differs"):
                return description
            if first is None:
                first = description
        return first

    @staticmethod
    def _how(units, edge) -> str:
        _strength, kind, j, detail, i = edge
        a, b = units[i].site, units[j].site
        if kind == FRAGMENT:
            return f"shares '{_clip(_joined(detail), 60)}'"
        if kind in (IDENTICAL, NEAR_COPY, VARIANT_COPY):
            return drift(a.text, b.text)
        if kind == TEMPLATE:
            return drift(a.text, b.text, sentences=False) if a.text and b.text else "renders the same template"
        if kind == BLOCKS:
            return drift(a.shape, b.shape, sentences=False)
        return "the same messages"

    def _message(self, units, unit: _Unit, edges, count: int) -> str:
        where = place_label(unit.site.scope)
        places = "place" if count == 1 else "places"
        how = self._describe(units, edges)
        lead = edges[0] if edges else None
        kind = lead[1] if lead else ""
        site = units[lead[4]].site if lead else unit.site
        if kind == FRAGMENT:
            return f"Prompt text in {where} ({site.kind}) shares a fragment with {count} other {places}: {how}"
        if kind == TEMPLATE:
            return (f"Prompt template {units[lead[4]].label} is rendered in {where} ({site.kind}) and in "
                    f"{count} other {places}: {how}")
        if kind == BLOCKS:
            return (f"Prompt assembled in {where} for {site.kind} from the same blocks ({units[lead[4]].label}) "
                    f"as in {count} other {places}: {how}")
        if kind == MESSAGES:
            return (f"Message list in {where} ({units[lead[4]].label}) is also written out in "
                    f"{count} other {places}: {how}")
        return f"Prompt text in {where} ({site.kind}) is also in {count} other {places}: {how}"


def _linked(
    units: list[_Unit], texts: list[int], keyed: Mapping[tuple, list[int]], reported: frozenset[str], cap: int,
) -> set[int]:
    """The units of the ``reported`` files and every unit linked to them, directly or
    through others, by what can join two units in one finding: a shingle that at most
    ``cap`` texts hold, the same text, the same key (template, blocks, messages), or the
    same place. These links are a superset of the edges ``text_edges`` and the keys draw,
    and of the joins within a place, so the units found hold whole clusters: the
    findings in the reported files are those of all the units."""
    held = Counter(chain.from_iterable(units[i].site.shingles for i in texts))
    key_of = {i: key for key, ids in keyed.items() for i in ids}
    in_place: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    for i, unit in enumerate(units):
        in_place[unit.place].append(i)
    found = {i for i, unit in enumerate(units) if unit.path in reported}
    shingles: set[int] = set()
    same: set[str] = set()
    rest = [i for i in texts if i not in found]
    todo = list(found)
    while todo:
        new: list[int] = []
        for i in todo:
            for j in (*in_place[units[i].place], *(keyed[key_of[i]] if i in key_of else ())):
                if j not in found:
                    found.add(j)
                    new.append(j)
            site = units[i].site
            if site.what == "text":
                shingles.update(h for h in site.shingles if held[h] <= cap)
                same.add(site.text)
        # the texts not found yet that share a shingle or the text with one found
        for j in rest:
            if j not in found and (units[j].site.text in same or not shingles.isdisjoint(units[j].site.shingles)):
                found.add(j)
                new.append(j)
        todo = new
    return found


def _two_notebooks(a: str, b: str) -> bool:
    return a != b and a.endswith(".ipynb") and b.endswith(".ipynb")


def _extent(site: PromptSiteFact) -> tuple[tuple[int, int], tuple[int, int]]:
    return (site.line, site.column), (site.end_line, site.end_column)


def _own_blocks(site: PromptSiteFact, path: str, names: Names) -> tuple:
    own = []
    for block in site.blocks:
        if block.startswith(_LOADED):
            own.append(block)
            continue
        found = names.prompt_block(block, path)
        if found is not None:
            own.append(f"{found[0]}::{found[1]}")
    return tuple(sorted(own))


def _block_label(block: str) -> str:
    if block.startswith("file:"):
        return f"prompt file `{block[5:]}`"
    if block.startswith("template:"):
        return f"template `{block[9:]}`"
    if block.startswith("prompt:"):
        return f"prompt `{block[7:]}`"
    return f"`{block.rsplit('::', 1)[-1]}`"


def _skeletons_agree(a: str, b: str) -> bool:
    """The literal words around the blocks: the same, or one adds to the other."""
    wa, wb = set(pt.content_tokens(pt.tokens(a))), set(pt.content_tokens(pt.tokens(b)))
    return wa <= wb or wb <= wa


def _comparable_messages(resolved: tuple[str, ...]) -> bool:
    """A message list whose every content is known (no `dyn`), with a system entry."""
    roles = [e.partition("=")[0] for e in resolved]
    if not any(r in ("system", "developer") for r in roles):
        return False
    return all(not e.endswith("=dyn") for e in resolved)


def _messages_label(resolved: tuple[str, ...]) -> str:
    parts = []
    for entry in resolved:
        role, _, key = entry.partition("=")
        kind, _, rest = key.partition(":")
        name = rest.rsplit(":", 1)[-1] if kind in ("const", "tmpl", "call", "attr", "param") else ""
        what = {"const": f"`{name}`", "tmpl": f"`{name}.format(...)`", "call": f"`{name}(...)`",
                "attr": f"`self.{name.rsplit('.', 1)[-1]}`", "param": f"parameter `{name}`", "text": "text"}.get(kind, kind)
        parts.append(f"{role}: {what}")
    return ", ".join(parts)


def _joined(tokens: str) -> str:
    """Tokens joined by spaces, read back as text: no space before punctuation, none
    between CJK characters."""
    text = re.sub(r" (?=[.,;:!?)\]}'\"])|(?<=[(\[{]) ", "", tokens)
    return re.sub(r"(?<=[^\x00-\x7f]) (?=[^\x00-\x7f])", "", text)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
