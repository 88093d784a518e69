"""AGL201 model-supplied-identifier and AGL202 exception-text-to-model: the tool boundary.

Both read the file's agent model (``facts.agents.model.FileModel``): which defs are tools, and
which of their parameters the model fills (injected context parameters excluded by
annotation, ``Annotated`` marker, dependency default, reserved name, ``partial_params``
or ``functools.partial``). No LibCST parse is needed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Iterator, Sequence

from agentlint.facts.ast_helpers import walk_statements
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.api import ModelRule
from agentlint.rules.catalog.tools import EXCEPTION_TEXT_TO_MODEL, MODEL_SUPPLIED_IDENTIFIER, MONEY_WORDS, SCOPE_WORDS
from agentlint.rules.diagnostics import Diagnostic

ID_WORDS = frozenset({"id", "ids", "uuid", "uuids", "guid", "email", "emails", "username", "login", "number", "no", "num", "key", "phone"})
BARE_SCOPE_NAMES = frozenset({"tenant", "account", "customer", "organisation", "organization", "org", "workspace",
                              "repo", "repository", "vault"})
IDENTITY_NAMES = frozenset({"username", "userid", "uid", "login", "userlogin", "useremail"})
"""Names that are the acting user's identity by themselves (after joining the words:
`username`, `user_name`, `userName`)."""
CONTAINER_NAMES = frozenset({"vault", "tenant", "org", "organization", "organisation", "workspace", "repo", "repository"})
"""`<container>_name` names the container the tool acts in (`vault_name`); a person's
name (`customer_name`) is form data."""
REPO_NAMES = frozenset({"repo", "repository", "repos", "repositories"})
REPO_WORDS = REPO_NAMES | {"github", "gitlab", "bitbucket"}
REPO_PARTS = frozenset({"name", "id", "slug", "full", "owner", "login"})
"""`repo`, `repo_name`, `repo_full_name`, `repo_owner`: the repository scope; and
`owner` is one beside a repository (`create_issue(owner, repo, title)`)."""
ROLE_WORDS = frozenset({"organizer", "organiser", "sender", "from", "owner", "my", "self", "current", "requester",
                        "author", "caller", "acting", "principal"})
"""`organizer_email`, `sender_email`: the acting user's address, named by its role."""
ADDRESS_WORDS = frozenset({"email", "emails", "mail", "address", "mailbox"})
PRINCIPAL_TEXT = lazy_compile(
    r"\b(current|acting|logged[- ]in|authenticated|signed[- ]in|calling) user\b|\buser'?s own\b|\bthe sender\b"
    r"|\byour own\b|\bof the (current )?caller\b|\b(your|my) (email|account|user ?name|user ?id)\b", re.I)
"""A parameter's description that says it is the acting user (the docstring's `Args:`
line, a schema field's `description`)."""
CALCULATOR_WORDS = frozenset({"convert", "conversion", "converter", "calculate", "calculator", "calc", "compute",
                              "estimate", "estimator", "simulate", "simulation", "format", "formatter"})
"""A tool named for a calculation: its amounts are operands, not money that moves.
(`quote` and `exchange` are not here: `execute_exchange(amount)` moves money.)"""
CREATE_WORDS = frozenset({"create", "new", "add", "make", "register", "provision"})
SCOPE_QUALIFIERS = frozenset({
    "from", "to", "source", "src", "target", "dest", "dst", "destination", "sender", "recipient", "payer", "payee",
    "parent", "child", "new", "old", "current", "primary", "secondary", "other", "origin", "beneficiary",
})
"""`from_account`, `target_customer`: a bare scope word named by its role still names the record."""
AMBIGUOUS_MONEY = frozenset({"amount", "credit", "charge", "balance"})
"""Money words that also name plain quantities (`add(value, amount)`, `charge` of a
battery): a parameter named only by them needs money around it (the tool's name or
another parameter speaks of money) to count."""
MONEY_CONTEXT = frozenset({
    "refund", "refunds", "pay", "payment", "payments", "payout", "charge", "transfer", "invoice", "invoices",
    "order", "orders", "purchase", "credit", "debit", "withdraw", "withdrawal", "deposit", "bill", "billing",
    "price", "pricing", "balance", "transaction", "transactions", "wallet", "fund", "funds", "money", "tip",
    "donate", "donation", "currency", "usd", "eur", "cents", "checkout", "cart", "subscription", "loan",
    "account", "bank", "payroll", "salary", "expense", "expenses", "budget", "fee", "fees", "discount", "coupon",
    "reimburse", "reimbursement", "reimbursements", "compensate", "compensation", "bonus", "payoff", "tuition",
})
MONEY_UNITS = frozenset({"usd", "eur", "gbp", "brl", "cents", "cent", "dollars", "value", "total"})
NOT_A_VALUE = frozenset({
    "min", "max", "minimum", "maximum", "range", "limit", "filter", "threshold", "currency", "type", "types",
    "id", "ids", "reason", "status", "policy", "category", "code", "description", "count",
    "level", "tier", "model", "estimate", "estimated", "sort", "order", "per", "function", "functions", "data",
    "percent", "percentage", "pct", "rate", "ratio",
})

