"""The facts `explain` needs beyond the basics: receivers, class attributes, `self.X`
reads, `super()` and `Foo().m()` calls, `__main__` blocks; and their place in the
cache key."""

import ast
import json
import textwrap

from agentlint.facts.module import extract_facts
from agentlint.facts.types import FACTS_VERSION, BindingFact, CallFact, DefinitionFact, FileFacts, ReferenceFact

SOURCE = textwrap.dedent(
    '''
    from typing import Generic, Optional, Sequence

    from app.llm import Client, Context, Runtime, make
    from app.prompts import SYSTEM

    client = Client()


    class Base:
        PROMPT = SYSTEM + "!"
        name: str = "base"
        helper: Client

        def __init__(self, other: Client) -> None:
            self.llm = Client()
            self.other = other

        def run(self) -> str:
            self.helper.ping()
            return self.PROMPT + self.INHERITED + self.describe()

        def describe(self) -> str:
            return self.name

        def tools(self):
            return [self.describe]


    class Child(Base, Generic[T]):
        def run(self) -> str:
            return super().run()


    def work(items: Sequence[Client], extra: Optional[Client] = None) -> None:
        local = Client()
        local.send()
        unused = Client()
        for item in items:
            item.send()
        [other.close() for other in items]
        Client().send()
        make().send()


    def more(runtime: Runtime[Context]) -> None:
        runtime.start()
        shared = client
        shared.send()


    if __name__ == "__main__":
        work([])
    '''
)


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(SOURCE.splitlines(), 1) if text in line)


def facts() -> FileFacts:
    return extract_facts("app/example.py", ast.parse(SOURCE))


def test_class_attributes_are_definitions():
    definitions = {d.name: d for d in facts().definitions}
    line = line_of("PROMPT = SYSTEM")
    assert definitions["Base.PROMPT"] == DefinitionFact("Base.PROMPT", "attribute", line, line)
    assert definitions["Base.name"].kind == "attribute"
    assert definitions["Base.helper"].kind == "attribute"  # a field without a default too
    assert definitions["client"].kind == "variable"
    # `self.llm = ...` in a method: an instance attribute, at the assignment's lines.
    line = line_of("self.llm = Client()")
    assert definitions["Base.llm"] == DefinitionFact("Base.llm", "attribute", line, line)


def test_self_reads_of_class_names_are_references():
    refs = {(r.scope, r.name) for r in facts().references}
    assert ("Base.run", "example.Base.PROMPT") in refs
    assert ("Base.run", "example.Base.INHERITED") in refs  # constant-style: maybe inherited
    assert ("Base.describe", "example.Base.name") in refs
    assert ("Base.tools", "example.Base.describe") in refs  # a method used as a value
    assert ("Base.run", "example.Base.helper") in refs  # `self.helper.ping()` reads `helper`
    # `self.describe()` is a call, not also a read; `self.llm` is no class-level name.
    assert ("Base.run", "example.Base.describe") not in refs
    assert not any(name.endswith(".llm") for _, name in refs)


def test_generic_bases_are_bases():
    definitions = {d.name: d for d in facts().definitions}
    assert definitions["Child"].bases == ("example.Base", "typing.Generic")


def test_calls_through_super_and_fresh_instances():
    calls = {(c.scope, c.callee) for c in facts().calls}
    assert ("Child.run", "super().run") in calls
    assert ("work", "app.llm.Client().send") in calls
    assert ("work", "app.llm.make().send") in calls
    assert ("Base.run", "self.describe") in calls


