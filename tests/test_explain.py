"""`agentlint explain` on the multi-file fixture project fixtures/projects/support_desk.

Answers are compared as exact sets (JSON format), so a reader that goes missing or a
sibling that leaks in fails the test.
"""

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES

PROJECT = FIXTURES / "projects" / "support_desk"

TRIAGE_READERS = {
    "app.composer.compose_triage",
    "app.legacy.legacy_prompt",
    "app.prompts.TRIAGE_WITH_EXAMPLES",
}
TRIAGE_CALLERS = {
    "app.composer.compose_triage_with_examples",
    "app.agents.TriageDeskAgent.instructions",
    "app.agents.BaseDeskAgent.run",
    "app.batch.first_instructions",
    "app.batch.all_instructions",
    "app.agents.TriageDeskAgent.classify",
    "app.batch.quick_classify",
    "app.agents.triage_ticket",
    "test_agents.test_desk_classify",
    "app.agents.make_triage_agent",
    "app.cli.serve",
    "app.cli:<main>",
    "test_agents.test_triage_agent",
}
BILLING_SIDE = {
    "app.composer.compose_billing",
    "app.composer.compose_summary",
    "app.agents.BillingDeskAgent.instructions",
    "app.agents.BillingDeskAgent",
    "app.agents.answer_billing",
    "app.api.billing_endpoint",
    "app.agents.make_billing_agent",
    "test_agents.test_billing_agent",
    "app.cli.main",
}


@pytest.fixture
def explain(run_cli, tmp_path):
    """Run `explain` in the fixture project (cache in tmp_path) and decode the JSON."""

    def run(*args, cwd=PROJECT, expect=0):
        result = run_cli("explain", *args, "--format", "json", "--cache-dir", str(tmp_path / "cache"), cwd=cwd)
        assert result.exit_code == expect, result.stdout + result.stderr
        return json.loads(result.stdout) if expect != 2 else result

    return run


def qualified(nodes):
    return {n["qualified"] for n in nodes}


def reached(answer):
    return qualified(answer["readers"]) | qualified(answer["callers"])


def test_prompt_read_through_aliases_composer_and_self(explain):
    answer = explain("TRIAGE_PROMPT")
    assert [(d["qualified"], d["path"], d["line"]) for d in answer["definitions"]] == [
        ("app.prompts.TRIAGE_PROMPT", "app/prompts.py", 3)
    ]
    assert qualified(answer["readers"]) == TRIAGE_READERS
    assert qualified(answer["callers"]) == TRIAGE_CALLERS
    assert not reached(answer) & BILLING_SIDE


def test_groups_are_exact(explain):
    answer = explain("app.prompts.TRIAGE_PROMPT")
    groups = {g: set(ids) for g, ids in answer["groups"].items()}
    assert groups["tools and agents"] == {"app/agents.py:make_triage_agent", "app/agents.py:triage_ticket"}
    # The tool is a root: the route that calls it directly is not followed (the
    # framework runs a tool; `@function_tool` makes it no plain function).
    assert groups["entry points"] == {"app/cli.py:serve", "app/cli.py:<main>"}
    assert groups["tests"] == {"tests/test_agents.py:test_desk_classify", "tests/test_agents.py:test_triage_agent"}
    why = {c["qualified"]: c["why"] for c in answer["callers"]}
    assert why["app.agents.triage_ticket"] == ["tool (@agents.function_tool)"]
    assert "app.api.triage_endpoint" not in why
    assert why["app.cli.serve"] == ["CLI command (@click.command)"]
    assert why["app.agents.make_triage_agent"] == ["constructs an agent (Agent(...))"]


def test_edges_carry_kind_and_lines(explain):
    answer = explain("TRIAGE_PROMPT")
    edges = {(e["from"], e["to"]): (e["kind"], e["lines"]) for e in answer["edges"]}
    assert edges[("app/composer.py:compose_triage", "app/prompts.py:TRIAGE_PROMPT")] == ("reads", [8])
    assert edges[("app/agents.py:BaseDeskAgent.run", "app/agents.py:TriageDeskAgent.instructions")] == ("calls", [18])
    assert edges[("app/agents.py:triage_ticket", "app/agents.py:TriageDeskAgent.classify")] == ("calls", [45])
    assert edges[("app/cli.py:<main>", "app/agents.py:make_triage_agent")] == ("calls", [19])


def test_sibling_prompt_has_its_own_readers(explain):
    answer = explain("BILLING_PROMPT")
    assert qualified(answer["readers"]) == {"app.composer.compose_billing"}
    assert qualified(answer["callers"]) == {
        "app.agents.BillingDeskAgent.instructions",
        "app.agents.BaseDeskAgent.run",
        "app.batch.first_instructions",
        "app.batch.all_instructions",
        "app.agents.answer_billing",
        "app.agents.make_billing_agent",
        "test_agents.test_billing_agent",
    }


def test_prompt_read_through_function_level_import(explain):
    answer = explain("SUMMARY_PROMPT")
    assert qualified(answer["readers"]) == {"app.composer.compose_summary"}
    assert qualified(answer["callers"]) == {
        "app.cli.main",
        "app.cli:<main>",
        # `@assistant.system_prompt` registers summary_context on the agent object,
        # which `ask` runs.
        "app.assistant.summary_context",
        "app.assistant.assistant",
        "app.assistant.ask",
    }
    edges = {(e["from"], e["to"]): e["kind"] for e in answer["edges"]}
    assert edges[("app/assistant.py:assistant", "app/assistant.py:summary_context")] == "registers"
    assert not any(e["from"].endswith(":<module>") for e in answer["edges"])  # the decorator line


