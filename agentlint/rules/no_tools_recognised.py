"""AGL901 no-tools-recognised: the project imports an agent framework, yet agentlint
recognised no tool in it — so "nothing found" by the tool rules is not "clean".

A note, not a finding: it never changes the exit status. A project rule over the facts
(each file's frameworks and tools), so it sees the whole project in partial runs too.
"""

from __future__ import annotations

from typing import Sequence

from agentlint.knowledge.frameworks import (
    FRAMEWORK_NAMES,
    FRAMEWORK_ROOTS,
    framework_of,
)
from agentlint.rules.api import ProjectRule
from agentlint.rules.catalog.agents import NO_TOOLS_RECOGNISED
from agentlint.rules.diagnostics import Diagnostic, Position, Span

TOOL_FRAMEWORKS = frozenset({
    "openai-agents", "langchain", "langgraph", "pydantic-ai", "crewai", "smolagents", "agent-framework",
    "semantic-kernel", "autogen", "ag2", "llama-index", "mcp", "fastmcp", "google-adk", "strands",
    "agno", "phidata", "browser-use", "camel", "dspy", "swarm", "livekit",
})
"""Frameworks in which tools are declared in code (the raw SDKs are not: a project that
only calls `client.chat.completions.create` may well have no tools)."""


class NoToolsRecognised(ProjectRule):
    reads = frozenset()
    meta = NO_TOOLS_RECOGNISED

    def check(self) -> Sequence[Diagnostic]:
        first: tuple[str, int, str] | None = None
        # The project's own top-level modules and packages: `from agents import x` with a
        # local `agents.py` imports the project, not the OpenAI Agents SDK.
        own = {f.module.partition(".")[0] for f in self.context.facts.values() if f is not None and f.module}
        for path in sorted(self.context.facts):
            facts = self.context.facts[path]
            if facts is None:
                continue
            if facts.tools or facts.library_tools:
                return []  # tools found, or the agents use only the framework's own tools
            if first is None:
                for item in facts.imports:
                    framework = framework_of(item.qualified)
                    if item.qualified.partition(".")[0] in own:
                        continue
                    if framework in TOOL_FRAMEWORKS and not _inside_framework(path, item.qualified):
                        first = (path, item.line, framework)
                        break
        if first is None:
            return []
        path, line, framework = first
        name = FRAMEWORK_NAMES.get(framework, framework)
        hint = _likely_base(self.context.facts)
        return [
            Diagnostic(
                code=self.meta.code,
                name=self.meta.name,
                message=(
                    f"This project imports {name} here, but agentlint recognised no tool in it, so the tool "
                    "rules (AGL201, AGL202, AGL501, AGL502) had nothing to check; if tools are declared with "
                    "your own decorators or base classes, add them to `tool-decorators` or `tool-base-classes`"
                    + hint
                ),
                path=path,
                span=Span(Position(line, 1), Position(line, 1)),
                help=self.meta.help,
                severity="note",
            )
        ]


def _likely_base(facts) -> str:
    """The project's class most like a tool base, as advice: "" when there is none."""
    subclasses: dict[str, int] = {}
    for file_facts in facts.values():
        for use in file_facts.tool_uses if file_facts is not None else ():
            if use.kind == "base":
                last = use.qualified.rpartition(".")[2]
                subclasses[last] = subclasses.get(last, 0) + 1
    best = None
    for file_facts in facts.values():
        for candidate in file_facts.tool_frameworks if file_facts is not None else ():
            if candidate.kind != "base":
                continue
            count = candidate.subclasses + subclasses.get(candidate.qualified.rpartition(".")[2], 0)
            if count == 0:
                continue
            score = (len(candidate.evidence), count)
            if best is None or score > best[0]:
                best = (score, candidate, count)
    if best is None:
        return ""
    _score, candidate, count = best
    declares = [e for e in candidate.evidence if e in ("name", "description", "schema")]
    return (f"; `{candidate.qualified}` looks like one (it declares {', '.join(declares) or 'no metadata'}, leaves "
            f"`{candidate.methods[0]}` abstract, and {count} subclass{'es' if count != 1 else ''} implement"
            f"{'' if count != 1 else 's'} it): if its subclasses are tools, add "
            f"`{candidate.qualified}` to `tool-base-classes`")


def _inside_framework(path: str, qualified: str) -> bool:
    """The file is part of the framework it imports (`google/adk/cli/x.py` importing
    `google.adk.agents`): a library's own code, not an application of it."""
    head = qualified.split(".")
    roots = [".".join(head[:2]), head[0]]
    normalised = "/" + path.replace("\\", "/")
    return any(r in FRAMEWORK_ROOTS and f"/{r.replace('.', '/')}/" in normalised for r in roots)
