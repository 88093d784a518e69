"""The agent model (agents.py) on small sources: what is a tool, which parameters the
model fills, which calls are model calls that always run, how agents nest."""

from __future__ import annotations

import ast
import textwrap

import pytest

from agentlint.facts.agents.model import build
from agentlint.facts.agents.receivers import Knowledge
from agentlint.api import check_source
from agentlint.facts.module import extract_facts


def model(source: str, knowledge: Knowledge = Knowledge(), path: str = "app/mod.py"):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    return build(tree, extract_facts(path, tree), source, knowledge)


def tools(source: str, **kw) -> dict[str, tuple[str, list[str], list[str]]]:
    m = model(source, **kw)
    return {
        t.name: (t.framework, [p.name for p in t.params if not p.injected], [p.name for p in t.params if p.injected])
        for t in m.tool_facts()
    }


def test_aliases_and_receivers_are_resolved() -> None:
    found = tools(
        """
        from agents import function_tool as ft
        from pydantic_ai import Agent
        import fastmcp

        agent = Agent("openai:gpt-4.1")
        mcp = fastmcp.FastMCP("x")

        @ft
        def a(q: str): ...

        @agent.tool_plain
        def b(q: str): ...

        @mcp.tool
        def c(q: str): ...

        def tool(fn): return fn

        @tool
        def not_a_tool(q: str): ...
        """
    )
    assert found == {
        "a": ("openai-agents", ["q"], []),
        "b": ("pydantic-ai", ["q"], []),
        "c": ("fastmcp", ["q"], []),
    }


def test_injected_parameters_by_annotation_default_name_partial() -> None:
    found = tools(
        """
        import functools
        from typing import Annotated, Optional
        from langchain_core.tools import tool, InjectedToolArg
        from fastmcp.dependencies import TokenClaim, Depends
        from llama_index.core.tools import FunctionTool
        from google.adk.agents import Agent

        @tool
        def lc(q: str, user_id: Annotated[str, InjectedToolArg], config: "RunnableConfig" = None): ...

        def fm(q: str, user_id: str = TokenClaim("oid"), db=Depends(get_db)): ...

        def li(q: str, customer_id: str): ...
        FunctionTool.from_defaults(fn=li, partial_params={"customer_id": "c-1"})

        def adk(q: str, tool_context): ...
        def bound(q: str, tenant_id: str): ...
        agent = Agent(name="x", tools=[adk, functools.partial(bound, tenant_id="t")])
        """
    )
    assert found["lc"] == ("langchain", ["q"], ["user_id", "config"])
    assert found["li"] == ("llama-index", ["q"], ["customer_id"])
    assert found["adk"] == ("google-adk", ["q"], ["tool_context"])
    assert found["bound"] == ("google-adk", ["q"], ["tenant_id"])
    assert "fm" not in found  # not declared as a tool anywhere


def test_tools_list_through_a_variable_and_class_tools() -> None:
    found = tools(
        """
        from agents import Agent
        from crewai.tools import BaseTool

        def lookup(account_id: str): ...
        def search(q: str): ...
        TOOLS = [lookup] + [search]
        agent = Agent(name="a", tools=TOOLS)

        class Base(BaseTool):
            pass

        class Refund(Base):
            def _run(self, amount: float) -> str: ...
            def helper(self, x): ...
        """
    )
    assert set(found) == {"lookup", "search", "Refund._run"}
    assert found["Refund._run"] == ("crewai", ["amount"], [])


def test_config_knowledge_adds_decorators_bases_injected_types() -> None:
    knowledge = Knowledge(
        tool_decorators=("myapp.tools.register_tool",),
        tool_base_classes=("myapp.base.Skill._execute",),
        injected_types=frozenset({"TurnContext"}),
    )
    found = tools(
        """
        from myapp.tools import register_tool
        from myapp.base import Skill

        @register_tool
        def a(turn: "TurnContext", user_id: str): ...

        class S(Skill):
            def _execute(self, account_id): ...
            def run(self, x): ...
        """,
        knowledge=knowledge,
    )
    assert found == {"a": ("config", ["user_id"], ["turn"]), "S._execute": ("config", ["account_id"], [])}


def codes(source: str, select=("AGL201", "AGL202", "AGL501")) -> list[tuple[int, str]]:
    return sorted((d.line, d.code) for d in check_source(textwrap.dedent(source), "app/mod.py", select=list(select)))


def test_model_calls_in_branches_are_not_fixed_steps() -> None:
    source = """
        from openai import OpenAI
        from agents import function_tool

        client = OpenAI()

        def summarise(text):
            return client.chat.completions.create(model="m", messages=[])

        def maybe(text):
            if text:
                return summarise(text)

        @function_tool
        def search(q: str, deep: bool) -> str:
            pages = index.search(q)
            if deep:
                client.responses.create(model="m", input=q)
            short = summarise(q) if deep else q
            ok = deep and summarise(q)
            maybe(q)
            for page in pages:
                summarise(page)
            return client.responses.create(model="m", input=q)
        """
    assert codes(source) == [(23, "AGL501"), (24, "AGL501")]
    messages = [d.message for d in check_source(textwrap.dedent(source), "app/mod.py", select=["AGL501"])]
    assert "`summarise` → `client.chat.completions.create` (line 8)" in messages[0]


def test_self_receivers_and_pipelines() -> None:
    source = """
        from langchain_openai import ChatOpenAI
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_core.tools import BaseTool

        llm = ChatOpenAI()
        chain = ChatPromptTemplate.from_template("{x}") | llm

        class Summarise(BaseTool):
            def __init__(self):
                self.model = ChatOpenAI(model="m")

            def _run(self, text: str) -> str:
                self.model.with_structured_output(Out).invoke(text)
                return chain.invoke({"x": text})

            async def _arun(self, text: str) -> str:
                return await self.retriever.ainvoke(text)
        """
    assert codes(source) == [(14, "AGL501"), (15, "AGL501")]


