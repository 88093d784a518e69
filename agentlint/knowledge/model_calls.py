"""How a model call or an agent run reads, per framework, as data (AGL501, and the
"runs an agent" wording): receiver constructors and the method chains on them that call a
model, families of receivers (`Chat*` classes under a root), plain functions, method
chains distinctive enough for an unresolved receiver, and methods that run the model
passed to them as an argument. Names are patterns as in ``frameworks`` (``root:Name``).
This module imports nothing of ours.
"""

from __future__ import annotations

from typing import Mapping

_CHAT = ("invoke", "ainvoke", "stream", "astream", "batch", "abatch", "predict", "apredict")
_DSPY_MODULE = ("__call__", "acall", "forward", "aforward", "batch")
_LLAMA_LLM = ("chat", "achat", "complete", "acomplete", "stream_chat", "astream_chat",
              "stream_complete", "predict", "apredict", "structured_predict", "astructured_predict")

LLM_RECEIVERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # OpenAI SDK clients: the method chain after the client
    ("openai:OpenAI", ("chat.completions.create", "chat.completions.parse", "chat.completions.stream",
                       "responses.create", "responses.parse", "responses.stream",
                       "beta.chat.completions.parse", "beta.chat.completions.stream", "completions.create")),
    ("openai:AsyncOpenAI", ("chat.completions.create", "chat.completions.parse", "chat.completions.stream",
                            "responses.create", "responses.parse", "responses.stream",
                            "beta.chat.completions.parse", "beta.chat.completions.stream", "completions.create")),
    ("openai:AzureOpenAI", ("chat.completions.create", "chat.completions.parse", "responses.create",
                            "beta.chat.completions.parse", "completions.create")),
    ("openai:AsyncAzureOpenAI", ("chat.completions.create", "chat.completions.parse", "responses.create",
                                 "beta.chat.completions.parse", "completions.create")),
    # Anthropic SDK clients
    ("anthropic:Anthropic", ("messages.create", "messages.stream", "beta.messages.create",
                             "beta.messages.stream", "beta.messages.tool_runner")),
    ("anthropic:AsyncAnthropic", ("messages.create", "messages.stream", "beta.messages.create",
                                  "beta.messages.stream", "beta.messages.tool_runner")),
    ("anthropic:AnthropicBedrock", ("messages.create", "messages.stream")),
    ("anthropic:AsyncAnthropicBedrock", ("messages.create", "messages.stream")),
    ("anthropic:AnthropicVertex", ("messages.create", "messages.stream")),
    ("anthropic:AsyncAnthropicVertex", ("messages.create", "messages.stream")),
    # Google GenAI
    ("google.genai:Client", ("models.generate_content", "models.generate_content_stream",
                             "aio.models.generate_content", "aio.models.generate_content_stream")),
    ("google.generativeai:GenerativeModel", ("generate_content", "generate_content_async")),
    # LangChain chat models and chains
    ("langchain:init_chat_model", _CHAT),
    ("langchain_core:BaseLanguageModel", _CHAT),
    ("langchain_core:BaseChatModel", _CHAT),
    ("langchain_core:BaseLLM", _CHAT),
    ("langchain:BaseLanguageModel", _CHAT),
    ("langchain:BaseChatModel", _CHAT),
    ("langchain:BaseLLM", _CHAT),
    ("langchain:LLMChain", ("run", "arun", "invoke", "ainvoke", "predict", "apredict", "__call__")),
    ("langchain:from_chain_type", ("run", "arun", *_CHAT)),
    ("langchain:from_llm", ("run", "arun", *_CHAT)),
    ("langchain_community:from_llm", ("run", "arun", *_CHAT)),
    # pydantic-ai
    ("pydantic_ai:Agent", ("run", "run_sync", "run_stream", "run_stream_sync", "run_stream_events", "iter")),
    # Microsoft Agent Framework
    ("agent_framework:Agent", ("run", "run_stream")),
    ("agent_framework:ChatAgent", ("run", "run_stream")),
    ("agent_framework:as_agent", ("run", "run_stream")),
    ("agent_framework:create_agent", ("run", "run_stream")),
    # CrewAI
    ("crewai:Crew", ("kickoff", "kickoff_async", "akickoff", "kickoff_for_each", "kickoff_for_each_async")),
    ("crewai:Agent", ("kickoff", "kickoff_async")),
    ("crewai:LLM", ("call",)),
    ("crewai:Task", ("execute", "execute_sync")),
    # smolagents
    ("smolagents:CodeAgent", ("run", "__call__")),
    ("smolagents:ToolCallingAgent", ("run", "__call__")),
    # MCP sampling: the client's model, asked from inside a tool
    ("mcp:Context", ("session.create_message",)),
    ("fastmcp:Context", ("session.create_message", "sample")),
    ("google.adk:AgentTool", ("run_async",)),
    # Semantic Kernel
    ("semantic_kernel:Kernel", ("invoke", "invoke_prompt", "invoke_stream")),
    ("semantic_kernel:ChatCompletionAgent", ("get_response", "invoke", "invoke_stream")),
    ("semantic_kernel:OpenAIChatCompletion", ("get_chat_message_content", "get_chat_message_contents",
                                              "get_streaming_chat_message_content",
                                              "get_streaming_chat_message_contents")),
    ("semantic_kernel:AzureChatCompletion", ("get_chat_message_content", "get_chat_message_contents",
                                             "get_streaming_chat_message_content",
                                             "get_streaming_chat_message_contents")),
    # AutoGen
    ("autogen_agentchat:AssistantAgent", ("run", "run_stream", "on_messages")),
    ("autogen_agentchat:RoundRobinGroupChat", ("run", "run_stream")),
    ("autogen_agentchat:SelectorGroupChat", ("run", "run_stream")),
    ("autogen_agentchat:Swarm", ("run", "run_stream")),
    ("autogen_ext:OpenAIChatCompletionClient", ("create", "create_stream")),
    ("autogen_ext:AzureOpenAIChatCompletionClient", ("create", "create_stream")),
    ("autogen_ext:AnthropicChatCompletionClient", ("create", "create_stream")),
    # AG2
    ("autogen:ConversableAgent", ("initiate_chat", "a_initiate_chat", "generate_reply", "a_generate_reply", "run")),
    ("autogen:AssistantAgent", ("initiate_chat", "a_initiate_chat", "generate_reply", "a_generate_reply", "run")),
    ("autogen:UserProxyAgent", ("initiate_chat", "a_initiate_chat")),
    ("ag2:Agent", ("ask", "run")),
    # LlamaIndex
    ("llama_index:FunctionAgent", ("run",)),
    ("llama_index:ReActAgent", ("run", "chat", "achat", "query")),
    ("llama_index:AgentWorkflow", ("run",)),
    # Google ADK
    ("google.adk:Runner", ("run_async", "run", "run_debug")),
    ("google.adk:InMemoryRunner", ("run_async", "run", "run_debug")),
    # LiteLLM router
    ("litellm:Router", ("completion", "acompletion", "responses", "aresponses")),
    # OpenAI Agents SDK: the Runner is used as a class
    ("agents:Runner", ("run", "run_sync", "run_streamed")),
    ("strands:Agent", ("invoke_async", "stream_async")),
    # LangChain's classic agent executor
    ("langchain:AgentExecutor", ("invoke", "ainvoke", "run", "arun", "stream", "astream", "__call__")),
    ("langchain:AgentExecutor.from_agent_and_tools", ("invoke", "ainvoke", "run", "arun", "stream", "astream")),
    ("langchain:initialize_agent", ("invoke", "ainvoke", "run", "arun")),
    # Agno and phidata
    ("agno:Agent", ("run", "arun", "print_response", "aprint_response", "continue_run", "acontinue_run")),
    ("agno:Team", ("run", "arun", "print_response", "aprint_response")),
    ("agno:Workflow", ("run", "arun")),
    ("phi:Agent", ("run", "arun", "print_response", "aprint_response")),
    ("phi:Assistant", ("run", "print_response")),
    # browser-use
    ("browser_use:Agent", ("run", "run_sync")),
    # CAMEL
    ("camel:ChatAgent", ("step", "astep")),
    ("camel:RolePlaying", ("step", "astep", "init_chat")),
    ("camel:ModelFactory.create", ("run", "arun")),
    ("camel:Workforce", ("process_task", "process_task_async")),
    # DSPy: the LM, and every module (a module call runs at least one LM call)
    ("dspy:LM", ("__call__", "acall", "forward", "aforward")),
    ("dspy:Predict", _DSPY_MODULE),
    ("dspy:ChainOfThought", _DSPY_MODULE),
    ("dspy:ReAct", _DSPY_MODULE),
    ("dspy:ReActV2", _DSPY_MODULE),
    ("dspy:CodeAct", _DSPY_MODULE),
    ("dspy:ProgramOfThought", _DSPY_MODULE),
    ("dspy:RLM", _DSPY_MODULE),
    ("dspy:Refine", _DSPY_MODULE),
    ("dspy:BestOfN", _DSPY_MODULE),
    ("dspy:MultiChainComparison", _DSPY_MODULE),
    ("dspy:Module", _DSPY_MODULE),
    # OpenAI Swarm
    ("swarm:Swarm", ("run",)),
)
"""Receiver constructor -> the method chains on it that call a model or run an agent."""

