"""Project-wide rules on small multi-file projects under fixtures/projects/.

Each project marks its expected findings with `# expect: CODE` on the line where the
finding starts; the real engine runs over the whole project folder and the findings of
the selected codes are compared both ways (missing and extra both fail).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentlint.engine import run as engine
from agentlint.api import settings_for
from agentlint.engine.discovery import discover
from agentlint.engine.boundaries import ProjectMap, split_by_project
from agentlint.rules.registry import all_rules

from test_fixtures import expected_findings

PROJECTS = Path(__file__).resolve().parent.parent / "fixtures" / "projects"

SELECTED = {
    "costs_dup": ["AGL101"],
    "costs_single": ["AGL101", "AGL102", "AGL103", "AGL104"],
    "monorepo": ["AGL101"],
    "prompts_dup": ["AGL401"],
    "prompt_samples": ["AGL401"],
    "metered_calls": ["AGL106"],


    "inferred_tools": ["AGL201", "AGL202", "AGL501", "AGL901"],
    "unsure_tool_base": ["AGL201", "AGL202", "AGL501", "AGL901"],
    "imported_models": ["AGL201", "AGL202", "AGL501", "AGL901"],
    "approval_by_name": ["AGL203"],
    "approval_wired": ["AGL203"],
    "approval_loop": ["AGL203"],
}


def check_project(root: Path, select, rule_settings=None, *, paths=None, cache=False, monkeypatch=None):
    settings = settings_for(select, rule_settings, root=str(root))
    given = [str(p) for p in (paths or [root])]
    files = discover(given, settings).files
    result = engine.run(files, settings, use_cache=cache, paths=given)
    return [d for d in result.diagnostics if d.code in set(select)]


def expected(root: Path, codes) -> set[tuple[str, int, str]]:
    """(file, line, code) for each `# expect:` marker; in a notebook the file is
    `name.ipynb#CELL` and the line is the cell's own."""
    out = set()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        out |= {(rel, line, code) for line, code in expected_findings(path.read_text(encoding="utf-8")) if code in codes}
    for path in sorted(root.rglob("*.ipynb")):
        rel = path.relative_to(root).as_posix()
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for number, cell in enumerate(cells, 1):
            if cell["cell_type"] == "code":
                text = "".join(cell["source"])
                out |= {(f"{rel}#{number}", line, code) for line, code in expected_findings(text) if code in codes}
    return out


def actual(root: Path, diagnostics) -> set[tuple[str, int, str]]:
    out = set()
    for d in diagnostics:
        rel = Path(d.path).resolve().relative_to(root).as_posix()
        out.add((f"{rel}#{d.cell}" if d.cell else rel, d.line, d.code))
    return out


@pytest.mark.parametrize("name", sorted(SELECTED))
def test_project_findings(name):
    root = PROJECTS / name
    select = SELECTED[name]
    found = check_project(root, select)
    want = expected(root, set(select))
    got = actual(root, found)
    report = [f"missing {c} at {p}:{n}" for p, n, c in sorted(want - got)]
    report += [
        f"unexpected {c} at {p}:{n}: {next(d.message for d in found if actual(root, [d]) == {(p, n, c)})}"
        for p, n, c in sorted(got - want)
    ]
    assert not report, "\n".join(report)


def test_expectations_are_not_empty():
    # The harness must be able to fail: the projects that should report do expect findings.
    assert expected(PROJECTS / "costs_dup", {"AGL101"})
    assert expected(PROJECTS / "monorepo", {"AGL101"})