_BOUNDARY = lazy_compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|\.")


def _words(name: str) -> list[str]:
    """`customerId` -> [customer, id]; `AINTransfer._arun` -> [ain, transfer, arun]."""
    return [w for w in _BOUNDARY.sub("_", name).lower().split("_") if w]


def classify(
    name: str,
    identifier_words: Sequence[str],
    money_words: Sequence[str],
    strict: bool,
    context: frozenset[str] = frozenset(),
    description: str = "",
    tool: frozenset[str] = frozenset(),
    siblings: frozenset[str] = frozenset(),
) -> str | None:
    """"identifier", "money" or None for a parameter name. ``context`` holds the words
    of the tool's name and of its other parameters, ``tool`` those of its name alone,
    ``siblings`` the names of its other parameters, ``description`` what the tool's
    author says the parameter is."""
    words = _words(name)
    if not words:
        return None
    scope = set(identifier_words)
    if _identifier(name, words, scope, description, tool, siblings):
        return "identifier"
    money = set(money_words)
    if not (NOT_A_VALUE & set(words)) and not (tool & CALCULATOR_WORDS):
        last = words[-1]
        if last in money or (last in MONEY_UNITS and money & set(words[:-1])):
            named = set(words) & money
            if not named <= AMBIGUOUS_MONEY or set(words) & MONEY_CONTEXT - AMBIGUOUS_MONEY or context & MONEY_CONTEXT:
                return "money"
    if strict and words[-1] in ("id", "ids", "uuid", "guid"):
        return "identifier"
    return None


def _is_repo(words: list[str]) -> bool:
    return words[0] in REPO_NAMES and set(words[1:]) <= REPO_PARTS and len(words) <= 3


def _identifier(name: str, words: list[str], scope: set[str], description: str, tool: frozenset[str],
                siblings: frozenset[str]) -> bool:
    joined = "".join(words)
    if name.strip("_").lower() in BARE_SCOPE_NAMES & scope:
        return True
    if words[-1] in BARE_SCOPE_NAMES & scope and len(words) > 1 and set(words[:-1]) <= SCOPE_QUALIFIERS:
        return True
    if scope & set(words) and ID_WORDS & set(words):
        return True
    if "user" in scope and joined in IDENTITY_NAMES:
        return True  # `username`, `user_name`, `login`: the acting user's identity
    if "repo" in scope and _is_repo(words):
        return True  # `repo`, `repo_name`, `repository_full_name`
    if "owner" in scope and words[-1] == "owner" and set(words[:-1]) <= REPO_WORDS and (
            tool & REPO_WORDS or any(_is_repo(_words(s)) for s in siblings if _words(s))):
        return True  # `owner` beside a repository (`create_issue(owner, repo, title)`)
    if len(words) == 2 and words[1] == "name" and words[0] in CONTAINER_NAMES & scope:
        return not (tool & CREATE_WORDS and words[0] in tool)  # `create_workspace(workspace_name)` names a new one
    if words[-1] in ADDRESS_WORDS and len(words) > 1 and set(words[:-1]) - ADDRESS_WORDS <= ROLE_WORDS \
            and set(words[:-1]) - ADDRESS_WORDS:
        return True  # `organizer_email`, `sender_email_address`
    return bool(description) and bool(set(words) & (ID_WORDS | ADDRESS_WORDS)) and bool(PRINCIPAL_TEXT.search(description))


