"""Calls with an effect that cannot be taken back (AGL203): money moved, a message sent,
data deleted, code deployed. A tool that reaches one of them needs an approval or a
deterministic guard in code before it (the durable-workflows-hitl standard).

Names are matched like the framework tables (``frameworks.matches``): ``root:Name``
after import resolution, so a project's own `send` is never taken for SMTP's. Method
chains on receivers of unknown type count only in a file that imports the library
(``CHAIN_TAILS``). Users add their own sinks with the `irreversible-callables` setting.
"""

from __future__ import annotations

from typing import Mapping

PAYMENT = "payment"
MESSAGE = "outgoing message"
DELETION = "deletion"
DEPLOY = "deploy or push"

QUALIFIED_SINKS: Mapping[str, str] = {
    # Stripe: the resource classes and the StripeClient services
    "stripe:Refund.create": PAYMENT,
    "stripe:Charge.create": PAYMENT,
    "stripe:Charge.capture": PAYMENT,
    "stripe:PaymentIntent.create": PAYMENT,
    "stripe:PaymentIntent.confirm": PAYMENT,
    "stripe:PaymentIntent.capture": PAYMENT,
    "stripe:Transfer.create": PAYMENT,
    "stripe:Payout.create": PAYMENT,
    "stripe:Invoice.pay": PAYMENT,
    "stripe:Subscription.cancel": PAYMENT,
    "stripe:Subscription.delete": PAYMENT,
    "stripe:Customer.delete": DELETION,
    # PayPal
    "paypalrestsdk:Payment.create": PAYMENT,
    "paypalrestsdk:Payment.execute": PAYMENT,
    "paypalrestsdk:Payout.create": PAYMENT,
    "paypalrestsdk:Sale.refund": PAYMENT,
    # e-mail and chat
    "smtplib:SMTP.sendmail": MESSAGE,
    "smtplib:SMTP.send_message": MESSAGE,
    "smtplib:SMTP_SSL.sendmail": MESSAGE,
    "smtplib:SMTP_SSL.send_message": MESSAGE,
    "sendgrid:SendGridAPIClient.send": MESSAGE,
    "resend:Emails.send": MESSAGE,
    "slack_sdk:WebClient.chat_postMessage": MESSAGE,
    "slack_sdk:AsyncWebClient.chat_postMessage": MESSAGE,
    "slack_sdk:WebhookClient.send": MESSAGE,
    "django.core.mail:send_mail": MESSAGE,
    "django.core.mail:send_mass_mail": MESSAGE,
    "django.core.mail:EmailMessage.send": MESSAGE,
    "django.core.mail:EmailMultiAlternatives.send": MESSAGE,
    # deletion
    "shutil:rmtree": DELETION,
    "os:remove": DELETION,
    "os:unlink": DELETION,
    "os:rmdir": DELETION,
    "os:removedirs": DELETION,
    "requests:delete": DELETION,
    "httpx:delete": DELETION,
    "requests:Session.delete": DELETION,
    "httpx:Client.delete": DELETION,
    "httpx:AsyncClient.delete": DELETION,
}
"""Resolved callables and methods of typed receivers -> the kind of effect."""

CHAIN_TAILS: Mapping[str, tuple[str, str]] = {
    "refunds.create": ("stripe", PAYMENT),
    "payouts.create": ("stripe", PAYMENT),
    "transfers.create": ("stripe", PAYMENT),
    "charges.create": ("stripe", PAYMENT),
    "payment_intents.create": ("stripe", PAYMENT),
    "payment_intents.confirm": ("stripe", PAYMENT),
    "payment_intents.capture": ("stripe", PAYMENT),
    "sendmail": ("smtplib", MESSAGE),
    "send_message": ("smtplib", MESSAGE),
    "messages.create": ("twilio", MESSAGE),
    "Emails.send": ("resend", MESSAGE),
    "chat_postMessage": ("", MESSAGE),
    "chat_scheduleMessage": ("", MESSAGE),
    "users.messages.send": ("", MESSAGE),
    "users.drafts.send": ("", MESSAGE),
}
"""Method chains on receivers whose type is not known (`self.client.refunds.create`; calls
in the chain are skipped, so Gmail's `service.users().messages().send(...)` reads
`users.messages.send`), counted only in a file that imports the root named: `messages.create`
is a Twilio SMS in a file that imports `twilio`, and a model call in one that imports
`anthropic`. An empty root: the chain is distinctive on its own (Slack's `chat_postMessage`)."""

