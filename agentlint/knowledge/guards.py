"""Guards and their verdicts, as data: the names, decorators and keywords that make a
function a guard, the shapes of a two-valued verdict, and the calls whose evaluation can
fail (AGL301); the guard-name test behind AGL302's "inside guard `x`".

Like every module of this package it holds tables of strings and helpers on names, never
syntax trees.
"""

from __future__ import annotations

from agentlint.knowledge.words import name_parts

# ---------------------------------------------------------------------------------------
# The guard-name test (AGL302's messages; one of AGL301's signals)
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
# AGL301: what makes a function a guard
# ---------------------------------------------------------------------------------------

VERDICT_VERBS = GUARD_NAME_VERBS | frozenset(
    {
        "authenticate",
        "approve",
        "screen",
        "scan",
        "vet",
        "grade",
        "judge",
        "evaluate",
        "assess",
        "analyze",
        "analyse",
        "test",
        "detect",
    }
)
"""First words that make a function with a two-valued verdict a guard (`grade_answer`,
`verify_api_key`, `test_authentication`; `test_*` in test code is skipped by path)."""

VERDICT_NOUNS = GUARD_NAME_NOUNS | frozenset(
    {"checker", "verifier", "grader", "judge", "filter", "moderator", "gate", "gatekeeper", "guardrails",
     "detector", "classifier", "scanner", "screener", "evaluator", "critic", "reviewer"}
)
"""Last words that do the same (`relevance_grader`, `content_filter`, `pii_detector`)."""

VERDICT_PREDICATE_PREFIXES = frozenset(
    {"is", "has", "can", "should", "may", "needs", "requires", "contains", "exceeds", "violates"}
)
"""A predicate (`is_admin_user`, `has_access`, `needs_review`, `contains_pii`) is a guard
when its verdict is two-valued; its evaluation still has to be fallible to be reported."""

VERDICT_LAST_WORDS = frozenset(
    {
        "allowed",
        "permitted",
        "authorized",
        "authorised",
        "approved",
        "safe",
        "unsafe",
        "valid",
        "invalid",
        "blocked",
        "forbidden",
        "harmful",
        "toxic",
        "compliant",
        "relevant",
        "grounded",
        "flagged",
        "passed",
    }
)
"""Last words of a name that asks a guard's question (`tool_allowed`, `answer_grounded`)."""

GATE_ONLY_WORDS = frozenset(
    {"enabled", "available", "running", "ready", "healthy", "alive", "reachable", "up", "online", "authenticated"}
)
"""Last words of a state probe (`feature_enabled`, `ollama_available`): a guard only when
its result gates something (`if not ollama_available(): ...`)."""

ACTION_VERBS = frozenset(
    {
        "send", "save", "write", "add", "delete", "remove", "update", "create", "fix", "run", "execute",
        "extract", "download", "upload", "install", "process", "handle", "setup", "set", "apply", "post",
        "push", "patch", "load", "init", "initialize", "start", "stop", "get", "fetch", "build", "make",
        "generate", "parse", "format", "print", "log", "display", "show", "render", "call", "submit",
        "register", "open", "close", "read", "store", "insert", "copy", "move", "ensure", "wait", "retry",
        "notify", "emit", "publish", "sync", "refresh", "reset", "clear", "cleanup", "kill", "schedule",
        "dispatch", "connect", "disconnect", "launch", "deploy", "export", "import", "convert", "transform",
        "mark", "record", "track", "increment", "append", "pop", "put", "drop", "enable", "disable",
    }
)
"""First words of an action: its bool is a success status, not a verdict (`send_email`,
`save_report`). They veto the name, predicate and call-site signals, not a framework
registration or a verdict key in a returned state."""

