"""Metadata and documentation of the tool rules, AGL201-AGL204 (their checks are in
``tool_boundary``, ``irreversible_tool`` and ``approval_loop``), with AGL201's default
word lists, which its check falls back on."""

from __future__ import annotations

from agentlint.rules.diagnostics import RuleMeta

SCOPE_WORDS = [
    "tenant", "account", "user", "customer", "contact", "organisation", "organization", "org",
    "workspace", "lead", "owner", "conversation", "session", "thread", "member", "client", "patient",
    "project", "repo", "repository", "vault",
]
"""Words that, with `id`/`email`/`number`/..., make a tool parameter an identifier that
scopes effect (AGL201's `identifier-words` by default)."""
MONEY_WORDS = ["amount", "price", "cost", "discount", "refund", "balance", "fee", "charge", "payment", "payout", "credit", "salary"]
"""Words that make a tool parameter a monetary value (AGL201's `money-words` by default)."""

_DOCS_201 = """\
## What it does
Flags a tool parameter that the **model** fills and that carries an identifier which
scopes what the tool acts on — a tenant, account, user, customer, contact,
organisation, workspace, project, lead, owner, member or client, a conversation, session
or thread, a repository or a vault (`customer_id`, `accountId`, `user_email`, `tenant`,
`project_id`, `vault_name`) — or a monetary value (`refund_amount`, `unit_price`,
`discount`, `balance`, `fee`).

The acting user's own identity counts too: `username`, `user_name`, `login`, an address
named by its role (`organizer_email`, `sender_email`, `from_email`), and any email or id
whose description says it is the current user's (`Args:` in the docstring, a schema
field's `description`: "The current user's email address"). A repository's scope is
`repo`, `repo_name`, `repository`, and `owner` beside one (`list_issues(owner, repo)`).

Money needs money around it. A bare `amount` (or `credit`, `charge`, `balance`) counts
only when the tool or another parameter speaks of money (`refund`, `payout`, `transfer`,
`reimburse`, `invoice`, ...); a tool named for a calculation (`convert_currency`,
`calculate_tip`, `estimate_shipping`) takes operands, not money that moves; a rate or a
percentage (`tip_percent`, `discount_rate`) is no amount.

A tool is a function whose parameters a model fills: decorated with a framework's tool
decorator (`@function_tool`, `@tool`, `@agent.tool`, `@mcp.tool()`, `@kernel_function`,
`@register_for_llm(...)`, ...), the `_run`/`forward`/`run` method of a tool class, a
function passed by name in `tools=[...]` to an agent or wrapped by `FunctionTool(fn)`,
or the `properties` of a JSON tool schema. `agentlint tools` lists what agentlint
takes for a tool and which parameters it thinks the model fills.

Parameters the framework fills itself are never flagged: context types
(`RunContextWrapper`, `RunContext`, `ToolContext`, `Context`,
`FunctionInvocationContext`, `ToolRuntime`, `RunnableConfig`, ...),
`Annotated[..., InjectedToolArg]` / `InjectedState` / `InjectedToolCallId`,
dependency defaults (`= Depends(...)`, `= TokenClaim("oid")`, `= CurrentContext()`),
reserved names (`tool_context`, `cancellation_token`, `context_variables`, Semantic
Kernel's `kernel`/`arguments`), and names bound by `partial_params` or
`functools.partial`. Search filters are not values with effect: `max_price`,
`price_range` and `min_amount` are left alone.

**Approval lowers the severity.** A tool declared with a human approval
(`@function_tool(needs_approval=True)` or a policy, pydantic-ai's `requires_approval=True`,
ADK's `require_confirmation=True`, Agno's `requires_confirmation=True` or `@approval`,
`approval_mode="always_require"`, LangChain's `HumanInTheLoopMiddleware(interrupt_on=...)`,
`tool_input_guardrails=[...]`), or a parameter that an ADK `before_tool_callback` reads from
the model's `args` to re-validate it, is still reported, but as a **note**, with the
mitigation named in the message. The choice: a person (or a check) now sees the value
before it takes effect, so the finding no longer fails the run, yet the value still
comes from the model — the approver usually cannot tell whose account a number is, and
the fix (take it from the turn's context) is the same. A note is shown in every output
format and never changes the exit status.

Tools defined in test code (`tests/`, `test_*.py`, ...) are test doubles: their findings
are skipped by default (the `tests` setting, `AGL2 = "skip"`).

## Why is this bad?
A tool that takes the record's identifier from the model acts on whatever record the
model names. With the right prompt in the wrong conversation, it reads or changes
someone else's account; a refund tool that takes the amount from the model refunds
what the model says. The tool should be built already knowing which conversation,
tenant and record it acts on — from the turn's closure or context — and the model
should only supply what is genuinely its decision.

## Example
```python
@function_tool
def refund_order(customer_id: str, order_id: str, amount: float) -> str:
    ...
```

## Use instead
```python
@function_tool
def refund_order(ctx: RunContextWrapper[Turn], order_id: str) -> str:
    customer_id = ctx.context.customer_id   # from the authenticated turn
    amount = orders.refundable_amount(customer_id, order_id)
    ...
```
For fastmcp, `user_id: str = TokenClaim("oid")`; for pydantic-ai, `ctx.deps.customer_id`.

## Fix safety
No fix: where the identifier should come from is a design decision.

## Configuration
- `identifier-words` (list of strings): words that, with `id`/`email`/`number`/...,
  make a parameter an identifier that scopes effect.
- `money-words` (list of strings): words that make a parameter a monetary value.
- `strict` (bool, default `false`): also flag every other `*_id` parameter.

```toml
[tool.agentlint.rules.AGL201]
identifier-words = ["tenant", "account", "customer", "policy_holder"]
strict = true
```

## Standard
Enforces the guardrails standard, section "Tool arguments are untrusted input":
*identifiers and values with effect come from the turn's closure, never from the
model*; the tool is built already knowing which conversation, tenant and record it
operates on.
"""

