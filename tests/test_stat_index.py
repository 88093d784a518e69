"""A warm run decides from `stat` which files are unchanged (engine/stat_index.py): it
reads none of them, and still sees every change, even one that keeps the size and the
modification time."""

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

import agentlint.engine.run as run_module
from agentlint.api import settings_for
from agentlint.engine.run import run
from agentlint.engine import stat_index
from agentlint.engine.files import absolute_path
from agentlint.engine.stat_index import INDEX_FILE, StatIndex

SILENT = "try:\n    pass\nexcept Exception:\n    pass\n"
QUIET = "try:\n    pass\nexcept Exception:\n   raise\n"  # as long as SILENT, and not silent
LONG_AGO = time.time() - 3600


def _age(path: Path, when: float = LONG_AGO) -> None:
    os.utime(path, (when, when))


@pytest.fixture
def a_minute_later(monkeypatch):
    """Runs that start a minute after the files were written (their change time, which
    no program can set back, is then old enough to be trusted)."""
    later = time.time() + 60
    monkeypatch.setattr(stat_index, "_clock", lambda: later)
    return later


def _project(tmp_path: Path) -> tuple[list[str], object]:
    files = []
    for i in range(4):
        path = tmp_path / f"m{i}.py"
        path.write_text(SILENT if i % 2 == 0 else "x = 1\n")
        _age(path)
        files.append(str(path))
    settings = settings_for(root=str(tmp_path))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "cache")})
    return files, settings


def _count_reads(monkeypatch) -> list[str]:
    reads: list[str] = []
    real = run_module.read_source
    monkeypatch.setattr(run_module, "read_source", lambda path, limit: reads.append(path) or real(path, limit))
    return reads


def test_a_warm_run_reads_no_unchanged_file(tmp_path, monkeypatch, a_minute_later):
    files, settings = _project(tmp_path)
    cold = run(files, settings, jobs=1)
    reads = _count_reads(monkeypatch)
    warm = run(files, settings, jobs=1)
    assert reads == []
    assert warm.cache_hits == len(files)
    assert warm.diagnostics == cold.diagnostics


def test_a_change_that_keeps_size_and_mtime_is_seen(tmp_path, a_minute_later):
    files, settings = _project(tmp_path)
    assert {d.path for d in run(files, settings, jobs=1).diagnostics} == {files[0], files[2]}
    target = Path(files[0])
    before = os.stat(target)
    assert len(QUIET) == len(SILENT)
    target.write_text(QUIET)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(target)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    # the change time moved (no program can set it): the file is read again
    assert {d.path for d in run(files, settings, jobs=1).diagnostics} == {files[2]}


def test_a_file_written_just_now_is_hashed_until_it_settles(tmp_path, monkeypatch, a_minute_later):
    files, settings = _project(tmp_path)
    fresh = tmp_path / "fresh.py"
    fresh.write_text("x = 2\n")
    _age(fresh, a_minute_later - 0.5)  # modified half a second before the run starts
    files.append(str(fresh))
    run(files, settings, jobs=1)
    index = json.loads(next((tmp_path / "cache").rglob(INDEX_FILE)).read_text())
    assert str(fresh) not in index["files"]
    assert all(p in index["files"] for p in files[:-1])
    reads = _count_reads(monkeypatch)
    run(files, settings, jobs=1)
    assert reads == [str(fresh)]


def test_a_broken_index_costs_only_the_hashing(tmp_path, monkeypatch, a_minute_later):
    files, settings = _project(tmp_path)
    cold = run(files, settings, jobs=1)
    index_path = next((tmp_path / "cache").rglob(INDEX_FILE))
    index_path.write_text('{"format": 1, "files": {"x": [1')
    reads = _count_reads(monkeypatch)
    again = run(files, settings, jobs=1)
    assert sorted(reads) == sorted(files) and again.diagnostics == cold.diagnostics
    assert again.cache_hits == len(files)
    assert len(json.loads(index_path.read_text())["files"]) == len(files)  # rewritten whole


@pytest.mark.parametrize("entry", [["a"], [1, 2, 3, 4, 5], "not a list"])
def test_entries_of_the_wrong_shape_are_ignored(tmp_path, entry):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / INDEX_FILE).write_text(json.dumps({"format": 1, "files": {str(tmp_path / "a.py"): entry}}))
    (tmp_path / "a.py").write_text("x = 1\n")
    assert StatIndex(str(folder)).lookup(str(tmp_path / "a.py"))[0] is None


