"""Project-wide rules on small multi-file projects under fixtures/projects/.

Each project marks its expected findings with `# expect: CODE` on the line where the
finding starts; the real engine runs over the whole project folder and the findings of
the selected codes are compared both ways (missing and extra both fail).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentlint.engine import run as engine
from agentlint.api import settings_for
from agentlint.engine.discovery import discover
from agentlint.engine.boundaries import ProjectMap
from agentlint.rules.registry import all_rules

from test_fixtures import expected_findings

PROJECTS = Path(__file__).resolve().parent.parent / "fixtures" / "projects"

SELECTED = {
    "costs_dup": ["AGL101"],
    "costs_single": ["AGL101", "AGL102", "AGL103", "AGL104"],
    "monorepo": ["AGL101"],
    "prompts_dup": ["AGL401"],
    "inferred_tools": ["AGL201", "AGL202", "AGL501", "AGL901"],
    "unsure_tool_base": ["AGL201", "AGL202", "AGL501", "AGL901"],
    "imported_models": ["AGL201", "AGL202", "AGL501", "AGL901"],
}


def check_project(root: Path, select, rule_settings=None, *, paths=None, cache=False, monkeypatch=None):
    settings = settings_for(select, rule_settings, root=str(root))
    given = [str(p) for p in (paths or [root])]
    files = discover(given, settings).files
    result = engine.run(files, settings, use_cache=cache, paths=given)
    return [d for d in result.diagnostics if d.code in set(select)]


def expected(root: Path, codes) -> set[tuple[str, int, str]]:
    out = set()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        out |= {(rel, line, code) for line, code in expected_findings(path.read_text(encoding="utf-8")) if code in codes}
    return out


def actual(root: Path, diagnostics) -> set[tuple[str, int, str]]:
    return {(Path(d.path).resolve().relative_to(root).as_posix(), d.line, d.code) for d in diagnostics}


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
    for d in found:
        assert len(d.related) == 1 and d.related[0].message.startswith("also assembled in ")
    sanctioned = check_project(root, ["AGL401"], {"AGL401": {"prompt-composers": ["app.agents.chat.answer"]}})
    assert not any(d.path.endswith("chat.py") for d in sanctioned)
    stream = next(d for d in sanctioned if d.path.endswith("stream.py"))
    assert "sanctioned composer" in stream.related[0].message


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


def test_no_tools_note_is_silent_for_an_agent_with_built_in_tools(tmp_path):
    """A browser-use agent always carries the framework's browser actions."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    (tmp_path / "run.py").write_text(
        "from browser_use import Agent, ChatOpenAI\n\n"
        "agent = Agent(task='Find the cheapest flight', llm=ChatOpenAI(model='gpt-4.1-mini'))\n", encoding="utf-8")
    assert check_project(tmp_path, ["AGL901"]) == []