MODEL_SUPPLIED_IDENTIFIER = RuleMeta(
    code="AGL201",
    name="model-supplied-identifier",
    summary=(
        "A tool parameter the model fills carries an identifier that scopes effect "
        "(tenant, account, user, customer, ...) or a monetary value."
    ),
    docs=_DOCS_201,
    help=(
        "Take it from the turn's context (`ctx.context.customer_id`, `ctx.deps`, a "
        "`TokenClaim`) or bind it with `functools.partial`, not from the model."
    ),
    settings={
        "identifier-words": list(SCOPE_WORDS),
        "money-words": list(MONEY_WORDS),
        "strict": False,
    },
)

_DOCS_202 = """\
## What it does
Flags a tool that returns an exception's text to the model: inside a tool, an `except`
handler returns `str(e)`, `repr(e)`, an f-string or `%`/`.format` with the exception in
it (`f"Error: {e}"`), `e.args` / `e.message`, or `traceback.format_exc()` — alone or
inside a dict, list or JSON string (`{"error": str(exc)}`), also through a variable
assigned in the handler. The message says which closed outcome to return instead, from
the exception caught: `invalid_args` for a `ValueError`, `KeyError`, a validation or
parse error; `unavailable` for a timeout, a connection or HTTP error; `limit` for a rate
limit; `error` for a broad `except Exception`.

For a JSON tool schema of a raw SDK, the body checked is the def of the module that
implements it (docs/frameworks.md says how it is found).

Returning the exception's *type* (`type(e).__name__`) or a fixed string is not
flagged, and neither is a narrow handler around the tool's own validation: when every
exception the handler catches is raised in the `try` (or in a helper of the module it
calls) with a message the tool's author wrote (`raise ValueError("end must be after
start")`, a project exception such as `raise BookingRejected(f"room {room} is full")`),
that message was written for the model, and returning it is the closed outcome.

## Why is this bad?
The model interprets free text. An exception message is written for a developer; to a
model it is an instruction-shaped string that may carry internal details (paths, SQL,
hostnames, tokens) and that the model will paraphrase to the user or act on ("the
database is down, try again later" becomes a retry loop). A closed outcome vocabulary
(`ok`, `error`, `invalid_args`, `limit`, `unavailable`) says what the model can do next
without leaking or inviting improvisation; the details belong in the log.

## Example
```python
@function_tool
def lookup_invoice(invoice_number: str) -> str:
    try:
        return billing.get(invoice_number).summary()
    except Exception as e:
        return f"Error: {e}"
```

## Use instead
```python
@function_tool
def lookup_invoice(invoice_number: str) -> dict:
    try:
        return {"status": "ok", "invoice": billing.get(invoice_number).summary()}
    except NotFound:
        return {"status": "invalid_args"}
    except Exception:
        logger.exception("invoice lookup failed")
        return {"status": "unavailable"}
```

## Fix safety
No fix.

## Configuration
None for this rule. What counts as a tool, and which parameters are injected, comes
from the framework tables and the top-level `tool-decorators`, `tool-base-classes`,
`injected-types` and `injected-names` settings (docs/frameworks.md).

## Standard
Enforces the guardrails standard ("tool arguments are untrusted input" and its
corollary): what crosses the tool boundary back to the model is a closed outcome, not
free text.
"""