LLM_RECEIVER_FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    # (import root, class-name prefix or suffix test, methods)
    ("langchain", "Chat*", _CHAT),
    ("langchain_core", "Chat*", _CHAT),
    ("langchain_community", "Chat*", _CHAT),
    ("langchain_openai", "Chat*", _CHAT),
    ("langchain_anthropic", "Chat*", _CHAT),
    ("langchain_google_genai", "Chat*", _CHAT),
    ("langchain_aws", "Chat*", _CHAT),
    ("langchain_ollama", "Chat*", _CHAT),
    ("langchain_mistralai", "Chat*", _CHAT),
    ("langchain_groq", "Chat*", _CHAT),
    ("llama_index", "*llms*", _LLAMA_LLM),
    ("smolagents", "*Model", ("generate", "generate_stream", "__call__")),
    ("agent_framework", "*ChatClient", ("get_response", "get_streaming_response")),
    ("agent_framework", "*Client", ("get_response", "get_streaming_response")),
    ("agno", "*models*", ("response", "aresponse", "response_stream", "aresponse_stream", "invoke", "ainvoke")),
    ("phi", "*model*", ("response", "aresponse", "response_stream", "aresponse_stream", "invoke", "ainvoke")),
    ("browser_use", "Chat*", ("ainvoke",)),
)
"""Families of receivers: a class under ``root`` whose name matches (``Chat*`` prefix,
``*Model`` suffix, ``*llms*`` in the module path) has these model-calling methods."""