def test_duplicate_names_every_other_place_and_says_how_they_diverge():
    root = PROJECTS / "costs_dup"
    found = check_project(root, ["AGL101"])
    places = {(Path(d.path).resolve(), d.line) for d in found}
    assert len(found) == 4
    for d in found:
        related = {(Path(r.path).resolve(), r.span.start.line) for r in d.related}
        assert related == places - {(Path(d.path).resolve(), d.line)}
        assert all(r.message.startswith("cost formula in ") for r in d.related)
        assert d.span.end.column > d.span.start.column  # the whole formula is underlined
    billing = next(d for d in found if d.path.endswith("billing.py"))
    assert "every other copy already diverges" in billing.message
    assert all("different units" in r.message for r in billing.related)
    draft = next(d for d in found if "Writer.draft" in d.message)
    # `/ 1_000_000 * PER_M` and `/ 1000 * PER_1K` are the same formula
    same = [r for r in draft.related if "same formula" in r.message]
    assert {Path(r.path).name for r in same} == {"research.py"}


def test_sanctioned_cost_function_is_not_reported_but_still_named():
    root = PROJECTS / "costs_dup"
    found = check_project(root, ["AGL101"], {"AGL101": {"cost-functions": ["app.billing.monthly_estimate"]}})
    assert not any(d.path.endswith("billing.py") for d in found)
    assert len(found) == 3
    for d in found:
        assert any("sanctioned cost function" in r.message and r.path.endswith("billing.py") for r in d.related)
    by_path = check_project(root, ["AGL101"], {"AGL101": {"cost-functions": ["app/agents/research.py:"]}})
    assert {Path(d.path).name for d in by_path} == {"writer.py", "billing.py"}


def test_monorepo_apps_are_separate_projects():
    root = PROJECTS / "monorepo"
    projects = ProjectMap(settings_for(["AGL101"], root=str(root)))
    assert projects.root_for(str(root / "demo_a" / "app.py")) == str(root / "demo_a")
    assert projects.root_for(str(root / "demo_b" / "demo_b" / "chat.py")) == str(root / "demo_b")
    assert projects.root_for(str(root / "demo_c" / "pkg" / "translate.py")) == str(root / "demo_c")


def test_project_roots_setting_overrides_detection(tmp_path):
    root = tmp_path / "monorepo"
    shutil.copytree(PROJECTS / "monorepo", root)
    settings = settings_for(["AGL101"], root=str(root))
    settings = type(settings)(**{**settings.__dict__, "project_roots": (str(root),)})
    files = discover([str(root)], settings).files
    found = engine.run(files, settings, use_cache=False, paths=[str(root)]).diagnostics
    # One project now: demo_a and demo_b count as copies too.
    assert {Path(d.path).name for d in found if d.code == "AGL101"} == {"app.py", "chat.py", "summarize.py", "translate.py"}


