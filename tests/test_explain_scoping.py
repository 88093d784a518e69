"""`agentlint explain` end to end on small projects built from the acceptance repros
(notes/acceptance A and B): Python scoping in the facts (locals hide module names and
imports, function-level imports stay in their function), receivers read through
attributes, receivers with several types, and module names of namespace folders inside
packages.

Answers are compared as exact sets both ways: a caller that must appear and one that
must not.
"""

import json
import textwrap

import pytest


@pytest.fixture
def explain(run_cli, tmp_path):
    """Write a project under tmp_path/proj, run `explain --format json` in it."""

    def run(files: dict[str, str], *args, expect=0):
        root = tmp_path / "proj"
        for path, text in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(text).lstrip("\n"))
        result = run_cli("explain", *args, "--format", "json", "--cache-dir", str(tmp_path / "cache"), cwd=root)
        assert result.exit_code == expect, result.stdout + result.stderr
        return json.loads(result.stdout)

    return run


def qualified(nodes):
    return {n["qualified"] for n in nodes}


def edges(answer):
    return {(e["from"], e["to"]): (e["kind"], sorted(e["lines"])) for e in answer["edges"]}


SHADOWING = {
    "app/__init__.py": "",
    "app/prompts.py": """
        DEFAULT_PROMPT = "You are a pirate."


        def run_task():
            return DEFAULT_PROMPT
    """,
    "app/module_var.py": """
        from app.prompts import DEFAULT_PROMPT

        prompt = DEFAULT_PROMPT


        def answer(question):
            prompt = "You are a librarian."  # a local: nothing to do with the module's `prompt`
            return prompt + question
    """,
    "app/params.py": """
        from app.prompts import run_task


        def call_given(run_task):
            # the parameter shadows the import: this calls whatever the caller passed
            return run_task()


        def loop_over(tasks):
            for run_task in tasks:
                run_task()


        def from_a_comprehension(tasks):
            return [run_task() for run_task in tasks]


        def through_a_lambda():
            return (lambda run_task: run_task())(print)
    """,
    "app/sibling.py": """
        def resolve():
            from app.prompts import run_task
            return run_task


        def local_only():
            run_task = lambda: "nothing to do with app.prompts"
            return run_task()


        def uses_the_sibling_import():
            return run_task()  # NameError at run time: `run_task` is resolve's
    """,
    "app/tools_loop.py": """
        from langchain_core.tools import tool

        from app.prompts import run_task


        @tool
        def search(query: str) -> str:
            \"\"\"Search the web.\"\"\"
            return query


        def run_tools(tools, question):
            first = run_task()
            for tool in tools:  # the loop variable shadows the imported `tool` decorator
                first += tool(question)
            return first
    """,
}


def test_locals_hide_module_names_and_imports(explain):
    """A repro_8: a parameter, a local assignment, a loop variable, a lambda or
    comprehension variable and a sibling function's import are not the module's."""
    answer = explain(SHADOWING, "DEFAULT_PROMPT")
    assert qualified(answer["readers"]) == {"app.module_var.prompt", "app.prompts.run_task"}
    assert qualified(answer["callers"]) == {"app.sibling.resolve", "app.tools_loop.run_tools"}
    found = edges(answer)
    assert found[("app/sibling.py:resolve", "app/prompts.py:run_task")] == ("uses", [3])
    assert found[("app/tools_loop.py:run_tools", "app/prompts.py:run_task")] == ("calls", [13])


def test_a_module_name_does_not_hide_a_local_receiver(explain):
    """A repro_1: `researcher` is also bound at module level (in the `__main__` block);
    inside get_report it is the local `Researcher()`."""
    files = {
        "app/__init__.py": "",
        "app/agent.py": """
            PROMPT = "You are a researcher."


            class Researcher:
                def conduct(self):
                    return PROMPT
        """,
        "app/run.py": """
            from app.agent import Researcher


            def get_report():
                researcher = Researcher()
                return researcher.conduct(), researcher


            if __name__ == "__main__":
                report, researcher = get_report()
                print(report)
        """,
    }
    answer = explain(files, "PROMPT")
    assert qualified(answer["readers"]) == {"app.agent.Researcher.conduct"}
    assert qualified(answer["callers"]) == {"app.run.get_report", "app.run:<main>"}
    assert edges(answer)[("app/run.py:get_report", "app/agent.py:Researcher.conduct")] == ("calls", [6])