def test_receiver_bindings():
    bindings = {(b.scope, b.name, b.type) for b in facts().bindings}
    # `Foo()` (what calling it gives: exactly a Foo) is told from `x: Foo` (a Foo or a subclass).
    assert bindings == {
        ("<module>", "client", "app.llm.Client()"),
        ("Base", "self.llm", "app.llm.Client()"),  # explicit `self.x = Foo()`
        ("Base", "self.other", "app.llm.Client"),  # through the typed parameter
        ("Base", "self.other=", "{Base.__init__:1:other}"),  # ... which keeps what the callers pass
        ("Base", "self.helper", "app.llm.Client"),  # class-level annotation, used as a receiver
        ("work", "local", "app.llm.Client()"),  # used as a receiver
        ("work", "item", "app.llm.Client"),  # loop over Sequence[Client]
        ("work", "other", "app.llm.Client"),  # comprehension over it
        ("more", "runtime", "app.llm.Runtime"),  # a generic class
        ("more", "shared", "example.client"),  # another variable: the graph follows its type
    }
    # `unused` and `extra` are never receivers: no binding is kept for them.


def test_main_blocks():
    start = line_of('if __name__ == "__main__":')
    assert facts().main_blocks == ((start, start + 1),)


def test_round_trip_through_json():
    original = facts()
    assert FileFacts.from_json(json.loads(json.dumps(original.to_json()))) == original
    assert isinstance(original.bindings[0], BindingFact)


def test_facts_version_is_part_of_the_cache_key(monkeypatch):
    import agentlint.engine.config
    from agentlint.api import settings_for

    settings = settings_for()
    before = settings.fingerprint()
    monkeypatch.setattr(agentlint.engine.config, "FACTS_VERSION", FACTS_VERSION + 1)
    assert settings.fingerprint() != before


def test_old_facts_still_read_the_same():
    """The facts other rules read (imports, calls, references) keep their meaning."""
    source = "import os\nfrom . import sib as s\n\ndef f():\n    os.path.join(s.X)\n"
    got = extract_facts("pkg/mod.py", ast.parse(source))
    assert got.calls == (CallFact("f", "os.path.join", 5),)
    assert set(got.references) == {ReferenceFact("f", "os.path.join", 5), ReferenceFact("f", "sib.X", 5)}


def test_annotation_references_are_marked():
    source = "from app import Client, Other\n\nx: Client = Other()\n\n\ndef f():\n    y: Other = 1\n"
    got = extract_facts("pkg/mod.py", ast.parse(source))
    assert ReferenceFact("<module>", "app.Client", 3) in got.references  # still a reference
    assert set(got.annotation_references) == {ReferenceFact("<module>", "app.Client", 3), ReferenceFact("f", "app.Other", 7)}
    assert ReferenceFact("<module>", "app.Other", 3) not in got.annotation_references


# -- scoping: a name bound in a function is local in all of it ----------------------


def _facts(source: str, path: str = "pkg/mod.py") -> FileFacts:
    return extract_facts(path, ast.parse(textwrap.dedent(source)))


def _calls(got: FileFacts) -> set[tuple[str, str]]:
    return {(c.scope, c.callee) for c in got.calls}


def _refs(got: FileFacts) -> set[tuple[str, str]]:
    return {(r.scope, r.name) for r in got.references}


def _bindings(got: FileFacts) -> set[tuple[str, str, str]]:
    return {(b.scope, b.name, b.type) for b in got.bindings}


SHADOWING = """
    import json
    from app.prompts import run_task, PROMPT
    from langchain_core.tools import tool

    prompt = PROMPT


    def parameter(run_task):
        return run_task()


    def assigned():
        run_task = make()
        return run_task()


    def assigned_later_in_a_loop(items):
        for item in items:
            if item:
                run_task()
            run_task = item


    def tuple_target():
        prompt, other = load()
        return prompt.upper()


    def augmented():
        prompt += "!"
        return prompt


    def loop_variable(tools):
        for tool in tools:
            tool("question")


    def with_and_except():
        with open("f") as json:
            json.read()
        try:
            pass
        except ValueError as run_task:
            run_task.args


    def walrus(data):
        if (json := data.get("json")) is not None:
            return json.dumps()


    def nested_names():
        def run_task():
            return 1

        class tool:
            pass

        return run_task(), tool()


    def reads_module_names():
        return run_task(), prompt, json.dumps({})


    def declared_global():
        global prompt
        prompt = "new"
        return prompt.upper()


    def lambda_and_comprehension():
        first = lambda run_task: run_task()
        return first, [tool(x) for tool in []], {prompt: 1 for prompt in []}


    answer = [run_task() for run_task in []]

    if __name__ == "__main__":
        run_task = tool
        run_task()
"""


