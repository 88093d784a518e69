"""A run that keeps no facts (no cache: nothing outlives the run) extracts only what the
rules read: the imports instead of the whole facts walk (``extract_facts(graph=False)``),
which only explain needs. It must find what a run that keeps every fact finds."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from agentlint.api import settings_for
from agentlint.engine import analyze
from agentlint.facts.ast_helpers import MODULE_SCOPE
from agentlint.facts.imports import import_table
from agentlint.facts.module import ModuleWalk, extract_facts
from agentlint.rules.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent


def _ours(path: Path) -> bool:
    """A file of the project, not of a hidden folder under it (the corpus and the peers'
    virtualenv that ``bench/`` builds locally)."""
    return not any(part.startswith(".") for part in path.relative_to(ROOT).parts)


def _files() -> list[Path]:
    found = []
    for folder in ("fixtures", "tests", "agentlint", "bench"):
        found += sorted((ROOT / folder).rglob("*.py")) + sorted((ROOT / folder).rglob("*.ipynb"))
    return [path for path in found if _ours(path)]


def _trees():
    for folder in ("fixtures", "tests", "agentlint", "bench"):
        for path in filter(_ours, sorted((ROOT / folder).rglob("*.py"))):
            try:
                yield path, ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, ValueError, UnicodeDecodeError):
                continue


def test_a_run_that_keeps_no_facts_finds_what_a_caching_run_finds():
    # every rule, the ones off by default too: then every optional fact is read
    settings = settings_for(select=list(all_rules()))
    files = _files()
    assert len(files) > 200
    differ = []
    for path in files:
        content = path.read_bytes()
        kept = analyze.analyze_content(str(path), content, settings, all_facts=True)
        lean = analyze.analyze_content(str(path), content, settings, all_facts=False)
        if (
            sorted(repr(d) for d in kept.diagnostics) != sorted(repr(d) for d in lean.diagnostics)
            or kept.facts.project_json() != lean.facts.project_json()
            or kept.facts.imports != lean.facts.imports
        ):
            differ.append(str(path.relative_to(ROOT)))
    assert not differ, differ


def _walked(path: Path, tree: ast.Module) -> ModuleWalk:
    walk = ModuleWalk("pkg.mod", path.name == "__init__.py")
    walk.collect_module_names(tree)
    walk.collect_string_tables(tree.body)
    walk.walk_body(tree.body, MODULE_SCOPE, False)
    return walk


def test_the_import_table_is_the_one_the_facts_walk_leaves():
    checked = 0
    for path, tree in _trees():
        walk = _walked(path, tree)
        table = import_table(tree, "pkg.mod", path.name == "__init__.py")
        assert table.imports == walk.imports, path
        assert table.table == walk.table, path
        assert table._inner_imports == walk._inner_imports, path
        assert table.module_names == walk.module_names, path
        checked += bool(walk._inner_imports)
    assert checked > 10  # files with imports in functions or classes


IMPORT_ORDERS = """
import os

class Settings:
    try:
        from fast import loads
    except ImportError:
        from slow import loads
    else:
        from fast import dumps as loads
    finally:
        from audit import loads

def load():
    try:
        from fast import parse
    except ImportError:
        from slow import parse
    else:
        from fast import dumps as parse
    finally:
        from audit import parse
    return parse

for name in ():
    import skipped