GUARD_KEYWORDS = frozenset(
    {
        "guardrail",
        "guardrails",
        "input_guardrails",
        "output_guardrails",
        "tool_input_guardrails",
        "tool_output_guardrails",
        "final_answer_checks",
        "guardrail_function",
        "before_tool_callback",
        "before_model_callback",
        "before_agent_callback",
        "condition",
        "is_termination_msg",
        "validator",
        "validators",
        "checks",
    }
)
"""Keyword arguments that take guard functions: CrewAI `Task(guardrail=fn,
guardrails=[...])`, OpenAI Agents `Agent(input_guardrails=[...])` and
`InputGuardrail(guardrail_function=fn)`, smolagents `CodeAgent(final_answer_checks=[fn])`,
ADK `before_tool_callback=fn`, `condition=fn` (conditional tasks), AutoGen
`is_termination_msg=fn`."""

GUARD_KEYWORD_SUFFIXES = ("_guardrails", "_guardrail", "_checks", "_condition", "_validator", "_validators")
"""... and any keyword ending with one of these (`tool_input_guardrails`, `stop_condition`)."""

EDGE_CONDITION_METHODS = frozenset({"add_conditional_edges"})
"""Graph methods whose second argument (or `path=`) is a routing condition (LangGraph)."""

GATE_CALLS = frozenset({"Depends", "Security"})
"""Calls that put a function in front of a route (FastAPI `Depends(verify_api_key)`)."""

REGISTRATION_DECORATORS = frozenset({"nemoguardrails.actions.action", "nemoguardrails.action"})
"""Decorators (besides `*guardrail`) that register a guard: NeMo Guardrails actions
return the bool the rails decide on."""

DSPY_MODULE_BASES = frozenset({"dspy.Module", "dspy.primitives.Module", "dspy.primitives.program.Module"})
"""A DSPy module whose `forward` returns a verdict is a guard (a judge program)."""

DSPY_PREDICTORS = frozenset(
    {
        "Predict",
        "ChainOfThought",
        "ChainOfThoughtWithHint",
        "ReAct",
        "ProgramOfThought",
        "TypedPredictor",
        "TypedChainOfThought",
        "MultiChainComparison",
        "Refine",
        "BestOfN",
        "LM",
    }
)
"""DSPy classes whose instances call a model when called (`self.judge(answer=a)`)."""

ABSTRACT_DECORATORS = frozenset({"abstractmethod", "abstractproperty", "overload", "typing.overload"})

# ---------------------------------------------------------------------------------------
# AGL301: two-valued verdicts
# ---------------------------------------------------------------------------------------

TRIPWIRE_RESULTS = {"GuardrailFunctionOutput": "tripwire_triggered"}
"""Result types whose verdict is one bool keyword (OpenAI Agents)."""

PASS_FAIL_RESULTS = {"PassResult": "pass", "FailResult": "fail"}
"""Result types that are the verdict by themselves (Guardrails AI validators)."""

VERDICT_STRING_PAIRS = (
    frozenset({"yes", "no"}),
    frozenset({"y", "n"}),
    frozenset({"true", "false"}),
    frozenset({"pass", "fail"}),
    frozenset({"passed", "failed"}),
    frozenset({"approved", "rejected"}),
    frozenset({"approve", "reject"}),
    frozenset({"accept", "reject"}),
    frozenset({"accepted", "rejected"}),
    frozenset({"allow", "deny"}),
    frozenset({"allow", "block"}),
    frozenset({"allowed", "blocked"}),
    frozenset({"safe", "unsafe"}),
    frozenset({"valid", "invalid"}),
    frozenset({"relevant", "irrelevant"}),
    frozenset({"relevant", "not relevant"}),
    frozenset({"correct", "incorrect"}),
    frozenset({"compliant", "non-compliant"}),
    frozenset({"grounded", "not grounded"}),
    frozenset({"useful", "not useful"}),
)
"""Two-valued string verdicts (compared lower-cased and stripped)."""

REJECT_STRINGS = frozenset(
    {"no", "n", "false", "fail", "failed", "rejected", "reject", "deny", "block", "blocked", "unsafe",
     "invalid", "irrelevant", "not relevant", "incorrect", "non-compliant", "not grounded", "not useful"}
)
"""The rejecting member of each pair."""