FALLBACK = {
    "app/__init__.py": "",
    "app/langgraph_team.py": """
        PROMPT_A = "You are the LangGraph editor."


        def run_task():
            return PROMPT_A
    """,
    "app/ag2_team.py": """
        PROMPT_B = "You are the AG2 editor."


        def run_task():
            return PROMPT_B
    """,
    "app/runner.py": """
        def resolve():
            try:
                from app.langgraph_team import run_task
                return run_task
            except ImportError:
                from app.ag2_team import run_task
                return run_task


        def either():
            try:
                from app.langgraph_team import run_task
            except ImportError:
                from app.ag2_team import run_task
            return run_task()
    """,
}


def test_each_function_level_import_is_used_where_it_is_in_force(explain):
    """A repro_9: `try: from a import f` / `except ImportError: from b import f`."""
    answer = explain(FALLBACK, "PROMPT_B")
    assert qualified(answer["callers"]) == {"app.runner.resolve", "app.runner.either"}
    found = edges(answer)
    assert found[("app/runner.py:resolve", "app/ag2_team.py:run_task")] == ("uses", [7])
    assert found[("app/runner.py:either", "app/ag2_team.py:run_task")] == ("calls", [15])
    answer = explain(FALLBACK, "PROMPT_A")
    assert qualified(answer["callers"]) == {"app.runner.resolve", "app.runner.either"}
    assert edges(answer)[("app/runner.py:resolve", "app/langgraph_team.py:run_task")] == ("uses", [4])


PROMPTS_THROUGH_INSTANCES = {
    "app/__init__.py": "",
    "app/prompts.py": """
        class AskPrompts:
            main_system = "You answer questions."
            other_system = "Something else."
    """,
    "app/coders.py": """
        from app.prompts import AskPrompts


        class SameClass:
            gpt_prompts = AskPrompts()          # (a) class attribute holding a prompts instance

            def system(self):
                return self.gpt_prompts.main_system


        class InitAttr:
            def __init__(self):
                self.gpt_prompts = AskPrompts()  # (b) `self.x = Foo()` in __init__

            def system(self):
                return self.gpt_prompts.main_system

            def other(self):
                return self.gpt_prompts.other_system


        def local():
            p = AskPrompts()                     # (d) a local receiver
            return p.main_system


        def local_other():
            p = AskPrompts()
            return p.other_system


        def ask():
            return InitAttr().system() + local()


        class Coder:                             # (c) aider's shape: the base class reads
            def system(self):                    #     the attribute, a subclass sets it
                return self.gpt_prompts.main_system


        class AskCoder(Coder):
            gpt_prompts = AskPrompts()
    """,
}


def test_prompt_attributes_read_through_instances(explain):
    """B repro_2: reads of an attribute through a typed receiver; (c) needs the
    subclass's class-level `gpt_prompts = AskPrompts()` in the facts although the
    subclass itself never uses it."""
    answer = explain(PROMPTS_THROUGH_INSTANCES, "AskPrompts.main_system")
    assert qualified(answer["readers"]) == {
        "app.coders.SameClass.system", "app.coders.InitAttr.system", "app.coders.local", "app.coders.Coder.system",
    }
    assert qualified(answer["callers"]) == {"app.coders.ask"}
    assert edges(answer)[("app/coders.py:local", "app/prompts.py:AskPrompts.main_system")] == ("reads", [24])


def test_receiver_from_a_default_or_a_conditional(explain):
    """B repro_4: `self.x = param or Foo()`, `self.x = Foo() if c else param`."""
    files = {
        "app/__init__.py": "",
        "app/history.py": """
            SUMMARIZE = "Summarize."


            class ChatSummary:
                def summarize(self):
                    return SUMMARIZE
        """,
        "app/coder.py": """
            from app.history import ChatSummary


            class Coder:
                def __init__(self, summarizer=None):
                    self.summarizer = summarizer or ChatSummary()

                def worker(self):
                    return self.summarizer.summarize()


            class Coder2:
                def __init__(self, summarizer=None):
                    self.summarizer = ChatSummary() if summarizer is None else summarizer

                def worker(self):
                    return self.summarizer.summarize()


            class Coder3:
                def __init__(self, summarizer: ChatSummary | None = None):
                    self.summarizer = summarizer

                def worker(self):
                    return self.summarizer.summarize()


            class Unrelated:
                def __init__(self, summarizer=None):
                    self.summarizer = summarizer

                def worker(self):
                    return self.summarizer.summarize()
        """,
    }
    answer = explain(files, "SUMMARIZE")
    assert qualified(answer["callers"]) == {"app.coder.Coder.worker", "app.coder.Coder2.worker", "app.coder.Coder3.worker"}


