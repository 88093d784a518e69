"""The cache does not grow for ever, and `agentlint clean` removes it: through the CLI.
Folders of other settings and agentlint versions are pruned once unused for a week (at
most 8 kept besides the one in use); `clean` removes only folders that are agentlint's
own caches."""

from __future__ import annotations

import os
import time
from pathlib import Path

from agentlint import __version__
from agentlint.engine.cache import KEEP_SETTINGS, STALE_DAYS


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def settings_dirs(cache: Path) -> set[str]:
    return {f"{v.name}/{s.name}" for v in cache.iterdir() if v.is_dir() and v.name[0].isdigit() for s in v.iterdir()}


def fake_entry(cache: Path, version: str, fingerprint: str, age_days: float) -> Path:
    folder = cache / version / fingerprint
    write(folder / "ab" / ("ab" + "0" * 62 + ".json"), "{}")
    then = time.time() - age_days * 86400
    os.utime(folder, (then, then))
    return folder


def test_other_settings_and_versions_are_pruned(run_cli, tmp_path):
    write(tmp_path / "a.py", "x = 1\n")
    assert run_cli("check", "a.py").exit_code == 0
    cache = tmp_path / ".agentlint_cache"
    (current,) = settings_dirs(cache)
    old_version = fake_entry(cache, "0.0.1", "0123456789abcdef", STALE_DAYS + 1)
    old_settings = fake_entry(cache, __version__, "fedcba9876543210", STALE_DAYS + 1)
    recent = fake_entry(cache, __version__, "00000000000000aa", 1)
    for stamp in cache.glob(f"{current}/last-used"):
        os.utime(stamp, (0, 0))  # the run marks its folder as used (at most once an hour)
    assert run_cli("check", "a.py").exit_code == 0
    left = settings_dirs(cache)
    assert current in left and f"{__version__}/{recent.name}" in left
    assert not old_settings.exists() and not old_version.parent.exists()
    assert (cache / "CACHEDIR.TAG").is_file()

    # at most KEEP_SETTINGS other settings, the most recently used
    for i in range(KEEP_SETTINGS + 3):
        fake_entry(cache, __version__, f"{i:016x}", 2 + i / 10)
    os.utime(cache / current / "last-used", (0, 0))
    run_cli("check", "a.py")
    others = settings_dirs(cache) - {current}
    assert len(others) == KEEP_SETTINGS
    assert f"{__version__}/{recent.name}" in others  # the newest of them


def test_a_different_selection_gets_its_own_folder_and_both_are_kept(run_cli, tmp_path):
    write(tmp_path / "a.py", "x = 1\n")
    run_cli("check", "a.py")
    run_cli("check", "a.py", "--select", "AGL302")
    assert len(settings_dirs(tmp_path / ".agentlint_cache")) == 2


def test_clean_removes_the_cache(run_cli, tmp_path):
    write(tmp_path / "a.py", "x = 1\n")
    write(tmp_path / "sub" / "agentlint.toml", "")
    write(tmp_path / "sub" / "b.py", "x = 1\n")
    run_cli("check", ".")
    assert (tmp_path / ".agentlint_cache").is_dir() and (tmp_path / "sub" / ".agentlint_cache").is_dir()
    result = run_cli("clean")
    assert result.exit_code == 0, result.output
    assert "Removed .agentlint_cache" in result.stdout
    assert "Removed sub/.agentlint_cache" in result.stdout
    assert not (tmp_path / ".agentlint_cache").exists() and not (tmp_path / "sub" / ".agentlint_cache").exists()
    assert (tmp_path / "a.py").is_file() and (tmp_path / "sub" / "b.py").is_file()
    again = run_cli("clean")
    assert again.exit_code == 0 and again.stdout == "No agentlint cache found.\n"


def test_clean_removes_only_folders_that_are_agentlints(run_cli, tmp_path):
    # a folder that happens to have the cache's name, and a configured cache-dir that
    # is the user's project folder: neither is ours, neither is touched
    write(tmp_path / ".agentlint_cache" / "notes.txt", "mine")
    write(tmp_path / "agentlint.toml", 'cache-dir = "."\n')
    write(tmp_path / "a.py", "x = 1\n")
    run_cli("check", "a.py")
    result = run_cli("clean")
    assert result.exit_code == 0
    assert "not removing" in result.stderr
    assert (tmp_path / ".agentlint_cache" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "a.py").is_file() and (tmp_path / "agentlint.toml").is_file()
    custom = tmp_path / "elsewhere"
    write(tmp_path / "agentlint.toml", f'cache-dir = "{custom.as_posix()}"\n')
    run_cli("check", "a.py")
    assert (custom / "CACHEDIR.TAG").is_file()
    assert "Removed" in run_cli("clean").stdout and not custom.exists()