def test_locals_do_not_resolve_to_module_names_or_imports():
    got = _facts(SHADOWING)
    calls, refs = _calls(got), _refs(got)
    for scope, callee in [
        ("parameter", "run_task"),
        ("assigned", "run_task"),
        ("assigned_later_in_a_loop", "run_task"),  # bound later in the loop: still local
        ("tuple_target", "prompt.upper"),
        ("loop_variable", "tool"),
        ("with_and_except", "json.read"),
        ("walrus", "json.dumps"),
        ("declared_global", "mod.prompt.upper"),  # `global prompt`: the module's
        ("lambda_and_comprehension", "run_task"),
        ("lambda_and_comprehension", "tool"),
        ("<module>", "run_task"),  # the comprehension's own variable
    ]:
        assert (scope, callee) in calls, (scope, callee)
    wrong = {
        (scope, callee) for scope, callee in calls
        if callee.startswith(("app.prompts.", "langchain_core.", "mod.prompt"))
        and scope not in ("reads_module_names", "declared_global", "<module>")
    }
    assert wrong == set()
    # `import json` resolves to `json`, so only the references tell the local apart.
    assert {("with_and_except", "json.read"), ("walrus", "json.dumps")}.isdisjoint(refs)
    assert ("reads_module_names", "json.dumps") in refs
    assert not any(name.startswith("app.prompts.run_task") for scope, name in refs if scope != "reads_module_names" and scope != "<module>")
    assert ("with_and_except", "run_task.args") not in refs and ("augmented", "mod.prompt") not in refs
    # Nested definitions are locals too: their uses stay unresolved (the graph finds them).
    assert {("nested_names", "run_task"), ("nested_names", "tool")} <= calls
    # Names not bound in the function still resolve.
    assert {("reads_module_names", "app.prompts.run_task"), ("reads_module_names", "json.dumps")} <= calls
    assert ("reads_module_names", "mod.prompt") in refs
    # Module-level code, the `__main__` block included, keeps module resolution.
    assert ("<module>", "app.prompts.PROMPT") in refs
    assert ("<module>", "langchain_core.tools.tool") in refs


def test_function_level_imports_stay_in_their_function():
    got = _facts(
        """
        import app.base as base


        def resolve():
            from app.langgraph_team import run_task
            from app.util import helper as aid

            def inner():
                return run_task(), aid.go()

            return run_task, base.X


        def sibling():
            return run_task(), aid.go()


        def fallback():
            try:
                from app.fast import parse
                parse(1)
            except ImportError:
                from app.slow import parse
                parse(2)
            return parse(3)


        def shadowed_in_nested():
            from app.team import agent

            def inner(agent):
                return agent.run()

            return agent.run()
        """
    )
    calls = {(c.scope, c.callee, c.line) for c in got.calls}
    refs = _refs(got)
    assert ("resolve", "app.langgraph_team.run_task") in refs
    assert ("resolve", "app.base.X") in refs
    assert {c[:2] for c in calls if c[0] == "resolve.inner"} == {
        ("resolve.inner", "app.langgraph_team.run_task"),
        ("resolve.inner", "app.util.helper.go"),
    }
    assert {c[:2] for c in calls if c[0] == "sibling"} == {("sibling", "run_task"), ("sibling", "aid.go")}
    # `try` / `except ImportError` imports: each branch its own, either after.
    parse = sorted((line, callee) for scope, callee, line in calls if scope == "fallback")
    assert [callee for _line, callee in parse] == ["app.fast.parse", "app.slow.parse", "app.fast.parse", "app.slow.parse"]
    assert {c[:2] for c in calls if c[0].startswith("shadowed_in_nested")} == {
        ("shadowed_in_nested.inner", "agent.run"),
        ("shadowed_in_nested", "app.team.agent.run"),
    }
    # The import facts are all kept (graph.py reads them).
    assert {(i.local, i.qualified) for i in got.imports} >= {
        ("run_task", "app.langgraph_team.run_task"), ("aid", "app.util.helper"),
        ("parse", "app.fast.parse"), ("parse", "app.slow.parse"), ("agent", "app.team.agent"),
    }


