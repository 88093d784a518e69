"""The facts `explain` needs beyond the basics: receivers, class attributes, `self.X`
reads, `super()` and `Foo().m()` calls, `__main__` blocks; and their place in the
cache key."""

import ast
import json
import textwrap

from agentlint.facts import FACTS_VERSION, extract_facts
from agentlint.types import BindingFact, CallFact, DefinitionFact, FileFacts, ReferenceFact

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
    assert "Base.llm" not in definitions  # `self.llm = ...` in a method is not a class attribute


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
    assert bindings == {
        ("<module>", "client", "app.llm.Client"),
        ("Base", "self.llm", "app.llm.Client"),  # explicit `self.x = Foo()`
        ("Base", "self.other", "app.llm.Client"),  # through the typed parameter
        ("Base", "self.helper", "app.llm.Client"),  # class-level annotation, used as a receiver
        ("work", "local", "app.llm.Client"),  # used as a receiver
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
    import agentlint.config
    from agentlint.api import settings_for

    settings = settings_for()
    before = settings.fingerprint()
    monkeypatch.setattr(agentlint.config, "FACTS_VERSION", FACTS_VERSION + 1)
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