VERDICT_KEY_WORDS = frozenset(
    {
        "approved",
        "approval",
        "valid",
        "validated",
        "safe",
        "unsafe",
        "allowed",
        "permitted",
        "passed",
        "pass",
        "ok",
        "good",
        "relevant",
        "blocked",
        "flagged",
        "harmful",
        "authorized",
        "authorised",
        "correct",
        "compliant",
        "accepted",
        "rejected",
        "verified",
        "grounded",
        "hallucinated",
        "toxic",
        "tripwire",
        "sufficient",
    }
)
"""Words of a state key or result field that holds a verdict (`human_approved`,
`is_safe`, `passed`); `is_error`, `is_last` hold something else."""

THIRD_STATE_WORDS = frozenset(
    {"error", "errors", "exception", "status", "state", "evaluated", "skipped", "available", "unavailable", "outcome"}
)
"""Fields of a result type that can say "not evaluated" (a structured verdict)."""

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
        "hallucinated",
        "hallucination",
        "spam",
        "abuse",
        "pii",
    }
)
"""Words in a guard's (or verdict key's) name that make `True` mean "reject"
(`is_blocked`, `detect_injection`), so a message can say which way a failure is folded."""

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
"""Attribute or variable names that hold a bool (`resp.results[0].flagged`)."""

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

# ---------------------------------------------------------------------------------------
# AGL301: evaluations that can fail
# ---------------------------------------------------------------------------------------

NETWORK_ROOTS = (
    "requests", "httpx", "aiohttp", "urllib.request", "urllib3", "http.client", "socket", "ssl", "grpc",
    "websockets", "websocket", "smtplib", "ftplib", "paramiko", "sqlite3", "psycopg", "psycopg2", "asyncpg",
    "aiomysql", "pymysql", "mysql", "pymongo", "motor", "redis", "aioredis", "boto3", "botocore",
    "elasticsearch", "google.cloud", "azure", "kubernetes", "docker",
)
"""Modules whose calls (and whose clients' calls: `requests.Session().get`) reach another
process: a network call, a database query."""

NETWORK_FUNCTIONS = frozenset({"urlopen", "create_connection", "getaddrinfo"})

SUBPROCESS_CALLS = ("subprocess", "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell",
                    "os.system", "os.popen")

FILE_READS = frozenset({"open", "io.open", "builtins.open"})
FILE_READ_METHODS = frozenset({"read_text", "read_bytes"})
"""A file read: the file may be missing or unreadable (`open(config_path)`). Loading
what was read (`json.load(f)`) is a parse."""

CONFIG_LOOKUPS = frozenset({"os.environ.get", "os.getenv", "environ.get", "getenv", "os.environ.__getitem__"})
"""Configuration that may be missing (`os.environ.get("API_KEY")`)."""

STORE_LOOKUP_METHODS = frozenset(
    {"get", "get_item", "find_one", "first", "one_or_none", "scalar_one_or_none", "fetchone", "fetch_one",
     "lookup", "retrieve", "get_user", "get_by_id"}
)
"""Lookups that may find nothing (`store.get(owner_id)` returns None)."""

OPTIONAL_HOOK_WORDS = frozenset(
    {"callback", "hook", "handler", "checker", "validator", "judge", "moderator", "classifier", "scanner",
     "client", "model", "llm", "guard", "guardrail", "policy", "evaluator", "verifier", "grader"}
)
"""`if self.consent_callback is None: return True`: no evaluator, still a verdict."""

SECRET_WORDS = frozenset({"key", "apikey", "secret", "token", "password", "credential", "credentials"})
"""`if not self.api_key: return True`: no secret configured, and every request passes."""