def test_nonlocal_and_enclosing_locals():
    got = _facts(
        """
        from app import client, tool


        def outer():
            client = make()

            def inner():
                nonlocal client
                client = other()
                return client.send(), tool()

            def reader():
                return client.send()

            return inner, reader
        """
    )
    assert _calls(got) >= {("outer.inner", "client.send"), ("outer.reader", "client.send"), ("outer.inner", "app.tool")}
    assert not any(callee == "app.client.send" for _scope, callee in _calls(got))


def test_if_and_loop_imports_in_a_function():
    got = _facts(
        """
        def make(provider):
            if provider == "openai":
                from app.openai_llm import LLM
            else:
                from app.anthropic_llm import LLM
            return LLM()


        def loop(items):
            for item in items:
                from app.worker import handle
            return handle(item)
        """
    )
    assert {c for c in _calls(got) if c[0] == "make"} == {("make", "app.openai_llm.LLM"), ("make", "app.anthropic_llm.LLM")}
    assert ("loop", "app.worker.handle") in _calls(got)


# -- receivers: reads of attributes, several types ---------------------------------


RECEIVERS = """
    from typing import Optional, Union

    from app.prompts import AskPrompts, Base, ChatSummary, GroundingA, GroundingB


    class SameClass:
        gpt_prompts = AskPrompts()

        def system(self):
            return self.gpt_prompts.main_system


    class InitAttr:
        def __init__(self, summarizer=None):
            self.gpt_prompts = AskPrompts()
            self.summarizer = summarizer or ChatSummary()
            self.other = ChatSummary() if summarizer is None else summarizer
            self.grounding: GroundingA | GroundingB = None

        def system(self):
            return self.gpt_prompts.main_system


    class Subclass(SameClass):
        gpt_prompts = AskPrompts()  # set for a base-class method: kept although unused here


    def local():
        p = AskPrompts()
        return p.main_system, p.render()


    def branches(kind, given: Optional[Base] = None):
        agent: Base
        if kind:
            agent = GroundingA()
        else:
            agent = GroundingB()
        return agent.act(), given.act()


    def straight_line():
        agent = GroundingA()
        agent = GroundingB()
        return agent.act()


    def unions(a: GroundingA | GroundingB, b: Union[GroundingA, GroundingB], c: "GroundingA | None", d: list[GroundingA | GroundingB]):
        a.act(), b.act(), c.act()
        for item in d:
            item.act()
"""


def test_attribute_reads_bind_receivers():
    got = _facts(RECEIVERS)
    refs, bindings = _refs(got), _bindings(got)
    assert ("SameClass.system", "self.gpt_prompts.main_system") in refs
    assert ("InitAttr.system", "self.gpt_prompts.main_system") in refs
    assert ("local", "p.main_system") in refs
    assert ("local", "p.render") not in refs  # a call: the call is the fact
    assert {
        ("SameClass", "self.gpt_prompts", "app.prompts.AskPrompts()"),
        ("InitAttr", "self.gpt_prompts", "app.prompts.AskPrompts()"),
        ("Subclass", "self.gpt_prompts", "app.prompts.AskPrompts()"),
        ("local", "p", "app.prompts.AskPrompts()"),
    } <= bindings


