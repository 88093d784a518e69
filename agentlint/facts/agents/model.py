"""The agent model of one file: its tools, the parameters a model fills, its agents and
how they nest, and the model calls inside tools. Read from the stdlib ``ast`` tree that
the facts already parsed; every framework fact comes from ``knowledge.frameworks``.

The model is built in layers, each a class the next extends: ``receivers`` (what the
module defines, receiver types, factories), ``calls`` (model calls and agent runs),
``params`` (a tool's parameters, schema tools), ``project`` (a project's own tool base
classes and registration decorators), ``tools`` (tools and how they are declared), and
``FileModel`` here (agents and how they nest).

Resolution is import-aware (the facts' import table) and follows simple receivers:
``agent = Agent(...)`` then ``@agent.tool``; ``client = OpenAI()`` (module level, in the
function, or ``self.client = OpenAI()`` in any method of the class) then
``client.chat.completions.create(...)``; ``llm = ChatOpenAI()`` then ``chain = prompt |
llm`` then ``chain.invoke(...)``. A function passed by name in ``tools=[...]`` (directly
or through a list variable) or wrapped with ``FunctionTool(fn)`` is a tool.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Iterator

from agentlint.facts.agents.inventory import model_calls as call_inventory
from agentlint.facts.agents.receivers import (
    DEFAULT_KNOWLEDGE,
    Knowledge,
    Tool,
    _last,
    _unsubscript,
)
from agentlint.facts.agents.sinks import Sink, SinkFinder
from agentlint.facts.agents.tools import ToolFinder, _function_argument
from agentlint.facts.ast_helpers import dotted, walk_statements
from agentlint.facts.types import AgentEdgeFact, AgentFact, FileFacts, ToolFact
from agentlint.knowledge import frameworks as fw
from agentlint.knowledge import model_calls as mc


class FileModel(ToolFinder):
    """Everything agent-related in one module."""

    def __init__(self, tree: ast.Module, facts: FileFacts, source: str, knowledge: Knowledge = DEFAULT_KNOWLEDGE) -> None:
        super().__init__(tree, facts, source, knowledge)
        self._find_project_frameworks()
        self._find_tools()
        self._find_agents()
        self.tool_uses = self._find_uses(self._all_defs, self._all_calls)
        self._sink_finder: SinkFinder | None = None
        self._sinks: dict[int, list[Sink]] = {}

    def fact_fields(self, model_calls: bool = True, sinks: bool = True) -> dict:
        """What the model adds to the file's facts (``FileFacts`` fields); the inventory
        of model calls only with ``model_calls``, the irreversible calls each tool reaches
        and the module's approvals only with ``sinks``."""
        tools = self.tool_facts()
        return dict(
            tools=self.with_sinks(tools) if sinks else tools,
            approval_wiring=self.sink_finder.module_approval if sinks else "",
            approved_names=self.sink_finder.approved_names() if sinks else (),
            agents=tuple(self.agents),
            tool_refs=tuple(self.tool_refs),
            tool_frameworks=tuple(self.tool_frameworks),
            tool_uses=tuple(self.tool_uses),
            model_receivers=self.model_receivers(),
            library_tools=self.library_tools,
            frameworks=self.frameworks,
            model_calls=call_inventory(self) if model_calls else (),
        )

    # -- irreversible effects ------------------------------------------------------------
    def tool_sinks(self, tool: Tool) -> list[Sink]:
        """The irreversible calls ``tool`` reaches, each with what protects it (``sinks``)."""
        if id(tool) not in self._sinks:
            self._sinks[id(tool)] = self.sink_finder.tool_sinks(tool)
        return self._sinks[id(tool)]

    @property
    def sink_finder(self) -> SinkFinder:
        if self._sink_finder is None:
            self._sink_finder = SinkFinder(self)
        return self._sink_finder

    def sink_helpers(self) -> tuple[tuple[str, str, str], ...]:
        """The module's functions that reach an irreversible call with nothing before it:
        (`pkg.mod.send_reply`, its kind, `server.sendmail (pkg.mod, line 12)`). Asked by the
        project phase, for the modules whose functions tools call."""
        out = []
        for name, func in self.functions.items():
            sinks = self.sink_finder.function_sinks(func)
            if sinks:
                out.append((f"{self.module}.{name}", sinks[0].kind, f"{sinks[0].text} ({self.module}, line {sinks[0].line})"))
        return tuple(out)

    def with_sinks(self, facts: tuple[ToolFact, ...]) -> tuple[ToolFact, ...]:
        """``facts`` with the irreversible calls each tool reaches."""
        by_fact = {id(t.fact): t for t in self.tools}
        out = []
        for fact in facts:
            tool = by_fact.get(id(fact))
            sinks = self.tool_sinks(tool) if tool is not None else []
            if sinks:
                fact = replace(fact, sinks=tuple(s.fact(self.column(s.at.lineno, s.at.col_offset)) for s in sinks))
            out.append(fact)
        return tuple(out)

    def model_helpers(self) -> tuple[tuple[str, str], ...]:
        """The module's functions that always call a model, for the tools of other
        modules calling them: (`pkg.mod.summarise`, `llm.invoke (pkg.mod, line 12)`).
        Asked by the project phase, for the modules whose functions tools call."""
        if not self.frameworks:
            return ()
        out = []
        methods = {method for _cls, method in self.methods}
        for name, func in self.functions.items():
            if not self._may_call_model(func, methods):
                continue
            path = self.always_calls_model(func)
            if path:
                text, call = path[-1]
                where = f" ({self.module}, line {call.node.lineno})" if call.node.lineno else ""
                out.append((f"{self.module}.{name}", text if "(" in text and text.endswith(")") else text + where))
        return tuple(out)

    def _may_call_model(self, func: ast.AST, methods: set[str]) -> bool:
        """Cheap test: does ``func`` call something named like a model call, a function of
        this module, or a model object?"""
        for node in ast.walk(func):
            if isinstance(node, ast.Call):
                callee = node.func
                if isinstance(callee, ast.Attribute) and (callee.attr in mc.MODEL_METHOD_NAMES
                                                          or callee.attr in methods):
                    return True
                if isinstance(callee, ast.Name) and (callee.id in self.functions or callee.id in self.module_scope.types
                                                     or callee.id in mc.MODEL_METHOD_NAMES):
                    return True
        return False

    def model_receivers(self) -> tuple[tuple[str, str], ...]:
        """The module's models and agents other modules may import: module-level
        receivers (`client = OpenAI()`) and factories (`def make_llm(): return
        ChatOpenAI()`, named `pkg.mod.make_llm()`), with their types."""
        out: list[tuple[str, str]] = []
        if not self.frameworks:
            return ()  # a model is built with a framework's (or an SDK's) class
        for name, type_ in self.module_scope.types.items():
            if name not in self.imports and not type_.startswith(f"{self.module}.") and self.model_methods(type_):
                out.append((f"{self.module}.{name}", type_))
        for name, func in self.functions.items():
            type_ = self.returned_type(func)
            if type_ is not None and not type_.startswith(f"{self.module}.") and self.model_methods(type_):
                out.append((f"{self.module}.{name}()", type_))
        return tuple(out)

    # -- agents ------------------------------------------------------------------------
    def _find_agents(self) -> None:
        for owner, body, prefix in self._bodies():
            for stmt in body:
                value = stmt.value if isinstance(stmt, (ast.Assign, ast.Return)) else (
                    stmt.value if isinstance(stmt, ast.AnnAssign) else None)
                if not isinstance(value, ast.Call):
                    continue
                framework = self._agent_constructor(value)
                if framework is None:
                    continue
                if isinstance(stmt, ast.Return):
                    if owner is None:
                        continue
                    agent_id = f"{self.module}.{owner.name}()"  # type: ignore[attr-defined]
                else:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]  # type: ignore[union-attr]
                    names = [t.id for t in targets if isinstance(t, ast.Name)]
                    if not names:
                        continue
                    agent_id = f"{prefix}{names[0]}"
                children = tuple(self._children(value, owner))
                if owner is None and isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                    children += tuple(self._decorated_children(agent_id.rpartition(".")[2]))
                self.agents.append(AgentFact(agent_id, framework, stmt.lineno, children))

    def _decorated_children(self, receiver: str) -> Iterator[AgentEdgeFact]:
        """Agents run by the tools decorated on this agent (`@billing.tool` whose body
        runs `refunds.run(...)`: pydantic-ai's agent delegation)."""
        for tool in self.tools:
            if self._decorated_on.get(id(tool.node)) != receiver:
                continue
            for call, _always in self.calls_in(tool.node.body):  # type: ignore[attr-defined]
                found = self.llm_call(call, tool.node)
                if found is not None and found.agent is not None:
                    yield AgentEdgeFact(found.agent, f"tool `{tool.fact.name}` runs it", call.lineno,
                                        self.column(call.lineno, call.col_offset))

    def _bodies(self) -> Iterator[tuple[ast.AST | None, list[ast.stmt], str]]:
        yield None, list(walk_statements(self.tree.body)), f"{self.module}."
        for func in list(self.functions.values()):
            yield func, list(walk_statements(func.body)), f"{self.module}.{func.name}:"  # type: ignore[attr-defined]

    def _agent_constructor(self, call: ast.Call) -> str | None:
        name = dotted(_unsubscript(call.func))
        if name is None:
            if isinstance(call.func, ast.Attribute) and call.func.attr == "as_agent":
                return "agent-framework" if "agent-framework" in self.frameworks else None
            return None
        qualified = self.resolve(name)
        if _last(qualified) in fw.NOT_AGENT_RESULT:
            return None
        framework = self.lookup(qualified, fw.AGENT_CONSTRUCTORS)
        if framework is None and _last(name) == "as_agent" and "agent-framework" in self.frameworks:
            framework = "agent-framework"
        return framework

    def _children(self, call: ast.Call, owner: ast.AST | None) -> Iterator[AgentEdgeFact]:
        for kw in call.keywords:
            if kw.arg in fw.TOOL_LIST_KEYWORDS:
                for element in self._elements(kw.value):
                    yield from self._tool_children(element, owner)
            elif kw.arg in fw.NESTED_AGENT_KEYWORDS:
                for element in self._elements(kw.value):
                    target = self._agent_id_of(element, owner)
                    if target is not None:
                        yield AgentEdgeFact(target, f"{kw.arg}=[...]", element.lineno,
                                            self.column(element.lineno, element.col_offset))

    def _tool_children(self, element: ast.AST, owner: ast.AST | None, depth: int = 0) -> Iterator[AgentEdgeFact]:
        line, column = element.lineno, self.column(element.lineno, element.col_offset)  # type: ignore[attr-defined]
        if isinstance(element, ast.Name) and depth < 2:
            value = (self.scope_of(owner).values.get(element.id) if owner is not None else None) or \
                self.module_scope.values.get(element.id)
            if isinstance(value, ast.Call):
                for edge in self._tool_children(value, owner, depth + 1):
                    yield AgentEdgeFact(edge.target, edge.how, line, column)
                return
        if isinstance(element, ast.Call):
            func = element.func
            if isinstance(func, ast.Attribute) and func.attr in fw.AGENT_AS_TOOL_METHODS:
                target = self._agent_id_of(func.value, owner)
                if target is not None:
                    yield AgentEdgeFact(target, f".{func.attr}()", line, column)
                return
            name = dotted(func)
            qualified = self.resolve(name) if name else ""
            if qualified and self.lookup(qualified, fw.TOOL_WRAPPERS) is not None and depth < 2:
                target = _function_argument(element)
                if target is not None:
                    for edge in self._tool_children(target, owner, depth + 1):
                        yield AgentEdgeFact(edge.target, edge.how, line, column)
                return
            keyword = self.lookup(qualified, fw.AGENT_TOOL_WRAPPERS) if qualified else None
            if keyword is not None:
                arg = element.args[0] if element.args else next(
                    (k.value for k in element.keywords if k.arg == keyword), None)
                target = self._agent_id_of(arg, owner)
                if target is not None:
                    yield AgentEdgeFact(target, f"{_last(qualified)}(...)", line, column)
            return
        name = dotted(element)
        if name is not None and name in self.functions:
            tool_func = self.functions[name]
            for call, _always in self.calls_in(tool_func.body):  # type: ignore[attr-defined]
                found = self.llm_call(call, tool_func)
                if found is not None and found.agent is not None:
                    yield AgentEdgeFact(found.agent, f"tool `{name}` runs it", line, column)


