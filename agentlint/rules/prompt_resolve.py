"""AGL401's reading of names across the files of one application: a dotted name
(`app.prompts.SYSTEM_PROMPT`) is a block of a *file*, never of a module name alone
(two demo apps both have a module `app`), and a message list's parameters are followed
to what the callers pass."""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Mapping

from agentlint.facts.prompt_vocab import PROMPT_MODULE, PROMPT_NAME
from agentlint.facts.types import FileFacts, PromptSiteFact

BlockId = tuple[str, str]
"""(path of the defining file, the name inside it: `SYSTEM_PROMPT`, `Agent.PROMPT`)."""


class Names:
    """Dotted names -> the files of the application that define them."""

    def __init__(self, facts: Mapping[str, FileFacts]) -> None:
        self.facts = facts
        self.by_module: dict[str, list[str]] = defaultdict(list)
        for path, file_facts in facts.items():
            if file_facts.module:
                self.by_module[file_facts.module].append(path)
        self.blocks: set[BlockId] = set()
        for path, file_facts in facts.items():
            module = file_facts.module
            for block in file_facts.prompt_blocks:
                if block.startswith(module + "."):
                    self.blocks.add((path, block[len(module) + 1 :]))
        self._memo: dict[tuple[str, str], BlockId | None] = {}

    def locate(self, dotted: str, from_path: str) -> BlockId | None:
        """The file (nearest to ``from_path`` when several share the module name) and
        the name inside it, or None when no file of the application defines it."""
        key = (dotted, os.path.dirname(from_path))
        if key in self._memo:
            return self._memo[key]
        found = None
        own = self.facts.get(from_path)
        if own is not None and own.module and dotted.startswith(own.module + "."):
            found = (from_path, dotted[len(own.module) + 1 :])
        else:
            parts = dotted.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                paths = self.by_module.get(".".join(parts[:cut]))
                if paths:
                    path = _nearest(paths, from_path)
                    if path is not None:
                        found = (path, ".".join(parts[cut:]))
                    break
        self._memo[key] = found
        return found

    def prompt_block(self, dotted: str, from_path: str) -> BlockId | None:
        """A prompt block of the application: a prompt-like module- or class-level name
        of one of its files (or an attribute of one: `templates.tone`)."""
        found = self.locate(dotted, from_path)
        if found is None:
            return None
        if found in self.blocks:
            return found
        path, name = found
        parts = name.split(".")
        if len(parts) > 1 and (
            (path, parts[0]) in self.blocks
            or PROMPT_MODULE.search(self.facts[path].module)
            or any(PROMPT_NAME.search(part) for part in parts[:-1])
        ):
            # an attribute of a prompt block, of an object in a prompts module, or of
            # one named like a collection of prompts (`templates.tone`)
            return found
        return None


def _nearest(paths: list[str], from_path: str) -> str | None:
    if len(paths) == 1:
        return paths[0]
    here = os.path.dirname(os.path.abspath(from_path))
    scored = sorted(
        ((len(os.path.commonpath([here, os.path.dirname(os.path.abspath(p))])), p) for p in paths), reverse=True
    )
    if scored[0][0] == scored[1][0]:
        return None  # as near as another: which one is meant is not known
    return scored[0][1]


class Parameters:
    """What the callers pass for a function's or class's parameter (`argument` facts),
    when every caller passes the same prompt."""

    def __init__(self, names: Names, facts: Mapping[str, FileFacts]) -> None:
        self.names = names
        self.calls: dict[BlockId, list[tuple[str, str, str]]] = defaultdict(list)
        for path, file_facts in facts.items():
            for site in file_facts.prompt_sites:
                if site.what == "argument" and site.blocks:
                    target = names.locate(site.shape, path)
                    if target is not None:
                        self.calls[target].append((site.text, site.blocks[0], path))
        self._memo: dict[tuple[str, str], str] = {}

    def key(self, key: str, from_path: str, depth: int = 0) -> str:
        """A message entry's KEY with files for modules: `const:PATH:NAME`, parameters
        followed to what every caller passes (or left as they are)."""
        memo_key = (key, from_path)
        found = self._memo.get(memo_key)
        if found is None:
            found = self._memo[memo_key] = self._key(key, from_path, depth)
        return found

    def _key(self, key: str, from_path: str, depth: int) -> str:
        kind, _, rest = key.partition(":")
        if kind in ("const", "tmpl", "call", "attr"):
            located = self.names.locate(rest, from_path)
            return f"{kind}:{located[0]}:{located[1]}" if located else key
        if kind == "param" and depth < 3:
            function, index, name = rest.rsplit(":", 2)
            located = self.names.locate(function, from_path)
            if located is None:
                return key
            values = {
                self.key(value, caller, depth + 1)
                for slot, value, caller in self.calls.get(located, ())
                if slot == name or (index != "-1" and slot == index)
            }
            if len(values) == 1:
                value = next(iter(values))
                if not value.startswith("param:"):
                    return value
            return f"param:{located[0]}:{located[1]}:{name}"
        return key


def entries(site: PromptSiteFact, path: str, parameters: Parameters) -> tuple[str, ...]:
    return tuple(
        f"{role}={parameters.key(key, path)}" for role, _, key in (e.partition("=") for e in site.blocks)
    )
