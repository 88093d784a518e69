"""AGL203 irreversible-tool-without-approval: a tool whose model-chosen call moves money,
sends a message, deletes data or deploys, with neither an approval nor a guard before it.

A project rule over the facts: each tool's irreversible calls and what protects them
(``facts.agents.sinks``: the tool's body and the helpers of its module it calls, read when
the facts are built), the approval the tool is declared with, and what the project's other
modules wire: a graph compiled with `interrupt_before=`, a task with `human_input=True`, or
a function that asks a human and names the tool (a graph node dispatching tool calls by
name after `interrupt()`).
"""

from __future__ import annotations

from typing import Sequence

from agentlint.rules.api import ProjectRule
from agentlint.rules.catalog.tools import IRREVERSIBLE_TOOL_WITHOUT_APPROVAL
from agentlint.rules.diagnostics import Diagnostic, Position, Span


class IrreversibleToolWithoutApproval(ProjectRule):
    reads = frozenset({"sinks"})
    meta = IRREVERSIBLE_TOOL_WITHOUT_APPROVAL

    def check(self) -> Sequence[Diagnostic]:
        files = {path: facts for path, facts in self.context.facts.items() if facts is not None}
        if any(facts.approval_wiring for facts in files.values()):
            return []  # every tool of the project runs behind a human's decision
        approved = {name for facts in files.values() for name in facts.approved_names}
        out: list[Diagnostic] = []
        for path, facts in sorted(files.items()):
            seen: set[tuple[int, int]] = set()
            for tool in facts.tools:
                sinks = [s for s in tool.sinks if not s.protection]
                if not sinks or tool.approval or _names(tool.name) & approved:
                    continue
                first = sinks[0]
                if (first.at_line, first.at_column) in seen:
                    continue  # one def declared as a tool twice
                seen.add((first.at_line, first.at_column))
                more = len({(s.kind, s.text) for s in sinks}) - 1
                others = f" (and {more} more)" if more > 0 else ""
                out.append(Diagnostic(
                    code=self.meta.code,
                    name=self.meta.name,
                    message=(f"Tool `{tool.name}` reaches an irreversible {first.describe()}{others} with neither an "
                             "approval declared nor a guard before it: declare the tool as needing approval, or check "
                             "state, limits or permissions in code before the call and refuse with a reason"),
                    path=path,
                    span=Span(Position(first.at_line, first.at_column), Position(first.at_line, first.at_column)),
                    help=self.meta.help,
                ))
        return out


def _names(tool_name: str) -> set[str]:
    """The names a dispatcher may use for a tool: `send_email`, and for a method tool
    `SmsTool._run` its class."""
    parts = tool_name.split(".")
    return {tool_name, *(p for p in parts if not p.startswith("_"))}
