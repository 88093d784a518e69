"""`agentlint explain` through the receivers real code has, on the fixture project
fixtures/projects/receivers: objects from factories and registries, attributes typed by
what the constructors are given, types through return values, methods looked up by a
built name, calls in attribute initialisers, callbacks handed to frameworks, and what
must stay out (precision).

Answers are compared as exact sets: a place that goes missing and one that leaks in
both fail.
"""

import json

import pytest

from conftest import FIXTURES

PROJECT = FIXTURES / "projects" / "receivers"


def _invoke(*args):
    """Run the CLI in the fixture project (module-wide cache: one index for all questions)."""
    import os

    from click.testing import CliRunner

    from agentlint.cli.main import main

    here = os.getcwd()
    os.chdir(PROJECT)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(here)


@pytest.fixture(scope="module")
def explain(tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("cache"))

    def run(symbol):
        result = _invoke("explain", symbol, ".", "--format", "json", "--cache-dir", cache)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return run


def reached(answer):
    return {n["qualified"] for n in answer["readers"] + answer["callers"]}


def functions(answer):
    """The functions and methods reached (not classes, attributes or module code)."""
    return {n["qualified"] for n in answer["readers"] + answer["callers"] if n["kind"] in ("function", "method")}


def edges(answer):
    return {(e["from"], e["to"]): (e["kind"], e["lines"]) for e in answer["edges"]}


# -- 1. objects from factories and registries ---------------------------------------------

EDITOR_USERS = {
    "desk.editors.base.Editor.run",
    # `Editor.create(kind)` picks the class in a loop over `editors.EDITORS`: any of them.
    "desk.app.main",
    "desk.app.get_editor",
    "desk.app.Gui.__init__",
    "desk.app.Gui.chat",
    # `EDITORS_BY_NAME[name]()`: a dict of classes.
    "desk.registry.edit_with",
    # `build(name).clone()`: `clone` returns what `Editor.create` returns.
    "desk.registry.again",
    "desk.shell.Shell.send",
    "desk.shell.start",
    "test_desk.test_start",
}


def test_factory_and_registry_give_every_candidate(explain):
    answer = explain("DIFF_SYSTEM")
    assert {n["qualified"] for n in answer["readers"]} == {"desk.editors.diff.DiffEditor.system"}
    assert functions(answer) == {"desk.editors.diff.DiffEditor.system", *EDITOR_USERS}
    answer = explain("WHOLE_SYSTEM")
    # The dataclass session is only ever given a WholeEditor.
    assert functions(answer) == {
        "desk.editors.whole.WholeEditor.system", *EDITOR_USERS, "desk.shell.Session.go", "desk.shell.open_session",
    }


def test_a_dict_of_functions_reaches_each_of_them(explain):
    answer = explain("REVIEW_PROMPT")
    assert functions(answer) == {"desk.registry.review", "desk.registry.handle", "desk.registry.handle_each"}
    assert "desk.precision.local_named_like_the_package" not in reached(answer)


# -- 2. attributes typed by the constructors' callers -------------------------------------------


def test_attribute_set_from_a_constructor_parameter(explain):
    answer = explain("desk.editors.base.Editor.run")
    found = edges(answer)
    # `Shell(io, editor)` with `editor = Editor.create("diff")`; `Session(editor=WholeEditor())`.
    assert found[("desk/shell.py:Shell.send", "desk/editors/base.py:Editor.run")] == ("calls", [16])
    assert found[("desk/shell.py:Session.go", "desk/editors/base.py:Editor.run")] == ("calls", [31])


def test_a_field_set_at_construction_keeps_the_class_it_was_given(explain):
    # Session is made with a WholeEditor: it never runs DiffEditor.system.
    answer = explain("DIFF_SYSTEM")
    assert not {"desk.shell.Session.go", "desk.shell.open_session"} & reached(answer)


# -- 3. types through return values --------------------------------------------------------------


def test_types_through_two_returns_and_a_cycle(explain):
    answer = explain("WHOLE_SYSTEM")
    found = edges(answer)
    # `self.editor = get_editor()`; `get_editor` returns `main(return_editor=True)`, whose
    # `return main(...)` leads back to itself.
    assert found[("desk/app.py:Gui.chat", "desk/editors/base.py:Editor.run")] == ("calls", [26])
    # Who only reads an attribute of the editor it holds does not run it.
    assert "desk.app.Gui.kind" not in reached(answer)


# -- 4. name-built dispatch ----------------------------------------------------------------------