class ModelSuppliedIdentifier(ModelRule):
    meta = MODEL_SUPPLIED_IDENTIFIER

    def check(self) -> Sequence[Diagnostic]:
        identifier_words = self.settings.get("identifier-words", SCOPE_WORDS)
        money_words = self.settings.get("money-words", MONEY_WORDS)
        strict = bool(self.settings.get("strict", False))
        reported: set[tuple[int, int]] = set()
        for tool in self.context.model.tools:
            fact = tool.fact
            tool_words = frozenset(_words(fact.name))
            for param in fact.params:
                if param.injected or (param.line, param.column) in reported:
                    continue  # one schema field shared by `_run` and `_arun` is one finding
                context = set(tool_words)
                for other in fact.params:
                    if other is not param:
                        context.update(_words(other.name))
                kind = classify(param.name, identifier_words, money_words, strict, frozenset(context),
                                tool.descriptions.get(param.name, ""), tool_words,
                                frozenset(p.name for p in fact.params if p is not param))
                if kind is None:
                    continue
                what = (
                    "an identifier that scopes what the tool acts on"
                    if kind == "identifier"
                    else "a monetary value"
                )
                reported.add((param.line, param.column))
                source = "schema property" if fact.schema == "inline" else "schema field" if fact.schema else "parameter"
                message = (f"Tool `{fact.name}` takes `{param.name}` from the model ({source}): {what} must come "
                           "from the turn's context, not from the model")
                mitigation = param.guard or (f"the tool is declared with `{fact.approval}`" if fact.approval else "")
                if mitigation:
                    message += (f"; mitigated ({mitigation}), so a note: the check sees the value, it does not "
                                "make it the turn's own")
                self.report(
                    param.line,
                    param.column,
                    message,
                    end_column=param.column + len(param.name) + (2 if fact.schema == "inline" else 0),
                )
                if mitigation:
                    self.found[-1] = replace(self.found[-1], severity="note")
        return self.found


TEXT_ATTRIBUTES = frozenset({"args", "message", "msg", "detail", "details", "strerror", "reason", "text", "body"})
TRACEBACK_TEXT = frozenset({"format_exc", "format_exception", "format_exception_only", "format_tb", "format_stack"})


class ExceptionTextToModel(ModelRule):
    meta = EXCEPTION_TEXT_TO_MODEL

    def check(self) -> Sequence[Diagnostic]:
        model = self.context.model
        for tool in model.tools:
            node = tool.body_node
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for try_stmt, handler in _handlers(node.body):
                caught = _caught(handler)
                if caught and _own_validation(caught, try_stmt.body, model, node):
                    continue  # the tool's own message, written for the model
                for ret in _returns(handler.body):
                    if ret.value is None:
                        continue
                    carried = _carries_text(ret.value, handler.name, _assigned(handler.body, handler.name))
                    if carried:
                        self.report_node(
                            ret,
                            f"Tool `{tool.fact.name}` returns the exception's text to the model ({carried}); "
                            f"return a closed outcome instead ({_outcome(caught)}) and log the details",
                        )
        return self.found


def _handlers(body: Sequence[ast.stmt]) -> Iterator[tuple[ast.stmt, ast.ExceptHandler]]:
    """The except handlers of a body with their `try`, nested blocks included, nested
    defs excluded."""
    for stmt in walk_statements(body):
        for handler in getattr(stmt, "handlers", ()):
            yield stmt, handler


BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException"})
OUTCOMES = (
    ("limit", ("RateLimit", "Quota", "TooManyRequests", "Throttl")),
    ("unavailable", ("Timeout", "Connection", "HTTP", "Http", "Request", "API", "Api", "Network", "Unavailable",
                     "OSError", "IOError", "Socket", "SSL", "Server", "Service", "Transport", "Protocol")),
    ("invalid_args", ("ValueError", "TypeError", "KeyError", "IndexError", "LookupError", "Validation", "Invalid",
                      "Decode", "Parse", "NotFound", "DoesNotExist", "BadRequest", "Unicode", "Missing")),
)
"""The closed outcome the model should get for an exception, by its name (first match)."""


def _caught(handler: ast.ExceptHandler) -> list[str]:
    """The final names of the exception classes a handler catches ([] for a bare `except`)."""
    if handler.type is None:
        return []
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = []
    for item in types:
        name = item.attr if isinstance(item, ast.Attribute) else item.id if isinstance(item, ast.Name) else ""
        names.append(name)
    return names


