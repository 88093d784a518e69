"""What agent code looks like in 23 frameworks, as data: the one place to teach agentlint
a new framework (how their model calls read is in ``model_calls``).

Every table answers one question asked by the agent model (``agents.py``), and through
it by AGL201/AGL202/AGL501/AGL502, AGL302's message, ``agentlint tools`` and
``agentlint explain``:

- is this def a tool, and of which framework? (decorators, tool base classes and their
  model-facing methods, wrappers that take a function, agent constructors whose
  ``tools=[...]`` list makes a function a tool, JSON tool schemas);
- which of its parameters does the model fill? (injected annotations, ``Annotated``
  markers, dependency defaults, reserved names);
- is this call an LLM or agent invocation? (receiver constructors and their methods,
  plain functions);
- is this an agent-as-tool wiring? (``as_tool``, ``AgentTool``, managed agents, ...).

Names are matched after import resolution (``from agents import function_tool as ft``
makes ``@ft`` the qualified name ``agents.function_tool``). A name is written
``root:Name`` when it must come from under the import root ``root`` (any submodule:
``langchain_core.tools.convert.tool`` matches ``langchain_core:tool``), so re-exports
and internal paths both match, while a project's own ``tool`` does not. Sources and
versions: ``/shared/design/frameworks.md``. This module imports nothing of ours.
"""

from __future__ import annotations

from typing import Iterable, Mapping

# ---------------------------------------------------------------------------------------
# Frameworks: import roots -> framework id (for `agentlint tools` and messages)
# ---------------------------------------------------------------------------------------

FRAMEWORK_ROOTS: Mapping[str, str] = {
    "agents": "openai-agents",
    "openai": "openai",
    "anthropic": "anthropic",
    "langchain": "langchain",
    "langchain_core": "langchain",
    "langchain_community": "langchain",
    "langchain_openai": "langchain",
    "langchain_anthropic": "langchain",
    "langchain_google_genai": "langchain",
    "langchain_aws": "langchain",
    "langchain_ollama": "langchain",
    "langchain_mistralai": "langchain",
    "langchain_groq": "langchain",
    "langgraph": "langgraph",
    "pydantic_ai": "pydantic-ai",
    "crewai": "crewai",
    "crewai_tools": "crewai",
    "smolagents": "smolagents",
    "agent_framework": "agent-framework",
    "semantic_kernel": "semantic-kernel",
    "autogen_core": "autogen",
    "autogen_agentchat": "autogen",
    "autogen_ext": "autogen",
    "autogen": "ag2",
    "ag2": "ag2",
    "llama_index": "llama-index",
    "mcp": "mcp",
    "fastmcp": "fastmcp",
    "google.adk": "google-adk",
    "google.genai": "google-genai",
    "google.generativeai": "google-genai",
    "litellm": "litellm",
    "strands": "strands",
    "agno": "agno",
    "phi": "phidata",
    "browser_use": "browser-use",
    "camel": "camel",
    "dspy": "dspy",
    "swarm": "swarm",
    "livekit.agents": "livekit",
}
"""Import roots of the supported frameworks. A file importing one of them is agent code."""

FRAMEWORK_NAMES: Mapping[str, str] = {
    "openai-agents": "OpenAI Agents SDK",
    "openai": "OpenAI SDK",
    "anthropic": "Anthropic SDK",
    "langchain": "LangChain",
    "langgraph": "LangGraph",
    "pydantic-ai": "pydantic-ai",
    "crewai": "CrewAI",
    "smolagents": "smolagents",
    "agent-framework": "Microsoft Agent Framework",
    "semantic-kernel": "Semantic Kernel",
    "autogen": "AutoGen",
    "ag2": "AG2",
    "llama-index": "LlamaIndex",
    "mcp": "MCP Python SDK",
    "fastmcp": "fastmcp",
    "google-adk": "Google ADK",
    "google-genai": "Google GenAI",
    "litellm": "LiteLLM",
    "strands": "Strands Agents",
    "agno": "Agno",
    "phidata": "phidata",
    "browser-use": "browser-use",
    "camel": "CAMEL",
    "dspy": "DSPy",
    "swarm": "OpenAI Swarm",
    "livekit": "LiveKit Agents",
    "config": "from config",
    "project": "project-defined",
}


