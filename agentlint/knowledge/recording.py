"""What records a failure: broad exception types, logging, error reporting, tracing and
metrics (AGL302 asks these tables whether an `except` block records what it caught).

Like every module of this package it imports nothing heavy and nothing of ours but its
siblings: the tables are plain tuples and frozensets of strings, and the helpers work on
names only, never on syntax trees.
"""

from __future__ import annotations

from agentlint.knowledge.words import name_words

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