def test_symbol_forms_name_the_same_definition(explain):
    for form in ("app.prompts.TRIAGE_PROMPT", "prompts.TRIAGE_PROMPT", "app/prompts.py:TRIAGE_PROMPT", "app.DEFAULT_PROMPT"):
        answer = explain(form)
        assert [d["id"] for d in answer["definitions"]] == ["app/prompts.py:TRIAGE_PROMPT"], form
        assert qualified(answer["readers"]) == TRIAGE_READERS, form


def test_method_through_self_and_receivers(explain):
    answer = explain("app.agents.TriageDeskAgent.classify")
    # `desk = TriageDeskAgent()`; `TriageDeskAgent().classify(...)`; `desk = DEFAULT_DESK`
    # where `DEFAULT_DESK: TriageDeskAgent` is a module-level variable.
    assert qualified(answer["readers"]) == {
        "app.agents.triage_ticket", "test_agents.test_desk_classify", "app.batch.quick_classify",
    }
    answer = explain("app.llm.LLMClient.complete")
    # `self.client = LLMClient()` in the base class, `self.client.complete(...)` in `run`.
    assert qualified(answer["readers"]) == {"app.agents.BaseDeskAgent.run"}


def test_override_reached_through_a_base_class_receiver(explain):
    # `self.instructions()` in BaseDeskAgent.run, and `desk.instructions()` with
    # `desks: Sequence[BaseDeskAgent]`, may run TriageDeskAgent.instructions; but
    # BaseDeskAgent.run is reached from answer_billing only with a BillingDeskAgent.
    answer = explain("app.agents.TriageDeskAgent.instructions")
    assert qualified(answer["readers"]) == {
        "app.agents.BaseDeskAgent.run", "app.batch.first_instructions", "app.batch.all_instructions",
    }
    assert "app.agents.answer_billing" not in qualified(answer["callers"])
    assert "app.agents.TriageDeskAgent.classify" in qualified(answer["callers"])


def test_depth_limits_the_search(explain):
    answer = explain("TRIAGE_PROMPT", "--depth", "1")
    assert qualified(answer["readers"]) == TRIAGE_READERS
    assert answer["callers"] == []
    answer = explain("TRIAGE_PROMPT", "--depth", "2")
    assert qualified(answer["callers"]) == {
        "app.composer.compose_triage_with_examples",
        "app.agents.TriageDeskAgent.instructions",
        "app.agents.make_triage_agent",
    }


def test_model_alias_as_a_string(explain):
    answer = explain('"gpt-4.1"')
    assert answer["mode"] == "string"
    assert qualified(answer["readers"]) == {"app.agents.make_triage_agent", "app.llm.MODEL"}
    assert {"app.llm.LLMClient.__init__", "app.agents.triage_ticket", "app.agents.answer_billing"} <= qualified(answer["callers"])
    # Both tools are roots: the routes that call them are not followed.
    assert not {"app.api.triage_endpoint", "app.api.billing_endpoint"} & qualified(answer["callers"])
    matches = {(m["path"], m["line"]) for m in answer["text_matches"]}
    # gpt-4.1-mini in config/models.yaml is another model: not a match.
    assert matches == {("config/settings.toml", 2), ("README.md", 12)}


def test_model_alias_only_in_yaml_is_a_text_match(explain, project_copy):
    # generated/ is in the project's .gitignore (so this file is not in the repository
    # either): made here, it must never be listed.
    (project_copy / "generated").mkdir(exist_ok=True)
    (project_copy / "generated" / "models.yaml").write_text("model: claude-sonnet-4\n")
    answer = explain("claude-sonnet-4", cwd=project_copy)
    assert answer["readers"] == [] and answer["callers"] == []
    assert {(m["path"], m["line"], m["text"]) for m in answer["text_matches"]} == {
        ("config/models.yaml", 3, "model: claude-sonnet-4"),
        ("README.md", 13, "`claude-sonnet-4` lives only in `config/models.yaml`."),
    }
    assert not any(m["path"].startswith("generated") for m in answer["text_matches"])


def test_prompt_file_reached_through_the_code_that_opens_it(explain):
    answer = explain("prompts/escalation.md")
    assert answer["mode"] == "file" and answer["files"] == ["prompts/escalation.md"]
    assert qualified(answer["readers"]) == {"app.files.load_escalation"}
    assert qualified(answer["callers"]) == {"app.files.escalate", "app.api.escalate_endpoint"}
    assert {(m["path"], m["line"]) for m in answer["text_matches"]} == {("config/settings.toml", 3), ("README.md", 12)}
    answer = explain("prompts/apology.md")
    assert qualified(answer["readers"]) == {"app.files.load_apology"}
    assert answer["callers"] == []


def test_python_lines_the_graph_cannot_link_are_listed(explain):
    answer = explain("TRIAGE_PROMPT")
    assert {(m["path"], m["line"]) for m in answer["python_mentions"]} == {("app/legacy.py", 12)}


def test_ambiguous_name_lists_candidates(explain):
    result = explain("instructions", expect=2)
    assert "defined 3 times" in result.stderr
    for name in ("BaseDeskAgent.instructions", "TriageDeskAgent.instructions", "BillingDeskAgent.instructions"):
        assert f"app.agents.{name}" in result.stderr


def test_unknown_name_suggests_the_closest(run_cli, tmp_path):
    result = run_cli("explain", "TRIAGE_PROMTP", "--cache-dir", str(tmp_path / "c"), cwd=PROJECT)
    assert result.exit_code == 1
    assert "closest names: app.prompts.TRIAGE_PROMPT" in result.stdout


