import itertools
import os
import subprocess
from pathlib import Path

import pathspec

from agentlint.api import settings_for
from agentlint.engine.config import DEFAULT_EXCLUDES
from agentlint.engine.discovery import _any_name, _any_pattern, discover


def touch(path: Path, text: str = "x = 1\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def names(tmp_path, monkeypatch, **kw):
    monkeypatch.chdir(tmp_path)
    settings = settings_for(root=str(tmp_path))
    settings = type(settings)(**{**settings.__dict__, **kw})
    return sorted(Path(p).as_posix() for p in discover(["."], settings).files)


def test_default_excludes(tmp_path, monkeypatch):
    for folder in (".git", ".venv", "venv", "node_modules", "build", "dist", "__pycache__", "lib/site-packages"):
        touch(tmp_path / folder / "x.py")
    touch(tmp_path / "app" / "main.py")
    touch(tmp_path / "app" / "notes.txt")
    assert names(tmp_path, monkeypatch) == ["app/main.py"]
    assert "site-packages" in DEFAULT_EXCLUDES


def test_gitignore_respected_and_switchable(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("generated/\n*_pb2.py\n!keep_pb2.py\n")
    touch(tmp_path / "generated" / "a.py")
    touch(tmp_path / "svc" / "api_pb2.py")
    touch(tmp_path / "svc" / "keep_pb2.py")
    touch(tmp_path / "svc" / "sub" / ".gitignore", "local.py\n")
    touch(tmp_path / "svc" / "sub" / "local.py")
    touch(tmp_path / "svc" / "main.py")
    assert names(tmp_path, monkeypatch) == ["svc/keep_pb2.py", "svc/main.py"]
    everything = names(tmp_path, monkeypatch, respect_gitignore=False)
    assert "generated/a.py" in everything and "svc/sub/local.py" in everything


def test_exclude_and_extend_exclude(tmp_path, monkeypatch):
    touch(tmp_path / "a" / "x.py")
    touch(tmp_path / "b" / "y.py")
    touch(tmp_path / "build" / "z.py")
    assert names(tmp_path, monkeypatch, extend_exclude=("b",)) == ["a/x.py"]
    # `exclude` replaces the defaults: build/ is back.
    assert names(tmp_path, monkeypatch, exclude=("a",)) == ["b/y.py", "build/z.py"]


def test_explicit_file_bypasses_excludes_unless_forced(tmp_path, monkeypatch):
    touch(tmp_path / "build" / "z.py")
    monkeypatch.chdir(tmp_path)
    settings = settings_for(root=str(tmp_path))
    assert discover(["build/z.py"], settings).files == [os.path.join("build", "z.py")]
    assert discover(["build/z.py"], settings, force_exclude=True).files == []


def test_symlinked_duplicates_counted_once(tmp_path, monkeypatch):
    touch(tmp_path / "a.py")
    os.symlink(tmp_path / "a.py", tmp_path / "b.py")
    assert names(tmp_path, monkeypatch) == ["a.py"]


def test_plain_name_excludes_match_as_their_gitignore_patterns():
    """Excludes that are names alone are matched by one expression built from the names;
    it must agree with the patterns pathspec compiles for them, on every kind of path."""
    names = [*DEFAULT_EXCLUDES, "my.dir", "a-b", "x+y"]
    joined = _any_pattern(pathspec.GitIgnoreSpec.from_lines(names))
    by_name = _any_name(names)
    assert by_name is not None and joined is not None
    pieces = ["build", ".git", "site-packages", "my.dir", "x+y", "src", "build2", "xbuild", ".git2", "f.py", "a.b"]
    for depth in (1, 2, 3):
        for parts in itertools.product(pieces, repeat=depth):
            for rel in ("/".join(parts), "/".join(parts) + "/"):
                assert bool(by_name.search(rel)) == bool(joined.search(rel)), rel
    for pattern in ("*.py", "!keep", "a/b", "#note", ".", "..", "dir/"):
        assert _any_name([*names, pattern]) is None, pattern
