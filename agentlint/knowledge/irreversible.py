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
    "chat_postMessage": ("slack_sdk", MESSAGE),
    "sendmail": ("smtplib", MESSAGE),
    "send_message": ("smtplib", MESSAGE),
    "messages.send": ("googleapiclient", MESSAGE),
    "messages.create": ("twilio", MESSAGE),
    "Emails.send": ("resend", MESSAGE),
}
"""Method chains on receivers whose type is not known (`self.client.refunds.create`),
counted only in a file that imports the root named: `messages.create` is a Twilio SMS
in a file that imports `twilio`, and a model call in one that imports `anthropic`."""

SQL_WRITES = ("DELETE", "DROP", "TRUNCATE", "UPDATE", "ALTER")
"""Statements that change or remove data, when a tool executes them (`cursor.execute(
"DELETE FROM ...")`): matched on the first word of the SQL text."""

SQL_EXECUTE_METHODS = frozenset({"execute", "executemany", "executescript", "exec_driver_sql"})

ORM_DELETE_METHODS = frozenset({"delete", "bulk_delete", "delete_many", "delete_one", "drop", "truncate"})
"""Methods that delete records (Django querysets, SQLAlchemy sessions, MongoDB
collections) when called on a database receiver."""

COMMANDS = {
    ("git", "push"): DEPLOY,
    ("git", "reset"): DELETION,
    ("kubectl", "apply"): DEPLOY,
    ("kubectl", "delete"): DELETION,
    ("helm", "install"): DEPLOY,
    ("helm", "upgrade"): DEPLOY,
    ("helm", "uninstall"): DELETION,
    ("terraform", "apply"): DEPLOY,
    ("terraform", "destroy"): DELETION,
    ("rm", "-rf"): DELETION,
    ("rm", "-r"): DELETION,
}
"""Shell commands a tool runs (`subprocess.run(["git", "push", ...])`, `os.system("kubectl
apply -f x")`): the program and its first argument."""

COMMAND_RUNNERS = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen",
     "os.system", "os.popen", "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell"}
)

CLOUD_DELETE_PREFIXES = ("delete_", "terminate_", "destroy_", "purge_")
"""boto3-style client methods (`s3.delete_object`, `ec2.terminate_instances`) on a
receiver built by `boto3.client(...)` / `boto3.resource(...)`."""

PROJECT_MONEY_VERBS = frozenset({"charge", "refund", "payout", "pay", "transfer", "withdraw", "reimburse", "disburse"})
"""A project's own function named `charge_card`, `refund_order`, ... whose parameters
include a money amount is taken for a payment sink."""