def test_receivers_with_several_types():
    bindings = _bindings(_facts(RECEIVERS))
    given = "{InitAttr.__init__:1:summarizer}"  # what the constructors pass for it
    assert {b for b in bindings if b[0] == "InitAttr"} == {
        ("InitAttr", "self.gpt_prompts", "app.prompts.AskPrompts()"),
        ("InitAttr", "self.summarizer", given),  # `summarizer or ChatSummary()`
        ("InitAttr", "self.summarizer", "app.prompts.ChatSummary()"),
        ("InitAttr", "self.other", "app.prompts.ChatSummary()"),  # `ChatSummary() if ... else summarizer`
        ("InitAttr", "self.other", given),
        ("InitAttr", "self.grounding", "app.prompts.GroundingA"),  # `A | B`
        ("InitAttr", "self.grounding", "app.prompts.GroundingB"),
    }
    assert {b for b in bindings if b[0] == "branches"} == {
        ("branches", "agent", "app.prompts.Base"),  # the annotation stays
        ("branches", "agent", "app.prompts.GroundingA()"),
        ("branches", "agent", "app.prompts.GroundingB()"),
        ("branches", "given", "app.prompts.Base"),  # Optional[Base]
    }
    # In the straight-line part, a new assignment replaces the type.
    assert {b for b in bindings if b[0] == "straight_line"} == {("straight_line", "agent", "app.prompts.GroundingB()")}
    both = {"app.prompts.GroundingA", "app.prompts.GroundingB"}
    for name in ("a", "b", "item"):
        assert {t for scope, n, t in bindings if scope == "unions" and n == name} == both, name
    assert {t for scope, n, t in bindings if scope == "unions" and n == "c"} == {"app.prompts.GroundingA"}


# -- module names ------------------------------------------------------------------------


