"""Framework and logging knowledge, as data.

Rules ask these tables questions instead of carrying their own lists, so teaching
agentlint about a new logging library or a new tool decorator is adding a row here.
This module imports nothing from agentlint (it sits on the ground floor) and nothing
heavy: the tables are plain tuples and frozensets of strings, and the few helpers
below work on names only, never on syntax trees.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# ---------------------------------------------------------------------------------------
# Exceptions
# ---------------------------------------------------------------------------------------

BROAD_EXCEPTIONS = frozenset(
    {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"}
)
"""Qualified names of the exception classes that catch (nearly) everything."""

# ---------------------------------------------------------------------------------------
# Recording a failure: logging, error reporting, tracing, metrics
# ---------------------------------------------------------------------------------------

RECORDING_MODULES = (
    # logging libraries: any call into them records something
    "logging",
    "structlog",
    "loguru",
    "logfire",
    "logbook",
    "eliot",
    "absl.logging",
    "twisted.logger",
    "warnings.warn",
    "warnings.warn_explicit",
    # printing or formatting the active traceback
    "traceback",
    "sys.exc_info",
    "sys.exception",
    "sys.excepthook",
    "sys.stderr",
    "sys.__stderr__",
    # error-reporting SDKs
    "sentry_sdk",
    "raven",
    "rollbar",
    "bugsnag",
    "honeybadger",
    "airbrake",
    "newrelic.agent",
    "posthog.capture_exception",
    # tracing and metrics
    "opentelemetry",
    "ddtrace",
    "datadog",
    "statsd",
    "prometheus_client",
    "aws_xray_sdk",
)
"""Dotted prefixes (matched after import resolution): a call to one of these, or to a
method on something they return, records the failure."""

PROCESS_EXITS = frozenset(
    {
        "sys.exit",
        "exit",
        "quit",
        "os._exit",
        "os.abort",
        "pytest.fail",
        "pytest.skip",
        "pytest.xfail",
        "pytest.exit",
        "flask.abort",
        "six.reraise",
        "future.utils.raise_from",
    }
)
"""Calls that end the process or raise: a handler that makes one does not swallow."""

LOGGER_METHODS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "fatal",
        "log",
        "msg",
        "trace",
        "success",
        "notice",
        "alert",
        "emergency",
        "failure",
        "err",
    }
)
"""Level methods of loggers (stdlib, loguru, structlog, logbook, twisted)."""

ERROR_LEVEL_METHODS = frozenset({"error", "exception", "critical", "fatal", "warning", "warn"})
"""Methods that report a problem whatever the receiver is (a logger under another name,
`st.error`, `console.warning`, an MCP `ctx.error`), when called with an argument."""

DEFAULT_LOGGER_OBJECTS = (
    "log",
    "logger",
    "_log",
    "_logger",
    "LOG",
    "LOGGER",
    "_LOG",
    "_LOGGER",
    "logging",
)
"""Default `logger-objects` of AGL302: receivers whose every method call records."""

LOGGER_NAME_WORDS = frozenset({"log", "logs", "logger", "loggers", "logging", "journal"})
"""A receiver with one of these words in its name (`self._log`, `audit_logger`,
`LOG`, `request_log`) is taken to be a logger."""

RECORDING_METHODS = frozenset(
    {
        # error-reporting SDKs (often reached through a client object)
        "capture_exception",
        "capture_message",
        "capture_event",
        "captureException",
        "captureMessage",
        "report_exc_info",
        "report_exception",
        "notice_error",
        "record_error",
        # spans
        "record_exception",
        "set_status",
        "add_event",
        "set_error",
        # metrics and counters
        "inc",
        "incr",
        "increment",
        "incr_counter",
        "increment_counter",
    }
)
"""Methods that record a failure whatever their receiver is."""

COUNTER_NAME_WORDS = frozenset(
    {
        "err",
        "errs",
        "error",
        "errors",
        "fail",
        "fails",
        "failed",
        "failure",
        "failures",
        "count",
        "counts",
        "counter",
        "counters",
        "miss",
        "misses",
        "missed",
        "metric",
        "metrics",
        "stats",
        "statsd",
        "skipped",
        "dropped",
        "rejected",
    }
)
"""Words that make a name counter-like: `errors += 1`, `self.fail_count += 1`,
`stats["errors"] += 1`, `failure_counter.add(1)`."""

FAILURE_STATE_WORDS = frozenset(
    {
        "err",
        "error",
        "errors",
        "exc",
        "exception",
        "exceptions",
        "fail",
        "failed",
        "failure",
        "failures",
    }
)
"""An assignment to a name with one of these words (`self.error = ...`,
`failed = True`) stores the fact of the failure for someone to read."""

REPORTING_CALL_WORDS = frozenset(
    {
        "log",
        "logs",
        "logger",
        "logging",
        "warn",
        "warning",
        "warnings",
        "error",
        "errors",
        "exception",
        "exceptions",
        "fail",
        "failure",
        "failed",
        "invalid",
        "alert",
        "report",
        "capture",
        "record",
        "trace",
        "notify",
        "emit",
        "metric",
        "metrics",
        "telemetry",
        "stderr",
    }
)
"""Words that make a function a reporter when it is called by name in a handler:
`log_error(...)`, `self._report_failure()`, `_handle_exception()`, `record_metric()`,
`task.increment_tools_errors()`, `add_chunk_to_invalid_tool_calls(chunk)`."""

PURE_BUILTINS = frozenset(
    {
        "isinstance",
        "issubclass",
        "hasattr",
        "getattr",
        "type",
        "str",
        "repr",
        "len",
        "id",
        "bool",
        "format",
        "hash",
        "vars",
        "dir",
    }
)
"""Builtins that only look at a value: passing the caught exception to one of them
does not, by itself, pass the exception on."""

# ---------------------------------------------------------------------------------------
# Guards (tools are in frameworks.py)
# ---------------------------------------------------------------------------------------

GUARD_DECORATOR_SUFFIX = "guardrail"
"""`@input_guardrail`, `@output_guardrail`, `@tool_input_guardrail`, ..."""

GUARD_NAME_VERBS = frozenset(
    {
        "guard",
        "validate",
        "verify",
        "check",
        "moderate",
        "authorize",
        "authorise",
        "permit",
        "allow",
        "enforce",
    }
)
"""A function whose name starts with one of these verbs is a guard by its name
(`check_input`, `_validate_url`, `verify_signature`)."""

GUARD_NAME_NOUNS = frozenset({"guard", "guardrail", "check", "validator", "policy", "moderation"})
"""... or ends with one of these nouns (`input_guard`, `pii_guardrail`, `safety_check`)."""

GUARD_NAME_PREDICATES = frozenset(
    {"safe", "allowed", "permitted", "authorized", "authorised", "blocked", "forbidden"}
)
"""... or asks one of these questions (`is_safe`, `is_url_allowed`, `can_be_permitted`)."""

GUARD_PREDICATE_PREFIXES = frozenset({"is", "can", "may"})


# ---------------------------------------------------------------------------------------
# Name helpers
# ---------------------------------------------------------------------------------------

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> frozenset[str]:
    """The lower-case words of an identifier: `_reportFailure_v2` -> {report, failure, v2}."""
    words = _CAMEL_BOUNDARY.sub("_", name).lower().split("_")
    return frozenset(w for w in words if w)


def has_module_prefix(dotted: str, prefixes: tuple[str, ...] = RECORDING_MODULES) -> bool:
    """True when ``dotted`` is one of ``prefixes`` or lies under one (`logging.error`)."""
    for prefix in prefixes:
        if dotted == prefix or (dotted.startswith(prefix) and dotted[len(prefix)] == "."):
            return True
    return False


def is_logger_name(name: str) -> bool:
    """`logger`, `self._log` (pass the last segment), `LOG`, `audit_logger`."""
    words = name_words(name)
    if words & LOGGER_NAME_WORDS:
        return True
    lowered = name.lower()
    return lowered.endswith("logger") or lowered.endswith("_log")


def is_guard_decorator(dotted: str) -> bool:
    """`input_guardrail`, `agents.output_guardrail`, `tool_input_guardrail`."""
    return dotted.rpartition(".")[2].endswith(GUARD_DECORATOR_SUFFIX)


def is_guard_name(name: str) -> bool:
    """A function named like a guard: `check_input`, `_validate_url`, `input_guard`,
    `is_safe`, `is_url_allowed`. The guard word must lead (a verb) or close (a noun) the
    name, so `serialize_guardrail_payload` is not a guard."""
    words = [w for w in _CAMEL_BOUNDARY.sub("_", name).lower().split("_") if w]
    if not words:
        return False
    if words[0] in GUARD_NAME_VERBS or words[-1] in GUARD_NAME_NOUNS:
        return True
    return words[0] in GUARD_PREDICATE_PREFIXES and any(
        w in GUARD_NAME_PREDICATES for w in words[1:]
    )


# ---------------------------------------------------------------------------------------
# Microsoft Agent Framework (Python): pre-GA names (AGL601, AGL602)
#
# Checked against the agent-framework-core wheels 1.0.0b260107, b260114, b260116,
# b260123, b260127, b260128, b260130, b260210, b260212 and 1.23.0: each "version" below
# is the first wheel with the new name (the old one is gone from it unless said).
# ---------------------------------------------------------------------------------------

MAF_PACKAGE = "agent_framework"
"""The import root of Microsoft Agent Framework (Python)."""


class RenamedName(NamedTuple):
    """A module-level name of `agent_framework` that was renamed or removed."""

    old: str
    new: str | None
    """The one-to-one replacement (importable from `agent_framework`), or None."""
    version: str
    """The first agent-framework-core version with the new API."""
    change: str
    """Where the change is recorded (a PR number, or how it was established)."""
    code: str
    safe: bool = True
    """Whether renaming is a pure rename (ruff's "safe": no behaviour change)."""
    calls: bool = True
    """Whether a call of the old name can be renamed too (same constructor)."""
    hint: str = ""
    """What to use instead, for the message when there is no one-to-one rename."""


class ContentClass(NamedTuple):
    """A pre-GA content class folded into `Content` (1.0.0b260123, PR #3252)."""

    old: str
    type: str
    """`Content.type` of the same content."""
    factory: str | None
    """The `Content` class method that builds it, or None when there is no mechanical
    translation of the old constructor."""
    positional: tuple[str, ...]
    """The old constructor's positional parameters, in order."""
    factory_positional: tuple[str, ...]
    """The factory's positional parameters, in order."""
    factory_keywords: frozenset[str]
    """Every parameter the factory accepts by keyword."""
    renamed_parameters: tuple[tuple[str, str], ...] = ()
    """Old keyword -> factory keyword, where the name changed."""
    code: str = "AGL602"


_CONTENT_COMMON = frozenset({"annotations", "additional_properties", "raw_representation"})


def _content(old, type_, factory, positional, factory_positional, keywords, renamed=(), code="AGL602"):
    return ContentClass(
        old,
        type_,
        factory,
        tuple(positional),
        tuple(factory_positional),
        frozenset(keywords) | frozenset(factory_positional) | _CONTENT_COMMON,
        tuple(renamed),
        code,
    )


MAF_CONTENT_CLASSES: dict[str, ContentClass] = {
    c.old: c
    for c in (
        _content(
            "FunctionApprovalRequestContent", "function_approval_request",
            "from_function_approval_request", (), ("id", "function_call"), (), code="AGL601",
        ),
        _content(
            "FunctionApprovalResponseContent", "function_approval_response",
            "from_function_approval_response", ("approved",), ("approved", "id", "function_call"), (),
            code="AGL601",
        ),
        _content("TextContent", "text", "from_text", ("text",), ("text",), ()),
        _content(
            "TextReasoningContent", "text_reasoning", "from_text_reasoning", ("text",), (),
            ("text", "protected_data"),
        ),
        _content("DataContent", "data", None, (), (), ()),
        _content("UriContent", "uri", "from_uri", ("uri", "media_type"), ("uri",), ("media_type",)),
        _content(
            "ErrorContent", "error", "from_error", (), (), ("message", "error_code", "error_details"),
            renamed=(("details", "error_details"),),
        ),
        _content(
            "FunctionCallContent", "function_call", "from_function_call", (), ("call_id", "name"),
            ("arguments", "exception"),
        ),
        _content(
            "FunctionResultContent", "function_result", "from_function_result", (), ("call_id",),
            ("result", "exception"),
        ),
        _content(
            "UsageContent", "usage", "from_usage", ("details",), ("usage_details",), (),
            renamed=(("details", "usage_details"),),
        ),
        _content(
            "HostedFileContent", "hosted_file", "from_hosted_file", ("file_id",), ("file_id",),
            ("media_type", "name"),
        ),
        _content(
            "HostedVectorStoreContent", "hosted_vector_store", "from_hosted_vector_store",
            ("vector_store_id",), ("vector_store_id",), (),
        ),
        _content(
            "CodeInterpreterToolCallContent", "code_interpreter_tool_call",
            "from_code_interpreter_tool_call", (), (), ("call_id", "inputs"),
        ),
        _content(
            "CodeInterpreterToolResultContent", "code_interpreter_tool_result",
            "from_code_interpreter_tool_result", (), (), ("call_id", "outputs"),
        ),
        _content(
            "ImageGenerationToolCallContent", "image_generation_tool_call",
            "from_image_generation_tool_call", (), (), ("image_id",),
        ),
        _content(
            "ImageGenerationToolResultContent", "image_generation_tool_result",
            "from_image_generation_tool_result", (), (), ("image_id", "outputs"),
        ),
        _content(
            "MCPServerToolCallContent", "mcp_server_tool_call", "from_mcp_server_tool_call",
            ("call_id", "tool_name", "server_name"), ("call_id", "tool_name"), ("server_name", "arguments"),
        ),
        _content(
            "MCPServerToolResultContent", "mcp_server_tool_result", "from_mcp_server_tool_result",
            ("call_id",), ("call_id",), ("output",),
        ),
    )
}
"""The content classes removed by "[BREAKING] Simplify content types to a single class
with classmethod constructors" (PR #3252, 1.0.0b260123). Signatures from the
1.0.0b260116 classes and the 1.0.0b260123 / 1.23.0 `Content` class methods."""

MAF_CONTENT_VERSION = "1.0.0b260123"
MAF_CONTENT_CHANGE = "PR #3252"

_HOSTED_TOOLS = (
    ("HostedCodeInterpreterTool", "get_code_interpreter_tool"),
    ("HostedWebSearchTool", "get_web_search_tool"),
    ("HostedFileSearchTool", "get_file_search_tool"),
    ("HostedMCPTool", "get_mcp_tool"),
    ("HostedImageGenerationTool", "get_image_generation_tool"),
)

MAF_RENAMED_NAMES: dict[str, RenamedName] = {
    r.old: r
    for r in (
        RenamedName("AgentRunResponse", "AgentResponse", "1.0.0b260114", "PR #3207", "AGL602"),
        RenamedName("AgentRunResponseUpdate", "AgentResponseUpdate", "1.0.0b260114", "PR #3207", "AGL602"),
        RenamedName("ai_function", "tool", "1.0.0b260128", "PR #3413", "AGL602"),
        RenamedName("AIFunction", "FunctionTool", "1.0.0b260128", "PR #3413", "AGL602"),
        RenamedName("ChatAgent", "Agent", "1.0.0b260210", "PR #3747", "AGL602"),
        RenamedName("RawChatAgent", "RawAgent", "1.0.0b260210", "PR #3747", "AGL602"),
        RenamedName("ChatMessage", "Message", "1.0.0b260210", "PR #3747", "AGL602"),
        RenamedName("ChatClientProtocol", "SupportsChatGetResponse", "1.0.0b260210", "PR #3747", "AGL602"),
        RenamedName("AgentRunContext", "AgentContext", "1.0.0b260210", "PR #3714", "AGL602"),
        RenamedName("AgentProtocol", "SupportsAgentRun", "1.0.0b260210", "PR #3717", "AGL602"),
        RenamedName(
            "AgentThread", "AgentSession", "1.0.0b260212", "PR #3763, #3850", "AGL602",
            safe=False, calls=False,
            hint="`AgentSession` (from `agent.create_session()`) replaces it, with a different API",
        ),
        *(
            RenamedName(
                old, None, "1.0.0b260210", "PR #3634", "AGL602",
                hint=f"call `client.{method}()` on the chat client instead",
            )
            for old, method in _HOSTED_TOOLS
        ),
    )
}
"""Module-level names of `agent_framework` renamed before or at GA (frameworks.md (d.3))."""

MAF_OLD_ENUMS: dict[str, tuple[dict[str, str], str, str]] = {
    "Role": (
        {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant", "TOOL": "tool"},
        "1.0.0b260210",
        "wheels: 1.0.0b260130 still has the class",
    ),
    "FinishReason": (
        {"CONTENT_FILTER": "content_filter", "LENGTH": "length", "STOP": "stop", "TOOL_CALLS": "tool_calls"},
        "1.0.0b260210",
        "wheels: 1.0.0b260130 still has the class",
    ),
}
"""Enum-like classes whose members became plain strings (`Role = NewType("Role", str)`):
`Role.USER` no longer exists; the value is `"user"`."""


class RenamedMethod(NamedTuple):
    """A method of agent-framework agents or chat clients that was renamed or folded."""

    old: str
    new: str
    version: str
    change: str
    receiver: str
    """`agent`, `client` or `approval_request`: what the method is called on."""
    stream: bool = False
    """The new call needs `stream=True`."""
    safe: bool = True
    distinctive: bool = False
    """No other framework has a method of this name: flag it when the receiver is not
    known, as long as the module imports agent_framework."""
    arguments: bool = True
    """Whether a call with arguments can be renamed as it is."""


MAF_RENAMED_METHODS: dict[str, RenamedMethod] = {
    m.old: m
    for m in (
        RenamedMethod("create_agent", "as_agent", "1.0.0b260116", "PR #3249", "client"),
        RenamedMethod(
            "run_stream", "run", "1.0.0b260210", "PR #3379, #3720", "agent", stream=True, safe=False
        ),
        RenamedMethod(
            "get_streaming_response", "get_response", "1.0.0b260210", "PR #3379, #3720", "client",
            stream=True, safe=False, distinctive=True,
        ),
        RenamedMethod(
            "get_new_thread", "create_session", "1.0.0b260212", "PR #3763, #3850", "agent",
            safe=False, distinctive=True, arguments=False,
        ),
        RenamedMethod(
            "create_response", "to_function_approval_response", MAF_CONTENT_VERSION, MAF_CONTENT_CHANGE,
            "approval_request",
        ),
    )
}

MAF_AGENT_CLASSES = frozenset({"ChatAgent", "RawChatAgent", "Agent", "RawAgent"})
"""Agent constructors whose `chat_client=` keyword became `client=` (1.0.0b260210)."""

MAF_AGENT_TYPES = frozenset(
    {"ChatAgent", "RawChatAgent", "Agent", "RawAgent", "BaseAgent", "AgentProtocol", "SupportsAgentRun"}
)
"""Annotations that make a parameter an agent-framework agent."""

MAF_RENAMED_KEYWORDS = {
    "chat_client": ("client", "1.0.0b260210", "seen in the wheels; same release as PR #3747"),
    "thread": ("session", "1.0.0b260212", "PR #3763, #3850"),
    "text": ("contents", "1.0.0", "PR #5062"),
}
"""Keyword arguments renamed: `chat_client=` on the agent constructors, `thread=` on
`agent.run(...)` / `agent.run_stream(...)`, `text=` on `ChatMessage(...)` /
`Message(...)` (removed at GA: `contents=[text]`)."""

MAF_MESSAGE_CLASSES = frozenset({"ChatMessage", "Message"})

MAF_APPROVAL_REQUEST = "FunctionApprovalRequestContent"
MAF_APPROVAL_COLLECTION = "user_input_requests"
"""`response.user_input_requests` lists the approval requests (pre-GA and GA alike)."""


def maf_renamed_name(qualified: str) -> str | None:
    """The old name when ``qualified`` is a renamed module-level name of
    `agent_framework` (`agent_framework.ChatAgent`, `agent_framework._agents.ChatAgent`)."""
    head, _, rest = qualified.partition(".")
    if head != MAF_PACKAGE or not rest:
        return None
    *modules, name = rest.split(".")
    if any(not m.replace("_", "").islower() for m in modules if m):
        return None  # `agent_framework.ChatAgent.x`: an attribute of a class, not a module
    if name in MAF_RENAMED_NAMES or name in MAF_CONTENT_CLASSES or name in MAF_OLD_ENUMS:
        return name
    return None


# ---------------------------------------------------------------------------------------
# Guard verdicts (AGL301)
# ---------------------------------------------------------------------------------------

GUARD_KEYWORDS = frozenset(
    {
        "guardrail",
        "guardrails",
        "input_guardrails",
        "output_guardrails",
        "tool_input_guardrails",
        "tool_output_guardrails",
        "final_answer_checks",
    }
)
"""Keyword arguments that take guard functions: CrewAI `Task(guardrail=fn,
guardrails=[...])`, OpenAI Agents `Agent(input_guardrails=[...])`, smolagents
`CodeAgent(final_answer_checks=[fn])`."""

BINARY_VERDICT_TYPES = frozenset({"GuardrailFunctionOutput"})
"""Result types whose verdict is one bool (`tripwire_triggered`)."""

BOOL_RESULT_NAMES = frozenset(
    {
        "flagged",
        "tripwire_triggered",
        "validation_passed",
        "approved",
        "allowed",
        "permitted",
        "passed",
        "valid",
        "safe",
        "blocked",
        "ok",
    }
)
"""Attribute or variable names that hold a bool verdict (`resp.results[0].flagged`)."""

BOOL_PREFIXES = ("is_", "has_", "can_", "should_")
"""Names with these prefixes are taken to hold or return a bool."""

BOOL_METHODS = frozenset(
    {
        "startswith",
        "endswith",
        "isdigit",
        "isalpha",
        "isalnum",
        "isspace",
        "islower",
        "isupper",
        "isnumeric",
        "isdecimal",
        "isidentifier",
        "issubset",
        "issuperset",
        "isdisjoint",
        "is_file",
        "is_dir",
        "exists",
    }
)
"""Methods that return a bool."""

BOOL_BUILTINS = frozenset({"bool", "isinstance", "issubclass", "hasattr", "callable", "any", "all"})

REJECT_WORDS = frozenset(
    {
        "blocked",
        "block",
        "forbidden",
        "unsafe",
        "violation",
        "violates",
        "flagged",
        "flag",
        "toxic",
        "injection",
        "jailbreak",
        "malicious",
        "harmful",
        "tripwire",
        "triggered",
        "denied",
        "deny",
        "reject",
        "rejected",
    }
)
"""Words in a guard's name that make `True` mean "reject" (`is_blocked`,
`detect_injection`), so a message can say which way a failure is folded."""

EVALUATION_FAILURE_STEMS = (
    "timeout",
    "connect",
    "http",
    "api",
    "request",
    "network",
    "ratelimit",
    "rate_limit",
    "service",
    "unavailable",
    "server",
    "client",
    "oserror",
    "ioerror",
    "runtimeerror",
    "openai",
    "anthropic",
    "moderation",
)
"""Stems in an exception's dotted name (lower-cased) that say the evaluation itself failed (the model, the
network or the service), as opposed to the input being invalid (`ValueError`,
`JSONDecodeError`)."""

GUARD_PROBE_WORDS = frozenset(
    {
        "exists",
        "exist",
        "support",
        "supported",
        "supports",
        "version",
        "versions",
        "enabled",
        "enable",
        "disabled",
        "ready",
        "installed",
        "install",
        "available",
        "availability",
        "health",
        "healthy",
        "connection",
        "connected",
        "connectivity",
        "cluster",
        "capability",
        "capabilities",
        "eligibility",
        "eligible",
        "windows",
        "reload",
        "authenticated",
        "stop",
        "wait",
        "increment",
        "file",
        "folder",
        "directory",
        "dir",
        "condition",
        "constants",
        "tolerated",
        "deprecated",
        "legacy",
        "env",
        "environment",
        "platform",
        "dependency",
        "dependencies",
        "package",
        "running",
        "alive",
        "closed",
        "open",
        "done",
        "finished",
        "complete",
        "completed",
        "empty",
        "changed",
        "dirty",
        "cache",
        "cached",
        "error",
        "errors",
    }
)
"""Words that make a guard-like name a probe of state or capability rather than a guard
(`check_index_exists`, `_check_native_tool_support`, `health_check`,
`check_handoff_enabled`): such names are not guards by their name alone."""

GENERIC_GUARD_NAMES = frozenset(
    {"check", "validate", "verify", "guard", "policy", "allow", "permit", "enforce", "moderate", "authorize", "authorise"}
)
"""Names that are nothing but a guard word: a guard only as a method of a guard-like
class (`class InputGuard: def check(self, text)`), or when decorated or passed as one."""

GUARD_CLASS_WORDS = frozenset(
    {
        "guard",
        "guardrail",
        "guardrails",
        "validator",
        "verifier",
        "checker",
        "policy",
        "moderation",
        "moderator",
        "filter",
        "sanitizer",
        "firewall",
        "shield",
    }
)
"""Words in a class name that make its generically named methods guards."""