def framework_of(qualified: str) -> str | None:
    """The framework whose import root ``qualified`` lies under (`agents.Runner` ->
    `openai-agents`), or None."""
    head = qualified.split(".", 2)
    for candidate in (".".join(head[:2]), head[0]):
        framework = FRAMEWORK_ROOTS.get(candidate)
        if framework is not None:
            return framework
    return None


# ---------------------------------------------------------------------------------------
# Tool declarations
# ---------------------------------------------------------------------------------------

TOOL_DECORATORS: Mapping[str, str] = {
    "agents:function_tool": "openai-agents",
    "openai:function_tool": "openai",  # openai.lib.beta.agents
    "anthropic:beta_tool": "anthropic",
    "anthropic:beta_async_tool": "anthropic",
    "langchain:tool": "langchain",
    "langchain_core:tool": "langchain",
    "langchain_community:tool": "langchain",
    "crewai.tools:tool": "crewai",
    "crewai:tool": "crewai",
    "smolagents:tool": "smolagents",
    "agent_framework:tool": "agent-framework",
    "agent_framework:ai_function": "agent-framework",
    "semantic_kernel:kernel_function": "semantic-kernel",
    "autogen:tool": "ag2",
    "ag2:tool": "ag2",
    "strands:tool": "strands",
    "agents:decorators.tool": "openai-agents",  # `tool = function_tool` in agents.decorators
    "agno:tool": "agno",
    "phi:tool": "phidata",
    "camel:tool": "camel",
    "livekit.agents:function_tool": "livekit",
}
"""Decorators (bare or called: `@tool`, `@tool("name", args_schema=M)`) that make a
function a tool."""

NOT_TOOL_DECORATORS = frozenset({"crewai.project.tool", "crewai.project.annotations.tool"})
"""Look-alikes: CrewAI's project-level `@tool` marks a method that *returns* a tool."""

RECEIVER_TOOL_DECORATORS: Mapping[str, tuple[str, ...]] = {
    "pydantic-ai": ("pydantic_ai:Agent", "pydantic_ai:FunctionToolset"),
    "mcp": ("mcp:FastMCP", "mcp:MCPServer"),
    "fastmcp": ("fastmcp:FastMCP",),
}
"""`@x.tool`, `@x.tool()`, `@x.tool_plain` where ``x`` was built by one of these
constructors."""

RECEIVER_TOOL_METHODS = frozenset({"tool", "tool_plain"})

RECEIVER_NAME_HINTS: Mapping[str, str] = {"mcp": "mcp", "agent": "pydantic-ai", "toolset": "pydantic-ai"}
"""When the receiver of `@x.tool` cannot be resolved (it was imported from a module of the
project), a receiver whose name contains one of these words, in a file that imports a
framework with receiver-style tools, is taken to be of that framework."""

ANY_RECEIVER_TOOL_DECORATORS: Mapping[str, str] = {
    "register_for_llm": "ag2",
    "register_for_execution": "ag2",
    "tool_plain": "pydantic-ai",
}
"""Methods distinctive enough to be matched on any receiver."""

IMPORTING_RECEIVER_TOOL_DECORATORS: Mapping[str, str] = {"action": "browser-use"}
"""`@tools.action("...")`, `@tools.registry.action(...)`, `@controller.action(...)`,
`@self.action(...)`: a method matched on any receiver, but only in a file that imports
the framework (elsewhere `action` is too common a name)."""

TOOLKIT_BASES: Mapping[str, str] = {"agno:Toolkit": "agno", "phi:Toolkit": "phidata"}
"""Toolkit classes whose subclasses register their tools in the constructor:
`super().__init__(tools=[self.a, self.b])` or `self.register(self.a)`."""

TOOLKIT_REGISTER_METHODS = frozenset({"register"})