SQL_WRITES = ("DELETE", "DROP", "TRUNCATE", "UPDATE")
"""Statements that remove data, when a tool executes them (`cursor.execute("DELETE FROM
...")`), matched on the first word of the SQL text: a `DELETE ... WHERE` counts when the
model's input reaches the call, `DROP`, `TRUNCATE` and an `UPDATE` without `WHERE` (a bulk
change) always. `ALTER` is left out: `ALTER SESSION SET ...` changes nothing stored."""

SQL_EXECUTE_METHODS = frozenset({"execute", "executemany", "executescript", "exec_driver_sql"})

ORM_DELETE_METHODS = frozenset({"bulk_delete", "delete_many", "delete_one", "drop_collection", "delete"})
"""Methods that delete records (Django querysets `.filter(...).delete()`, SQLAlchemy
`session.delete(row)`, MongoDB `delete_many`) when the receiver is a database object."""

DELETE_RECEIVER_WORDS = frozenset({"objects", "session", "db", "collection", "query", "queryset", "table",
                                   "requests", "http", "httpx"})
"""A name on the receiver chain of a `.delete()` that says it deletes records: a database
(`Order.objects.filter(...)`, `self.db`, `session`, `orders_collection`) or an HTTP client
(`self.requests_wrapper.delete(url)`)."""

MESSAGE_RECEIVER_WORDS = frozenset({"message", "email", "mail", "msg"})
"""`message.send()` (no arguments) on a receiver named for a message it built (O365's
`mailbox.new_message()`, Django's `EmailMessage(...)`): the message goes out."""

CHAT_UI_ROOTS = frozenset({"chainlit", "gradio", "streamlit", "mesop", "panel", "nicegui"})
"""Chat front ends whose `msg.send()` shows a message in the conversation itself (Chainlit's
`cl.Message(...).send()`): not a message sent to anyone else."""

COMMANDS: Mapping[tuple[str, str], str] = {
    ("git", "push"): DEPLOY,
    ("kubectl", "apply"): DEPLOY,
    ("kubectl", "delete"): DELETION,
    ("helm", "install"): DEPLOY,
    ("helm", "upgrade"): DEPLOY,
    ("helm", "uninstall"): DELETION,
    ("terraform", "apply"): DEPLOY,
    ("terraform", "destroy"): DELETION,
    ("rm", "-rf"): DELETION,
    ("rm", "-r"): DELETION,
    ("rm", "-fr"): DELETION,
}
"""Shell commands a tool runs (`subprocess.run(["git", "push", ...])`, `os.system("kubectl
apply -f x")`): the program and its first argument, read from a literal list or string."""

COMMAND_RUNNERS = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen",
     "os.system", "os.popen", "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell"}
)

CLOUD_ROOTS = ("boto3", "aioboto3")
"""SDKs whose clients (`boto3.client("s3")`) name their irreversible methods by prefix."""

CLOUD_DELETE_PREFIXES = ("delete_", "terminate_", "destroy_", "purge_")
"""boto3 client methods (`s3.delete_object`, `ec2.terminate_instances`) on a receiver built
by `boto3.client(...)` / `boto3.resource(...)`."""

CLOUD_MESSAGE_METHODS = frozenset({"send_email", "send_raw_email", "send_templated_email", "send_bulk_templated_email",
                                   "publish"})
"""boto3 SES methods that send e-mail, SNS `publish` (an SMS or a notification)."""

PROJECT_MONEY_VERBS = frozenset({"charge", "refund", "payout", "pay", "transfer", "withdraw", "reimburse", "disburse"})
"""A call of the project's own `charge_card`, `refund_order`, ... counts as a payment when
it also passes a money amount (``MONEY_WORDS``): the name alone is not enough."""

PRICE_WRITE_VERBS = frozenset({"set", "update", "change", "adjust", "write"})
PRICE_NOUNS = frozenset({"price", "prices", "pricing", "balance"})
"""`update_price(product_id, price=...)`, `set_balance(...)`: a write of money or prices, when
a money amount is passed too."""