def build(tree: ast.Module, facts: FileFacts, source: str, knowledge: Knowledge = DEFAULT_KNOWLEDGE) -> FileModel:
    return FileModel(tree, facts, source, knowledge)


def tools_of(
    tree: ast.Module, facts: FileFacts, source: str, knowledge: Knowledge = DEFAULT_KNOWLEDGE
) -> tuple[ToolFact, ...]:
    """The module's tools alone, as ``build(...).tool_facts()`` gives them: the model's
    layers up to its tools, without the agents and tool uses found after them (which
    read the tools and change none). For a rule that only asks which functions are
    tools, in a run that needs no other part of the model."""
    finder = ToolFinder(tree, facts, source, knowledge)
    finder._find_project_frameworks()
    finder._find_tools()
    return finder.tool_facts()


_PREFILTER_WORDS = (b"tool", b"Tool", b"Agent", b"agent", b"input_schema", b"properties", b"kernel_function",
                    b"register_function", b"Crew", b"FunctionDeclaration", b"browser_use", b"dspy")


def worth_modelling(content: bytes, knowledge: Knowledge) -> bool:
    """Cheap test: can this file hold a tool or an agent at all?"""
    if any(word in content for word in _PREFILTER_WORDS):
        return True
    extra = [*knowledge.tool_decorators, *knowledge.tool_base_classes]
    return any(_last(e.replace(":", ".")).encode() in content for e in extra)