REGISTRATION_CALL_METHODS: Mapping[str, tuple[str, ...]] = {
    "add_tool": ("camel", "mcp", "fastmcp", "agno", "phidata"),
    "add_tools": ("camel", "agno"),
    "add_function": ("pydantic-ai",),
    "register_tool": ("camel", "agno", "mcp", "fastmcp"),
}
"""`x.add_tool(fn)`: a function of this module registered as a tool by a call, in a
file importing one of these frameworks."""

TOOL_BASE_CLASSES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "langchain_core:BaseTool": ("langchain", ("_run", "_arun")),
    "langchain:BaseTool": ("langchain", ("_run", "_arun")),
    "langchain_community:BaseTool": ("langchain", ("_run", "_arun")),
    "crewai:BaseTool": ("crewai", ("_run", "_arun")),
    "crewai_tools:BaseTool": ("crewai", ("_run", "_arun")),
    "smolagents:Tool": ("smolagents", ("forward",)),
    "autogen_core:BaseTool": ("autogen", ("run",)),
}
"""Tool base classes -> (framework, the model-facing methods of a subclass)."""

TOOL_WRAPPERS: Mapping[str, str] = {
    "autogen_core:FunctionTool": "autogen",
    "agent_framework:FunctionTool": "agent-framework",
    "agent_framework:AIFunction": "agent-framework",
    "google.adk:FunctionTool": "google-adk",
    "google.adk:LongRunningFunctionTool": "google-adk",
    "llama_index:FunctionTool.from_defaults": "llama-index",
    "llama_index:FunctionTool": "llama-index",
    "pydantic_ai:Tool": "pydantic-ai",
    "langchain_core:StructuredTool.from_function": "langchain",
    "langchain:StructuredTool.from_function": "langchain",
    "langchain_core:Tool.from_function": "langchain",
    "langchain:Tool.from_function": "langchain",
    "langchain_core:Tool": "langchain",
    "langchain:Tool": "langchain",
    "autogen:register_function": "ag2",
    "ag2:Tool": "ag2",
    "camel:FunctionTool": "camel",
    "dspy:Tool": "dspy",
    "agno:Function": "agno",
    "agno:Function.from_callable": "agno",
    "phi:Function": "phidata",
    "phi:Function.from_callable": "phidata",
    "livekit.agents:function_tool": "livekit",
}
"""Calls that turn the function they are given into a tool."""

WRAPPER_FUNCTION_KEYWORDS = ("func", "fn", "function", "f", "coroutine", "async_fn", "func_or_tool", "entrypoint")
"""Keywords under which a wrapper takes the function (else its first positional argument)."""

AGENT_CONSTRUCTORS: Mapping[str, str] = {
    "agents:Agent": "openai-agents",
    "pydantic_ai:Agent": "pydantic-ai",
    "google.adk:Agent": "google-adk",
    "google.adk:LlmAgent": "google-adk",
    "autogen_agentchat:AssistantAgent": "autogen",
    "llama_index:FunctionAgent": "llama-index",
    "llama_index:ReActAgent": "llama-index",
    "llama_index:CodeActAgent": "llama-index",
    "llama_index:OpenAIAgent.from_tools": "llama-index",
    "llama_index:ReActAgent.from_tools": "llama-index",
    "smolagents:CodeAgent": "smolagents",
    "smolagents:ToolCallingAgent": "smolagents",
    "langchain:create_agent": "langchain",
    "langchain:create_tool_calling_agent": "langchain",
    "langchain:create_react_agent": "langchain",
    "langgraph:create_react_agent": "langgraph",
    "langgraph:ToolNode": "langgraph",
    "agent_framework:Agent": "agent-framework",
    "agent_framework:ChatAgent": "agent-framework",
    "crewai:Agent": "crewai",
    "ag2:Agent": "ag2",
    "autogen:ConversableAgent": "ag2",
    "autogen:AssistantAgent": "ag2",
    "semantic_kernel:ChatCompletionAgent": "semantic-kernel",
    "google.genai:GenerateContentConfig": "google-genai",
    "strands:Agent": "strands",
    "agents:RealtimeAgent": "openai-agents",
    "agno:Agent": "agno",
    "agno:Team": "agno",
    "phi:Agent": "phidata",
    "phi:Assistant": "phidata",
    "browser_use:Agent": "browser-use",
    "camel:ChatAgent": "camel",
    "dspy:ReAct": "dspy",
    "dspy:ReActV2": "dspy",
    "dspy:CodeAct": "dspy",
    "dspy:RLM": "dspy",
    "dspy:Flex": "dspy",
    "swarm:Agent": "swarm",
    "livekit.agents:Agent": "livekit",
    "langchain:AgentExecutor": "langchain",
    "langchain:initialize_agent": "langchain",
    "langchain:create_openai_functions_agent": "langchain",
    "langchain:create_openai_tools_agent": "langchain",
}
"""Constructors whose tool list (``TOOL_LIST_KEYWORDS``) makes the functions in it tools,
and whose result is an agent (for AGL501/AGL502)."""