def test_module_names_through_namespace_folders_inside_packages(tmp_path):
    from agentlint.facts.module_names import module_name_for

    for folder in ("app/processor/image", "app/weird-name/sub", "scripts/tools", "app/a/b/c/d"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    for init in ("app/__init__.py", "app/processor/__init__.py", "app/weird-name/sub/__init__.py"):
        (tmp_path / init).write_text("")
    assert module_name_for(str(tmp_path / "app/processor/image/generate.py")) == "app.processor.image.generate"
    assert module_name_for(str(tmp_path / "app/processor/prompts.py")) == "app.processor.prompts"
    assert module_name_for(str(tmp_path / "app/a/b/x.py")) == "app.a.b.x"  # two portions in a row
    assert module_name_for(str(tmp_path / "app/a/b/c/d/x.py")) == "x"  # too deep to be sure
    assert module_name_for(str(tmp_path / "app/weird-name/sub/x.py")) == "sub.x"  # not an identifier
    assert module_name_for(str(tmp_path / "scripts/tools/run.py")) == "run"  # no package above


# -- what functions return -----------------------------------------------------------------

RETURNS = """
from typing import Optional, Union
from typing import Self
from typing_extensions import Self as ExtSelf

from app.llm import Client, Other, make


def annotated() -> Client:
    return Other()


def optional() -> Optional[Client]:
    return None


def union_string() -> "Client | Other | None":
    ...


def union_builtins() -> Union[Client, str, None]:
    ...


def nothing_to_type() -> str:
    return Client()


def container() -> list[Client]:
    return [Client()]


def make_agent():
    return Client(name="x")


def through_a_local(flag):
    agent = Client()
    if flag:
        return agent
    return Other() if flag else make()


def untyped(x, factory):
    if x:
        return x.build()
    if factory:
        return factory()
    return Client


def nested():
    def inner():
        return Client()
    key = lambda: Other()
    return inner


async def awaited():
    return await Client.create()


def many():
    if a:
        return A1()
    if b:
        return A2()
    return A3() or A4() or A5() or A6() or A7() or A8() or A9() or A10()


class A1: pass
class A2: pass
class A3: pass
class A4: pass
class A5: pass
class A6: pass
class A7: pass
class A8: pass
class A9: pass
class A10: pass


class Coder:
    @classmethod
    def create(klass, edit_format=None):
        for kind in klass.__subclasses__():
            if kind.edit_format == edit_format:
                return kind()
        return klass()

    def chain(self):
        self.x = 1
        return self

    def copy(cls):
        return cls(1)

    @staticmethod
    def build():
        return Coder()

    def delegated(self):
        made = self.build()
        if made:
            return made
        return self.build()

    def closure(self):
        def inner():
            return self
        return inner

    def me(self) -> Self:
        ...

    def me_too(self) -> "Optional[Self]":
        ...

    def ext(self) -> "ExtSelf":
        ...

    def forward(self) -> "Coder":
        ...

    class Inner:
        def make(self):
            return self
"""


def _returns(got: FileFacts) -> dict[str, tuple[str, ...]]:
    return {d.name: d.returns for d in got.definitions if d.kind in ("function", "method")}


def test_returns_from_the_return_annotation():
    returns = _returns(_facts(RETURNS))
    assert returns["annotated"] == ("app.llm.Client",)  # the annotation, not the `return`
    assert returns["optional"] == ("app.llm.Client",)
    assert returns["union_string"] == ("app.llm.Client", "app.llm.Other")
    assert returns["union_builtins"] == ("app.llm.Client",)
    assert returns["nothing_to_type"] == ()  # annotated: the `return Client()` is not read
    assert returns["container"] == ("[]app.llm.Client",)  # a list of them
    for method in ("me", "me_too", "ext", "forward"):
        assert returns[f"Coder.{method}"] == ("mod.Coder",), method


def test_returns_from_return_statements():
    returns = _returns(_facts(RETURNS))
    assert returns["make_agent"] == ("app.llm.Client()",)
    assert returns["through_a_local"] == ("app.llm.Client()", "app.llm.Other()", "app.llm.make()")
    # What the callers pass: a method of the argument, the argument called; a class itself is no instance.
    assert returns["untyped"] == ("{untyped:0:x}.build()", "{untyped:1:factory}()")
    assert returns["nested"] == ()  # the nested function's and the lambda's are theirs
    assert returns["nested.inner"] == ("app.llm.Client()",)
    assert returns["awaited"] == ("app.llm.Client.create()",)  # as receivers are typed
    assert returns["many"] == tuple(f"mod.A{i}()" for i in range(1, 11))  # at most 16
    assert returns["Coder.create"] == ("mod.Coder",)  # `return klass()` in a classmethod: Coder or a subclass
    assert returns["Coder.chain"] == ("mod.Coder",)  # `return self`
    assert returns["Coder.copy"] == ("mod.Coder",)  # first parameter named `cls`
    assert returns["Coder.build"] == ("mod.Coder()",)
    assert returns["Coder.delegated"] == ("self.build()",)  # read in the method: the graph finds `self`
    assert returns["Coder.closure"] == ()
    assert returns["Coder.closure.inner"] == ()  # not a method: its `self` is not its own
    assert returns["Coder.Inner.make"] == ("mod.Coder.Inner",)


def test_returns_round_trip_and_old_cache_entries():
    got = _facts(RETURNS)
    assert FileFacts.from_json(json.loads(json.dumps(got.to_json()))) == got
    old = got.to_json()
    for definition in old["definitions"]:
        del definition["returns"]
    decoded = FileFacts.from_json(old)
    assert all(d.returns == () for d in decoded.definitions)
    # The positional order is unchanged: `returns` comes last.
    assert DefinitionFact("f", "function", 1, 2, (), (), ("a.B",)).returns == ("a.B",)


# -- instance attributes -----------------------------------------------------------------

INSTANCE = """
from app.prompts import SYSTEM_PROMPT, call, other


class Agent:
    PROMPT = "class level"
    if FLAG:
        flagged = 1

    def __init__(self, query):
        self.summarize_prompt = (
            f"Summarize {query}"
        )
        self.system_prompt = SYSTEM_PROMPT
        self.PROMPT = "override"
        self.run = None
        if query:
            self.model: str = "gpt"
        self.a, self.b = 1, 2
        self.summarize_prompt = "second"
        other.x = 1
        self.count += 1
        self.declared: int
        self.flagged = 2

        def later():
            self.nested = 1

        class Local:
            def __init__(self):
                self.local_only = 1

    def run(self):
        return call(self.summarize_prompt, self.system_prompt, self.model.name, self.nested, self.count)

    def send(self):
        self.summarize_prompt.format(x=1)
        return self.unknown

    @classmethod
    def make(cls):
        return cls.summarize_prompt

    class Inner:
        def __init__(self):
            self.inner_only = 1

    def late(self):
        self.late_attr = 1
        try:
            pass
        except ValueError:
            self.in_handler = 1
        else:
            self.in_else = 1
"""


def test_instance_attributes_are_definitions():
    got = _facts(INSTANCE)
    attributes = {d.name: (d.line, d.end_line) for d in got.definitions if d.kind == "attribute"}
    lines = textwrap.dedent(INSTANCE).splitlines()

    def at(text: str) -> int:
        return next(i for i, line in enumerate(lines, 1) if text in line)

    start = at("self.summarize_prompt = (")
    assert attributes["Agent.summarize_prompt"] == (start, start + 2)  # the first assignment, whole
    assert attributes["Agent.system_prompt"] == (at("self.system_prompt ="),) * 2
    assert attributes["Agent.model"] == (at("self.model: str"),) * 2
    assert attributes["Agent.a"] == attributes["Agent.b"] == (at("self.a, self.b"),) * 2
    assert attributes["Agent.nested"] == (at("self.nested = 1"),) * 2  # a nested function is the method's code
    assert attributes["Agent.Inner.inner_only"] == (at("self.inner_only"),) * 2
    assert attributes["Agent.in_handler"] == (at("self.in_handler"),) * 2
    assert "Agent.in_else" in attributes and "Agent.late_attr" in attributes
    # The class body defines these (a class attribute, a method, one in an `if`).
    assert attributes["Agent.PROMPT"] == (at('PROMPT = "class level"'),) * 2
    assert attributes["Agent.flagged"] == (at("flagged = 1"),) * 2
    assert "Agent.run" not in attributes
    names = [d.name for d in got.definitions]
    assert names.count("Agent.PROMPT") == names.count("Agent.flagged") == names.count("Agent.summarize_prompt") == 1
    # Not assignments of an attribute (`+=`, a bare annotation), not `self`'s, not this class's.
    for name in ("Agent.count", "Agent.declared", "Agent.x", "Agent.local_only", "Agent.inner_only"):
        assert name not in attributes, name


def test_reads_of_instance_attributes_are_references():
    refs = _refs(_facts(INSTANCE))
    for attr in ("summarize_prompt", "system_prompt", "model", "nested"):
        assert ("Agent.run", f"mod.Agent.{attr}") in refs, attr
    assert ("Agent.run", "self.model.name") in refs  # `self.x.attr` as for class attributes
    assert ("Agent.send", "mod.Agent.summarize_prompt") in refs  # `self.x.m()`
    assert ("Agent.run", "mod.Agent.count") not in refs  # only `+=`: no definition
    assert not any(name.endswith(".unknown") for _, name in refs)
    assert ("Agent.make", "mod.Agent.summarize_prompt") not in refs  # `cls.X`: not an instance's
    assert ("Agent.__init__", "app.prompts.SYSTEM_PROMPT") in refs  # the value, read in `__init__`