def test_exception_text_forms() -> None:
    source = """
        import traceback
        from agents import function_tool

        @function_tool
        def t(q: str) -> str:
            try:
                return run(q)
            except ValueError as e:
                return {"error": str(e)}
            except KeyError as e:
                msg = "missing %s" % e
                return msg
            except TimeoutError as e:
                return type(e).__name__
            except OSError:
                return traceback.format_exc()
            except Exception as e:
                log.exception("failed")
                return "unavailable"

        def not_a_tool(q):
            try:
                return run(q)
            except Exception as e:
                return str(e)
        """
    assert codes(source, ("AGL202",)) == [(10, "AGL202"), (13, "AGL202"), (17, "AGL202")]


def test_silent_except_message_names_the_tool() -> None:
    source = """
        from crewai.tools import BaseTool

        class Search(BaseTool):
            def _run(self, q: str) -> str:
                try:
                    return backend(q)
                except Exception:
                    return ""
        """
    [finding] = check_source(textwrap.dedent(source), "app/mod.py", select=["AGL302"])
    assert "(inside tool `_run`)" in finding.message


@pytest.mark.parametrize(
    "name, kind",
    [
        ("customer_id", "identifier"),
        ("accountId", "identifier"),
        ("user_email", "identifier"),
        ("tenant", "identifier"),
        ("refund_amount", "money"),
        ("unit_price", "money"),
        ("max_price", None),
        ("price_range", None),
        ("order_id", None),
        ("query", None),
        ("amount", None),
    ],
)
def test_parameter_vocabulary(name: str, kind: str | None) -> None:
    from agentlint.rules.tool_boundary import MONEY_WORDS, SCOPE_WORDS, classify

    assert classify(name, SCOPE_WORDS, MONEY_WORDS, False) == kind


def test_bare_amount_needs_money_around_it() -> None:
    source = """
        from semantic_kernel.functions import kernel_function

        class Math:
            @kernel_function
            def add(self, value: int, amount: int) -> int: ...

        class Payments:
            @kernel_function
            def refund(self, order: str, amount: float) -> str: ...
        """
    assert codes(source, ("AGL201",)) == [(10, "AGL201")]


def test_guard_rule_asks_for_files_without_agent_vocabulary(monkeypatch) -> None:
    """AGL301 checks a guard file that says nothing of tools or agents (the model is
    built for it alone, the facts stay those of an unmodelled file), and a file with no
    guard is not modelled at all."""
    from agentlint.api import settings_for
    from agentlint.engine import analyze

    guard = textwrap.dedent(
        """
        import requests

        def check_service() -> bool:
            try:
                return requests.get("http://localhost:8080/health").ok
            except Exception:
                return False
        """
    ).encode()
    plain = b"def area(r):\n    return 3.14 * r * r\n"
    built = []
    real_build = analyze.build_model
    monkeypatch.setattr(analyze, "build_model", lambda *a, **kw: built.append(1) or real_build(*a, **kw))
    with_rule = analyze.analyze_content("probe.py", guard, settings_for(["AGL301"], None))
    assert [(d.code, d.line) for d in with_rule.diagnostics] == [("AGL301", 4)] and built == [1]
    without = analyze.analyze_content("probe.py", guard, settings_for(["AGL101"], None))  # facts, no model rule
    assert with_rule.facts == without.facts and with_rule.facts.tools == ()
    assert analyze.analyze_content("plain.py", plain, settings_for(["AGL301"], None)).diagnostics == ()
    assert built == [1]


def test_approval_and_revalidation_make_a_note_that_names_the_mitigation() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "AGL201" / "approvals.py"
    found = {(d.line, d.message.partition("`")[2].partition("`")[0], d.severity, d.message)
             for d in check_source(path.read_text(encoding="utf-8"), str(path), select=["AGL201"])}
    assert {(line, severity) for line, _, severity, _ in found} == {(15, "note"), (19, "note"), (26, "note"), (30, "note")}
    messages = {name: message for _, name, _, message in found}
    assert "mitigated (the tool is declared with `needs_approval=True`)" in messages["wire_money"]
    assert "`requires_approval=True`" in messages["freeze_card"]
    assert "`require_confirmation=True`" in messages["close_account"]
    assert "re-validated by before_tool_callback `only_own_customer`" in messages["statement"]


def test_unguarded_finding_stays_an_error() -> None:
    source = """
        from agents import function_tool

        @function_tool
        def wire_money(to_account: str) -> str: ...
        """
    [finding] = check_source(textwrap.dedent(source), "app/mod.py", select=["AGL201"])
    assert finding.severity == "error" and "mitigated" not in finding.message


def test_exception_text_message_names_the_closed_outcome() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "AGL202" / "library_messages.py"
    found = {d.line: d.message for d in check_source(path.read_text(encoding="utf-8"), str(path), select=["AGL202"])}
    assert '(`{"status": "invalid_args"}` for a `ValueError`)' in found[16]
    assert '(`{"status": "unavailable"}` for a `Timeout`)' in found[25]


def test_the_tools_alone_are_the_models_tools():
    # AGL302's message asks which functions are tools without the rest of the model:
    # ``tools_of`` must give exactly what the whole model gives, on every fixture.
    from pathlib import Path

    from agentlint.facts.agents.model import tools_of

    with_tools = 0
    for path in sorted((Path(__file__).resolve().parent.parent / "fixtures").rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        facts = extract_facts(str(path), tree)
        expected = build(tree, facts, source).tool_facts()
        assert tools_of(tree, facts, source) == expected, path
        with_tools += bool(expected)
    assert with_tools > 50
