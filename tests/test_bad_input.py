"""Bad input never takes the run down: a clear message naming the file, the rest checked."""

import json
import os
from pathlib import Path

import pytest

SILENT = "try:\n    pass\nexcept Exception:\n    pass\n"


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def check_json(run_cli, *args):
    result = run_cli("check", *args, "--output-format", "json", "--no-cache")
    return result, json.loads(result.stdout)


def by_file(findings):
    return {(Path(d["filename"]).name, d["code"]): d["message"] for d in findings}


@pytest.fixture
def with_good_file(tmp_path):
    write(tmp_path / "good.py", SILENT)
    return tmp_path


def assert_good_file_still_checked(findings):
    assert ("good.py", "AGL302") in by_file(findings)


def test_syntax_error(run_cli, with_good_file):
    write(with_good_file / "broken.py", "def f(:\n    pass\n")
    result, findings = check_json(run_cli)
    assert result.exit_code == 1
    message = by_file(findings)[("broken.py", "AGL001")]
    assert "Syntax error" in message
    assert_good_file_still_checked(findings)


def test_non_utf8(run_cli, with_good_file):
    write(with_good_file / "latin.py", b"x = '\xe9t\xe9'\n")
    result, findings = check_json(run_cli)
    assert result.exit_code == 1
    message = by_file(findings)[("latin.py", "AGL002")]
    assert "latin.py" in message and "UTF-8" in message
    assert_good_file_still_checked(findings)


def test_declared_encoding_is_honoured(run_cli, tmp_path):
    write(tmp_path / "latin.py", b"# -*- coding: latin-1 -*-\ntry:\n    x = '\xe9'\nexcept Exception:\n    pass\n")
    result, findings = check_json(run_cli)
    assert [(d["code"], d["location"]["row"]) for d in findings] == [("AGL302", 4)]


def test_nul_bytes(run_cli, with_good_file):
    write(with_good_file / "nul.py", b"x = 1\x00\n")
    result, findings = check_json(run_cli)
    assert "NUL" in by_file(findings)[("nul.py", "AGL002")]
    assert_good_file_still_checked(findings)


def test_empty_file(run_cli, with_good_file):
    write(with_good_file / "empty.py", b"")
    result, findings = check_json(run_cli)
    assert result.exit_code == 1
    assert not [k for k in by_file(findings) if k[0] == "empty.py"]
    assert_good_file_still_checked(findings)


def test_very_large_file(run_cli, with_good_file):
    big = ("x = 1\n" * 40_000) + SILENT  # ~240 kB: analysed normally
    write(with_good_file / "big.py", big)
    result, findings = check_json(run_cli)
    assert ("big.py", "AGL302") in by_file(findings)
    write(with_good_file / "agentlint.toml", "max-file-size = 100000\n")
    result, findings = check_json(run_cli)
    message = by_file(findings)[("big.py", "AGL002")]
    assert "max-file-size" in message
    assert_good_file_still_checked(findings)


def test_deeply_nested_expression(run_cli, with_good_file):
    write(with_good_file / "deep.py", "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    result, findings = check_json(run_cli)
    assert ("deep.py", "AGL001") in by_file(findings) or ("deep.py", "AGL002") in by_file(findings)
    assert_good_file_still_checked(findings)


def test_unreadable_file(run_cli, with_good_file, monkeypatch):
    target = write(with_good_file / "secret.py", SILENT)
    import agentlint.engine.results

    real_read = agentlint.engine.results.read_regular

    def guarded_read(file, limit=None):
        if os.path.abspath(str(file)) == str(target):
            raise PermissionError(13, "Permission denied", str(file))
        return real_read(file, limit)

    monkeypatch.setattr(agentlint.engine.results, "read_regular", guarded_read)
    result, findings = check_json(run_cli)
    assert "Permission denied" in by_file(findings)[("secret.py", "AGL002")]
    assert_good_file_still_checked(findings)


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root can read any file")
def test_unreadable_file_for_real(run_cli, with_good_file):
    target = write(with_good_file / "secret.py", SILENT)
    target.chmod(0)
    try:
        result, findings = check_json(run_cli)
    finally:
        target.chmod(0o644)
    assert ("secret.py", "AGL002") in by_file(findings)


def test_directory_named_like_a_python_file(run_cli, with_good_file):
    write(with_good_file / "odd.py" / "inner.py", SILENT)
    result, findings = check_json(run_cli)
    assert ("inner.py", "AGL302") in by_file(findings)
    assert_good_file_still_checked(findings)
    result, findings = check_json(run_cli, "odd.py", "good.py")  # named explicitly
    assert ("inner.py", "AGL302") in by_file(findings)


def test_symlink_loop(run_cli, with_good_file):
    os.symlink("loop.py", with_good_file / "loop.py")
    result, findings = check_json(run_cli)
    assert "symlink loop" in by_file(findings)[("loop.py", "AGL002")]
    assert_good_file_still_checked(findings)
    result, findings = check_json(run_cli, "loop.py", "good.py")
    assert "symlink loop" in by_file(findings)[("loop.py", "AGL002")]
    assert_good_file_still_checked(findings)


def test_path_that_does_not_exist(run_cli, with_good_file):
    result, findings = check_json(run_cli, "missing.py", "good.py")
    assert result.exit_code == 1
    assert "No such file" in by_file(findings)[("missing.py", "AGL002")]
    assert_good_file_still_checked(findings)


def test_crashing_rule_becomes_internal_error(run_cli, with_good_file, monkeypatch):
    from agentlint.rules.silent_broad_except import SilentBroadExcept

    calls = {"n": 0}
    original = SilentBroadExcept.visit_ExceptHandler

    def explode(self, node):
        calls["n"] += 1
        if "boom" in self.context.path:
            raise RuntimeError("kaboom")
        return original(self, node)

    monkeypatch.setattr(SilentBroadExcept, "visit_ExceptHandler", explode)
    write(with_good_file / "boom.py", SILENT)
    result, findings = check_json(run_cli, "-j", "1")
    assert result.exit_code == 2
    message = by_file(findings)[("boom.py", "AGL003")]
    assert "AGL302" in message and "silent-broad-except" in message and "kaboom" in message
    assert_good_file_still_checked(findings)
    assert "crashed" in result.stderr