PARSE_CALLS = frozenset(
    {"json.loads", "json.load", "ast.literal_eval", "float", "int", "xml.etree.ElementTree.fromstring",
     "ElementTree.fromstring", "ET.fromstring", "yaml.safe_load", "yaml.load", "yaml.full_load", "toml.load",
     "toml.loads", "tomllib.load", "tomllib.loads", "tomli.load", "pickle.load", "orjson.loads", "ujson.loads"}
)
PARSE_METHODS = frozenset({"model_validate_json", "parse_raw", "model_validate", "parse_obj", "json", "group", "loads"})
"""Parsing an answer: fallible when the answer comes from a model or the network."""

EVALUATION_METHODS = frozenset(
    {
        "invoke", "ainvoke", "generate", "agenerate", "generate_content", "generate_content_async",
        "complete", "acomplete", "chat", "achat", "predict", "apredict", "kickoff", "kickoff_async",
        "run", "arun", "run_sync", "scan", "ascan", "scan_replay", "classify", "aclassify", "moderate",
        "amoderate", "evaluate", "aevaluate", "score", "judge", "grade", "ask", "query", "aquery",
        "detect", "analyze", "analyse", "create", "call",
    }
)
"""Methods that evaluate through a model or a classifier, on a receiver named like one
(`judge_llm.invoke`) or bound to an instance of an imported class (`lf = LlamaFirewall();
lf.scan(...)`)."""

MODEL_RECEIVER_WORDS = frozenset(
    {
        "llm", "lm", "llms", "client", "aclient", "model", "chain", "agent", "judge", "grader", "classifier",
        "scanner", "firewall", "guard", "guardrail", "moderator", "moderation", "moderations", "evaluator", "critic",
        "verifier", "openai", "anthropic", "claude", "gemini", "genai", "ollama", "mistral", "groq",
        "crew", "predictor", "detector", "chat", "completion", "completions", "bedrock", "vertex",
    }
)

HUMAN_INPUT_CALLS = frozenset(
    {"input", "getpass", "getpass.getpass", "click.confirm", "click.prompt", "typer.confirm", "typer.prompt",
     "Confirm.ask", "Prompt.ask", "rich.prompt.Confirm.ask", "rich.prompt.Prompt.ask", "questionary.confirm",
     "questionary.select", "questionary.text", "AskUserMessage", "AskActionMessage", "cl.AskUserMessage",
     "cl.AskActionMessage"}
)
"""A person's answer is never a failed evaluation: y/N prompts are not fallible steps."""

NOT_IO_AWAITS = ("asyncio", "anyio", "trio")
"""Awaited calls that are scheduling, not I/O (`await asyncio.sleep(1)`)."""

EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort"})
"""A handler that exits lets the failure out: it folds nothing."""

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
    "permission",
    "filenotfound",
    "subprocess",
    "socket",
    "ssl",
    "urlerror",
    "database",
    "operational",
    "sqlite",
    "redis",
    "botocore",
    "grpc",
    "rpc",
    "quota",
    "overloaded",
    "auth",
)
"""Stems in an exception's name (lower-cased) that say the evaluation itself failed (the
model, the network, the service, the file), as opposed to the input being invalid
(`ValueError`, `JSONDecodeError`) or the command answering no (`CalledProcessError`: it
ran, and its exit status is the answer)."""

ANSWER_METADATA = frozenset(
    {"status", "status_code", "finish_reason", "stop_reason", "usage", "total_tokens", "input_tokens",
     "output_tokens", "prompt_tokens", "completion_tokens", "role", "id", "model", "created",
     "tool_calls", "tool_call", "object", "headers"}
)
"""Fields of a model's response that describe the call, not the answer
(`response.finish_reason == "stop"`, `usage.total_tokens > limit`): comparing them
collapses no answer."""

PARSE_FAILURE_STEMS = (
    "decodeerror",
    "valueerror",
    "keyerror",
    "indexerror",
    "typeerror",
    "attributeerror",
    "parseerror",
    "validationerror",
    "yamlerror",
    "syntaxerror",
)
"""A malformed answer: an evaluation failure when the answer came from a model or the
network, the check's own answer when it is the input under judgment."""