def test_the_other_files_of_a_partial_run_are_not_read_when_unchanged(tmp_path, monkeypatch, a_minute_later):
    """pre-commit passes the changed files: the project's other files give their facts
    from the cache, found through the index without reading them."""
    (tmp_path / "pyproject.toml").write_text("")
    prompt = '"""You are a careful support agent. Answer in English, cite the order number, never promise refunds, and escalate angry customers to a human."""'
    (tmp_path / "a.py").write_text(f"SYSTEM = {prompt}\n")
    (tmp_path / "b.py").write_text(f"SYSTEM_PROMPT = {prompt}\n")
    for name in ("a.py", "b.py", "pyproject.toml"):
        _age(tmp_path / name)
    settings = settings_for(select=["AGL401"])
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "c"), "root": str(tmp_path)})
    everything = [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
    run(everything, settings, jobs=1, keep_facts=None, paths=[str(tmp_path)])
    reads = _count_reads(monkeypatch)
    partial = run([everything[0]], settings, jobs=1, keep_facts=None, paths=[everything[0]])
    assert {d.code for d in partial.diagnostics} == {"AGL401"}
    assert reads == []


def test_through_the_cli_an_edit_in_place_is_seen(tmp_path, agentlint_exe):
    """The same size, the same modification time, other contents: what an editor that
    restores times, or `cp -p`, leaves behind."""
    (tmp_path / "pyproject.toml").write_text("")
    target = tmp_path / "app.py"
    target.write_text(SILENT)
    _age(target)
    time.sleep(stat_index.RACY_SECONDS + 0.2)  # until its change time can be trusted
    command = [agentlint_exe, "check", "app.py", "--output-format", "json", "--cache-dir", "cache"]
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert [d["code"] for d in json.loads(first.stdout)] == ["AGL302"]
    recorded = json.loads(next((tmp_path / "cache").rglob(INDEX_FILE)).read_text())["files"]
    assert str(target) in recorded
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert again.stdout == first.stdout
    before = os.stat(target)
    target.write_text(QUIET)
    assert len(QUIET) == len(SILENT)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    changed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert json.loads(changed.stdout) == [], changed.stderr


def test_a_warm_run_with_nothing_changed_opens_no_cache_entry(tmp_path, monkeypatch, a_minute_later):
    """The index keeps each file's (small) findings line from the run that analysed it:
    the next run, whose project phase is remembered, takes the findings from the index
    alone."""
    files, settings = _project(tmp_path)
    first = run(files, settings, jobs=1, keep_facts=None, paths=[str(tmp_path)])
    opened: list[str] = []
    real_get = run_module.Cache.get
    monkeypatch.setattr(run_module.Cache, "get", lambda self, key, **kw: opened.append(key) or real_get(self, key, **kw))
    reads = _count_reads(monkeypatch)
    again = run(files, settings, jobs=1, keep_facts=None, paths=[str(tmp_path)])
    assert opened == [] and reads == []
    assert again.diagnostics == first.diagnostics and again.cache_hits == len(files)
    # a changed file drops what was kept for it: its entry is read again
    Path(files[1]).write_text("try:\n    pass\nexcept Exception:\n    pass\n")
    changed = run(files, settings, jobs=1, keep_facts=None, paths=[str(tmp_path)])
    assert {d.path for d in changed.diagnostics} == {files[0], files[1], files[2]}


def test_a_partial_run_whose_project_facts_did_not_move_reads_no_other_facts(tmp_path, monkeypatch, a_minute_later):
    """pre-commit on a file whose edit moves none of its project facts (its prompts,
    tools, imports): the remembered project phase holds, and the other files' facts are
    not read. An edit of another file, or one that moves a prompt, is seen."""
    (tmp_path / "pyproject.toml").write_text("")
    prompt = '"""You are a careful support agent. Answer in English, cite the order number, never promise refunds, and escalate angry customers to a human."""'
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(f"SYSTEM = {prompt}\n")
    b.write_text(f"SYSTEM_PROMPT = {prompt}\n")
    (tmp_path / "c.py").write_text("x = 1\n")
    for path in (a, b, tmp_path / "c.py", tmp_path / "pyproject.toml"):
        _age(path)
    settings = settings_for(select=["AGL401"])
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "c"), "root": str(tmp_path)})
    loads: list[list[str]] = []
    real_load = run_module.boundaries.load_context_facts
    monkeypatch.setattr(run_module.boundaries, "load_context_facts",
                        lambda paths, *args, **kw: loads.append(list(paths)) or real_load(paths, *args, **kw))

    def partial() -> list[tuple[str, int]]:
        found = run([str(a)], settings, jobs=1, keep_facts=None, paths=[str(a)]).diagnostics
        return [(d.code, d.span.start.line) for d in found]

    assert partial() == [("AGL401", 1)] and [sorted(p) for p in loads] == [[str(b), str(tmp_path / "c.py")]]
    a.write_text(a.read_text() + "# a comment that moves nothing\n")
    assert partial() == [("AGL401", 1)] and len(loads) == 1
    a.write_text("\n" + a.read_text())  # the prompt moves a line down: the phase runs again
    assert partial() == [("AGL401", 2)] and len(loads) == 2
    b.write_text('SYSTEM_PROMPT = "Summarise the ticket."\n')  # no copy left in the other file
    assert partial() == [] and len(loads) == 3
    b.write_text(f"SYSTEM_PROMPT = {prompt}\n")
    assert partial() == [("AGL401", 2)] and len(loads) == 4
    b.unlink()  # every digest left is known, and the copy is gone with the file
    assert partial() == []