MONEY_WORDS = frozenset({"amount", "price", "cents", "fee", "total", "cost", "sum", "payment", "refund", "payout"})
"""Words of an argument's name (`amount`, `refund_amount`, `price_cents`) that say it is money."""

DELETION_NEEDS_MODEL_INPUT = True
"""Deletion counts only when what is deleted comes from a parameter the model fills: a tool
that removes its own temporary file is not deleting anything the model chose."""

# ---------------------------------------------------------------------------------------
# What protects a sink inside the tool's own code
# ---------------------------------------------------------------------------------------

APPROVAL_CALLS: Mapping[str, str] = {
    "langgraph:interrupt": "LangGraph `interrupt()`",
    "click:confirm": "`click.confirm`",
    "typer:confirm": "`typer.confirm`",
    "rich:Confirm.ask": "`Confirm.ask`",
    "questionary:confirm": "`questionary.confirm`",
}
"""Calls in a tool's body that stop for a human's decision before what follows."""

APPROVAL_METHODS: Mapping[str, str] = {
    "request_confirmation": "ADK `request_confirmation()`",
    "elicit": "MCP `elicit()`",
    "wait_for_event": "LlamaIndex `wait_for_event()`",
}
"""Methods (on a context the framework passes) that ask a human before the tool goes on."""

APPROVAL_BUILTINS = frozenset({"input"})
"""`input("Send it? [y/N]")`: the operator at the terminal answers."""

APPROVAL_EXCEPTIONS = frozenset({"ApprovalRequired", "CallDeferred"})
"""pydantic-ai: raising one of these defers the call to a human."""

APPROVAL_WIRING_KEYWORDS: Mapping[str, str] = {
    "interrupt_before": "LangGraph `interrupt_before=`",
    "human_input": "CrewAI `human_input=True`",
    "approval_func": "AutoGen `approval_func=`",
}
"""Keywords that, given anything but a false or empty value anywhere in the module, put a
human before the tools run there (a graph compiled with `interrupt_before=["tools"]`, a
task with `human_input=True`)."""

APPROVAL_WIRING_CALLS: Mapping[str, str] = {
    "agent_framework:ToolApprovalMiddleware": "`ToolApprovalMiddleware`",
    "agent_framework:ToolApprovalRule": "`ToolApprovalRule`",
}
"""Constructors whose presence in the module approves its tools (MAF's harness)."""

GUARD_CALL_WORDS = frozenset({
    "permission", "permissions", "permitted", "allowed", "allow", "authorized", "authorised", "authorize",
    "authorise", "admin", "role", "roles", "limit", "limits", "quota", "budget", "policy", "owner", "owns",
    "approved", "eligible", "refundable", "can",
})
"""Words of a called function's name (`has_permission`, `within_limit`, `is_refundable`)
that make an `if` on it a deterministic guard."""

PRESENCE_CALLS = frozenset({
    "isinstance", "issubclass", "len", "hasattr", "bool", "callable", "exists", "is_file", "is_dir", "isfile",
    "isdir", "match", "fullmatch", "search", "strip", "get", "type", "str", "int", "float",
})
"""Calls whose result only says that the input is there or well formed: an `if` on them
validates input, it does not guard the effect."""

# ---------------------------------------------------------------------------------------
# Answering pending approvals (AGL204)
# ---------------------------------------------------------------------------------------

PENDING_APPROVALS: Mapping[str, str] = {
    "user_input_requests": "agent-framework",  # `response.user_input_requests`
    "interruptions": "openai-agents",  # `result.interruptions`
}
"""Attributes of a run's result that hold the approvals it stopped for."""

APPROVAL_ANSWERS = frozenset({
    "to_function_approval_response", "from_function_approval_response", "create_response", "approve", "reject",
})
"""Calls that answer a pending approval (MAF `request.to_function_approval_response(True)`,
OpenAI Agents `state.approve(item)`)."""

RUN_METHODS = frozenset({"run", "run_sync", "run_streamed", "arun", "invoke", "ainvoke", "get_response"})
"""The agent run that sends the answers back (`agent.run(answers, session=session)`,
`Runner.run(agent, state)`)."""

NEW_SESSION_CALLS = frozenset({"create_session", "get_new_thread", "new_session", "AgentSession", "AgentThread"})
"""Calls that make a new session or thread: answers sent in one match no pending request."""

SESSION_KEYWORDS = ("session", "thread")