def test_project_roots_config_key(tmp_path):
    from agentlint.engine.config import ConfigError, load_settings

    (tmp_path / "apps" / "one").mkdir(parents=True)
    (tmp_path / "agentlint.toml").write_text('project-roots = ["apps/one"]\n', encoding="utf-8")
    settings = load_settings(start=tmp_path, rules=all_rules())
    assert settings.project_roots == (str((tmp_path / "apps" / "one").resolve()),)
    (tmp_path / "agentlint.toml").write_text('project-roots = ["apps/missing"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="project-roots"):
        load_settings(start=tmp_path, rules=all_rules())
    (tmp_path / "agentlint.toml").write_text('project-roots = "apps"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="project-roots"):
        load_settings(start=tmp_path, rules=all_rules())


@pytest.mark.parametrize("fmt", ["full", "json", "sarif", "github"])
def test_related_locations_in_every_format_that_can_carry_them(fmt):
    import io
    import json as jsonlib

    from agentlint.report.write import Report, write_report

    root = PROJECTS / "costs_dup"
    found = [d for d in check_project(root, ["AGL101"]) if d.path.endswith("billing.py")]
    assert len(found) == 1 and len(found[0].related) == 3
    out = io.StringIO()

    def read(path):
        try:
            return Path(path).read_text(encoding="utf-8")
        except OSError:
            return None

    write_report(fmt, Report(found, all_rules(), 1, str(root), read), out)
    text = out.getvalue()
    if fmt == "json":
        related = jsonlib.loads(text)[0]["related"]
        assert sorted(Path(r["filename"]).name for r in related) == ["research.py", "research.py", "writer.py"]
    elif fmt == "sarif":
        related = jsonlib.loads(text)["runs"][0]["results"][0]["relatedLocations"]
        assert len(related) == 3
        assert all("cost formula in" in r["message"]["text"] for r in related)
    elif fmt == "github":
        assert text.count("::error ") == 1
        assert text.count("%0Aother place: ") == 3 and "research.py:11:" in text
    else:
        assert text.count("note: other place: ") == 3


def test_prompt_places_name_each_other_and_composers_are_sanctioned():
    root = PROJECTS / "prompts_dup"
    found = check_project(root, ["AGL401"])
    triage = [d for d in found if d.path.endswith("triage.py")]
    assert len(triage) == 2 and all("prompt file `triage.md`" in d.message for d in triage)
    # the copy with a line added says what it adds, the other what it lacks
    endings = sorted(d.message[d.message.index("already differs"):] for d in triage)
    assert endings == ["already differs: adds 'Previous: {}'", "already differs: drops 'Previous: {}'"]
    for d in found:
        assert len(d.related) == 1 and d.related[0].message.startswith("also in `")
    sanctioned = check_project(root, ["AGL401"], {"AGL401": {"prompt-composers": ["app.agents.chat.answer"]}})
    assert not any(d.path.endswith("chat.py") for d in sanctioned)
    stream = next(d for d in sanctioned if d.path.endswith("stream.py"))
    assert "sanctioned composer" in stream.related[0].message


def test_sample_folders_are_applications_and_notebooks_apart():
    root = PROJECTS / "prompt_samples"
    projects = ProjectMap(settings_for(["AGL401"], root=str(root)))
    assert projects.root_for(str(root / "samples" / "weather" / "app.py")) == str(root / "samples" / "weather")
    assert projects.root_for(str(root / "samples" / "travel" / "app.py")) == str(root / "samples" / "travel")
    assert projects.root_for(str(root / "notebooks" / "grading.ipynb")) == str(root / "notebooks")
    found = check_project(root, ["AGL401"])
    assert not any("travel" in d.path for d in found)
    assert not any("travel" in r.path for d in found for r in d.related)
    # each notebook is compared with the modules of its application, never with the other notebook
    again = [d for d in found if d.path.endswith("grading_again.ipynb")]
    assert len(again) == 1 and [Path(r.path).name for r in again[0].related] == ["grading.py"]
    first = [d for d in found if d.path.endswith("grading.ipynb")]
    assert {d.cell for d in first} == {3, 6}  # one function defined in two cells: two places
    assert all(not r.path.endswith("grading_again.ipynb") for d in first for r in d.related)
    tone = next(d for d in found if d.path.endswith("weather/app.py") and d.line == 8)
    assert tone.message.endswith("already differs: drops 'style and'")
    assert tone.span.start.column == 12  # the prompt expression, not the statement


def test_detected_applications_of_common_layouts(tmp_path):
    def write(rel, text=""):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    # a library with tests, examples of its own and a notebook folder: one application
    write("lib/pyproject.toml")
    write("lib/src/lib/__init__.py")
    write("lib/src/lib/agents/__init__.py")
    write("lib/src/lib/agents/app.py")
    write("lib/tests/test_agents.py")
    write("lib/notebooks/tour.ipynb", "{}")
    # a repository of samples below a marker: each sample folder is one application
    write("samples_repo/pyproject.toml")
    write("samples_repo/examples/README.md")
    write("samples_repo/examples/chat/app.py")
    write("samples_repo/examples/chat/prompts.py")
    write("samples_repo/examples/rag/main.py")
    write("samples_repo/examples/rag/retriever/store.py")
    write("samples_repo/demos/common.py")
    write("samples_repo/demos/support/app.py")
    write("samples_repo/demos/sales/run.py")
    write("samples_repo/demos/scripts/helper.py")
    # scripts run as __main__ are entry points too; beside a package they are its scripts
    main = 'if __name__ == "__main__":\n    main()\n'
    write("samples_repo/bots/shared.py")
    write("samples_repo/bots/alpha/bot.py", main)
    write("samples_repo/bots/beta/agent.py", main)
    write("lib/scripts/run_eval.py", main)
    projects = ProjectMap(settings_for(["AGL401"], root=str(tmp_path)))

    def app(rel):
        return Path(projects.root_for(str(tmp_path / rel))).relative_to(tmp_path).as_posix()

    for rel in ("src/lib/agents/app.py", "tests/test_agents.py", "notebooks/tour.ipynb", "scripts/run_eval.py"):
        assert app("lib/" + rel) == "lib"
    assert app("samples_repo/bots/alpha/bot.py") == "samples_repo/bots/alpha"
    assert app("samples_repo/bots/beta/agent.py") == "samples_repo/bots/beta"
    assert app("samples_repo/bots/shared.py") == "samples_repo"
    # a collection: no code of its own, two sub-folders with code
    assert app("samples_repo/examples/chat/prompts.py") == "samples_repo/examples/chat"
    assert app("samples_repo/examples/rag/retriever/store.py") == "samples_repo/examples/rag"
    # sibling folders with their own entry points, beside shared code
    assert app("samples_repo/demos/support/app.py") == "samples_repo/demos/support"
    assert app("samples_repo/demos/sales/run.py") == "samples_repo/demos/sales"
    assert app("samples_repo/demos/scripts/helper.py") == "samples_repo"
    assert app("samples_repo/demos/common.py") == "samples_repo"
    # `project-roots` is the application, nothing below it is split
    settings = settings_for(["AGL401"], root=str(tmp_path))
    settings = type(settings)(**{**settings.__dict__, "project_roots": (str(tmp_path / "samples_repo"),)})
    listed = ProjectMap(settings)
    assert listed.root_for(str(tmp_path / "samples_repo/examples/chat/app.py")) == str(tmp_path / "samples_repo")


def test_copies_in_tests_follow_the_tests_setting():
    root = PROJECTS / "prompts_dup"
    default = check_project(root, ["AGL401"])
    assert not any("tests" in Path(d.path).parts for d in default)
    # the product's prompt copied only into tests is no finding in the product
    assert not any(d.path.endswith("prompts.py") for d in default)
    settings = settings_for(["AGL401"], root=str(root))
    settings = type(settings)(**{**settings.__dict__, "tests": (("AGL4", "report"),)})
    files = discover([str(root)], settings).files
    reported = [d for d in engine.run(files, settings, use_cache=False, paths=[str(root)]).diagnostics if d.code == "AGL401"]
    in_tests = sorted((Path(d.path).name, d.line) for d in reported if "tests" in Path(d.path).parts)
    assert in_tests == [("test_chat.py", 12), ("test_chat.py", 20)]
    assert all(any(r.path.endswith(("prompts.py", "test_chat.py")) for r in d.related) for d in reported if "tests" in d.path)


def test_min_prompt_words_setting(tmp_path):
    shutil.copytree(PROJECTS / "prompt_samples" / "samples" / "weather", tmp_path / "weather")
    assert check_project(tmp_path / "weather", ["AGL401"])
    # the alert prompt has 29 words: shorter than 40, it is not a prompt
    found = check_project(tmp_path / "weather", ["AGL401"], {"AGL401": {"min-prompt-words": 40}})
    assert found and not any("alert" in d.message for d in found)
    assert all("TONE" in d.message for d in found)


@pytest.mark.parametrize("fmt", ["full", "json", "sarif"])
def test_prompt_copies_are_named_in_every_format(fmt):
    import io
    import json as jsonlib

    from agentlint.report.write import Report, write_report

    root = PROJECTS / "prompt_samples"
    found = [d for d in check_project(root, ["AGL401"]) if d.path.endswith("grading.py")]
    assert len(found) == 1 and len(found[0].related) == 3
    out = io.StringIO()

    def read(path):
        try:
            return Path(path).read_text(encoding="utf-8")
        except OSError:
            return None

    write_report(fmt, Report(found, all_rules(), 1, str(root), read), out)
    text = out.getvalue()
    if fmt == "json":
        related = jsonlib.loads(text)[0]["related"]
        assert sorted(Path(r["filename"]).name for r in related) == ["grading.ipynb", "grading.ipynb", "grading_again.ipynb"]
    elif fmt == "sarif":
        result = jsonlib.loads(text)["runs"][0]["results"][0]
        assert len(result["relatedLocations"]) == 3
        cells = sorted(r.get("properties", {}).get("cell") for r in result["relatedLocations"])
        assert cells == [2, 3, 6]
    else:
        assert text.count("note: other place: ") == 3


def test_project_defined_tools_are_found_from_any_file_of_the_project():
    """A pre-commit-style run on one subclass's file: the base lives in another module
    and the other subclass in a third, so the base is confirmed from the project's facts."""
    root = PROJECTS / "inferred_tools"
    found = check_project(root, ["AGL201", "AGL202"], paths=[root / "app" / "tools" / "billing.py"])
    assert {(Path(d.path).name, d.line, d.code) for d in found} == {("billing.py", 10, "AGL201"), ("billing.py", 14, "AGL202")}


def test_no_tools_note_names_the_likely_tool_base():
    [note] = check_project(PROJECTS / "unsure_tool_base", ["AGL901"])
    assert "`app.skills.AssistantTool` looks like one" in note.message
    assert "add `app.skills.AssistantTool` to `tool-base-classes`" in note.message


def test_models_imported_from_another_module_in_a_run_on_the_tools_alone():
    root = PROJECTS / "imported_models"
    found = check_project(root, ["AGL501"], paths=[root / "app" / "tools.py"])
    assert {(Path(d.path).name, d.line) for d in found} == {
        ("tools.py", 11), ("tools.py", 17), ("tools.py", 26), ("tools.py", 44)}
    assert sum("runs an agent" in d.message for d in found) == 1
    assert any("`summarise_page` → `llm.invoke` (app.models, line 23)" in d.message for d in found)


def test_no_tools_note_is_silent_when_the_agents_use_the_frameworks_own_tools(tmp_path):
    """`Agent(tools=[DuckDuckGoTools()])`: the only tools are the framework's, there is
    nothing of the project's to check, so no note; a project with no tools at all gets it."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    (tmp_path / "app.py").write_text(
        "from agno.agent import Agent\nfrom agno.tools.duckduckgo import DuckDuckGoTools\n\n"
        "search = DuckDuckGoTools()\nagent = Agent(tools=[search])\n", encoding="utf-8")
    assert check_project(tmp_path, ["AGL901"]) == []
    (tmp_path / "app.py").write_text("from agno.agent import Agent\n\nagent = Agent(name='a')\n", encoding="utf-8")
    assert [d.code for d in check_project(tmp_path, ["AGL901"])] == ["AGL901"]


def test_no_tools_note_never_comes_from_the_projects_own_module(tmp_path):
    """`from agents import x` where `agents.py` is the project's own: no framework is
    imported, so no note; with the SDK really imported (no local `agents`), the note."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    (tmp_path / "agents.py").write_text("def triage(text):\n    return text\n", encoding="utf-8")
    (tmp_path / "main.py").write_text("from agents import triage\n\nprint(triage('hi'))\n", encoding="utf-8")
    assert check_project(tmp_path, ["AGL901"]) == []
    (tmp_path / "agents.py").unlink()
    (tmp_path / "main.py").write_text("from agents import Agent\n\nagent = Agent(name='a')\n", encoding="utf-8")
    assert [d.code for d in check_project(tmp_path, ["AGL901"])] == ["AGL901"]


def test_no_tools_note_is_silent_for_an_agent_with_built_in_tools(tmp_path):
    """A browser-use agent always carries the framework's browser actions."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    (tmp_path / "run.py").write_text(
        "from browser_use import Agent, ChatOpenAI\n\n"
        "agent = Agent(task='Find the cheapest flight', llm=ChatOpenAI(model='gpt-4.1-mini'))\n", encoding="utf-8")
    assert check_project(tmp_path, ["AGL901"]) == []


def test_agl106_reads_agl101_cost_functions_as_instrumented():
    root = PROJECTS / "metered_calls"
    found = check_project(root, ["AGL106"])
    assert sorted(d.line for d in found) == [8, 16]
    # a place listed in AGL101's cost-functions is on the instrumented path too,
    # and the path found from the code still counts
    found = check_project(root, ["AGL106"], {"AGL101": {"cost-functions": ["app.agents.vision.make_title"]}})
    assert [(Path(d.path).name, d.line) for d in found] == [("vision.py", 8)]
    assert "MeteredLLM.chat" in found[0].message
    # with instrumented-callables, only the listed places count
    found = check_project(root, ["AGL106"], {"AGL106": {"instrumented-callables": ["app.llm"]}})
    assert sorted(d.line for d in found) == [8, 16]
    found = check_project(root, ["AGL106"], {"AGL106": {"instrumented-callables": ["app/agents/vision.py:"]}})
    assert {Path(d.path).name for d in found} == {"llm.py"}


@pytest.mark.parametrize("root", [*sorted(p.name for p in PROJECTS.iterdir()), "../demo", "../frameworks_demo"])
def test_agl401_for_some_files_finds_there_what_it_finds_over_all(root) -> None:
    # a partial run reports only in its files: AGL401 compares only the prompts linked to theirs
    from agentlint.rules.api import ProjectContext
    from agentlint.rules.prompt_assembly import PromptAssembledInMultiplePlaces

    folder = str((PROJECTS / root).resolve())
    settings = settings_for(["AGL401"], None, root=folder)
    result = engine.run(discover([folder], settings).files, settings, use_cache=False, paths=[folder])
    facts = {path: r.facts for path, r in result.results.items()}
    compared = 0
    for group in split_by_project(facts, ProjectMap(settings)):
        every = PromptAssembledInMultiplePlaces(ProjectContext(group, {})).check()
        for path in sorted(p for p, f in group.items() if f.prompt_sites):
            some = PromptAssembledInMultiplePlaces(ProjectContext(group, {}, frozenset({path}))).check()
            assert [d for d in some if d.path == path] == [d for d in every if d.path == path], path
            compared += bool([d for d in every if d.path == path])
    if root in ("prompts_dup", "prompt_samples"):
        assert compared  # files with findings were compared


def test_agl401_links_every_kind_of_join_from_the_reported_files() -> None:
    # each unit reached from a.py by one kind of link only; e.py by none
    from agentlint.facts.types import PromptSiteFact
    from agentlint.rules.prompt_assembly import _linked, _Unit

    def unit(path: str, scope: str, what: str, text: str = "", shingles: tuple[int, ...] = ()) -> _Unit:
        site = PromptSiteFact(scope, "system", (), "", 3, 1, 3, 9, what, 1, text, shingles)
        return _Unit(path, (path, scope, 1), site)

    units = [
        unit("a.py", "ask", "text", "billing", (1, 2)),
        unit("b.py", "reply", "text", "billing, longer", (2, 3)),  # a shingle shared with a.py's
        unit("b.py", "reply", "messages"),  # the same place as b.py's text
        unit("c.py", "answer", "messages"),  # the same messages as b.py's
        unit("d.py", "other", "text", "billing", (1, 4)),  # a.py's text; its shingle 1 is too common
        unit("e.py", "far", "text", "refunds", (1, 5)),  # shares only that common shingle
    ]
    keyed = {("messages", "persona"): [2, 3]}
    # shingle 1 is held by three texts, above a cap of 2: it links nothing
    assert _linked(units, [0, 1, 4, 5], keyed, frozenset({"a.py"}), 2) == {0, 1, 2, 3, 4}
    assert _linked(units, [0, 1, 4, 5], keyed, frozenset({"e.py"}), 2) == {5}
