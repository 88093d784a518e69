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
from agentlint.rules.diagnostics import Diagnostic, RuleMeta

_DOCS = """\
## What it does
Flags a model call or agent run that a **tool** makes on every invocation: inside a
tool's body, outside any condition, a call such as `client.chat.completions.create`,
`client.responses.create`, `client.messages.create`, `Runner.run(agent, ...)`,
`agent.run(...)`, `llm.invoke(...)`, `chain.ainvoke(...)`, `crew.kickoff()`,
`kernel.invoke(...)`, `client.models.generate_content(...)` or `litellm.completion(...)`
(the full list per framework is in docs/frameworks.md). A call the tool makes through
a helper of the same module counts too — `summarize(page)` whose body always calls the
model — and the finding names the path (`summarize` → `llm.invoke`).

Receivers are resolved the simple way: `client = OpenAI()` at module level, in the
function, or `self.client = OpenAI()` in any method of the class; `llm = ChatOpenAI()`
and `chain = prompt | llm`; through the module's own factories (`llm = make_llm()`
where `make_llm` returns a model, `self.llm = self._build()`, `_agent().run(...)`) and
module-level containers of agents (`SPECIALISTS.get(kind).run(...)`), also when the
model, the agent or the factory is imported from another module of the project; a model passed as
an argument to a method that runs it (browser-use's `page.must_get_element_by_prompt(
"submit", llm)`); a DSPy module called (`summarise(text=...)`); LangChain's `invoke` /
`ainvoke` on a receiver whose type is not known here but that is named for a model, a
chain or an agent (`self.llm` set from a constructor argument, `summary_chain`), in a
file that imports LangChain; a function of another module of the project that always
calls a model. A call under
`if`/`else`, `while`, `except`, `match`, a ternary or the right side of `and`/`or` is a
decision, not a fixed step, and is not flagged; a call after an early-return guard (`if
not found: return "..."`) runs on every normal invocation and is; a call inside a `for`
loop or a comprehension is too (a search tool that summarises every page with a model is
the typical case), also under an `if` or a ternary that only checks that the item has
something (`if page.text:`, `if not r.get("content")`), which filters items rather than
decides. Agent-as-tool wiring (`agent.as_tool()`, `AgentTool(...)`) is not a call the
tool makes: AGL502 looks at how deep that nests. The message says "runs an agent" for an
agent, "calls a model" for a chat model, a client or a pipeline.

## Why is this bad?
A fixed step of the turn — a summariser, an extractor, a persona rewrite — always runs,
so nothing is gained by letting the model decide to call it, and nesting it inside a
tool has four costs: its tokens show up as a tool's cost and vanish from per-agent
accounting; the outer agent's tool-call cap does not govern it; the turn's timeout now
covers two model calls; and its span hangs under the tool instead of beside the agent.
Run it in sequence in the orchestration code instead.

## Example
```python
@function_tool
async def search_docs(query: str) -> str:
    pages = index.search(query)
    response = await client.chat.completions.create(
        model="gpt-4.1-mini", messages=[{"role": "user", "content": summary_prompt(pages)}]
    )
    return response.choices[0].message.content
```

## Use instead
```python
@function_tool
async def search_docs(query: str) -> list[Page]:
    return index.search(query)

# in the turn's code, as a step of its own:
result = await Runner.run(agent, message)
summary = await summarise(result.final_output)
```
If the nested call is genuinely the model's decision, make it explicit agent-as-tool
(`agent.as_tool(...)`), record the decision, and keep it within two levels.

## Fix safety
No fix.

## Configuration
None for this rule. Your own model-calling functions are added with the top-level
`llm-call-patterns` setting (`"myapp.llm.ask"`, or `"*.generate_text"` for a method on
any receiver); tools are found as for AGL201 (docs/frameworks.md).

## Standard
Enforces the conversational-agent-with-phases standard, section "Helper agent in
sequence": *a fixed step of the turn runs in sequence, in code; nesting an agent in a
tool call is a decision of its own, with a criterion — not the default*. Its checklist:
*no fixed step of the turn is invoked from inside a tool call*.
"""


class FixedStepInTool(ModelRule):
    meta = RuleMeta(
        code="AGL501",
        name="fixed-step-in-tool",
        summary="A tool calls a model or runs an agent on every invocation (a fixed step nested in a tool call).",
        docs=_DOCS,
        help="Run the fixed step in sequence in the turn's code, or make the nesting an explicit agent-as-tool decision.",
    )

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