def test_usage_errors(run_cli, tmp_path):
    cache = ["--cache-dir", str(tmp_path / "c")]
    assert run_cli("explain", '""', *cache, cwd=PROJECT).exit_code == 2
    result = run_cli("explain", "app/nope.py:X", *cache, cwd=PROJECT)
    assert result.exit_code == 2 and "not a Python file of the project" in result.stderr
    assert run_cli("explain", "X", "no/such/folder", *cache, cwd=PROJECT).exit_code == 2
    assert run_cli("explain", "X", "--format", "yaml", *cache, cwd=PROJECT).exit_code == 2


def test_text_dot_and_mermaid(run_cli, tmp_path):
    cache = ["--cache-dir", str(tmp_path / "c")]
    text = run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=PROJECT).stdout
    assert "defined at app/prompts.py:3" in text
    assert "│   │   │       ├── app.agents.triage_ticket  app/agents.py:43  (calls 45)  [tool (@agents.function_tool)]" in text
    assert "config/models.yaml" not in text and "compose_billing" not in text
    dot = run_cli("explain", "TRIAGE_PROMPT", "--format", "dot", *cache, cwd=PROJECT).stdout
    assert dot.startswith("digraph explain {") and dot.rstrip().endswith("}")
    assert '"app/composer.py:compose_triage" -> "app/prompts.py:TRIAGE_PROMPT" [label="reads"];' in dot
    mermaid = run_cli("explain", "prompts/escalation.md", "--format", "mermaid", *cache, cwd=PROJECT).stdout
    assert mermaid.startswith("flowchart LR\n")
    assert 'n0["app.files.load_escalation<br/>app/files.py:8"]' in mermaid
    assert "-->|names the file|" in mermaid


def test_nothing_found_exits_1(explain):
    answer = explain("NO_SUCH_PROMPT_ANYWHERE", expect=1)
    assert answer["found"] is False


# -- the index: warm answers, changes picked up ---------------------------------------------------


@pytest.fixture
def project_copy(tmp_path):
    target = tmp_path / "desk"
    shutil.copytree(PROJECT, target)
    return target


def test_warm_explain_analyses_nothing_and_sees_changes(run_cli, project_copy, tmp_path, monkeypatch):
    import agentlint.engine.run
    import agentlint.explain.index

    cache = ["--format", "json", "--cache-dir", str(tmp_path / "cache")]
    first = json.loads(run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy).stdout)

    def no_analysis(*args, **kwargs):
        raise AssertionError("a warm explain must not analyse")

    monkeypatch.setattr(agentlint.explain.index, "facts_json", no_analysis)
    warm = json.loads(run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy).stdout)
    assert warm == first
    monkeypatch.undo()

    analysed = []
    real_facts = agentlint.explain.index.facts_json

    def counting_facts(files, *args, **kwargs):
        analysed.extend(files)
        return real_facts(files, *args, **kwargs)

    monkeypatch.setattr(agentlint.explain.index, "facts_json", counting_facts)
    legacy = project_copy / "app" / "legacy.py"
    legacy.write_text(legacy.read_text().replace("app.DEFAULT_PROMPT.strip()", '"no prompt here"'))
    (project_copy / "app" / "extra.py").write_text(
        "from app.prompts import TRIAGE_PROMPT\n\n\ndef shout():\n    return TRIAGE_PROMPT.upper()\n"
    )
    changed = json.loads(run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy).stdout)
    assert sorted(analysed) == ["app/extra.py", "app/legacy.py"]
    assert qualified(changed["readers"]) == TRIAGE_READERS - {"app.legacy.legacy_prompt"} | {"app.extra.shout"}


def test_corrupt_index_is_rebuilt(run_cli, project_copy, tmp_path):
    cache = ["--format", "json", "--cache-dir", str(tmp_path / "cache")]
    first = json.loads(run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy).stdout)
    (index,) = (tmp_path / "cache" / "explain").glob("*.idx")
    index.write_text("{not json\n")
    again = run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy)
    assert again.exit_code == 0 and json.loads(again.stdout) == first
    assert index.read_bytes().startswith(b"AGLX")


def test_no_cache_answers_the_same(run_cli, tmp_path):
    cached = run_cli("explain", "TRIAGE_PROMPT", "--format", "json", "--cache-dir", str(tmp_path / "c"), cwd=PROJECT)
    uncached = run_cli("explain", "TRIAGE_PROMPT", "--format", "json", "--no-cache", cwd=PROJECT)
    assert json.loads(uncached.stdout) == json.loads(cached.stdout)
    assert not (PROJECT / ".agentlint_cache").exists()


def test_walk_finds_what_check_finds(tmp_path):
    from agentlint.api import settings_for
    from agentlint.engine.discovery import discover
    from agentlint.explain.index import walk

    settings = settings_for(root=str(PROJECT))
    for paths in ([str(PROJECT)], [str(FIXTURES)], [str(PROJECT / "app"), str(PROJECT / "app" / "llm.py")]):
        assert walk(paths, settings).py_files == discover(paths, settings).files
    found = walk([str(PROJECT)], settings)
    names = {Path(p).resolve().relative_to(PROJECT).as_posix() for p in found.text_files}
    assert names == {
        "README.md", "config/models.yaml", "config/settings.toml", "prompts/apology.md", "prompts/escalation.md",
    }


