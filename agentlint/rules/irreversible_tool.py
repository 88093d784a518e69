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
from agentlint.rules.diagnostics import Diagnostic, Position, RuleMeta, Span

_DOCS = """\
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


class IrreversibleToolWithoutApproval(ProjectRule):
    reads = frozenset()
    meta = RuleMeta(
        code="AGL203",
        name="irreversible-tool-without-approval",
        summary="A tool reaches an irreversible effect (payment, message, deletion, deploy) with neither an approval "
                "declared nor a guard in code before it.",
        docs=_DOCS,
        help="Declare the tool as needing approval in its framework, or check state, limits or permissions in code "
             "before the call and refuse with a reason.",
    )

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
