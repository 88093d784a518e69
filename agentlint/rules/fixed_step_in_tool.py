"""AGL501 fixed-step-in-tool: a model or agent call that a tool makes on every invocation.

Reads the file's agent model: for each tool def, the calls its body makes outside any
condition (if/elif/else, while, except, match, a ternary or the right of `and`/`or`;
a `for` body counts as always, like a `with` or `try` body), the model calls among
them (``FileModel.llm_call``: resolved receivers, plain functions, distinctive method
chains), and the helpers of the same module the tool always calls that themselves
always reach a model call (up to three calls deep; the finding names the path).
"""

from __future__ import annotations

import ast
from typing import Sequence

from agentlint.rules.api import ModelRule
from agentlint.rules.catalog.agents import FIXED_STEP_IN_TOOL
from agentlint.rules.diagnostics import Diagnostic


class FixedStepInTool(ModelRule):
    meta = FIXED_STEP_IN_TOOL

    def check(self) -> Sequence[Diagnostic]:
        model = self.context.model
        for tool in model.tools:
            func = tool.body_node
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            name = tool.fact.name
            seen: set[int] = set()
            for call, always in model.calls_in(func.body):
                if not always or call.lineno in seen:
                    continue
                found = model.llm_call(call, func)
                if found is not None:
                    seen.add(call.lineno)
                    what = "runs an agent" if found.agent or _runs_agent(found.text) else "calls a model"
                    self.report_node(
                        call,
                        f"Tool `{name}` {what} on every invocation (`{found.text}`): a fixed step nested in a "
                        "tool call; run it in sequence in the turn's code",
                    )
                    continue
                helper = model.helper_of(call, func)
                remote = model.imported_helper(call) if helper is None else None
                if helper is None and remote is None:
                    continue
                path = model.always_calls_model(helper) if helper is not None else [(remote, call)]
                if path:
                    seen.add(call.lineno)
                    steps = " → ".join([f"`{_text(call)}`", *(_step(text, c) for text, c in path)])
                    self.report_node(
                        call,
                        f"Tool `{name}` calls a model on every invocation through a helper: {steps}; run "
                        "that step in sequence in the turn's code",
                    )
        return self.found


def _step(text: str, found) -> str:
    """One step of the path: `llm.invoke` (line 12), or a step in another module, whose
    text says where (`llm.invoke (app.summary, line 12)`)."""
    if text.endswith(")") and " (" in text:
        call, _, where = text.partition(" (")
        return f"`{call}` ({where}"
    node = getattr(found, "node", found)
    return f"`{text}` (line {node.lineno})"


def _runs_agent(text: str) -> bool:
    last = text.rpartition(".")[2]
    return last in ("kickoff", "kickoff_async", "initiate_chat", "run_streamed") or text.startswith("Runner.")


def _text(call: ast.Call) -> str:
    func = call.func
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts)) or "call"