def test_indexes_of_another_agentlint_are_removed(run_cli, project_copy, tmp_path):
    # a cache an earlier agentlint made (and claimed), holding that version's index
    assert run_cli("explain", "TRIAGE_PROMPT", "--cache-dir", str(tmp_path / "cache"), cwd=project_copy).exit_code == 0
    stale = tmp_path / "cache" / "explain" / "v0.0.0-0123456789abcdef0123.idx"
    for index in stale.parent.glob("*.idx"):
        index.unlink()
    stale.write_bytes(b"AGLX0 old")
    assert run_cli("explain", "TRIAGE_PROMPT", "--cache-dir", str(tmp_path / "cache"), cwd=project_copy).exit_code == 0
    names = [p.name for p in stale.parent.iterdir() if p.name.endswith(".idx")]
    assert len(names) == 1 and names[0] != stale.name


def test_full_graph_of_the_fixture(tmp_path):
    """The whole graph (every edge resolved) for small projects and tools."""
    from agentlint.api import settings_for
    from agentlint.explain.index import load
    from agentlint.explain.graph import Graph

    settings = settings_for(root=str(PROJECT))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "cache")})
    graph = Graph(load([str(PROJECT)], settings)).full()
    edges = {(a.rpartition("/")[2], b.rpartition("/")[2], d["kind"]) for a, b, d in graph.edges(data=True)}
    assert ("composer.py:compose_triage", "prompts.py:TRIAGE_PROMPT", "reads") in edges
    assert ("agents.py:BaseDeskAgent.run", "llm.py:LLMClient.complete", "calls") in edges  # self.client.complete
    # `self.client = LLMClient()` in `__init__`: the instance attribute makes the client.
    assert ("agents.py:BaseDeskAgent.client", "llm.py:LLMClient", "calls") in edges
    assert ("llm.py:LLMClient", "llm.py:LLMClient.__init__", "constructs") in edges
    assert ("agents.py:TriageDeskAgent", "agents.py:BaseDeskAgent", "inherits") in edges
    assert ("batch.py:quick_classify", "agents.py:TriageDeskAgent.classify", "calls") in edges
    # A class is not linked to the methods it does not run on construction.
    assert not any(a.endswith(":TriageDeskAgent") and b.endswith(".classify") for a, b, _ in edges)


def test_unknown_name_is_searched_as_a_string_and_as_text(run_cli, tmp_path):
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "models.py").write_text('def pick(task):\n    return "o3" if task else "gpt-4.1"\n')
    (project / "pkg" / "run.py").write_text("from pkg.models import pick\n\n\ndef main():\n    return pick(1)\n")
    (project / "pkg" / "bad.py").write_text('def broken(:\n    MODEL = "o3"\n')
    (project / "config.yaml").write_bytes(b"model: o3\n\xff\xfe not utf-8\n")
    (project / ".env.example").write_text("MODEL=o3\n")
    (project / ".env").write_text("MODEL=o3\nSECRET=never-shown\n")
    result = run_cli("explain", "o3", "--format", "json", "--cache-dir", str(tmp_path / "c"), cwd=project)
    assert result.exit_code == 0, result.stderr
    answer = json.loads(result.stdout)
    assert qualified(answer["readers"]) == {"pkg.models.pick"}
    assert qualified(answer["callers"]) == {"pkg.run.main"}
    assert {(m["path"], m["line"]) for m in answer["text_matches"]} == {("config.yaml", 1), (".env.example", 1)}
    # The file that does not parse is still read by the text search, and said so.
    assert {(m["path"], m["line"]) for m in answer["python_mentions"]} == {(os.path.join("pkg", "bad.py"), 2)}
    assert any("could not be parsed" in note and "bad.py" in note for note in answer["notes"])


def test_callers_resolved_once_are_kept_until_the_project_changes(run_cli, project_copy, tmp_path, monkeypatch):
    import agentlint.explain.graph

    cache = ["--format", "json", "--cache-dir", str(tmp_path / "cache")]
    first = json.loads(run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy).stdout)

    def no_resolution(self, ref):
        raise AssertionError("kept callers must be reused")

    monkeypatch.setattr(agentlint.explain.graph.Graph, "_predecessors", no_resolution)
    assert json.loads(run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy).stdout) == first
    # Any change to the project makes the kept callers stale: they are resolved again.
    (project_copy / "app" / "extra.py").write_text("from app.prompts import TRIAGE_PROMPT\n\n\ndef f():\n    return TRIAGE_PROMPT\n")
    stale = run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy)
    assert stale.exit_code == 2 and "must be reused" in stale.stderr  # resolved again: the patch ran
    monkeypatch.undo()
    changed = json.loads(run_cli("explain", "TRIAGE_PROMPT", *cache, cwd=project_copy).stdout)
    assert qualified(changed["readers"]) == TRIAGE_READERS | {"app.extra.f"}


def test_docs_page_shows_real_output(run_cli):
    """docs/explain.md shows what `explain` prints on the fixture project, verbatim."""
    doc = (PROJECT.parent.parent.parent / "docs" / "explain.md").read_text(encoding="utf-8")
    for args in (["TRIAGE_PROMPT"], ["claude-sonnet-4"], ["TRIAGE_PROMPT", "--format", "mermaid", "--no-grep"]):
        out = run_cli("explain", *args, "--no-cache", cwd=PROJECT).stdout
        assert out in doc, f"docs/explain.md is out of date for `agentlint explain {' '.join(args)}`"


