"""Metadata and documentation of AGL601 pre-ga-approval-name and AGL602
pre-ga-agent-framework-name (their checks are in ``pre_ga_names``): the rule pages, with
the version table rendered from the tables in `knowledge/maf.py`."""

from __future__ import annotations

import re

from agentlint.knowledge import maf
from agentlint.rules.diagnostics import RuleMeta

_STANDARD = """\
## Standard
Enforces the durable-workflows-hitl standard, section "Tool approval without a
workflow: the single-agent case": its checklist asks that no
`FunctionApprovalRequestContent` / `FunctionApprovalResponseContent` (the pre-GA names)
appears in the code, and its note on the migration says the old names are history, not
a live API: they do not exist in the pinned version. The standard's approval loop
(check for pending approvals after **every** run, answer them in the **same** session)
is written against the GA names.
"""

_FIX_COMMON = """\
Every fix assumes the project is moving to an agent-framework-core version that has
the new name (the version column); it does not change your dependency pin. An import
and every use of the name it binds form one fix: they are applied together or not at
all, so a safe run never leaves a module half renamed. There is no fix when one of the
uses has no mechanical rewrite, when the new name is already bound to something else
where it would be used (`tool` as a variable, `Agent` from another framework), when
the old name is also bound to something else in the module, or when it is listed in
`__all__`; the message then says why. A fix whose module still names the old name in
a string annotation is unsafe.
"""

_DOCS_601 = """\
## What it does
Flags the pre-GA approval types of Microsoft Agent Framework (Python),
`FunctionApprovalRequestContent` and `FunctionApprovalResponseContent`, and the
pre-GA `request.create_response(approved)`, wherever they come from `agent_framework`:
imported from it or a submodule (`from agent_framework._types import ...`), read as
`af.FunctionApprovalRequestContent` after `import agent_framework as af`, or provided
by `from agent_framework import *`. Imports, annotations, `isinstance` checks,
constructor calls, `match` class patterns, keyword arguments and attribute calls are
covered; comments, docstrings and strings are not.

`create_response` is flagged on a value known to be an approval request (annotated
with the type, tested with `isinstance`, taken from `response.user_input_requests`),
or, in a module that uses the approval types, on a call with the one `approved`
argument.

## Why is this bad?
Agent-framework-core 1.0.0b260123 (PR #3252, "Simplify content types to a single
class") folded every `*Content` class into one `Content` class with a `type`
discriminator. `FunctionApprovalRequestContent` and `FunctionApprovalResponseContent`
no longer exist: code that imports them fails at import time on every GA release, and
code that only tests `isinstance(x, FunctionApprovalRequestContent)` behind a guarded
import silently stops seeing approval requests, so tool calls that need a human's
approval are never answered. (.NET renamed the same types to
`ToolApprovalRequestContent` / `ToolApprovalResponseContent`; Python has no such class.)

## Example
```python
from agent_framework import ChatMessage, FunctionApprovalRequestContent

result = await agent.run(query, thread=thread)
while result.user_input_requests:
    replies = []
    for request in result.user_input_requests:
        if isinstance(request, FunctionApprovalRequestContent):
            replies.append(request.create_response(ask_operator(request)))
    result = await agent.run(ChatMessage(role="user", contents=replies), thread=thread)
```

## Use instead
```python
from agent_framework import Content, Message

result = await agent.run(query, session=session)
while result.user_input_requests:
    replies = []
    for request in result.user_input_requests:
        if isinstance(request, Content) and request.type == "function_approval_request":
            replies.append(request.to_function_approval_response(ask_operator(request)))
    result = await agent.run(Message(role="user", contents=replies), session=session)
```
Build requests and responses with `Content.from_function_approval_request(id,
function_call)` and `Content.from_function_approval_response(approved, id,
function_call)`.

## Fix safety
The rewrites, to the 1.0.0b260123 (and 1.23.0) API:

| pre-GA | GA | safety |
|---|---|---|
| `from agent_framework import FunctionApprovalRequestContent` | `from agent_framework import Content` (one import for both types) | as its uses |
| annotation `FunctionApprovalRequestContent` | `Content` | safe (unsafe for a class-level field, where a model validates it) |
| `isinstance(x, FunctionApprovalRequestContent)` | `isinstance(x, Content) and x.type == "function_approval_request"` | safe on a name, unsafe on an attribute (read twice) |
| `isinstance(x, (FunctionApprovalRequestContent, FunctionApprovalResponseContent))` | `isinstance(x, Content) and x.type in (...)` | as above |
| `case FunctionApprovalRequestContent(id=i):` | `case Content(type="function_approval_request", id=i):` | safe |
| `FunctionApprovalRequestContent(id=..., function_call=...)` | `Content.from_function_approval_request(id=..., function_call=...)` | unsafe: `Content` objects replace subclass instances, and 1.23 warns when `id` differs from `function_call.id` |
| `FunctionApprovalResponseContent(approved, id=..., function_call=...)` | `Content.from_function_approval_response(approved, id=..., function_call=...)` | unsafe, as above |
| `request.create_response(approved)` | `request.to_function_approval_response(approved)` | safe (the same response, built the same way) |

No fix for other uses (`FunctionApprovalRequestContent.from_dict(...)`, a tuple of
classes with other classes in it, the type stored in a variable): the message says
what to write instead.

""" + _FIX_COMMON + """
## Configuration
None.

""" + _STANDARD


