"""What prompt code looks like, for the prompt facts (AGL401): the parameters, names,
message forms and calls through which text reaches a model, and the calls whose text
never does (logging, UI, errors, schemas)."""

from __future__ import annotations

import re

from agentlint.lazy_regex import lazy_compile

PROMPT_KWARGS = frozenset({
    "instructions", "system_prompt", "system", "system_message", "instruction", "prompt", "backstory",
    "system_instruction", "global_instruction", "static_instruction", "system_template", "prompt_template",
    "instructions_override", "template", "goal", "task_prompt", "user_prompt", "human_prompt", "query_prompt",
    "system_prompt_template", "prefix", "suffix", "expected_output",
})
"""Keywords whose value is prompt text, whatever the callee."""

PROMPT_NAME = lazy_compile(
    r"prompt|instruction|template|system|persona|backstory|guideline|preamble", re.IGNORECASE
)
"""Targets (names, attributes, subscripts) that hold prompt text."""
NOT_PROMPT_NAME = lazy_compile(
    r"tokens?$|_?len$|length|count|size|ids?$|path|file|dir|_fn$|func|enabled|hash|cache|_url$|url$|"
    r"version|encoding|type$|class$|cls$|_kwargs$|_vars$|variables|^is_|^has_|_name$|names$|fields?$",
    re.IGNORECASE,
)
"""Prompt-sounding names that hold something else (`prompt_tokens`, `template_path`)."""
STRONG_NAME = lazy_compile(
    r"prompt|instruction|persona|backstory|system_message|system_msg|guideline|preamble", re.IGNORECASE
)
"""Names whose (even short) text is a prompt block."""
BLOCK_NAME = lazy_compile(
    r"prompt|instruction|template|system|persona|backstory|guideline|rules|preamble|context|examples", re.IGNORECASE
)
"""Names whose text is a prompt block when it is prose of a prompt's length."""
NOT_TEXT_NAME = lazy_compile(
    r"usage|help|desc|license|readme|error|warn|log|html|css|sql|banner|welcome|placeholder|doc|notice|"
    r"header|footer|copyright|regex|pattern|schema|query$|queries|url|path|question|task$|tasks$|input|sample_|"
    r"output|result|response|reply|answer|summary|caption|note|status|reason|explanation|feedback|comment",
    re.IGNORECASE,
)
"""Names whose text, when not otherwise a prompt, is not read as one."""
PROMPT_FUNCTION = lazy_compile(r"prompt|instruction|system_message|persona", re.IGNORECASE)
PROMPT_DECORATOR = lazy_compile(r"(?:^|\.)(?:system_prompt|instructions|dynamic_prompt|prompt)$")
PROMPT_MODULE = lazy_compile(r"(?:^|[._])(?:prompts?|templates?|instructions|personas?)$", re.IGNORECASE)
"""Modules that hold prompts (`app.prompts`, `agent_templates`)."""
ARGUMENT_NAME = lazy_compile(r"prompt|instruction|system|persona|role|template|backstory|preamble|guideline", re.IGNORECASE)
"""Names of values passed to a function that are followed as prompts."""

ROLES = frozenset({"system", "developer", "user", "human"})
NOT_PROMPT_ROLES = frozenset({"tool", "function", "assistant", "ai", "model", "ipython"})
SYSTEM_ROLES = frozenset({"system", "developer"})
MESSAGE_CLASSES = {
    "SystemMessage": "system", "DeveloperMessage": "system", "SystemMessagePromptTemplate": "system",
    "HumanMessage": "user", "UserMessage": "user", "HumanMessagePromptTemplate": "user",
    "ChatMessage": "", "Message": "", "BaseMessage": "", "TextMessage": "", "ChatCompletionMessage": "",
}
"""Message classes -> the role they carry ("": given by `role=`)."""
NOT_PROMPT_MESSAGES = frozenset({"AIMessage", "AssistantMessage", "ToolMessage", "FunctionMessage", "AIMessagePromptTemplate"})
SYSTEM_METHODS = frozenset({"add_system_message", "update_system_message", "set_system_message"})

RENDER_METHODS = frozenset({
    "format", "format_map", "partial", "format_messages", "format_prompt", "render", "substitute",
    "safe_substitute", "invoke", "ainvoke",
})
"""Methods that fill a template in."""
TEXT_METHODS = frozenset({
    "format", "format_map", "replace", "strip", "lstrip", "rstrip", "substitute", "safe_substitute", "partial",
})
"""Methods whose receiver's text is still the text of the result."""
TEXT_CALLS = frozenset({
    "dedent", "cleandoc", "Template", "PromptTemplate", "from_template", "RichPromptTemplate",
    "StringPromptTemplate", "PromptTemplateConfig",
})
"""Calls whose first argument (or `template=`) is the text of the result."""
ASSEMBLING_CALLS = lazy_compile(
    r"(?:^|\.)(?:Template|PromptTemplate|ChatPromptTemplate|RichPromptTemplate|from_template|from_messages|get_template)$"
)

MODEL_METHODS = frozenset({
    "invoke", "ainvoke", "predict", "apredict", "generate", "agenerate", "complete", "acomplete", "chat", "achat",
    "stream", "astream", "generate_content", "generate_content_async", "send_message", "send_message_async",
    "step", "astep", "completion", "acompletion", "create", "call_llm", "llm_call",
})
MODEL_CALLEE = lazy_compile(r"^(?:llm|model|chat_model|call_llm|llm_call|ask_llm|query_llm|get_completion|complete_text|chat_completion)$|_llm$", re.IGNORECASE)
"""Functions whose first argument goes to a model (`llm("...")`, `ask_llm("...")`)."""
"""Calls whose string arguments go to a model."""
TASK_METHODS = frozenset({"run", "arun", "run_sync", "run_stream", "initiate_chat", "kickoff", "a_initiate_chat"})
"""Calls whose literal argument is a user's task, not a prompt of the application."""
TASK_KWARGS = frozenset({"task", "message", "query", "question", "input", "user_input", "request"})
EXCLUDED_KWARGS = frozenset({
    "description", "help", "label", "title", "placeholder", "info", "default_value", "value", "tooltip",
    "example", "examples", "error", "msg", "detail", "caption",
})
"""Keywords whose text is for people or schemas (tool and field descriptions, UI)."""
EXCLUDED_CALLS = frozenset({
    "print", "pprint", "display", "Markdown", "HTML", "write", "markdown", "info", "error", "warning", "warn",
    "debug", "exception", "critical", "log", "Field", "input", "getpass", "echo", "secho", "add_argument",
    "Starter", "Text", "Panel", "Textbox", "caption", "subheader", "header", "title", "success", "text", "status",
    "spinner", "toast", "Exception", "ValueError", "RuntimeError", "TypeError", "KeyError", "HTTPException",
    "AssertionError", "NotImplementedError", "warn_explicit", "DeprecationWarning", "deprecated", "print_formatted_text",
    "rule", "Rule", "Option", "Argument", "option", "argument", "command", "tool", "function_tool", "Tool",
    "StructuredTool", "FunctionTool", "skip", "xfail", "fail", "assertEqual", "assertIn", "mark",
})
"""Calls whose string arguments are output for people, errors, tests or tool schemas."""