def test_monorepo_applications_are_kept_apart(explain):
    """Two applications with their own `app.prompts.SYSTEM_PROMPT` (each with a
    pyproject.toml): the answer for one never lists the other's reader, not even as a
    grep mention; the bare name is ambiguous and both are offered."""
    monorepo = FIXTURES / "projects" / "monorepo_explain"
    answer = explain("shop/app/prompts.py:SYSTEM_PROMPT", cwd=monorepo)
    assert {(n["qualified"], n["path"]) for n in answer["readers"]} == {("app.agent.shop_reply", "shop/app/agent.py")}
    assert not any("support/" in m["path"] for m in answer["python_mentions"])
    other = explain("support/app/prompts.py:SYSTEM_PROMPT", cwd=monorepo)
    assert {n["path"] for n in other["readers"]} == {"support/app/agent.py"}
    ambiguous = explain("SYSTEM_PROMPT", cwd=monorepo, expect=2)
    assert "shop/app/prompts.py" in ambiguous.stderr and "support/app/prompts.py" in ambiguous.stderr


def test_constructor_chains_through_subclasses_and_aliases(explain, tmp_path):
    """`K.__init__` is searched for only in K's family (its file, its subclasses, the
    files naming them): every `super().__init__()` and `K.__init__(self)` is still
    found, and an unrelated class's `super().__init__()` is not taken for K's."""
    project = tmp_path / "ctor"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "prompts.py").write_text('GREETING = "Hello from the desk"\n')
    (project / "pkg" / "base.py").write_text(
        "from pkg.prompts import GREETING\n\n\n"
        "class Desk:\n"
        "    def __init__(self):\n"
        "        print(GREETING)\n"
    )
    (project / "pkg" / "middle.py").write_text(
        "from pkg.base import Desk\n\n\n"
        "class Counter(Desk):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n\n\n"
        "class Plain(Counter):\n"
        "    pass\n"
    )
    (project / "pkg" / "leaf.py").write_text(
        "from pkg.middle import Plain\n\n\n"
        "class Night(Plain):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n\n\n"
        "def open_night():\n"
        "    return Night()\n"
    )
    (project / "pkg" / "aliased.py").write_text(
        "from pkg.base import Desk as BaseDesk\n\n\n"
        "class Phone(BaseDesk):\n"
        "    def __init__(self):\n"
        "        BaseDesk.__init__(self)\n"
    )
    (project / "pkg" / "other.py").write_text(
        "class Unrelated(dict):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n\n\n"
        "def make():\n"
        "    return Unrelated()\n"
    )
    answer = explain("pkg.prompts.GREETING", str(project), cwd=project)
    assert reached(answer) == {
        "pkg.base.Desk.__init__",
        "pkg.base.Desk",
        "pkg.middle.Counter.__init__",
        "pkg.middle.Counter",
        "pkg.middle.Plain",
        "pkg.leaf.Night.__init__",
        "pkg.leaf.Night",
        "pkg.leaf.open_night",
        "pkg.aliased.Phone.__init__",
        "pkg.aliased.Phone",
    }


def test_postings_tell_defining_files_from_using_files(tmp_path):
    """A file that only defines a name is found by `files_mentioning` (to find the
    definition) but not by `files_using` (a question never scans it for uses)."""
    from agentlint.api import settings_for
    from agentlint.explain.index import load

    (tmp_path / "a.py").write_text("def run():\n    return 1\n")
    (tmp_path / "b.py").write_text("from a import run\n\nrun()\n")
    (tmp_path / "c.py").write_text("def go():\n    job = make()\n    return job.run()\n")  # a local of unknown type
    settings = settings_for(root=str(tmp_path))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "cache")})
    files = load([str(tmp_path)], settings)
    names = {number: Path(entry.path).name for number, entry in enumerate(files.entries)}
    assert {names[n] for n in files.files_mentioning("run")} == {"a.py", "b.py", "c.py"}
    assert {names[n] for n in files.files_using("run")} == {"b.py", "c.py"}
    assert {names[n] for n in files.files_using("run", resolvable=True)} == {"b.py"}


def _write_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _places(answer) -> dict[str, set]:
    """qualified name -> the lines of the edges that reach it into the answer."""
    return {n["qualified"]: {tuple(l) if isinstance(l, list) else l for l in n.get("lines", [])} for n in answer["callers"]}


def test_names_of_a_class_body_are_not_visible_from_its_methods(explain, tmp_path):
    """`commit.tree` in a method is a local `commit`, not the method `commit` of the
    class (found on aider: one such edge brought in 25 wrong places)."""
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/prompts.py": 'COMMIT_SYSTEM = "Write a commit message."\n',
        "app/repo.py": (
            "from app import prompts\n\n\n"
            "class Repo:\n"
            "    def commit(self):\n"
            "        return self.message()\n\n"
            "    def message(self):\n"
            "        return prompts.COMMIT_SYSTEM\n\n"
            "    def tracked_files(self, head):\n"
            "        commit = head.commit\n"
            "        return list(commit.tree.traverse())\n\n"
            "    def by_param(self, commit):\n"
            "        return commit.tree.traverse()\n"
        ),
    })
    answer = explain("app.prompts.COMMIT_SYSTEM", cwd=project)
    assert reached(answer) == {"app.repo.Repo.message", "app.repo.Repo.commit"}