"""


def test_imports_in_classes_and_functions_keep_the_walks_order():
    """A class body is read part by part, a function's `try` as it runs (`else` before
    the handlers): the first import of a name wins, so the order decides what it is."""
    tree = ast.parse(IMPORT_ORDERS)
    walk = _walked(Path("mod.py"), tree)
    table = import_table(tree, "pkg.mod", False)
    assert [(i.local, i.qualified) for i in table.imports] == [(i.local, i.qualified) for i in walk.imports]
    assert table.table["loads"] == walk.table["loads"] == "fast.loads"
    assert table._inner_imports["parse"] == walk._inner_imports["parse"] == "fast.parse"
    assert [i.qualified for i in table.imports if i.local == "parse"] == [
        "fast.parse", "fast.dumps", "slow.parse", "audit.parse"
    ]
    assert "skipped" not in table.table and "skipped" not in table._inner_imports


GRAPH_FACTS = ("definitions", "calls", "references", "annotation_references", "bindings", "main_blocks")


def test_without_the_graph_only_explains_facts_are_left_out():
    with_graph = 0
    for path, tree in _trees():
        source = path.read_text(encoding="utf-8")
        full = extract_facts(str(path), tree, source)
        lean = extract_facts(str(path), tree, source, graph=False)
        assert not any(getattr(lean, name) for name in GRAPH_FACTS), path
        assert replace(full, **{name: () for name in GRAPH_FACTS}) == lean, path
        with_graph += bool(full.calls and full.definitions and full.references)
    assert with_graph > 100


@pytest.mark.parametrize("keep", [True, False])
def test_model_calls_are_found_in_both_kinds_of_run(keep):
    source = (
        "from openai import OpenAI\n"
        "from helpers import ask as run_model\n"
        "client = OpenAI()\n"
        "def summarise(text, complete):\n"
        "    client.chat.completions.create(model='m', messages=[])\n"
        "    return complete(text)\n"
    )
    settings = settings_for(select=["ALL", "AGL106"])
    result = analyze.analyze_content("app.py", source.encode(), settings, all_facts=keep)
    assert [c.line for c in result.facts.model_calls] == [5]


def test_the_inventory_is_taken_only_for_the_rule_that_reads_it():
    source = "from openai import OpenAI\nclient = OpenAI()\nclient.chat.completions.create(model='m', messages=[])\n"
    without = analyze.analyze_content("app.py", source.encode(), settings_for(select=["ALL"]), all_facts=False)
    kept = analyze.analyze_content("app.py", source.encode(), settings_for(select=["ALL"]), all_facts=True)
    assert not without.facts.model_calls
    assert [c.line for c in kept.facts.model_calls] == [3]


def test_the_sinks_are_found_only_for_the_rule_that_reads_them():
    # the irreversible calls each tool reaches, and the approvals around them, are read
    # by AGL203 alone: a run of the other rules that keeps no facts leaves them out
    source = (
        "import smtplib\n"
        "from agents import function_tool\n"
        "@function_tool\n"
        "def send_reply(to: str, body: str) -> str:\n"
        "    smtplib.SMTP('localhost').sendmail('bot@example.com', [to], body)\n"
        "    return 'sent'\n"
    )
    for select, keep, found in ((["AGL201"], False, False), (["AGL201"], True, True), (["AGL203"], False, True)):
        result = analyze.analyze_content("app.py", source.encode(), settings_for(select=select), all_facts=keep)
        assert [t.name for t in result.facts.tools] == ["send_reply"]
        assert bool(result.facts.tools[0].sinks) is found, (select, keep)


def test_project_facts_decode_to_what_the_constructor_builds():
    # the project phase decodes every other file's project facts without the frozen
    # dataclass's __init__ (``types._project_facts``), and the context file's imports
    # without filtering them again: the facts must be those the plain path gives
    from agentlint.facts.types import _FILE_FACTS_DEFAULTS, FileFacts

    assert set(FileFacts.__dataclass_fields__) - set(_FILE_FACTS_DEFAULTS) == {"module"}
    for value in _FILE_FACTS_DEFAULTS.values():
        assert isinstance(value, (tuple, str, int, bool)), "a shared default must be immutable"
    settings = settings_for()
    seen = 0
    for path in _files():
        if path.suffix != ".py" or "fixtures" not in path.parts:
            continue
        result = analyze.analyze_content(str(path), path.read_bytes(), settings)
        data = result.facts.to_json()
        decoded = FileFacts.project_from_json(data)
        common = {k: getattr(decoded, k) for k in decoded.project_json()}
        assert decoded == FileFacts(**common) and repr(decoded) == repr(FileFacts(**common))
        assert hash(decoded) == hash(FileFacts(**common))
        assert decoded.to_json() == FileFacts(**common).to_json()  # every field in the instance, as __init__ sets them
        again = FileFacts.project_from_json(decoded.project_json(), framework_imports=True)
        assert again == decoded, path
        seen += bool(decoded.imports or decoded.tools or decoded.prompt_sites)
    assert seen > 20