LLM_FUNCTIONS = frozenset({
    "litellm.completion",
    "litellm.acompletion",
    "litellm.responses",
    "litellm.aresponses",
    "litellm.text_completion",
    "litellm.atext_completion",
    "litellm.main.completion",
    "litellm.main.acompletion",
    "pydantic_ai.direct.model_request",
    "pydantic_ai.direct.model_request_sync",
    "agents.Runner.run",
    "agents.Runner.run_sync",
    "agents.Runner.run_streamed",
    "agents.run.Runner.run",
    "agents.run.Runner.run_sync",
    "agents.run.Runner.run_streamed",
    "openai.ChatCompletion.create",
    "openai.ChatCompletion.acreate",
    "openai.Completion.create",
    "ollama.chat",
    "ollama.generate",
    "autogen.initiate_group_chat",
    "autogen.initiate_chats",
})
"""Plain functions (qualified names) that call a model or run an agent."""

LLM_CHAIN_TAILS: Mapping[str, str] = {
    "chat.completions.create": "openai",
    "chat.completions.parse": "openai",
    "beta.chat.completions.parse": "openai",
    "models.generate_content": "google",
    "aio.models.generate_content": "google",
    "messages.create": "anthropic",
    "beta.messages.create": "anthropic",
    "responses.create": "openai",
}
"""Method chains distinctive enough to count on an unresolved receiver (`self.client`
built elsewhere) — each only in a file that imports the import root named (`google`
for google.genai and google.generativeai)."""