EXCEPTION_TEXT_TO_MODEL = RuleMeta(
    code="AGL202",
    name="exception-text-to-model",
    summary="Inside a tool, an exception's text is returned to the model (`return str(e)`, `f\"Error: {e}\"`).",
    docs=_DOCS_202,
    help=(
        "Return a closed outcome (`{\"status\": \"unavailable\"}`) and log the exception instead."
    ),
)

_DOCS_203 = """\
## What it does
Flags a **tool** that reaches a call whose effect cannot be taken back, when neither of
the two protections stands before it:

- **Irreversible calls** (the list is data, in `agentlint/knowledge/irreversible.py`):
  money moved (Stripe `Refund.create`, `Charge.create`, `PaymentIntent.create`,
  `Transfer.create`, `Payout.create`, the `StripeClient` services such as
  `client.refunds.create`; PayPal; a call of your own code named `charge_*`, `refund_*`,
  `payout_*`, `transfer_*`, `update_price`, ... that also passes a money amount); messages
  sent (SMTP `sendmail` / `send_message`, SendGrid, Resend, Gmail
  `users().messages().send()`, Slack `chat_postMessage`, Twilio `messages.create`, SES
  `send_email`); data deleted (`DELETE`, `DROP`, `TRUNCATE`, `ALTER` or an `UPDATE` without
  `WHERE` executed as SQL, an ORM `.delete()` on a database receiver, `shutil.rmtree`,
  `os.remove`, HTTP `DELETE`, boto3 `delete_*` / `terminate_*`); deploys and pushes
  (`git push`, `kubectl apply|delete`, `helm`, `terraform apply|destroy`, `rm -rf` run as a
  command). A deletion counts only when what is deleted comes from a parameter the model
  fills; a tool that removes its own temporary file is left alone. Add your own with the
  top-level `irreversible-callables` setting.
- **Reached** directly in the tool's body or through the functions of the same module the
  tool calls (up to three calls deep, as for AGL501), or through a function of another
  module of the project that the tool's module imports and calls (`from app.mail import
  deliver`); the message names the path. Tools declared in one module and passed as tools
  in another are found as for AGL201.
- **Protection 1, an approval declared in the framework**: Microsoft Agent Framework
  `@tool(approval_mode="always_require")`, OpenAI Agents `needs_approval=`, pydantic-ai
  `requires_approval=True` (or raising `ApprovalRequired` / `CallDeferred`), Google ADK
  `require_confirmation=` (or `tool_context.request_confirmation()`), Agno
  `requires_confirmation=True` / `@approval`, LangChain `HumanInTheLoopMiddleware(
  interrupt_on={...})` naming the tool (in any module of the project), LangGraph
  `interrupt()` before the call, MCP `ctx.elicit()`, or a terminal confirmation
  (`input()`, `click.confirm`) before the call. Approvals wired outside the tool count too,
  anywhere in the project: a function that asks a human (`interrupt()`, `input()`) and
  names the tool (a graph node that interrupts for the tool calls it lists by name); a
  function that reads the model's tool calls and asks a human before running them (a
  hand-written agent loop with `if input(...) != "y": continue`); a graph compiled with
  `interrupt_before=`; CrewAI `human_input=True`; AutoGen `approval_func=` or
  `human_input_mode="ALWAYS"`; MAF's `ToolApprovalMiddleware`; a Semantic Kernel
  function-invocation filter.
- **Protection 2, a deterministic guard in the tool's code before the call**: an `if` that
  checks state, a limit, a permission or an allow-list and returns or raises (or encloses
  the call): `if amount > MAX_REFUND: return "needs a manager"`, `if order.status !=
  "delivered": ...`, `if recipient not in ALLOWED: raise ...`, `if not
  user.can_refund: ...`, `if not has_permission(...)`; or a guard-named call as a statement
  (`check_permission(user)`, `ensure_allowed(path)`) that raises when the check fails. A
  test that only says the input is there or well formed (`if not to:`, `isinstance`, a
  regex match, `x is None`) or a flag the model itself sets (`if not confirm:`) is not a
  guard.

A call in a branch that never runs (`if False:`, `if TYPE_CHECKING:`) or after the tool
has returned is not reached. One finding per tool, at the call in the tool's body that
reaches the first unprotected sink.

## Why is this bad?
The model decides when a tool runs and with which arguments. For a tool that reads, a
wrong call costs a wrong answer; for a tool that charges a card, sends a proposal or
deletes records, a wrong call is done and stays done. Something other than the model's
judgement has to stand between the arguments and the effect: a human with the authority
to approve, or a check in code that refuses with a reason.

## Example
```python
@function_tool
def refund_order(order_id: str, amount: float) -> str:
    stripe.Refund.create(payment_intent=lookup_payment(order_id), amount=int(amount * 100))
    return "refunded"
```

## Use instead
Declare the approval:
```python
@function_tool(needs_approval=True)
def refund_order(order_id: str, amount: float) -> str:
    ...
```
or guard the choke point in code, and refuse with a reason:
```python
@function_tool
def refund_order(ctx: RunContextWrapper[Shop], order_id: str, amount: float) -> str:
    order = ctx.context.orders.get(order_id)
    if order.status != "delivered" or amount > order.paid:
        return "This order cannot be refunded for that amount."
    stripe.Refund.create(payment_intent=order.payment_intent, amount=int(amount * 100))
    return "refunded"
```
Write down which of the two you chose and why.

## Limits
Approval asked **of the conversation's own user** is out of scope for a static rule: when
the person on the other side of the chat would be approving their own request, an
approval prompt protects nothing, and only a guard in code does; whether the approver is
someone else is a fact of the deployment, not of the code. A tool whose only protection
is an approval routed back to the requester is therefore not reported. A helper of
another module is followed only when the tool's own module calls it by its imported
name; for a helper reached some other way (a method of an object built elsewhere), name
it in `irreversible-callables`.

## Fix safety
No fix: choosing between an approval and a guard is a design decision.

## Configuration
None for this rule. The top-level `irreversible-callables` setting adds calls
(`"myapp.billing.charge"`, or `"*.send_invoice"` for a method on any receiver); tools are
found as for AGL201 (docs/frameworks.md).

## Standard
Enforces the durable-workflows-hitl standard, section "Tool approval without a workflow
— the single-agent case", subsection "When to approve, and when approval is not the right
protection": *ask for approval when the tool has an external side effect (a charge, an
e-mail, a contract, a deploy), an irreversible effect or a broad scope (bulk deletion, a
price change)*; and where the requester would be the approver, *the protection is a
deterministic guard at the choke point: the tool checks the state, the value limit and
the operator's permission in code before acting, and refuses with a reason*. Its
checklist: *every tool with an irreversible effect is wrapped in an approval or has a
documented deterministic guard, and the choice between the two is written down*.
"""