AGENTS = {
    "app/__init__.py": "",
    "app/agents.py": """
        from __future__ import annotations

        ANTHROPIC_SYSTEM = "You operate a computer (Anthropic)."
        BINARY_SYSTEM = "You operate a computer (binary)."
        GROUNDING_B = "Grounding B."


        class OperatorAgent:
            def act(self):
                raise NotImplementedError


        class AnthropicOperatorAgent(OperatorAgent):
            def act(self):
                return ANTHROPIC_SYSTEM


        class BinaryOperatorAgent(OperatorAgent):
            def act(self):
                return BINARY_SYSTEM


        def operate(kind):
            operator_agent: OperatorAgent          # annotated, then assigned in branches
            if kind == "anthropic":
                operator_agent = AnthropicOperatorAgent()
            else:
                operator_agent = BinaryOperatorAgent()
            return operator_agent.act()


        def operate_unannotated(kind):
            if kind == "anthropic":
                agent = AnthropicOperatorAgent()
            else:
                agent = BinaryOperatorAgent()
            return agent.act()


        def operate_binary():
            agent = AnthropicOperatorAgent()
            agent = BinaryOperatorAgent()          # replaces: only the binary agent acts
            return agent.act()


        class Binary:
            def __init__(self, uitars):
                self.grounding: GroundingA | GroundingB = None   # union annotation, then branches
                if uitars:
                    self.grounding = GroundingB()
                else:
                    self.grounding = GroundingA()

            def ground(self):
                return self.grounding.act()


        class GroundingA:
            def act(self):
                return ANTHROPIC_SYSTEM


        class GroundingB:
            def act(self):
                return GROUNDING_B


        def ground_with(agent: GroundingB | None):
            return agent.act()
    """,
}


def test_receivers_with_several_types(explain):
    """B repro_7 and A repro_15: a receiver assigned in branches, or annotated with a
    union, may be any of its classes."""
    answer = explain(AGENTS, "ANTHROPIC_SYSTEM")
    assert qualified(answer["callers"]) == {
        "app.agents.operate", "app.agents.operate_unannotated", "app.agents.Binary.ground",
    }
    answer = explain(AGENTS, "BINARY_SYSTEM")
    assert qualified(answer["callers"]) == {
        "app.agents.operate", "app.agents.operate_unannotated", "app.agents.operate_binary",
    }
    answer = explain(AGENTS, "GROUNDING_B")
    assert qualified(answer["callers"]) == {"app.agents.Binary.ground", "app.agents.ground_with"}


def test_module_in_a_namespace_folder_inside_a_package(explain):
    """B repro_5: `app/processor/image/` has no `__init__.py`; Python imports its
    module as `app.processor.image.generate`."""
    files = {
        "app/__init__.py": "",
        "app/processor/__init__.py": "",
        "app/processor/prompts.py": 'IMPROVE_IMAGE_PROMPT = "Improve this image prompt: {query}"\n',
        "app/processor/image/generate.py": """
            from app.routers.helpers import better_image_prompt


            def text_to_image(query):
                return better_image_prompt(query)
        """,
        "app/routers/__init__.py": "",
        "app/routers/api.py": """
            from app.processor.image.generate import text_to_image


            def chat(query):
                return text_to_image(query)
        """,
        "app/routers/helpers.py": """
            from app.processor import prompts


            def better_image_prompt(query):
                return prompts.IMPROVE_IMAGE_PROMPT.format(query=query)
        """,
    }
    answer = explain(files, "IMPROVE_IMAGE_PROMPT")
    assert qualified(answer["readers"]) == {"app.routers.helpers.better_image_prompt"}
    assert qualified(answer["callers"]) == {"app.processor.image.generate.text_to_image", "app.routers.api.chat"}