AGENT_FACTORY_METHODS: Mapping[str, str] = {
    "as_agent": "agent-framework",
    "create_agent": "agent-framework",
    "bind_tools": "langchain",
}
"""Methods, on any receiver, whose tool list makes the functions in it tools."""

TOOL_LIST_KEYWORDS = ("tools", "functions", "external_tools")

TOOL_CONTAINERS: Mapping[str, str] = {
    "agents:tool_namespace": "openai-agents",
    "pydantic_ai:FunctionToolset": "pydantic-ai",
    "agno:Toolkit": "agno",
    "phi:Toolkit": "phidata",
}
"""Calls that hold tools without being agents (`tool_namespace(name=..., tools=[...])`,
`FunctionToolset(tools=[...])`): the functions in their tool list are tools."""

TOOL_LIST_POSITIONS: Mapping[str, int] = {
    "langgraph:ToolNode": 0,
    "langgraph:create_react_agent": 1,
    "langchain:create_agent": 1,
    "langchain:create_react_agent": 1,
    "langchain:create_tool_calling_agent": 1,
    "llama_index:OpenAIAgent.from_tools": 0,
    "llama_index:ReActAgent.from_tools": 0,
    "langchain:initialize_agent": 0,
    "langchain:create_openai_functions_agent": 1,
    "langchain:create_openai_tools_agent": 1,
    "dspy:ReAct": 1,
    "dspy:ReActV2": 1,
    "dspy:CodeAct": 1,
}
"""Agent constructors that also take the tool list positionally: the argument index."""

SCHEMA_MODEL_CALLS: Mapping[str, str] = {
    "openai:pydantic_function_tool": "openai",
    "openai:pydantic_responses_function_tool": "openai",
    "agents:FunctionTool": "openai-agents",
}
"""Calls declaring a tool from a pydantic model (first argument) or a JSON schema
(`params_json_schema=`): the model's fields / the schema's properties are model-facing."""

BUILT_IN_TOOLS = frozenset({"browser-use"})
"""Frameworks whose agents always carry the framework's own tools (browser-use's built-in
browser actions): such an agent is given tools even when the project declares none."""

NOT_AGENT_RESULT = frozenset({"bind_tools", "GenerateContentConfig", "ToolNode", "tool_namespace", "FunctionToolset",
                              "Toolkit"})
"""Of the above, those that do not build an agent (an LLM with tools, a config, a node)."""

# ---------------------------------------------------------------------------------------
# Injected parameters (the model never fills them)
# ---------------------------------------------------------------------------------------

INJECTED_ANNOTATIONS = frozenset({
    "RunContextWrapper",  # openai-agents
    "ToolContext",  # openai-agents, google-adk
    "RunContext",  # pydantic-ai
    "Context",  # mcp, fastmcp, llama-index workflows, ag2 1.x, google-adk
    "FunctionInvocationContext",  # agent-framework
    "ToolRuntime",  # langchain v1
    "RunnableConfig",  # langchain
    "CallbackManagerForToolRun",  # langchain BaseTool._run
    "AsyncCallbackManagerForToolRun",
    "CancellationToken",  # autogen
    "ContextVariables",  # ag2 classic
    "ChatContext",  # ag2
    "BaseContext",  # ag2
    "ConversationContext",  # ag2 1.x
    "InvocationContext",  # google-adk
    "CallbackContext",  # google-adk
    "Kernel",  # semantic-kernel
    "KernelArguments",  # semantic-kernel
    "FunctionCall",  # agno
})
"""Parameter types a framework fills itself (matched on the last segment of the
annotation, inside `Optional[...]`, `X | None` and generics: `RunContext[Deps]`)."""