def test_methods_looked_up_by_a_built_name(explain):
    answer = explain("PLANNER_PROMPT")
    assert functions(answer) == {
        "desk.commands.Commands.cmd_plan",
        "desk.commands.Commands.complete_plan",
        "desk.commands.Commands.do_run",  # getattr(self, f"cmd_{name}")
        "desk.commands.Commands.run",
        "desk.commands.Commands.completions",  # getattr(self, "complete_" + name)
    }
    found = edges(answer)
    assert found[("desk/commands.py:Commands.do_run", "desk/commands.py:Commands.cmd_plan")] == ("dispatched by name", [14])
    assert found[("desk/commands.py:Commands.completions", "desk/commands.py:Commands.complete_plan")][0] == "dispatched by name"


def test_module_functions_looked_up_by_a_built_name(explain):
    answer = explain("LOOKUP_PROMPT")
    assert functions(answer) == {"desk.tools.tool_lookup", "desk.tools.lookup_helper", "desk.commands.use_tool"}
    found = edges(answer)
    assert found[("desk/commands.py:use_tool", "desk/tools.py:tool_lookup")] == ("dispatched by name", [32])
    # `lookup_helper` does not start with `tool_`: nothing looks it up by name.
    assert ("desk/commands.py:use_tool", "desk/tools.py:lookup_helper") not in found


def test_methods_named_in_a_table(explain):
    answer = explain("OUTLINE_PROMPT")
    assert functions(answer) == {"desk.commands.Writer.write_outline", "desk.commands.report_writer"}
    text = _text("OUTLINE_PROMPT")
    assert "(dispatched by name 50)" in text


def test_modules_loaded_by_a_built_name(explain):
    """`importlib.import_module(f"desk.plugins.{name}")` (or through a local holding
    `"desk.plugins." + name`) may load every module of the package: a call on what it
    returns reaches each one's function of that name."""
    answer = explain("DIGEST_PROMPT")
    assert functions(answer) == {
        "desk.plugins.digest.build",
        "desk.plugin_runner.run_plugin",
        "desk.plugin_runner.run_through_a_path",
        "desk.plugin_runner.handle",
    }
    assert "desk.plugins.digest.unrelated" not in reached(answer)
    assert answer["stopped"] == []


def test_a_module_loaded_by_a_name_that_says_nothing_is_where_the_search_stopped(explain):
    answer = explain("ARCHIVE_PROMPT")
    assert functions(answer) == {"desk.plugins.archive.export"}
    assert [(s["qualified"], s["calls"], s["examples"]) for s in answer["stopped"]] == [
        ("desk.plugins.archive.export", 1, ["desk/plugin_runner.py:26"]),
    ]
    assert "Where the search may have stopped early" in _text("ARCHIVE_PROMPT")


def test_modules_whose_names_are_not_identifiers_read_their_own_names(explain):
    """A numbered lesson (`03_triage.py`) or a notebook named `agent-demo.ipynb`: the
    facts qualify their names with a module name that is not an identifier."""
    assert functions(explain("TRIAGE_LESSON_PROMPT")) == {"03_triage.main"}
    demo = explain("DEMO_PROMPT")
    assert {n["qualified"].rpartition(".")[2] for n in demo["readers"]} == {"greet"}


# -- 5. calls in attribute initialisers --------------------------------------------------------------


def test_a_call_in_an_attribute_initialiser_is_a_call_of_init(explain):
    answer = explain("SCORE_PROMPT")
    assert functions(answer) == {
        "desk.scoring.make_scorer",
        "desk.scoring.Grader.__init__",  # `self.scorer = make_scorer(kind)`
        "desk.scoring.Grader.grade",  # calls what `self.scorer` holds
        "desk.scoring.grade_all",
        "desk.scoring.new_grader",  # constructs a Grader: runs its `__init__`
    }


# -- 6. callbacks handed to frameworks ------------------------------------------------------------------


def test_the_function_handing_a_callback_is_its_caller(explain):
    answer = explain("CRITIC_PROMPT")
    assert functions(answer) == {
        "desk.pipeline.Critic.run",
        "desk.pipeline.Pipeline.build",  # add_node("critic", self.critic.run)
        "desk.pipeline.Pipeline.in_background",  # Thread(target=self.critic.run)
        "desk.pipeline.Pipeline.in_pool",  # pool.submit(self.critic.run, state)
        "desk.pipeline.wire",  # add_node("critic", agents["critic"].run), agents from team()
        "desk.pipeline.build_team",
    }
    assert edges(answer)[("desk/pipeline.py:wire", "desk/pipeline.py:Critic.run")] == ("uses", [45])