def test_cls_call_in_a_classmethod_constructs_the_class(explain, tmp_path):
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/memory.py": (
            'SYSTEM_PROMPT = "Extract facts."\n\n\n'
            "class Memory:\n"
            "    def __init__(self, config=None):\n"
            "        self.config = config\n"
            "        self.prompt = SYSTEM_PROMPT\n\n"
            "    @classmethod\n"
            "    def from_config(cls, config):\n"
            "        return cls(config)\n\n\n"
            "class Other:\n"
            "    @classmethod\n"
            "    def make(cls):\n"
            "        return cls()\n"
        ),
        "app/service.py": "from app.memory import Memory\n\n\ndef make_memory():\n    return Memory.from_config({})\n",
    })
    answer = explain("app.memory.SYSTEM_PROMPT", cwd=project)
    # `self.prompt = SYSTEM_PROMPT`: the instance attribute holds it; nothing reads
    # `self.prompt`, so whoever constructs the class is its user.
    assert reached(answer) == {
        "app.memory.Memory.prompt", "app.memory.Memory", "app.memory.Memory.from_config", "app.service.make_memory",
    }


def test_a_call_on_a_module_level_object_reads_the_object(explain, tmp_path):
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/editor.py": (
            "class ChiefEditor:\n"
            "    def __init__(self, task):\n"
            "        self.task = task\n\n"
            "    def init_team(self):\n"
            "        return self.task\n"
        ),
        "app/agent.py": (
            "from app.editor import ChiefEditor\n\n"
            'chief_editor = ChiefEditor({"model": "gpt-4o"})\n'
            "graph = chief_editor.init_team()\n\n\n"
            "def serve():\n"
            "    return chief_editor.init_team()\n\n\n"
            "def unrelated():\n"
            "    return ChiefEditor({}).init_team()\n"
        ),
    })
    answer = explain('"gpt-4o"', cwd=project)
    assert reached(answer) == {"app.agent.chief_editor", "app.agent.graph", "app.agent.serve"}


def test_dispatch_to_an_override_stops_where_the_subclass_overrides_the_caller(explain, tmp_path):
    """`Base.summarize` calls `self.act()`: it reaches `C.act` only on a C, and never
    when C overrides `summarize` as well."""
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/agents.py": (
            'ACT_PROMPT = "Decide the next action."\n\n\n'
            "class OperatorAgent:\n"
            "    def act(self):\n"
            "        raise NotImplementedError\n\n"
            "    def summarize(self):\n"
            "        return self.act()\n\n\n"
            "class BinaryOperatorAgent(OperatorAgent):\n"
            "    def act(self):\n"
            "        return ACT_PROMPT\n\n"
            "    def summarize(self):\n"
            '        return "summary"\n\n\n'
            "class KeepsSummary(OperatorAgent):\n"
            "    def act(self):\n"
            "        return ACT_PROMPT.upper()\n\n\n"
            "def operate(agent: OperatorAgent):\n"
            "    return agent.summarize()\n"
        ),
    })
    answer = explain("app.agents.ACT_PROMPT", cwd=project)
    assert reached(answer) == {
        "app.agents.BinaryOperatorAgent.act",
        "app.agents.KeepsSummary.act",
        "app.agents.OperatorAgent.summarize",  # through KeepsSummary, which keeps it
        "app.agents.operate",
    }
    only_binary = explain("app/agents.py:BinaryOperatorAgent.act", cwd=project)
    assert reached(only_binary) == set()


def test_imports_from_a_folder_put_on_sys_path(explain, tmp_path):
    """`from server.manager import run_agent` works at run time because the app puts
    `backend/` on sys.path: it is the one project module with that name."""
    project = _write_project(tmp_path / "p", {
        "backend/__init__.py": "",
        "backend/report_type/__init__.py": "from .basic import BasicReport\n",
        "backend/report_type/basic.py": (
            'PROMPT = "Write a research report."\n\n\n'
            "class BasicReport:\n"
            "    async def run(self):\n"
            "        return PROMPT\n"
        ),
        "backend/server/__init__.py": "",
        "backend/server/manager.py": (
            "from report_type import BasicReport\n\n\n"
            "async def run_agent():\n"
            "    researcher = BasicReport()\n"
            "    return await researcher.run()\n"
        ),
        "backend/server/app.py": (
            "import json\n"
            "from fastapi import FastAPI\n"
            "from server.manager import run_agent\n\n"
            "app = FastAPI()\n\n\n"
            '@app.post("/report")\n'
            "async def report():\n"
            "    return await run_agent()\n\n\n"
            "def dump():\n"
            "    return json.dumps({})\n"
        ),
    })
    answer = explain("backend.report_type.basic.PROMPT", cwd=project)
    assert reached(answer) == {
        "backend.report_type.basic.BasicReport.run", "backend.server.manager.run_agent", "backend.server.app.report",
    }


def test_literal_in_a_file_with_newer_fstrings_is_found(explain, tmp_path):
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/research.py": (
            "import json\n\n"
            'GPT4_MODEL = "gpt-4o"\n\n\n'
            "def plan(data):\n"
            "    return GPT4_MODEL, f\"{data[\"query\"]}\"\n"
        ),
    })
    answer = explain('"gpt-4o"', cwd=project)
    assert reached(answer) == {"app.research.GPT4_MODEL", "app.research.plan"}


def test_mock_patch_is_not_a_route(explain, tmp_path):
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/prompts.py": (
            'SYSTEM_PROMPT = "You are a helpful research assistant."\n\n\n'
            "def build_messages(question):\n"
            '    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}]\n'
        ),
        "app/smoke.py": (
            "from unittest.mock import patch\n\n"
            "from app.prompts import build_messages\n\n\n"
            '@patch("app.prompts.SYSTEM_PROMPT", "stub")\n'
            "def smoke_check():\n"
            '    return build_messages("ping")\n'
        ),
    })
    answer = explain("app.prompts.SYSTEM_PROMPT", cwd=project)
    smoke = next(n for n in answer["callers"] if n["qualified"] == "app.smoke.smoke_check")
    assert "route" not in json.dumps(smoke)
    assert "app.smoke.smoke_check" not in qualified(answer["groups"].get("entry points", []))