NAMED_RECEIVER_METHODS: Mapping[str, tuple[str, ...]] = {
    "invoke": ("langchain", "langchain_core", "langgraph"),
    "ainvoke": ("langchain", "langchain_core", "langgraph"),
}
"""LangChain's runnable methods on a receiver whose type is not known here (`self.llm`
set from a constructor argument, a parameter): a model call when the receiver is named
for a model, a chain or an agent (``MODEL_RECEIVER_WORDS``), in a file importing one of
these roots."""

MODEL_RECEIVER_WORDS = frozenset({"llm", "llms", "lm", "chat", "model", "chain", "agent", "executor"})
NOT_MODEL_RECEIVER_WORDS = frozenset({"tool", "tools", "retriever", "graph", "embedding", "embeddings", "embedder",
                                      "parser", "prompt", "loader", "splitter", "store", "db", "index"})

LLM_ARGUMENT_METHODS: Mapping[str, str] = {
    "get_element_by_prompt": "browser_use",
    "must_get_element_by_prompt": "browser_use",
    "extract_content": "browser_use",
}
"""Methods that run the model passed to them as an argument (browser-use's actor,
`page.must_get_element_by_prompt("submit button", llm)`): a model call in a file that
imports the root named, whatever the receiver."""

NOT_AGENT_RECEIVERS = (
    "langchain:init_chat_model", "langchain_core:BaseLanguageModel", "langchain_core:BaseChatModel",
    "langchain_core:BaseLLM", "langchain:BaseLanguageModel", "langchain:BaseChatModel", "langchain:BaseLLM",
    "langchain:LLMChain", "crewai:LLM", "camel:ModelFactory.create", "dspy:LM", "dspy:Predict",
    "dspy:ChainOfThought",
)
"""Receivers that are a model, not an agent: a tool calling them "calls a model" (the
families, raw SDK clients and pipelines are models too)."""

LANGCHAIN_PIPE_METHODS = _CHAT
"""A LangChain pipeline (`prompt | llm | parser`) holding a chat model runs the model
through these methods."""


def _method_names() -> frozenset[str]:
    names: set[str] = set(_CHAT) | set(NAMED_RECEIVER_METHODS) | set(LLM_ARGUMENT_METHODS)
    for _pattern, methods in LLM_RECEIVERS:
        names.update(m.rpartition(".")[2] for m in methods)
    for _root, _shape, methods in LLM_RECEIVER_FAMILIES:
        names.update(methods)
    names.update(t.rpartition(".")[2] for t in LLM_CHAIN_TAILS)
    names.update(f.rpartition(".")[2] for f in LLM_FUNCTIONS)
    return frozenset(names)


MODEL_METHOD_NAMES = _method_names()
"""Every final name of a model call above: a function calling none of them (nor a
function of its module, nor a model object) calls no model."""


def family_methods(qualified: str) -> tuple[str, ...]:
    """Model-calling methods of a receiver built by ``qualified`` when it belongs to a
    family (`langchain_openai.ChatOpenAI` -> invoke, ainvoke, ...)."""
    root = qualified.split(".", 1)[0]
    last = qualified.rpartition(".")[2]
    for family_root, shape, methods in LLM_RECEIVER_FAMILIES:
        if root != family_root:
            continue
        if shape.startswith("*") and shape.endswith("*"):
            if f".{shape.strip('*')}." in f".{qualified}.":
                return methods
        elif shape.endswith("*") and last.startswith(shape[:-1]) and last[:1].isupper():
            return methods
        elif shape.startswith("*") and last.endswith(shape[1:]) and last[:1].isupper():
            return methods
    return ()
