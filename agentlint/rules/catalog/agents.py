"""Metadata and documentation of the agent rules: AGL501 fixed-step-in-tool, AGL502
agent-as-tool-too-deep and the AGL901 no-tools-recognised note (their checks are in
``fixed_step_in_tool``, ``agent_as_tool_depth`` and ``no_tools_recognised``)."""

from __future__ import annotations

from agentlint.rules.diagnostics import RuleMeta

_DOCS_501 = """\
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

FIXED_STEP_IN_TOOL = RuleMeta(
    code="AGL501",
    name="fixed-step-in-tool",
    summary="A tool calls a model or runs an agent on every invocation (a fixed step nested in a tool call).",
    docs=_DOCS_501,
    help="Run the fixed step in sequence in the turn's code, or make the nesting an explicit agent-as-tool decision.",
)

_DOCS_502 = """\
## What it does
Flags agent-as-tool nesting deeper than two levels: an agent (level 0) exposes another
agent as a tool (level 1: `research.as_tool(...)`, `AgentTool(agent=research)`,
`TeamTool(team=...)`, `CodeAgent(managed_agents=[research])`, a Semantic Kernel agent
in `plugins=[...]`, or a tool in its `tools=[...]` whose body runs the other agent),
which exposes a third (level 2), which exposes a fourth (level 3). The finding sits on
the wiring that adds the third level and names the whole chain; the chain is followed
across modules (`from .billing import billing_agent`).

Handoffs (`handoffs=[...]`) and ADK `sub_agents=[...]` transfer control to a peer and
are not nesting; they are not counted.

## Why is this bad?
Each level of agent-as-tool pays the same four costs as any model call nested in a
tool call — cost hidden under a tool, a tool-call cap that does not reach inside, a
timeout covering several model calls, spans hanging under tools — and they compound.
Agent-as-tool is the right shape when the model decides whether the helper runs; at
the third level it is a sign that the composition should be a sequence in code.

## Example
```python
ledger = Agent(name="ledger", ...)
refunds = Agent(name="refunds", tools=[ledger.as_tool("ledger", "...")])
billing = Agent(name="billing", tools=[refunds.as_tool("refunds", "...")])
triage = Agent(name="triage", tools=[billing.as_tool("billing", "...")])
```

## Use instead
Keep at most two levels, and run the fixed part as steps in code:
```python
refunds = Agent(name="refunds", tools=[post_ledger_entry])
triage = Agent(name="triage", tools=[billing.as_tool("billing", "..."), refunds.as_tool("refunds", "...")])
```

## Fix safety
No fix.

## Configuration
None. The depth limit is the standard's (two levels).

## Standard
Enforces the conversational-agent-with-phases standard and its reference to
multi-agent patterns: agent-as-tool adopted deliberately, with *a ceiling of at most
two levels*; *the third level is a sign it should have been a sequence*.
"""

AGENT_AS_TOOL_TOO_DEEP = RuleMeta(
    code="AGL502",
    name="agent-as-tool-too-deep",
    summary="Agent-as-tool nesting deeper than two levels (an agent, as a tool of an agent, as a tool of an agent, ...).",
    docs=_DOCS_502,
    help="Flatten the composition: run the inner steps in sequence in code, keeping at most two levels of agent-as-tool.",
)

_DOCS_901 = """\
## What it does
Says so when a project imports an agent framework that declares tools in code (the
OpenAI Agents SDK, LangChain, pydantic-ai, CrewAI, MCP, ...) but agentlint recognised no
tool anywhere in it. It is a **note**: shown in every output format (`note:` in the
text formats, a SARIF result of level `note`, `"severity": "note"` in JSON, a
`::notice` on GitHub), never counted as a finding and never changing the exit status.
It names the framework and the first file that imports it. A project whose agents use
only tools the framework provides (`tools=[DuckDuckGoTools()]`, `WebSearchTool()`) gets
no note: there is nothing of its own to check. When the project has a class
that looks like its own tool base — it declares a tool's name, description or argument
schema and leaves an execute-like method abstract — but agentlint is not sure enough to
take its subclasses for tools (fewer than two subclasses implement the method, or it
declares no argument schema), the note names that class.

## Why is this bad?
AGL201, AGL202, AGL501 and AGL502 look inside tools. When tools are declared in a way
agentlint does not know — your own `@register_tool` decorator, a `BaseSkill._execute`
base class — those rules have nothing to check, and a clean run would only mean "did not
understand". This note keeps "nothing found" from looking like "clean".

## Example
```python
from langchain_core.tools import BaseTool   # the project uses LangChain...
from myapp.tools import register_tool       # ...and declares tools its own way

@register_tool
def lookup_customer(customer_id: str) -> str: ...
```

## Use instead
Tell agentlint how your tools are declared, then check with `agentlint tools`:
```toml
[tool.agentlint]
tool-decorators = ["myapp.tools.register_tool"]
tool-base-classes = ["myapp.tools.BaseSkill._execute"]
```

## Fix safety
No fix.

## Configuration
None. Silence it with `ignore = ["AGL901"]` if the project really has no tools.
"""

NO_TOOLS_RECOGNISED = RuleMeta(
    code="AGL901",
    name="no-tools-recognised",
    summary="The project imports an agent framework, but agentlint recognised no tool in it (a note).",
    docs=_DOCS_901,
    help="Add your tool decorators and base classes to `tool-decorators` / `tool-base-classes`; `agentlint tools` lists what is recognised.",
)