def test_a_partial_run_with_fix_reads_the_other_facts(tmp_path):
    """`--fix` checks the fixed files again with the project's other facts: a partial run
    that will be fixed does not take a remembered project phase instead of them."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    settings = settings_for(root=str(tmp_path))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "c")})
    for _ in range(2):
        ((_, result),) = run_module.run_groups(
            [(settings, [str(tmp_path / "a.py")])], jobs=1, keep_facts=None, paths=[str(tmp_path / "a.py")],
            remember_partial=False,
        )
        assert result.context is not None and str(tmp_path / "b.py") in result.context


def test_a_partial_run_reads_the_other_files_facts_from_one_file(tmp_path, monkeypatch, a_minute_later):
    """When the edit moves the file's facts, the project phase needs the other files'
    facts: after the first partial run they come from one file of the cache, not from
    an entry per file; a file changed since is read from its entry again."""
    (tmp_path / "pyproject.toml").write_text("")
    prompt = '"""You are a careful support agent. Answer in English, cite the order number, never promise refunds, and escalate angry customers to a human."""'
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    a.write_text(f"SYSTEM = {prompt}\n")
    b.write_text(f"SYSTEM_PROMPT = {prompt}\n")
    c.write_text("x = 1\n")
    for path in (a, b, c, tmp_path / "pyproject.toml"):
        _age(path)
    settings = settings_for(select=["AGL401"])
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "cache"), "root": str(tmp_path)})
    entries: list[str] = []
    real = run_module.boundaries.cached_facts
    monkeypatch.setattr(run_module.boundaries, "cached_facts", lambda cache, key: entries.append(key) or real(cache, key))

    def partial() -> list[tuple[str, int]]:
        a.write_text("\n" + a.read_text())  # every fact of a.py moves: no remembered phase holds
        found = run([str(a)], settings, jobs=1, keep_facts=None, paths=[str(a)]).diagnostics
        return [(d.code, d.span.start.line) for d in found]

    assert partial() == [("AGL401", 2)] and len(entries) == 2
    assert partial() == [("AGL401", 3)] and len(entries) == 2
    b.write_text(f"OTHER = 1\nSYSTEM_PROMPT = {prompt}\n")
    _age(b)
    assert partial() == [("AGL401", 4)] and len(entries) == 3


@pytest.mark.skipif(os.name != "posix", reason="elsewhere absolute_path is os.path.abspath itself")
def test_absolute_path_is_abspath_with_the_folder_read_once(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    cwd = os.getcwd()
    for path in ("a.py", "./a.py", "pkg/../b.py", "pkg//c.py", "pkg/", ".", "..", "/abs/x/../y.py", "//two", "", "a/./b/"):
        assert absolute_path(path, cwd) == os.path.abspath(path), path


def test_the_digest_of_a_file_written_just_now_is_kept(tmp_path) -> None:
    # its entry is not (its time stamps may not tell the next change), but a digest
    # belongs to the content: the next partial run needs not read the facts again
    path = tmp_path / "fresh.py"
    path.write_text("x = 1\n", encoding="utf-8")
    index = StatIndex(str(tmp_path / "cache"))
    key, stamp = index.lookup(str(path))
    assert key is None
    index.record(str(path), stamp, "content-key")
    index.keep_digest("content-key", "digest")
    index.save()
    again = StatIndex(str(tmp_path / "cache"))
    assert again.lookup(str(path))[0] is None
    assert again.digest("content-key") == "digest"


def test_a_file_still_too_recent_to_trust_does_not_rewrite_the_index(tmp_path) -> None:
    # a pre-commit run's changed file: the run before dropped its entry already
    path = tmp_path / "changed.py"
    path.write_text("x = 1\n", encoding="utf-8")
    cache = str(tmp_path / "cache")
    trusting = StatIndex(cache, now=time.time() + 60)
    trusting.record(str(path), trusting.lookup(str(path))[1], "old-key")
    trusting.save()
    path.write_text("x = 12\n", encoding="utf-8")  # the edit
    index_file = Path(cache) / INDEX_FILE
    for expected_rewrite in (True, False):  # the entry dropped once, then nothing to write
        before = index_file.stat()
        index = StatIndex(cache)
        key, stamp = index.lookup(str(path))
        assert key is None
        index.record(str(path), stamp, "new-key")
        index.save()
        after = index_file.stat()
        assert ((after.st_ino, after.st_mtime_ns) != (before.st_ino, before.st_mtime_ns)) is expected_rewrite
