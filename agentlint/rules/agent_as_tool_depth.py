"""AGL502 agent-as-tool-too-deep: agents nested as tools more than two levels deep.

A project rule over the agent facts of every file (``FileFacts.agents``): each agent
with the agents nested under it (``sub.as_tool()``, ``AgentTool(agent=sub)``,
``TeamTool(team=sub)``, ``managed_agents=[sub]``, ``plugins=[sub]``, a tool in its
``tools=[...]`` whose body runs ``sub``). Agent ids are resolved through imports, so a
chain that crosses modules is followed. Handoffs and ``sub_agents=`` transfer control
(peers) and are not counted.
"""

from __future__ import annotations

from typing import Sequence

from agentlint.facts.types import AgentEdgeFact
from agentlint.rules.api import ProjectRule
from agentlint.rules.catalog.agents import AGENT_AS_TOOL_TOO_DEEP
from agentlint.rules.diagnostics import (
    Diagnostic,
    Position,
    RelatedLocation,
    Span,
)

MAX_DEPTH = 2


class AgentAsToolTooDeep(ProjectRule):
    reads = frozenset()
    meta = AGENT_AS_TOOL_TOO_DEEP

    def check(self) -> Sequence[Diagnostic]:
        agents: dict[str, tuple[str, list[AgentEdgeFact]]] = {}
        for path, facts in self.context.facts.items():
            if facts is None:
                continue
            for agent in facts.agents:
                if agent.id not in agents:
                    agents[agent.id] = (path, list(agent.children))
        children = {c.target for _, edges in agents.values() for c in edges}
        roots = sorted(a for a in agents if a not in children) or sorted(agents)
        reported: set[tuple[str, int, int]] = set()
        out: list[Diagnostic] = []

        def walk(agent: str, chain: list[tuple[str, AgentEdgeFact | None, str]], seen: frozenset[str]) -> None:
            path, edges = agents[agent]
            for edge in edges:
                if edge.target in seen:
                    continue
                if edge.target not in agents and edge.how.endswith("=[...]"):
                    continue  # `plugins=[MyPlugin()]`: only a known agent nests there
                step = [*chain, (edge.target, edge, path)]
                depth = len(step) - 1
                if depth > MAX_DEPTH:
                    key = (path, edge.line, edge.column)
                    if key not in reported:
                        reported.add(key)
                        out.append(self._finding(step))
                    continue
                if edge.target in agents:
                    walk(edge.target, step, seen | {edge.target})

        for root in roots:
            walk(root, [(root, None, agents[root][0])], frozenset({root}))
        return out

    def _finding(self, step: list[tuple[str, AgentEdgeFact | None, str]]) -> Diagnostic:
        names = [_short(agent) for agent, _, _ in step]
        chain = " → ".join(f"`{n}`" for n in names)
        _, edge, path = step[-1]
        assert edge is not None
        related = tuple(
            RelatedLocation(p, Span(Position(e.line, e.column), Position(e.line, e.column)),
                            f"`{_short(a)}` nested here ({e.how})")
            for a, e, p in step[1:-1]
            if e is not None
        )
        return Diagnostic(
            code=self.meta.code,
            name=self.meta.name,
            message=(
                f"Agent-as-tool nesting is {len(step) - 1} levels deep: {chain} (this {edge.how} adds level "
                f"{len(step) - 1}); keep at most {MAX_DEPTH} and run the rest in sequence"
            ),
            path=path,
            span=Span(Position(edge.line, edge.column), Position(edge.line, edge.column)),
            help=self.meta.help,
            related=related,
        )


def _short(agent_id: str) -> str:
    """`pkg.mod.billing` -> `billing`; `pkg.mod.make()` -> `make()`; `pkg.mod.f:x` -> `x`."""
    if ":" in agent_id:
        return agent_id.rpartition(":")[2]
    return agent_id.rpartition(".")[2] if not agent_id.endswith("()") else agent_id[:-2].rpartition(".")[2] + "()"
