"""AGL401 prompt-assembled-in-multiple-places: one prompt, built in several places."""

from __future__ import annotations

from collections import defaultdict

from agentlint.facts.types import PromptSiteFact
from agentlint.rules.api import ProjectRule
from agentlint.rules.cost_places import (
    is_test_path,
    make,
    place_label,
    sanctioned,
    span_of,
)
from agentlint.rules.diagnostics import Diagnostic, RelatedLocation, RuleMeta

_DOCS = """\
## What it does
Finds every place (function or method; module-level code is one place) that
*assembles* a prompt — builds a system prompt, instructions or a system message from
parts with an f-string, `+`, `.format(...)`, `.join(...)`, a template render or a prompt
file read, and hands it to a prompt parameter (`instructions=`, `system_prompt=`,
`system=`, `system_message=`, `instruction=`, `prompt=`, `backstory=`, ...), to a
system or developer message (`{"role": "system", ...}`, `SystemMessage(...)`,
`("system", ...)`), to a prompt-like name (`system_prompt = ...`), or returns it from
a prompt function (`@agent.system_prompt`, `@agent.instructions`, `build_prompt()`).

It reports the same prompt assembled in more than one place, naming every place:

- places that compose the same prompt blocks — the project's own prompt constants and
  templates (`SYSTEM_PROMPT`, `TRIAGE_TEMPLATE`), prompt files they open
  (`prompts/triage.md`) or named templates they render — with little text of their own
  around them; or
- places whose template text is the same (a copied f-string of 60 characters or more).

It does not report one composer called from many places, several different agents each
assembled once, a constant passed around as it is (`instructions=SYSTEM_PROMPT`), or a
vendor's shared prefix (`RECOMMENDED_PROMPT_PREFIX`) used by different agents: blocks
from outside the project do not make two prompts the same. Test files are not places.

The rule is project-wide: it sees every file of the project even when only some files
are checked (pre-commit); folders with their own project marker are separate projects.

## Why is this bad?
When the same prompt is put together in two or three places, a new rule lands in two of
them and is forgotten in the third. One pure composer — the prompt as a list of named
blocks, concatenated in one place — keeps every caller in step and gives telemetry one
text to hash.

## Example
```python
# agents/chat.py
def chat(user):
    system = f"{SYSTEM_PROMPT}\\n\\nToday is {date.today()}."
    return client.chat.completions.create(messages=[{"role": "system", "content": system}, ...])

# agents/stream.py
def stream(user):
    return client.chat.completions.create(
        messages=[{"role": "system", "content": SYSTEM_PROMPT + f"\\n\\nToday is {date.today()}."}, ...],
        stream=True,
    )
```

## Use instead
```python
# prompts/compose.py
def compose_system(today: date) -> str:
    return "\\n\\n".join([SYSTEM_PROMPT, f"Today is {today}."])

# agents/chat.py and agents/stream.py
messages = [{"role": "system", "content": compose_system(date.today())}, ...]
```

## Fix safety
No fix.

## Configuration
- `prompt-composers` (list of strings, default `[]`): sanctioned composers. Places
  listed here are never reported (the other places still are, and point at them). An
  entry is a dotted name (`app.prompts.compose_system`; a class or module covers what
  is inside it), a bare function name, or `path/to/file.py:function`.

```toml
[tool.agentlint.rules.AGL401]
prompt-composers = ["app.prompts.compose_system"]
```

## Standard
Enforces the conversational-agent-with-phases standard
(`package/framework/standards/ai-agents/conversational-agent-with-phases.md`), section
"Compositor de turno determinístico": the pain it removes is *"montagem de prompt em
três lugares"*, which *"garantem que uma regra nova entre em dois e esqueça o
terceiro"*; its anti-pattern table lists *"Montagem de prompt em mais de um lugar"*, to
be replaced by *"Um compositor, puro"*.
"""

META = RuleMeta(
    code="AGL401",
    name="prompt-assembled-in-multiple-places",
    summary="The same prompt is assembled in more than one place of the project.",
    docs=_DOCS,
    settings={"prompt-composers": []},
    help="Assemble the prompt in one composer function (list it in `prompt-composers`) and call it everywhere.",
)

_LOADED = ("file:", "template:", "prompt:")
_MAX_RELATED = 20


def _block_label(block: str) -> str:
    if block.startswith("file:"):
        return f"prompt file `{block[5:]}`"
    if block.startswith("template:"):
        return f"template `{block[9:]}`"
    if block.startswith("prompt:"):
        return f"prompt `{block[7:]}`"
    return f"`{block.rsplit('.', 1)[-1]}`"


class PromptAssembledInMultiplePlaces(ProjectRule):
    meta = META

    def check(self) -> list[Diagnostic]:
        facts = self.context.facts
        project_blocks = {b for f in facts.values() for b in f.prompt_blocks}
        groups: dict[tuple, list[tuple[str, PromptSiteFact]]] = defaultdict(list)
        for path, file_facts in facts.items():
            if not file_facts.prompt_sites or is_test_path(path):
                continue
            for site in file_facts.prompt_sites:
                if site.shape:
                    groups[("shape", site.shape)].append((path, site))
                    continue
                own = tuple(b for b in site.blocks if b in project_blocks or b.startswith(_LOADED))
                if own:
                    groups[("blocks", own)].append((path, site))
        # Places joined by any shared prompt: one finding per place, naming the others.
        parent: dict[tuple[str, str], tuple[str, str]] = {}

        def find(x):
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        first_site: dict[tuple[str, str], PromptSiteFact] = {}
        reasons: dict[tuple[str, str], str] = {}
        for key, sites in groups.items():
            place_sites = {}
            for path, site in sites:
                place_sites.setdefault((path, site.scope), site)
            if len(place_sites) < 2:
                continue
            reason = "the same template text" if key[0] == "shape" else "the same blocks (" + ", ".join(
                _block_label(b) for b in key[1]
            ) + ")"
            places = list(place_sites)
            for place in places:
                site = place_sites[place]
                if place not in first_site or (site.line, site.column) < (first_site[place].line, first_site[place].column):
                    first_site[place] = site
                reasons.setdefault(place, reason)
                parent[find(place)] = find(places[0])
        components: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        for place in first_site:
            components[find(place)].append(place)
        composers = list(self.settings.get("prompt-composers", ()))
        out: list[Diagnostic] = []
        for members in components.values():
            members.sort(key=lambda p: (p[0], first_site[p].line))
            for path, scope in members:
                if composers and sanctioned(path, facts[path].module, scope, composers):
                    continue
                site = first_site[(path, scope)]
                others = [m for m in members if m != (path, scope)]
                related = []
                for other_path, other_scope in others[:_MAX_RELATED]:
                    other = first_site[(other_path, other_scope)]
                    note = " (a sanctioned composer)" if composers and sanctioned(
                        other_path, facts[other_path].module, other_scope, composers
                    ) else ""
                    related.append(
                        RelatedLocation(
                            other_path, span_of(other), f"also assembled in {place_label(other_scope)}{note}"
                        )
                    )
                where = "place" if len(others) == 1 else "places"
                message = (
                    f"Prompt assembled in {place_label(scope)} for {site.kind} is also assembled in "
                    f"{len(others)} other {where} from {reasons[(path, scope)]}"
                )
                out.append(make(self.meta, path, site, message, related))
        return out
