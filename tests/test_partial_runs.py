"""Partial runs: only some files passed (as pre-commit does), the project rules still
see the whole project and report only in the passed files."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from agentlint.engine import run as engine
from agentlint.api import settings_for
from agentlint.engine.boundaries import ProjectMap
from agentlint.engine.cache import Cache
from agentlint.engine.cache import facts_only_key

PROJECTS = Path(__file__).resolve().parent.parent / "fixtures" / "projects"


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "costs_dup"
    shutil.copytree(PROJECTS / "costs_dup", root)
    return root


def _json(result) -> list[dict]:
    return json.loads(result.output)


def test_one_changed_file_reports_the_duplicate_in_an_unchanged_file(project, run_cli):
    result = run_cli("check", "app/billing.py", "--select", "AGL101", "--output-format", "json", cwd=project)
    assert result.exit_code == 1, result.output
    found = _json(result)
    # Only the passed file is reported ...
    assert [Path(d["filename"]).name for d in found] == ["billing.py"]
    # ... and its related locations point at the files that were not passed.
    related = {(Path(r["filename"]).name, r["location"]["row"]) for r in found[0]["related"]}
    assert related == {("research.py", 11), ("research.py", 17), ("writer.py", 16)}


def test_a_changed_file_without_a_copy_reports_nothing(project, run_cli):
    result = run_cli("check", "app/pricing.py", "--select", "AGL101", "--output-format", "json", cwd=project)
    assert result.exit_code == 0, result.output
    assert _json(result) == []


def test_checking_the_folder_is_not_partial(project, run_cli):
    result = run_cli("check", ".", "--select", "AGL101", "--output-format", "json", cwd=project)
    assert sorted(Path(d["filename"]).name for d in _json(result)) == ["billing.py", "research.py", "research.py", "writer.py"]


def test_a_sub_folder_is_partial(project, run_cli):
    result = run_cli("check", "app/agents", "--select", "AGL101", "--output-format", "json", cwd=project)
    found = _json(result)
    assert sorted(Path(d["filename"]).name for d in found) == ["research.py", "research.py", "writer.py"]
    # billing.py was not checked but is still a copy
    assert all(any(r["filename"].endswith("billing.py") for r in d["related"]) for d in found)


def test_facts_of_unpassed_files_are_cached_apart_from_full_results(project, monkeypatch):
    monkeypatch.chdir(project)
    settings = settings_for(["AGL101"], root=str(project))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(project / ".agentlint_cache")})
    cache = Cache(settings.cache_dir, settings.fingerprint())
    other = os.path.join("app", "agents", "research.py")
    key = Cache.key(other, Path(other).read_bytes())

    first = engine.run(["app/billing.py"], settings, paths=["app/billing.py"])
    assert [d.path for d in first.diagnostics] == ["app/billing.py"]
    # The unpassed file got a facts-only entry, never a full result.
    assert cache.get(key) is None
    entry = cache.get(facts_only_key(key))
    assert entry is not None and entry["facts"]["cost_terms"]

    # A warm partial run reads those facts instead of parsing the file again.
    import agentlint.engine.boundaries as projects_module

    def no_parse(*args, **kwargs):
        raise AssertionError("facts of an unchanged file were recomputed")

    monkeypatch.setattr("agentlint.facts.module.extract_facts", no_parse)
    second = engine.run(["app/billing.py"], settings, paths=["app/billing.py"])
    assert second.diagnostics == first.diagnostics
    monkeypatch.undo()
    del projects_module

    # A full run analyses research.py for real (rules and all) and caches the full result.
    monkeypatch.chdir(project)
    full = engine.run(["app/agents/research.py", "app/billing.py"], settings, paths=["."])
    assert cache.get(key) is not None
    assert {d.path for d in full.diagnostics} == {"app/agents/research.py", "app/billing.py"}


def test_stale_facts_of_an_edited_unpassed_file_are_not_used(project, monkeypatch):
    monkeypatch.chdir(project)
    settings = settings_for(["AGL101"], root=str(project))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(project / ".agentlint_cache")})
    assert engine.run(["app/billing.py"], settings, paths=["app/billing.py"]).diagnostics
    # The other copies disappear: the cache is keyed by content, so the next run sees it.
    for name in ("app/agents/research.py", "app/agents/writer.py"):
        Path(name).write_text("def nothing():\n    return 0\n", encoding="utf-8")
    assert engine.run(["app/billing.py"], settings, paths=["app/billing.py"]).diagnostics == []


@pytest.fixture
def samples(tmp_path) -> Path:
    root = tmp_path / "prompt_samples"
    shutil.copytree(PROJECTS / "prompt_samples", root)
    return root


def test_one_changed_sample_file_reports_its_prompt_copies(samples, run_cli):
    # AGL401 on one file of a sample: the other files of that sample (only) are read too
    result = run_cli("check", "samples/weather/report.py", "--select", "AGL401", "--output-format", "json", cwd=samples)
    assert result.exit_code == 1, result.output
    found = _json(result)
    assert {Path(d["filename"]).name for d in found} == {"report.py"}
    related = {Path(r["filename"]).as_posix().split("prompt_samples/")[-1] for d in found for r in d["related"]}
    assert related == {"samples/weather/app.py"}


def test_a_changed_sample_without_copies_reports_nothing(samples, run_cli):
    result = run_cli("check", "samples/travel/app.py", "--select", "AGL401", "--output-format", "json", cwd=samples)
    assert result.exit_code == 0, result.output
    assert _json(result) == []


def _later(monkeypatch) -> None:
    """Runs from now on start well past the window in which a time just read is not
    trusted (a change time cannot be set back, so the clock is moved instead)."""
    from agentlint.engine import stat_index

    monkeypatch.setattr(stat_index, "_clock", lambda: time.time() + 30)


def _related(diagnostics) -> set[str]:
    return {Path(r.path).name for d in diagnostics for r in d.related}


def _listing_settings(project: Path, monkeypatch):
    """AGL101 with a cache inside ``project``, run from there, on a clock past the window
    in which a just-read time is not trusted (so a walk's listing is kept)."""
    monkeypatch.chdir(project)
    settings = settings_for(["AGL101"], root=str(project))
    _later(monkeypatch)
    return type(settings)(**{**settings.__dict__, "cache_dir": str(project / ".agentlint_cache")})


def _counting(monkeypatch, name: str) -> list:
    """Calls of ``boundaries.<name>`` from now on (their first argument), passed through."""
    import agentlint.engine.boundaries as boundaries

    calls: list = []
    real = getattr(boundaries, name)
    monkeypatch.setattr(boundaries, name, lambda first, *a, **kw: calls.append(first) or real(first, *a, **kw))
    return calls


def test_a_kept_project_listing_spares_the_walk_until_the_project_changes(project, monkeypatch):
    settings = _listing_settings(project, monkeypatch)
    Path(".gitignore").write_text("# nothing ignored yet\n", encoding="utf-8")
    passed = ["app/billing.py"]
    first = engine.run(passed, settings, paths=passed)  # walks, and keeps the listing
    assert _related(first.diagnostics) == {"research.py", "writer.py"}

    walks = _counting(monkeypatch, "discover")
    again = engine.run(passed, settings, paths=passed)
    assert walks == [] and again.diagnostics == first.diagnostics

    # a file added: its folder's mtime moves, the project is walked again and the copy seen
    shutil.copy("app/agents/research.py", "app/agents/extra.py")
    added = engine.run(passed, settings, paths=passed)
    assert len(walks) == 1 and _related(added.diagnostics) == {"research.py", "writer.py", "extra.py"}

    # an ignore file edited in place (its folder's times unchanged): walked again
    engine.run(passed, settings, paths=passed)  # keeps the new listing
    walks.clear()
    Path(".gitignore").write_text("app/agents/extra.py\n", encoding="utf-8")
    ignored = engine.run(passed, settings, paths=passed)
    assert len(walks) == 1 and _related(ignored.diagnostics) == {"research.py", "writer.py"}


def test_a_folder_whose_modification_time_is_put_back_is_walked_again(project, monkeypatch):
    # `rsync -t` and `touch -d` restore a folder's mtime after adding a file to it; its
    # change time still moves, and the kept listing is not trusted.
    settings = _listing_settings(project, monkeypatch)
    passed = ["app/billing.py"]
    engine.run(passed, settings, paths=passed)  # keeps the listing
    walks = _counting(monkeypatch, "discover")
    folder = Path("app/agents")
    before = os.stat(folder)
    shutil.copy(folder / "research.py", folder / "extra.py")
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(folder).st_mtime_ns == before.st_mtime_ns
    added = engine.run(passed, settings, paths=passed)
    assert len(walks) == 1 and "extra.py" in _related(added.diagnostics)


def test_the_project_phase_after_a_kept_listing_reads_no_folder_of_the_listed_files(project, monkeypatch):
    # The listing holds only files of the passed file's project: the project phase takes
    # their project from it instead of reading their folders again.
    settings = _listing_settings(project, monkeypatch)
    passed = ["app/billing.py"]
    read = _counting(monkeypatch, "_Folder")
    first = engine.run(passed, settings, paths=passed)  # walks, and keeps the listing
    assert _related(first.diagnostics) == {"research.py", "writer.py"}
    assert any(path.endswith(os.path.join("app", "agents")) for path in read)
    read.clear()
    again = engine.run(passed, settings, paths=passed)
    assert again.diagnostics == first.diagnostics
    assert read and not any(path.endswith(os.path.join("app", "agents")) for path in read)


def test_a_seeded_project_map_reads_no_folder(tmp_path):
    settings = settings_for(["AGL401"], root=str(tmp_path))
    projects = ProjectMap(settings)
    projects.seed(["app/agents/a.py", "app/agents/b.py"], "/somewhere/app")
    assert projects.root_for("app/agents/b.py") == "/somewhere/app"
    assert projects.folders_read() == {}