def test_agents_held_in_a_dict_are_told_apart_by_key(explain):
    answer = explain("desk.pipeline.Planner.run")
    assert functions(answer) == {"desk.pipeline.wire", "desk.pipeline.plan_only", "desk.pipeline.build_team"}
    assert edges(answer)[("desk/pipeline.py:wire", "desk/pipeline.py:Planner.run")] == ("uses", [46])


def test_a_graph_built_at_module_level_runs_its_nodes(explain):
    answer = explain("PLAN_STEP_PROMPT")
    # `builder.add_node("plan", plan_step)` at module level: the builder uses the node,
    # `graph = builder.compile()` reads the builder, `run_graph` runs the graph.
    assert functions(answer) == {"desk.pipeline.plan_step", "desk.pipeline.run_graph"}
    assert edges(answer)[("desk/pipeline.py:builder", "desk/pipeline.py:plan_step")] == ("uses", [64])


def test_a_table_looked_up_by_a_parameter_follows_the_callers_that_pass_its_key(explain):
    answer = explain("CRITIC_ROLE")
    # `make_role("critic")` in CriticDesk, kept by the base class (`super().__init__(...)`,
    # `self.agent = agent`): read back by the Desk methods run on a CriticDesk.
    assert functions(answer) == {
        "desk.roles.make_role", "desk.roles.CriticDesk.__init__", "desk.roles.CriticDesk.review",
        "desk.roles.Desk.answer", "desk.roles.criticise",
    }
    answer = explain("WRITER_ROLE")
    assert functions(answer) == {
        "desk.roles.make_role", "desk.roles.WriterDesk.__init__", "desk.roles.WriterDesk.draft",
        "desk.roles.Desk.answer", "desk.roles.write",
    }


# -- 7. precision -------------------------------------------------------------------------------------------


def test_an_object_made_as_the_base_class_does_not_dispatch_to_overrides(explain):
    answer = explain("SPECIAL_PROMPT")
    assert functions(answer) == {
        "desk.precision.SpecialWorker.step",
        "desk.precision.Worker.run",
        "desk.precision.typed_run",  # `worker: Worker` may be a SpecialWorker
        "desk.precision.special_run",
    }
    assert "desk.precision.plain_run" not in reached(answer)  # `Worker()` is exactly a Worker


def test_a_read_of_one_field_is_no_read_of_the_others(explain):
    answer = explain("desk.precision.ModelSettings.api_key")
    # Nothing reads `api_key` by name: whoever holds the settings object may. Who reads
    # another field of it (`settings.model.name`) does not; who passes it on may.
    assert "desk.precision.model_name" not in reached(answer)
    assert "desk.precision.describe_model" in reached(answer)
    answer = explain("MODEL_NAME")
    assert functions(answer) == {"desk.precision.model_name"}


def test_a_field_of_a_data_class_that_nothing_reads_reaches_nothing(explain):
    # Every object of a dataclass is built with every field: building one (and calling
    # what builds it) is no use of a field that nobody reads.
    answer = explain("desk.run_config.RunConfig.summary_model")
    assert reached(answer) == set(), reached(answer)
    assert "desk.run_config.configured_model" in functions(explain("desk.run_config.RunConfig.model"))


def test_a_property_that_inspects_a_method_does_not_call_it(explain):
    answer = explain("desk.precision.SearchTool.execute")
    assert functions(answer) == {"desk.precision.run_search"}
    assert not {"desk.precision.SearchTool.is_async", "desk.precision.SearchTool.schema"} & reached(answer)


def test_the_search_stops_at_tools_and_entry_points(explain):
    answer = explain("ORDER_PROMPT")
    # The route that calls the tool directly is not followed; the test that does is shown.
    assert reached(answer) == {"desk.precision.lookup_order", "test_desk.test_lookup_order"}
    assert answer["readers"][0]["groups"] == ["tools and agents"]


def test_text_matches_stay_apart_from_the_graph(explain):
    answer = explain("REVIEW_PROMPT")
    # The local `desk` of unknown type in precision.py is no use of the package: the
    # text search lists the line, the graph does not link it.
    assert {(m["path"], m["line"]) for m in answer["python_mentions"]} == {("desk/precision.py", 93)}
    places = {(n["path"], n["line"]) for n in answer["readers"] + answer["callers"]}
    assert not {(m["path"], m["line"]) for m in answer["python_mentions"] + answer["text_matches"]} & places


def _text(symbol):
    return _invoke("explain", symbol, ".", "--no-cache").stdout