def test_an_instance_attribute_prompt_shows_where_it_is_assigned(explain, tmp_path):
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/agent.py": (
            "class OperatorAgent:\n"
            "    def __init__(self, query):\n"
            '        self.summarize_prompt = f"Summarize your research for: {query}"\n\n'
            "    def summarize(self):\n"
            "        return self.summarize_prompt\n"
        ),
    })
    answer = explain("OperatorAgent.summarize_prompt", cwd=project, expect=0)
    assert [(d["path"], d["line"], d["kind"]) for d in answer["definitions"]] == [("app/agent.py", 3, "attribute")]
    assert qualified(answer["readers"]) == {"app.agent.OperatorAgent.summarize"}
    # A name the graph does not define at all still shows where it is assigned.
    (project / "app" / "other.py").write_text("def configure(agent):\n    agent.retry_prompt = 'Try again.'\n")
    loose = explain("retry_prompt", cwd=project, expect=0)
    assert ("app/other.py", 2) in {(m["path"], m["line"]) for m in loose["python_mentions"]}


def test_symbol_forms_that_end_like_a_file_suffix():
    from agentlint.explain.answer import parse_symbol

    assert parse_symbol("app.prompts.PROMPT").mode == "symbol"  # `.prompt` files exist, `PROMPT` is a name
    assert parse_symbol("prompts.Prompt").mode == "symbol"
    assert parse_symbol("triage.md").mode == "file"
    assert parse_symbol("prompts/triage.prompt").mode == "file"


def test_where_the_search_may_have_stopped_early(explain, run_cli, tmp_path):
    """A root whose name is called on receivers of unknown type says so (aider's
    coders come from an unannotated factory): the count and the first calls; calls into
    libraries and dict/list method names are not counted."""
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/coder.py": (
            'SYSTEM = "You are a coding assistant."\n\n\n'
            "class Coder:\n"
            "    @classmethod\n"
            "    def create(cls, kind):\n"
            "        return cls()\n\n"
            "    def run(self):\n"
            "        return SYSTEM\n\n"
            "    def update(self):\n"
            "        return SYSTEM\n"
        ),
        "app/main.py": (
            "import asyncio\n\n"
            "from app.coder import Coder\n\n\n"
            "def main(settings, coder):\n"
            "    Coder.create('ask')\n"
            "    asyncio.run(None)\n"
            "    settings.update()\n"
            "    return coder.run()\n"
        ),
    })
    answer = explain("app.coder.SYSTEM", cwd=project)
    stopped = {s["qualified"]: (s["calls"], s["examples"]) for s in answer["stopped"]}
    assert stopped == {"app.coder.Coder.run": (1, ["app/main.py:10"])}
    text = run_cli("explain", "app.coder.SYSTEM", "--cache-dir", str(tmp_path / "cache"), cwd=project).stdout
    assert "Where the search may have stopped early" in text
    assert "app.coder.Coder.run  1 call of `.run(...)`: app/main.py:10" in text


def test_two_hop_attribute_chain_through_instance_attributes(explain, tmp_path):
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/prompts.py": (
            "class PromptFamily:\n"
            "    def curate_sources(self, query, sources):\n"
            '        return f"Rank these sources for {query}: {sources}"\n'
        ),
        "app/curator.py": (
            "from __future__ import annotations\n\n"
            "from typing import TYPE_CHECKING\n\n"
            "if TYPE_CHECKING:\n"
            "    from app.agent import GPTResearcher\n\n\n"
            "class SourceCurator:\n"
            "    def __init__(self, researcher: GPTResearcher):\n"
            "        self.researcher = researcher\n\n"
            "    def curate_sources(self, sources):\n"
            "        return self.researcher.prompt_family.curate_sources(self.researcher.query, sources)\n"
        ),
        "app/agent.py": (
            "from app.curator import SourceCurator\n"
            "from app.prompts import PromptFamily\n\n\n"
            "class GPTResearcher:\n"
            "    def __init__(self, query):\n"
            "        self.query = query\n"
            "        self.prompt_family = PromptFamily()\n"
            "        self.source_curator = SourceCurator(self)\n\n"
            "    def conduct_research(self, sources):\n"
            "        return self.source_curator.curate_sources(sources)\n"
        ),
    })
    answer = explain("app.prompts.PromptFamily.curate_sources", cwd=project)
    assert reached(answer) == {"app.curator.SourceCurator.curate_sources", "app.agent.GPTResearcher.conduct_research"}


def test_a_cold_explain_reads_facts_only_and_check_still_runs_its_rules(run_cli, project_copy, tmp_path, monkeypatch):
    """Files nobody has checked are read for their facts only (no rule runs); the
    facts-only entries never stand in for `check`'s full results."""
    import agentlint.engine.worker
    import agentlint.explain.index

    cache = str(tmp_path / "cache")
    expected = json.loads(run_cli("explain", "TRIAGE_PROMPT", "--format", "json", "--cache-dir", str(tmp_path / "other"), cwd=project_copy).stdout)

    def no_rules(*args, **kwargs):
        raise AssertionError("explain must not run the rules")

    monkeypatch.setattr(agentlint.engine.worker, "analyze_content", no_rules)
    cold = json.loads(run_cli("explain", "TRIAGE_PROMPT", "--format", "json", "--cache-dir", cache, cwd=project_copy).stdout)
    assert cold == expected
    monkeypatch.undo()
    first = run_cli("check", ".", "--output-format", "json", "--cache-dir", cache, cwd=project_copy)
    again = run_cli("check", ".", "--output-format", "json", "--cache-dir", str(tmp_path / "fresh"), cwd=project_copy)
    assert first.exit_code == again.exit_code
    assert json.loads(first.stdout) == json.loads(again.stdout)