INJECTED_MARKERS = frozenset({
    "InjectedToolArg",
    "InjectedToolCallId",
    "InjectedState",
    "InjectedStore",
    "Inject",
    "Variable",
    "Depends",
})
"""`Annotated[T, marker]` metadata (called or not) that marks an injected parameter."""

INJECTED_DEFAULTS = frozenset({
    "Depends",
    "TokenClaim",
    "CurrentContext",
    "CurrentAccessToken",
    "CurrentRequest",
    "CurrentHeaders",
    "Inject",
})
"""Default values (calls) that make a parameter a dependency: `user_id: str = TokenClaim("oid")`."""

INJECTED_NAMES: Mapping[str, frozenset[str]] = {
    "semantic-kernel": frozenset({"kernel", "service", "execution_settings", "arguments"}),
    "google-adk": frozenset({"tool_context", "input_stream"}),
    "autogen": frozenset({"cancellation_token"}),
    "ag2": frozenset({"context_variables"}),
    "langchain": frozenset({"run_manager", "callbacks"}),
    "crewai": frozenset(),
    "agno": frozenset({"agent", "team", "run_context", "session_state", "dependencies", "fc", "images", "videos",
                       "audios", "files", "_agno_agent", "_agno_team", "_agno_run_context"}),
    "phidata": frozenset({"agent", "fc"}),
    "browser-use": frozenset({"context", "browser_session", "browser", "browser_context", "page", "page_url",
                              "cdp_client", "page_extraction_llm", "available_file_paths", "has_sensitive_data",
                              "sensitive_data", "file_system", "extraction_schema"}),
    "*": frozenset({"tool_context", "cancellation_token", "context_variables", "run_manager"}),
}
"""Reserved parameter names per framework; ``*`` applies when the framework is unknown
or from config."""

INJECTED_TYPES_BY_FRAMEWORK: Mapping[str, frozenset[str]] = {
    "agno": frozenset({"Agent", "Team"}),
    "phidata": frozenset({"Agent"}),
    "browser-use": frozenset({"BrowserSession", "Browser", "BrowserContext", "FileSystem"}),
}
"""Parameter types one framework fills (too common a name to count everywhere)."""

# ---------------------------------------------------------------------------------------
# Approval and per-tool validation (AGL201 reports such a tool as a note)
# ---------------------------------------------------------------------------------------

APPROVAL_KEYWORDS: Mapping[str, str] = {
    "needs_approval": "openai-agents",  # `@function_tool(needs_approval=True | policy)`
    "requires_approval": "pydantic-ai",  # `@agent.tool(requires_approval=True)`, `Tool(fn, requires_approval=True)`
    "require_confirmation": "google-adk",  # `FunctionTool(fn, require_confirmation=True | policy)`
    "requires_confirmation": "agno",  # `@tool(requires_confirmation=True)`
    "requires_user_input": "agno",
    "external_execution": "agno",
    "approval_mode": "agent-framework",  # `@tool(approval_mode="always_require")`
}
"""Keywords of a tool declaration that put a human approval between the model's arguments
and the effect: a true constant, or a policy (any expression but a false constant;
`approval_mode` needs `"always_require"`)."""

APPROVAL_DECORATORS: Mapping[str, str] = {"agno:approval": "agno"}
"""Decorators, stacked on a tool, that require approval (`@approval`, `@approval(type="required")`)."""

APPROVAL_NAME_LISTS = ("requires_confirmation_tools", "external_execution_required_tools")
"""Toolkit keywords listing the names of the tools that need confirmation (agno)."""

APPROVAL_MIDDLEWARE: Mapping[str, str] = {"langchain:HumanInTheLoopMiddleware": "interrupt_on"}
"""Middleware interrupting before the tools named in its mapping (`interrupt_on={"refund": True}`)."""

