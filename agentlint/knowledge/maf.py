"""Microsoft Agent Framework (Python): the pre-GA names and what replaced them (AGL601,
AGL602)."""

from __future__ import annotations

from typing import NamedTuple

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