def test_receivers_typed_by_what_a_function_returns(explain, tmp_path):
    """`coder = Coder.create()` (a classmethod returning `cls(...)`), `x = make()` with
    `-> Family` or `return Family()`: the receiver has the returned type."""
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/prompts.py": (
            'SYSTEM = "You are a coding assistant."\n\n\n'
            "class Family:\n"
            "    def render(self):\n"
            "        return SYSTEM\n\n\n"
            "def get_family(name: str) -> Family:\n"
            "    return FAMILIES[name]\n\n\n"
            "def make_family():\n"
            "    return Family()\n\n\n"
            "FAMILIES = {}\n"
        ),
        "app/coder.py": (
            "from app.prompts import SYSTEM\n\n\n"
            "class Coder:\n"
            "    @classmethod\n"
            "    def create(cls, kind):\n"
            "        return cls()\n\n"
            "    def run(self):\n"
            "        return SYSTEM\n"
        ),
        "app/main.py": (
            "from app.coder import Coder\n"
            "from app.prompts import get_family, make_family\n\n\n"
            "def main():\n"
            "    coder = Coder.create('ask')\n"
            "    return coder.run()\n\n\n"
            "def annotated():\n"
            "    family = get_family('default')\n"
            "    return family.render()\n\n\n"
            "def made():\n"
            "    family = make_family()\n"
            "    return family.render()\n\n\n"
            "def untyped(thing):\n"
            "    return thing.render()\n"
        ),
    })
    answer = explain("app.prompts.SYSTEM", cwd=project)
    assert reached(answer) == {
        "app.coder.Coder.run", "app.main.main", "app.prompts.Family.render", "app.main.annotated", "app.main.made",
    }


def test_a_prompt_kept_in_an_instance_attribute_reaches_the_methods_that_read_it(explain, tmp_path):
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/rerank.py": (
            'RERANK_PROMPT = "Score each document for the query."\n\n\n'
            "class LLMReranker:\n"
            "    def __init__(self, llm):\n"
            "        self.llm = llm\n"
            "        self.system_prompt = RERANK_PROMPT\n\n"
            "    def rerank(self, docs):\n"
            "        return self.llm.generate(self.system_prompt, docs)\n\n"
            "    def size(self, docs):\n"
            "        return len(docs)\n\n\n"
            "def search(llm, docs):\n"
            "    return LLMReranker(llm).rerank(docs)\n\n\n"
            "def count(llm, docs):\n"
            "    return LLMReranker(llm).size(docs)\n"
        ),
    })
    answer = explain("app.rerank.RERANK_PROMPT", cwd=project)
    assert qualified(answer["readers"]) == {"app.rerank.LLMReranker.system_prompt"}
    assert reached(answer) == {
        "app.rerank.LLMReranker.system_prompt", "app.rerank.LLMReranker.rerank", "app.rerank.search",
    }


def test_a_wrapping_decorator_on_a_module_object_is_no_registration(explain, tmp_path):
    """`@agent.system_prompt` hands the function to the agent (whoever runs the agent
    reaches it); `@dispatcher.span` only wraps it: users of `dispatcher` do not."""
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/instrument.py": "class Dispatcher:\n    def span(self, fn):\n        return fn\n\n    def event(self):\n        return None\n",
        "app/llm.py": (
            "from app.instrument import Dispatcher\n\n"
            'PROMPT = "Answer briefly."\n'
            "dispatcher = Dispatcher()\n\n\n"
            "@dispatcher.span\n"
            "def predict():\n"
            "    return PROMPT\n\n\n"
            "def log_something():\n"
            "    return dispatcher.event()\n\n\n"
            "def ask():\n"
            "    return predict()\n"
        ),
    })
    answer = explain("app.llm.PROMPT", cwd=project)
    assert reached(answer) == {"app.llm.predict", "app.llm.ask"}


def test_an_overridden_class_attribute_is_not_used_through_the_subclass(explain, tmp_path):
    """`BasePrompts.main_system` is read by nothing; the class "uses" it, but the
    subclass `AskPrompts` has its own `main_system`, so users of `AskPrompts` do not."""
    project = _write_project(tmp_path / "p", {
        "app/__init__.py": "",
        "app/prompts.py": (
            "class BasePrompts:\n"
            '    main_system = "You are a coder."\n'
            '    lazy_prompt = "Be diligent."\n\n\n'
            "class AskPrompts(BasePrompts):\n"
            '    main_system = "You answer questions."\n'
            '    try_again = "Try again."\n'
        ),
        "app/coders.py": (
            "from app.prompts import AskPrompts\n\n\n"
            "class AskCoder:\n"
            "    gpt_prompts = AskPrompts()\n\n"
            "    def system(self):\n"
            "        return self.gpt_prompts.main_system\n\n"
            "    def retry(self):\n"
            "        return self.gpt_prompts.try_again\n"
        ),
    })
    assert reached(explain("app.prompts.BasePrompts.main_system", cwd=project)) == {"app.prompts.BasePrompts"}
    assert reached(explain("app.prompts.AskPrompts.main_system", cwd=project)) == {"app.coders.AskCoder.system"}
    inherited = reached(explain("app.prompts.BasePrompts.lazy_prompt", cwd=project))
    assert "app.prompts.AskPrompts" in inherited and "app.coders.AskCoder.gpt_prompts" in inherited