TOOL_GUARD_KEYWORDS: Mapping[str, str] = {"tool_input_guardrails": "openai-agents"}
"""Keywords attaching an input check to one tool (`@function_tool(tool_input_guardrails=[g])`)."""

BEFORE_TOOL_KEYWORDS = ("before_tool_callback",)
"""Agent keywords of a callback run before every tool call with the model's arguments
(ADK `before_tool_callback(tool, args, tool_context)`): a parameter it reads from `args`
is re-validated there."""

SCHEMA_KEYWORDS = ("args_schema", "fn_schema", "schema", "input_schema", "param_model")
"""Keywords that give a tool an explicit schema: only its fields are model-facing."""

# ---------------------------------------------------------------------------------------
# JSON tool schemas (raw OpenAI / Anthropic / Gemini / MCP low-level)
# ---------------------------------------------------------------------------------------

SCHEMA_DICT_SHAPES = (
    # (framework, keys that must be present, path to the properties dict)
    ("openai", ("type", "function"), ("function", "parameters", "properties")),
    ("openai", ("type", "name", "parameters"), ("parameters", "properties")),
    ("anthropic", ("name", "input_schema"), ("input_schema", "properties")),
)

DECLARATION_LIST_KEYWORDS = ("function_declarations", "functions")
"""Keywords whose list holds function declarations as plain dicts (Gemini
`types.Tool(function_declarations=[...])`, OpenAI's legacy `functions=[...]`):
`{"name": ..., "parameters": {"properties": ...}}`. Only dicts found there count (the
same shape elsewhere is often an API method description, not a tool)."""
"""Dict literals that declare a tool to a model: their `properties` keys are the
model-facing parameters. The OpenAI shapes also require `"type": "function"`."""

SCHEMA_CALLS: Mapping[str, tuple[str, str]] = {
    "google.genai:FunctionDeclaration": ("google-genai", "parameters"),
    "mcp:Tool": ("mcp", "inputSchema"),
}
"""Calls declaring a tool schema: (framework, the keyword holding the JSON schema)."""

# ---------------------------------------------------------------------------------------
# Agent-as-tool wiring (AGL502)
# ---------------------------------------------------------------------------------------

AGENT_AS_TOOL_METHODS = frozenset({"as_tool"})
"""`agent.as_tool(...)` (openai-agents, agent-framework): the agent becomes a tool."""

AGENT_TOOL_WRAPPERS: Mapping[str, str] = {
    "google.adk:AgentTool": "agent",
    "autogen_agentchat:AgentTool": "agent",
    "autogen_agentchat:TeamTool": "team",
}
"""Calls wrapping an agent (first argument, or the keyword named) as a tool."""

NESTED_AGENT_KEYWORDS = ("managed_agents", "plugins")
"""Agent-constructor keywords whose agents become callable sub-agents (smolagents managed
agents, Semantic Kernel agents passed as plugins)."""


# ---------------------------------------------------------------------------------------
# Names for `explain`'s grouping of callers (matched on the final segment only)
# ---------------------------------------------------------------------------------------