def _outcome(caught: list[str]) -> str:
    if not caught or any(c in BROAD_EXCEPTIONS or not c for c in caught):
        return '`{"status": "error"}`, or `"unavailable"` when a dependency failed'
    for outcome, markers in OUTCOMES:
        if all(any(m in c for m in markers) for c in caught):
            return f'`{{"status": "{outcome}"}}` for a `{caught[0]}`'
    return f'`{{"status": "error"}}` for a `{caught[0]}`'


def _own_validation(caught: list[str], body: Sequence[ast.stmt], model, func: ast.AST) -> bool:
    """Does the `try` catch only exceptions that the tool's own code raises with a message
    of its own (`raise ValueError("start must be before end")`, also in a helper of the
    module it calls)? Such a message was written for the model."""
    if any(c in BROAD_EXCEPTIONS or not c for c in caught):
        return False
    raised = _raised(body, model, func, 0, set())
    return all(any(r == c or _derives_from(r, c, model) for r in raised) for c in caught)


def _raised(body: Sequence[ast.stmt], model, func: ast.AST, depth: int, seen: set[int]) -> set[str]:
    """Exception classes raised with a written message (a string or an f-string) in
    ``body``, and in the helpers of the module it calls (two calls deep)."""
    out: set[str] = set()
    for stmt in walk_statements(body):
        if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) and stmt.exc.args and isinstance(
                stmt.exc.args[0], (ast.Constant, ast.JoinedStr)):
            if isinstance(stmt.exc.args[0], ast.JoinedStr) or isinstance(stmt.exc.args[0].value, str):
                exc = stmt.exc.func
                out.add(exc.attr if isinstance(exc, ast.Attribute) else exc.id if isinstance(exc, ast.Name) else "")
    if depth < 2:
        for call, _always in model.calls_in(body):
            helper = model.helper_of(call, func)
            if helper is not None and id(helper) not in seen:
                seen.add(id(helper))
                out |= _raised(helper.body, model, helper, depth + 1, seen)
    return out


def _derives_from(name: str, base: str, model) -> bool:
    """A class of the module deriving from ``base`` (`class BadDate(ValueError)`)."""
    cls = model.classes.get(name)
    for _ in range(4):
        if cls is None:
            return False
        bases = [b.attr if isinstance(b, ast.Attribute) else b.id if isinstance(b, ast.Name) else "" for b in cls.bases]
        if base in bases:
            return True
        cls = next((model.classes[b] for b in bases if b in model.classes), None)
    return False


def _returns(body: Sequence[ast.stmt]) -> Iterator[ast.Return]:
    for stmt in walk_statements(body):
        if isinstance(stmt, ast.Return):
            yield stmt


def _assigned(body: Sequence[ast.stmt], exc: str | None) -> dict[str, str]:
    """Names assigned, in the handler, a value carrying the exception's text."""
    out: dict[str, str] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            carried = _carries_text(stmt.value, exc, out)
            if carried:
                out[stmt.targets[0].id] = carried
    return out


def _is_exc(node: ast.AST, exc: str | None) -> bool:
    return exc is not None and isinstance(node, ast.Name) and node.id == exc


def _carries_text(expr: ast.AST, exc: str | None, tainted: dict[str, str]) -> str | None:
    """How ``expr`` carries the text of exception ``exc`` (a short description), or None."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id in tainted and node.id != exc:
            return tainted[node.id]
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in ("str", "repr", "format") and node.args and _is_exc(node.args[0], exc):
                return f"`{name}({exc})`"
            if name in TRACEBACK_TEXT:
                return f"`traceback.{name}()`"
            if name == "format" and isinstance(func, ast.Attribute):
                values = [*node.args, *(k.value for k in node.keywords)]
                if any(_is_exc(v, exc) for v in values):
                    return f"`.format(...{exc}...)`"
            if name == "__str__" and isinstance(func, ast.Attribute) and _is_exc(func.value, exc):
                return f"`{exc}.__str__()`"
        elif isinstance(node, ast.FormattedValue) and (
            _is_exc(node.value, exc)
            or (isinstance(node.value, ast.Attribute) and _is_exc(node.value.value, exc)
                and node.value.attr in TEXT_ATTRIBUTES)
        ):
            return f"`{{{exc}}}` in an f-string"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            right = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            if any(_is_exc(v, exc) for v in right):
                return f"`% {exc}`"
        elif isinstance(node, ast.Attribute) and _is_exc(node.value, exc) and node.attr in TEXT_ATTRIBUTES:
            return f"`{exc}.{node.attr}`"
    return None
