"""Guards and their verdicts (AGL301): the names, decorators and keywords that make a
function a guard, and the words of a two-valued verdict."""

from __future__ import annotations

from agentlint.knowledge.words import name_parts

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


def is_guard_decorator(dotted: str) -> bool:
    """`input_guardrail`, `agents.output_guardrail`, `tool_input_guardrail`."""
    return dotted.rpartition(".")[2].endswith(GUARD_DECORATOR_SUFFIX)


def is_guard_name(name: str) -> bool:
    """A function named like a guard: `check_input`, `_validate_url`, `input_guard`,
    `is_safe`, `is_url_allowed`. The guard word must lead (a verb) or close (a noun) the
    name, so `serialize_guardrail_payload` is not a guard."""
    words = name_parts(name)
    if not words:
        return False
    if words[0] in GUARD_NAME_VERBS or words[-1] in GUARD_NAME_NOUNS:
        return True
    return words[0] in GUARD_PREDICATE_PREFIXES and any(
        w in GUARD_NAME_PREDICATES for w in words[1:]
    )


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
