"""Tools declared in one module and made tools in another (`from .tools import
lookup_order` then `Agent(tools=[lookup_order])`, the usual layout of ADK, AutoGen,
pydantic-ai and LlamaIndex applications).

The per-file agent model sees only its own module: in the agent's module it records a
``ToolRefFact`` for each imported function passed as a tool. The project phase resolves
those references to the module that defines the function, reads that file again (one
``ast`` parse), declares the function a tool there, and runs the model rules (AGL201,
AGL202, AGL501) on the newly declared tools only. The new tools also join the facts the
project rules see (AGL901) and the `agentlint tools` inventory.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from agentlint.engine.analyze import agent_knowledge
from agentlint.engine.boundaries import ProjectMap, split_by_project
from agentlint.facts.agents.model import build as build_model
from agentlint.facts.module import extract_facts
from agentlint.facts.source import decode, parse_lowered
from agentlint.facts.types import FileFacts, ToolFact, ToolRefFact
from agentlint.rules import registry
from agentlint.rules.api import ModelContext
from agentlint.rules.builtin import crash_diagnostic
from agentlint.rules.diagnostics import Diagnostic


def resolve(facts: Mapping[str, FileFacts]) -> dict[str, list[ToolRefFact]]:
    """Path of the defining module -> the references to its functions, for the
    functions that are not already tools there."""
    by_module: dict[str, str] = {}
    for path, file_facts in facts.items():
        if file_facts is not None and file_facts.module and not path.endswith(".ipynb"):
            by_module.setdefault(file_facts.module, path)
    out: dict[str, list[ToolRefFact]] = {}
    for file_facts in facts.values():
        for ref in file_facts.tool_refs if file_facts is not None else ():
            module, _, name = ref.qualified.rpartition(".")
            path = by_module.get(module)
            if path is None or "." in name:
                continue
            if any(t.name == name for t in facts[path].tools):
                continue
            out.setdefault(path, []).append(ref)
    return out


def declare(
    facts: Mapping[str, FileFacts], settings, *, with_rules: bool = True
) -> tuple[list[Diagnostic], dict[str, FileFacts]]:
    """Findings of the model rules on the tools declared from other modules, and the
    facts with those tools added."""
    refs = resolve(facts)
    if not refs:
        return [], dict(facts)
    updated = dict(facts)
    out: list[Diagnostic] = []
    knowledge = agent_knowledge(settings.knowledge)
    for path, path_refs in sorted(refs.items()):
        try:
            with open(path, "rb") as fh:
                text = decode(fh.read())
            tree = parse_lowered(text, path)
            model = build_model(tree, extract_facts(path, tree, text), text, knowledge)
            added = model.declare_tools(path_refs)
        except (OSError, SyntaxError, ValueError, UnicodeError, LookupError, RecursionError, MemoryError):
            continue
        if not added:
            continue
        new_facts: tuple[ToolFact, ...] = tuple(t.fact for t in added)
        updated[path] = replace(facts[path], tools=tuple(sorted(
            (*facts[path].tools, *new_facts), key=lambda f: (f.line, f.column))))
        if not with_rules:
            continue
        model.tools = added  # the rules look at the newly declared tools only
        for cls in registry.model_rules():
            if cls.meta.code not in settings.enabled or not cls.about_tools:
                continue  # AGL301 reads functions, not tools: it has run on this file already
            try:
                out += cls(ModelContext(path, text, settings.rule_settings.get(cls.meta.code, {}), model)).check()
            except Exception as exc:
                out.append(crash_diagnostic(path, cls.meta, exc))
    return out, updated


def declare_in_projects(
    facts: Mapping[str, FileFacts], settings, *, with_rules: bool = True
) -> tuple[list[Diagnostic], list[dict[str, FileFacts]]]:
    """``declare`` within each project (``engine.boundaries``): the findings, and each
    project's facts with the tools declared from other modules added."""
    found: list[Diagnostic] = []
    groups = split_by_project(facts, ProjectMap(settings))
    for index, group in enumerate(groups):
        diagnostics, groups[index] = declare(group, settings, with_rules=with_rules)
        found += diagnostics
    return found, groups