def _version_table() -> str:
    rows = ["| pre-GA | GA | first version | change | fix |", "|---|---|---|---|---|"]
    for row in maf.MAF_RENAMED_NAMES.values():
        new = f"`{row.new}`" if row.new else re.search(r"`[^`]+`", row.hint).group(0)  # type: ignore[union-attr]
        fix = "none" if row.new is None else ("safe" if row.safe else "unsafe") + ("" if row.calls else " (no fix for calls)")
        rows.append(f"| `{row.old}` | {new} | {row.version} | {row.change} | {fix} |")
    content = [c for c in maf.MAF_CONTENT_CLASSES.values() if c.code == "AGL602"]
    names = ", ".join(f"`{c.old}`" for c in content)
    rows.append(
        f'| {names} | `Content` with `type` (`"text"`, `"function_call"`, ...), built with '
        f"`Content.from_text(...)`, `Content.from_function_call(...)`, ... | {maf.MAF_CONTENT_VERSION} | "
        f"{maf.MAF_CONTENT_CHANGE} | as AGL601 (no constructor fix for `DataContent`) |"
    )
    for enum, (members, version, change) in maf.MAF_OLD_ENUMS.items():
        example = next(iter(members.items()))
        rows.append(f'| `{enum}.{example[0]}`, ... | `"{example[1]}"`, ... | {version} | {change} | safe |')
    for method in maf.MAF_RENAMED_METHODS.values():
        if method.receiver == "approval_request":
            continue
        new = f"`{method.new}(..., stream=True)`" if method.stream else f"`{method.new}(...)`"
        fix = "safe" if method.safe else "unsafe"
        rows.append(f"| `{method.receiver}.{method.old}(...)` | {new} | {method.version} | {method.change} | {fix} |")
    rows.append(
        "| `agent.get_new_thread(service_thread_id=x)` | `agent.get_session(x)` | 1.0.0b260212 | PR #3763, #3850 | unsafe |"
    )
    for keyword, (new, version, change) in maf.MAF_RENAMED_KEYWORDS.items():
        where = {
            "chat_client": "`ChatAgent(chat_client=...)`",
            "thread": "`agent.run(..., thread=...)`",
            "text": "`ChatMessage(..., text=t)`",
        }[keyword]
        target = {"chat_client": "`Agent(client=...)`", "thread": "`agent.run(..., session=...)`", "text": "`Message(..., contents=[t])`"}[keyword]
        fix = {"chat_client": "safe (with the class rename)", "thread": "unsafe", "text": "unsafe"}[keyword]
        rows.append(f"| {where} | {target} | {version} | {change} | {fix} |")
    return "\n".join(rows) + "\n"


