"""Framework and logging knowledge, as data.

Rules ask these tables questions instead of carrying their own lists, so teaching
agentlint about a new logging library or a new tool decorator is adding a row here.
This module imports nothing from agentlint (it sits on the ground floor) and nothing
heavy: the tables are plain tuples and frozensets of strings, and the few helpers
below work on names only, never on syntax trees.
"""

from __future__ import annotations

import re

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
# Tools and guards (a deliberately small first cut; full tool detection comes later)
# ---------------------------------------------------------------------------------------

TOOL_DECORATOR_NAMES = frozenset(
    {
        "tool",
        "function_tool",
        "beta_tool",
        "tool_plain",
        "kernel_function",
        "ai_function",
        "register_for_llm",
    }
)
"""Final segments of decorators that make a function a tool (`@tool`, `@mcp.tool()`,
`@agent.tool_plain`, `@function_tool(...)`)."""

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


def is_tool_decorator(dotted: str) -> bool:
    """`tool`, `mcp.tool`, `agents.function_tool`: matched on the final segment."""
    return dotted.rpartition(".")[2] in TOOL_DECORATOR_NAMES


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