IRREVERSIBLE_TOOL_WITHOUT_APPROVAL = RuleMeta(
    code="AGL203",
    name="irreversible-tool-without-approval",
    summary="A tool reaches an irreversible effect (payment, message, deletion, deploy) with neither an approval "
            "declared nor a guard in code before it.",
    docs=_DOCS_203,
    help="Declare the tool as needing approval in its framework, or check state, limits or permissions in code "
         "before the call and refuse with a reason.",
)

_DOCS_204 = """\
## What it does
Flags code that runs an agent, reads the approvals the run stopped for, and answers them
**once**: an `if` on `response.user_input_requests` (Microsoft Agent Framework) or
`result.interruptions` (OpenAI Agents SDK), directly or through a name bound to them
(`pending = response.user_input_requests`), whose body answers them
(`request.to_function_approval_response(...)`, `state.approve(item)`, `state.reject(item)`)
and runs the agent again, with no loop around it that checks again. It also flags answers
sent in a **new session or thread**: the run that carries the answers is given
`session=agent.create_session()` (or `thread=agent.get_new_thread()`, `AgentSession()`).

A `while` loop that runs until no approval is pending (`while response.user_input_requests:`,
or `while True:` with a `break` when none is left), a bounded `for _ in range(n)` loop
around the check, an `if` inside such a loop, a function that calls itself to handle the
next round, and a function that returns the new result whole (`return response`: its
caller can check again) are all fine.

## Why is this bad?
A run stopped for approval **ends**; it does not wait. The answers go back in a new run,
and that run can call another tool that needs approval, so the result of every run must
be checked again until nothing is pending. Checked once, the second request is never
answered: the turn ends with the agent waiting for a decision nobody is asked for. And the
answers must go back in the **same** session or thread: in a new one they match no
pending request, and the run starts over asking again.

## Example
```python
response = await agent.run("Refund order 42", session=session)
if response.user_input_requests:
    answers = [r.to_function_approval_response(approved=ask(r)) for r in response.user_input_requests]
    response = await agent.run(Message(role="user", contents=answers), session=session)
```

## Use instead
```python
response = await agent.run("Refund order 42", session=session)
while response.user_input_requests:
    answers = [r.to_function_approval_response(approved=ask(r)) for r in response.user_input_requests]
    response = await agent.run(Message(role="user", contents=answers), session=session)
```
With the OpenAI Agents SDK: `while result.interruptions:` ... `state = result.to_state()`,
`state.approve(item)`, `result = await Runner.run(agent, state)`.

## Fix safety
No fix.

## Configuration
None.

## Standard
Enforces the durable-workflows-hitl standard, section "Tool approval without a workflow
— the single-agent case": *the run ends, it does not block*; *the answer goes in the SAME
session*; *check for pending approvals after every run, in a loop, not once*. Its
anti-patterns table lists *answering the approval in a new session* (the answer matches
no request; the run starts over asking again) and *checking for the approval request only
once* (an approved round can ask for ANOTHER tool; the second request goes unnoticed), and
its checklist: *the approval answer is sent in the same session, in a loop that checks for
pending requests after each run*.
"""

APPROVAL_CHECKED_ONCE = RuleMeta(
    code="AGL204",
    name="approval-checked-once",
    summary="Pending tool approvals are answered once (in an `if`) instead of in a loop until none is left, "
            "or in a new session or thread.",
    docs=_DOCS_204,
    help="Check the pending approvals after every run, in a loop until none is left, and answer them in the "
         "session or thread that asked.",
)
