import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from agentlint.api import settings_for
from agentlint.engine.cache import Cache
from agentlint.engine.files import TEMP_PREFIX, atomic_write
from agentlint.engine.run import run

SILENT = "try:\n    pass\nexcept Exception:\n    pass\n"


def project(tmp_path: Path, n: int = 5) -> list[str]:
    files = []
    for i in range(n):
        p = tmp_path / f"m{i}.py"
        p.write_text(SILENT if i % 2 == 0 else "x = 1\n", encoding="utf-8")
        files.append(str(p))
    return files


def entries(cache_dir: Path) -> list[Path]:
    """The per-file entries (not the remembered project phase, nor the stat index)."""
    return [
        p for p in cache_dir.rglob("*.json") if not p.name.startswith(".tmp") and p.name not in ("project-phase.json", "stat-index.json")
    ]


def entry_lines(entry: Path) -> list[dict]:
    """An entry is a line of findings, then a line of facts: each a whole JSON value."""
    return [json.loads(line) for line in entry.read_text().split("\n")]


def test_warm_run_hits_cache_and_matches(tmp_path):
    files = project(tmp_path)
    settings = settings_for(root=str(tmp_path))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "cache")})
    cold = run(files, settings, jobs=1)
    assert cold.cache_hits == 0
    assert len(entries(tmp_path / "cache")) == 5
    warm = run(files, settings, jobs=1)
    assert warm.cache_hits == 5
    assert warm.diagnostics == cold.diagnostics
    assert [r.facts for r in warm.results.values()] == [r.facts for r in cold.results.values()]
    assert all(r.facts.complete and r.facts.module for r in warm.results.values())


def test_check_drops_facts_when_no_project_rule_needs_them(tmp_path):
    files = project(tmp_path, 2)
    settings = settings_for(root=str(tmp_path))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "cache")})
    lean = run(files, settings, jobs=1, keep_facts=False)
    full = run(files, settings, jobs=1)
    assert lean.diagnostics == full.diagnostics
    assert not any(r.facts.complete for r in lean.results.values())
    assert all(r.facts.complete for r in full.results.values())


def test_warm_run_does_not_parse(tmp_path, monkeypatch):
    files = project(tmp_path)
    settings = settings_for(root=str(tmp_path))
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "cache")})
    run(files, settings, jobs=1)
    import agentlint.engine.worker

    def no_analysis(*a, **k):
        raise AssertionError("a warm run must not analyse")

    monkeypatch.setattr(agentlint.engine.worker, "analyze_content", no_analysis)
    assert run(files, settings, jobs=1).cache_hits == 5


def test_key_includes_settings(tmp_path):
    files = project(tmp_path, 1)
    base = settings_for(root=str(tmp_path))
    a = type(base)(**{**base.__dict__, "cache_dir": str(tmp_path / "c")})
    b = type(base)(**{**a.__dict__, "enabled": a.enabled - {"AGL302"}})
    assert a.fingerprint() != b.fingerprint()
    assert run(files, a, jobs=1).diagnostics
    assert not run(files, b, jobs=1).diagnostics


def test_corrupt_entry_is_rebuilt(tmp_path):
    files = project(tmp_path, 1)
    base = settings_for(root=str(tmp_path))
    settings = type(base)(**{**base.__dict__, "cache_dir": str(tmp_path / "c")})
    first = run(files, settings, jobs=1)
    (entry,) = entries(tmp_path / "c")
    for garbage in (b"{not json", b"", json.dumps({"key": entry.stem, "diagnostics": 3}).encode()):
        entry.write_bytes(garbage)
        again = run(files, settings, jobs=1)
        assert again.cache_hits == 0
        assert again.diagnostics == first.diagnostics
        assert entry_lines(entry)[0]["key"] == entry.stem


def test_unwritable_cache_dir_does_not_fail(tmp_path):
    files = project(tmp_path, 1)
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the cache folder should be")
    base = settings_for(root=str(tmp_path))
    settings = type(base)(**{**base.__dict__, "cache_dir": str(blocker / "cache")})
    assert run(files, settings, jobs=1).diagnostics


def test_atomic_put_leaves_no_temp_files(tmp_path):
    cache = Cache(str(tmp_path / "c"), "f")
    cache.put("ab" * 32, {"x": 1})
    assert cache.get("ab" * 32)["x"] == 1
    assert not list((tmp_path / "c").rglob(".agentlint-tmp-*"))


def test_atomic_write_takes_a_free_name_sets_the_mode_and_cleans_up_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "entry.json"
    taken = tmp_path / f"{TEMP_PREFIX}{'00' * 6}entry.json"
    taken.write_bytes(b"another writer's")
    names = iter([b"\0" * 6, b"\1" * 6])
    monkeypatch.setattr(os, "urandom", lambda n: next(names))
    atomic_write(str(target), b"one", mode=0o640)
    assert target.read_bytes() == b"one" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert taken.read_bytes() == b"another writer's"  # a name in use is skipped, never reused

    monkeypatch.undo()

    def refuse(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(str(target), b"two")
    assert target.read_bytes() == b"one"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, taken.name])


def test_concurrent_runs_share_a_cache(tmp_path, agentlint_exe):
    for i in range(60):
        (tmp_path / f"m{i}.py").write_text(SILENT if i % 2 else f"x = {i}\n", encoding="utf-8")
    cmd = [agentlint_exe, "check", ".", "--output-format", "json", "--cache-dir", "cache", "-j", "2"]
    procs = [subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 1 for p in procs), [o[1] for o in outs]
    reports = [json.loads(o[0]) for o in outs]
    assert all(r == reports[0] for r in reports) and len(reports[0]) == 30
    warm = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert json.loads(warm.stdout) == reports[0]
    for entry in entries(tmp_path / "cache"):
        entry_lines(entry)  # every entry is whole


PROMPT = '"You are the billing assistant of Acme. Answer only questions about invoices, refunds and payment plans, and never promise a refund."'


def test_a_run_in_which_nothing_changed_reuses_the_project_findings(tmp_path, monkeypatch):
    """The project phase is remembered for the exact contents it ran on: the same files
    again give its findings without reading any facts; one change runs it again."""
    import agentlint.engine.finalize as finalize_module

    (tmp_path / "a.py").write_text(f"SYSTEM = {PROMPT}\n")
    (tmp_path / "b.py").write_text(f"SYSTEM_PROMPT = {PROMPT}\n")
    settings = settings_for(select=["AGL401"])
    settings = type(settings)(**{**settings.__dict__, "cache_dir": str(tmp_path / "c"), "root": str(tmp_path)})
    files = [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
    first = run(files, settings, jobs=1, keep_facts=None, paths=[str(tmp_path)])
    assert {d.code for d in first.diagnostics} == {"AGL401"}
    phases = []
    real = finalize_module.project_rules.project_phase
    monkeypatch.setattr(finalize_module.project_rules, "project_phase", lambda *a: phases.append(1) or real(*a))
    again = run(files, settings, jobs=1, keep_facts=None, paths=[str(tmp_path)])
    assert again.diagnostics == first.diagnostics and phases == []
    (tmp_path / "b.py").write_text("SYSTEM_PROMPT = 'Be brief.'\n")
    changed = run(files, settings, jobs=1, keep_facts=None, paths=[str(tmp_path)])
    assert changed.diagnostics == [] and phases == [1]
