"""Metadata and documentation of AGL302 silent-broad-except (its check is in
``silent_broad_except``)."""

from __future__ import annotations

from agentlint.knowledge import recording
from agentlint.rules.diagnostics import RuleMeta

_DOCS_302 = """\
## What it does
Flags a broad exception handler — a bare `except:`, `except Exception` or
`except BaseException` (also inside a tuple such as `except (ValueError, Exception)`,
and `except*` handlers) — whose body lets the failure vanish. A handler is accepted as
soon as its body does any one of these:

- **raises**, in any form: `raise`, `raise e`, `raise ToolError(...) from e`, or ends
  the process (`sys.exit(...)`, `pytest.fail(...)`);
- **records the failure**: a logging call at any level (`logging.warning(...)`,
  `logger.exception(...)`, `self._log.debug(...)`, `structlog` and `loguru` loggers,
  any call with `exc_info=`), `warnings.warn(...)`, `traceback.print_exc()` or
  `traceback.format_exc()`, a write to `sys.stderr` (also `print(..., file=sys.stderr)`),
  an error-reporting SDK (`sentry_sdk.capture_exception`, `rollbar.report_exc_info`,
  `bugsnag.notify`, ...), a span call (`span.record_exception(e)`,
  `span.set_status(...)`, `span.add_event(...)`), a metric or counter
  (`counter.inc()`, `metrics.increment(...)`, `statsd.incr(...)`,
  `error_counter.add(1)`, `errors += 1`, `stats["failures"] += 1`), a call to a
  function named for reporting (`log_error(...)`, `self._report_failure()`), or a
  callable listed in `reporter-callables`;
- **passes the failure on**: returns or yields the exception, stores it
  (`self.error = e`, `errors.append(e)`, `result = {"error": str(e)}`), hands it to a
  call (`future.set_exception(e)`, `self._fail(e)`, `Result(error=e)`,
  `print(f"fetch failed: {e}")`), records that the operation failed
  (`self.failed = True`, `result["error"] = ...`), or returns, stores or passes a value
  that states the failure (`return "failed"`, `return {"error": "search unavailable"}`,
  `click.secho("Could not save settings", fg="red")`).

What happens inside a function, class or lambda *defined* in the handler does not
count: defining a callback that would log is not logging. What happens in a nested
`try` inside the handler does count, even in its own `except` clause: the rule gives
the benefit of the doubt to a handler that records anything. Passing the exception only
to `isinstance`, `str`, `repr` and similar look-only builtins does not count, and a
plain `print("...")` that neither shows the exception nor says that something failed
does not count either. Narrow handlers (`except ValueError`,
`except (KeyError, TypeError)`) are never flagged.

When the handler is inside a tool (a function decorated with `@tool`,
`@function_tool`, `@mcp.tool()`, ...) or a guard (decorated with
`@input_guardrail`-style decorators, or named like `check_*`, `validate_*`,
`verify_*`, `*_guard`, `is_safe*`, ...), the message says so: that is where a swallowed
failure most often turns into "approved" or into an empty answer the model trusts.

## Why is this bad?
Failing open — carrying on when a step breaks — is often the right call in an agent:
one broken enrichment step should not end the conversation. But a failure that nobody
records cannot be counted, alerted on or debugged. A guard that silently returns
"allowed" when its check crashes looks exactly like a guard that approved; a tool that
silently returns an empty result looks like a search that found nothing. Fail-open is
allowed; fail-open that nobody can count is a bug.

Compared with ruff's `BLE001`, this rule also covers bare `except:` and accepts any
recorded escape (a metric, a span, an error reporter, the exception stored or passed
on), so it flags fewer handlers that are in fact instrumented and more that are in fact
silent.

## Example
```python
@function_tool
def search_orders(query: str) -> list[Order]:
    try:
        return backend.search(query)
    except Exception:
        return []
```

## Use instead
Record the escape and keep failing open:
```python
@function_tool
def search_orders(query: str) -> list[Order]:
    try:
        return backend.search(query)
    except Exception:
        logger.exception("order search failed; answering with no orders")
        SEARCH_FAILURES.inc()
        return []
```
or re-raise, pass the exception on (`return ToolResult(error=e)`), or catch only the
exception you expect (`except TimeoutError:`).

## Fix safety
No fix: only the author knows whether the failure should be re-raised, logged,
counted or narrowed.

## Configuration
- `logger-objects` (list of strings, default
  `["log", "logger", "_log", "_logger", "LOG", "LOGGER", "_LOG", "_LOGGER", "logging"]`):
  names of logger objects; any method call on such a receiver counts as recording
  (`audit.emit(...)` with `"audit"` listed; a dotted entry such as `"self.audit"` must
  match the whole receiver). Setting it replaces the default list. Receivers whose name
  contains the word `log` or `logger` (`self._request_logger`, `audit_log`) are
  recognised at the usual logging levels whatever this list says.
- `reporter-callables` (list of strings, default `[]`): your own reporting functions.
  A dotted name (`"myapp.telemetry.report_error"`) is matched after resolving the
  module's imports, so `from myapp import telemetry; telemetry.report_error(...)` and
  `from myapp.telemetry import report_error as rep; rep(...)` both count. A bare name
  (`"notify_ops"`) matches any call whose final name is that name
  (`notify_ops(...)`, `self.notify_ops(...)`).

```toml
[tool.agentlint.rules.AGL302]
logger-objects = ["log", "logger", "_logger", "LOGGER", "audit"]
reporter-callables = ["myapp.telemetry.report_error", "notify_ops"]
```

## Standard
Enforces the guardrails standard, section "When the guard cannot decide": it accepts
failing open on one hard condition, that the escape is recorded and never silent,
because without the record a fail-open path cannot be told apart from a bug. Its
checklist asks that every fail-open path records the escape in a counter or a span,
and its list of anti-patterns names the silent fail-open (in the project it studied, 81
of 83 `catch (Exception ex)` blocks never read `ex`), to be replaced by a recorded one.
"""

SILENT_BROAD_EXCEPT = RuleMeta(
    code="AGL302",
    name="silent-broad-except",
    summary=(
        "A broad `except` (bare, `Exception` or `BaseException`) lets the failure "
        "vanish: nothing re-raises, records or passes on the exception."
    ),
    docs=_DOCS_302,
    help=(
        "Re-raise it, log it (`logger.exception(...)`), count it (a metric or span), "
        "pass the exception on, or catch a narrower exception type."
    ),
    settings={
        "logger-objects": list(recording.DEFAULT_LOGGER_OBJECTS),
        "reporter-callables": [],
    },
)