TOOL_DECORATOR_NAMES = frozenset({
    "function_tool",  # openai-agents
    "tool",  # langchain, crewai, smolagents, pydantic-ai `@agent.tool`, FastMCP `@mcp.tool`
    "tool_plain",  # pydantic-ai
    "kernel_function",  # semantic-kernel
    "ai_function",  # agent-framework
    "call_tool",  # mcp low-level server
    "register_for_llm",  # autogen 0.2
    "prompt",  # FastMCP `@mcp.prompt`
    "resource",  # FastMCP `@mcp.resource`
})
TOOL_BASE_NAMES = frozenset({"BaseTool", "Tool", "StructuredTool", "FunctionTool", "BaseToolkit", "Toolkit", "AbstractToolset"})
TOOL_CONSTRUCTOR_NAMES = frozenset({"FunctionTool", "StructuredTool.from_function", "Tool", "from_function", "tool", "function_tool", "AgentTool"})
AGENT_CONSTRUCTOR_NAMES = frozenset({
    "Agent", "AssistantAgent", "LlmAgent", "ChatAgent", "CodeAgent", "ToolCallingAgent", "ConversableAgent",
    "UserProxyAgent", "ReActAgent", "FunctionAgent", "SequentialAgent", "ParallelAgent", "LoopAgent",
    "Crew", "AgentExecutor", "create_react_agent", "create_agent", "create_tool_calling_agent",
    "create_openai_functions_agent", "create_openai_tools_agent", "as_agent", "create_supervisor",
})
AGENT_BASES = frozenset({
    "Agent", "BaseAgent", "AbstractAgent", "WrapperAgent", "LlmAgent", "AssistantAgent", "BaseChatAgent",
    "RoutedAgent", "ConversableAgent", "MultiStepAgent", "ChatAgent", "BaseAgentRunner", "Workflow",
})
FRAMEWORK_BASES = frozenset({"BaseNode", "Executor"})
"""Other classes whose methods a framework calls (graph nodes, workflow executors): their
methods are linked to the class, like a tool's or an agent's, but the class is no tool
or agent."""
REGISTRATION_DECORATORS = TOOL_DECORATOR_NAMES | frozenset({
    "system_prompt", "instructions", "output_validator", "result_validator",  # pydantic-ai
    "list_tools", "list_prompts", "list_resources", "read_resource", "get_prompt",  # mcp low-level server
    "toolset", "prepare_tools",  # pydantic-ai
})
"""`@obj.NAME` decorators by which an agent or a server takes a function to call later:
whoever uses ``obj`` reaches the function (``explain``'s `registers` link). Any other
decorator on a module-level object (`@dispatcher.span`, `@cache.memoize`) wraps the
function where it is defined and is no such link."""
ROUTE_DECORATORS = frozenset({"get", "post", "put", "delete", "patch", "head", "options", "route", "websocket", "api_route", "trace"})
CLI_DECORATORS = frozenset({"command", "group", "callback"})
ENTRY_DECORATORS = ROUTE_DECORATORS | CLI_DECORATORS
TEST_DECORATORS = frozenset({"fixture"})

# ---------------------------------------------------------------------------------------
# Matching helpers
# ---------------------------------------------------------------------------------------


def matches(qualified: str, pattern: str) -> bool:
    """Does the resolved dotted name ``qualified`` match ``pattern``?

    ``root:Name`` (or ``root:Cls.method``): ``qualified`` starts with the import root
    ``root`` and ends with ``.Name``. A pattern without a colon is an exact dotted name,
    or a final segment when it has no dot (config entries such as ``register_tool``).
    """
    root, colon, tail = pattern.partition(":")
    if not colon:
        if "." not in pattern:
            return qualified == pattern or qualified.endswith("." + pattern)
        return qualified == pattern
    if not (qualified == root or qualified.startswith(root + ".")):
        return False
    return qualified.endswith("." + tail)


_INDEXES: dict[int, tuple[object, dict[str, list[tuple[str, object]]]]] = {}


def by_last_segment(table: Mapping[str, object]) -> dict[str, list[tuple[str, object]]]:
    """``table``'s (pattern, value) pairs grouped by the final segment a matching name
    must end with: a lookup then tries only the patterns that can match."""
    cached = _INDEXES.get(id(table))
    if cached is not None and cached[0] is table:
        return cached[1]
    index: dict[str, list[tuple[str, object]]] = {}
    for pattern, value in table.items():
        index.setdefault(pattern.rpartition(":")[2].rpartition(".")[2], []).append((pattern, value))
    _INDEXES[id(table)] = (table, index)
    return index


def lookup(qualified: str, table: Mapping[str, str] | Iterable[str]) -> str | None:
    """The value of the first pattern of ``table`` that ``qualified`` matches (for a
    plain iterable, the pattern itself)."""
    if isinstance(table, Mapping):
        for pattern, value in table.items():
            if matches(qualified, pattern):
                return value
        return None
    for pattern in table:
        if matches(qualified, pattern):
            return pattern
    return None