_DOCS_602 = """\
## What it does
Flags the other names of Microsoft Agent Framework (Python) that were renamed or
removed on the way to 1.0 (GA), when they come from `agent_framework` (imported from
it or a submodule, read through `import agent_framework as af`, or provided by
`from agent_framework import *`): the module-level names in imports, annotations,
`isinstance` checks, constructor calls and decorators; `Role.USER`-style members;
the renamed methods on agents and chat clients; and the renamed keyword arguments.
Comments, docstrings and strings are not flagged.

Methods and keywords are flagged on receivers known to be agent-framework objects:
built by an agent-framework constructor (`ChatAgent(...)`, `OpenAIChatClient()`,
`client.create_agent(...)`, also through `with ... as agent`), or annotated with an
agent-framework type. `get_new_thread()` and `get_streaming_response()`, which no
other framework has, are flagged on any receiver in a module that imports
agent_framework. `run_stream` of a pydantic-ai or AutoGen agent is left alone.

The version table (first agent-framework-core version with the new API; checked
against the wheels 1.0.0b260107 to 1.0.0b260212 and 1.23.0):

""" + _version_table() + """
`OpenAIChatClient` is not flagged although its meaning changed in 1.0.0rc6 (it became
the Responses API client): the name is still valid. `AgentRunResponse` and
`create_agent` were already gone in 1.0.0b260116; code using them predates it.

## Why is this bad?
None of these names exists in a GA release: the import fails, or the attribute does
not exist, the moment the dependency moves past the version in the table. The renames
came in quick succession between January and March 2026, so code written against one
beta breaks on the next; finding every use by hand is what this rule saves.

## Example
```python
from agent_framework import ChatAgent, ChatMessage, Role, ai_function
from agent_framework.openai import OpenAIChatClient


@ai_function
def lookup(order: str) -> str: ...


agent = ChatAgent(chat_client=OpenAIChatClient(), tools=[lookup])
thread = agent.get_new_thread()
async for update in agent.run_stream(ChatMessage(role=Role.USER, text="Hi"), thread=thread):
    print(update.text)
```

## Use instead
```python
from agent_framework import Agent, Message, tool
from agent_framework.openai import OpenAIChatClient


@tool
def lookup(order: str) -> str: ...


agent = Agent(client=OpenAIChatClient(), tools=[lookup])
session = agent.create_session()
async for update in agent.run(Message(role="user", contents=["Hi"]), session=session, stream=True):
    print(update.text)
```

## Fix safety
One-to-one renames are safe: the new name is the same class, function or method
under another name (`ChatAgent` -> `Agent` with `chat_client=` -> `client=`,
`ai_function` -> `tool`, `AIFunction` -> `FunctionTool`, `ChatMessage` -> `Message`,
`create_agent` -> `as_agent`, `Role.USER` -> `"user"`, ...). Unsafe: `AgentThread` ->
`AgentSession` and `get_new_thread()` -> `create_session()` (a session is not a
thread: another class with another API), `run_stream(...)` -> `run(..., stream=True)`
and `get_streaming_response(...)` -> `get_response(..., stream=True)` (a
`ResponseStream` rather than a plain async iterator), `thread=` -> `session=`, and
`text=t` -> `contents=[t]` (`text=None` meant no text). The content classes follow
AGL601's rules. No fix for the hosted tool classes: their replacement is a method of
the chat client, which the code may not have at hand.

""" + _FIX_COMMON + """
## Configuration
None.

""" + _STANDARD

PRE_GA_APPROVAL_NAME = RuleMeta(
    code="AGL601",
    name="pre-ga-approval-name",
    summary=(
        "`FunctionApprovalRequestContent` / `FunctionApprovalResponseContent` are pre-GA names "
        "of Microsoft Agent Framework; approval requests are now `Content` with a `type`."
    ),
    docs=_DOCS_601,
    fixable=True,
    help=(
        'Use `Content` with `type == "function_approval_request"`, '
        "`Content.from_function_approval_request(...)` and `request.to_function_approval_response(approved)`."
    ),
)

PRE_GA_AGENT_FRAMEWORK_NAME = RuleMeta(
    code="AGL602",
    name="pre-ga-agent-framework-name",
    summary=(
        "A name of Microsoft Agent Framework (Python) that was renamed or removed before 1.0 "
        "(`ChatAgent`, `ai_function`, `ChatMessage`, `AgentThread`, `run_stream`, `chat_client=`, ...)."
    ),
    docs=_DOCS_602,
    fixable=True,
    help="Use the GA name (see the version table in the rule's documentation).",
)
