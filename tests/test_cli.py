import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentlint import __version__

SILENT = "try:\n    pass\nexcept Exception:\n    pass\n"
CLEAN = "def f():\n    return 1\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_version(run_cli):
    result = run_cli("--version")
    assert result.exit_code == 0 and __version__ in result.output


def test_exit_codes(run_cli, tmp_path):
    write(tmp_path / "clean.py", CLEAN)
    assert run_cli("check", "clean.py").exit_code == 0
    write(tmp_path / "bad.py", SILENT)
    result = run_cli("check", "bad.py")
    assert result.exit_code == 1
    assert "bad.py:3:1: AGL302" in result.stdout
    assert run_cli("check", "bad.py", "--exit-zero").exit_code == 0
    assert run_cli("check", "--select", "NOPE1").exit_code == 2


def test_default_path_is_current_folder(run_cli, tmp_path):
    write(tmp_path / "pkg" / "bad.py", SILENT)
    result = run_cli("check", "--output-format", "concise")
    assert result.exit_code == 1
    assert os.path.join("pkg", "bad.py") + ":3:1: AGL302" in result.stdout


def test_select_ignore_flags(run_cli, tmp_path):
    write(tmp_path / "bad.py", SILENT)
    assert run_cli("check", "--ignore", "AGL302").exit_code == 0
    assert run_cli("check", "--select", "AGL900").exit_code == 0
    assert run_cli("check", "--select", "AGL900", "--extend-select", "AGL3").exit_code == 1


def test_noqa(run_cli, tmp_path):
    write(tmp_path / "a.py", "try:\n    pass\nexcept Exception:  # noqa: AGL302\n    pass\n")
    write(tmp_path / "b.py", "try:\n    pass\nexcept Exception:  # noqa\n    pass\n")
    write(tmp_path / "c.py", "try:\n    pass\nexcept Exception:  # noqa: E722\n    pass\n")
    result = run_cli("check", "--output-format", "json")
    found = {(Path(d["filename"]).name, d["code"]) for d in json.loads(result.stdout)}
    assert found == {("c.py", "AGL302")}


def test_stdin(run_cli, tmp_path):
    result = run_cli("check", "-", "--stdin-filename", "app/agent.py", "--output-format", "concise", input=SILENT)
    assert result.exit_code == 1
    assert "app/agent.py:3:1: AGL302" in result.stdout
    result = run_cli("check", "-", input=CLEAN)
    assert result.exit_code == 0


def test_stdin_force_exclude(run_cli, tmp_path):
    write(tmp_path / "build" / "gen.py", SILENT)
    args = ("check", "-", "--stdin-filename", "build/gen.py", "--force-exclude")
    assert run_cli(*args, input=SILENT).exit_code == 0


def test_force_exclude_for_explicit_paths(run_cli, tmp_path):
    write(tmp_path / "agentlint.toml", 'extend-exclude = ["generated"]\n')
    write(tmp_path / "generated" / "x.py", SILENT)
    assert run_cli("check", "generated/x.py").exit_code == 1  # explicit path: checked
    assert run_cli("check", "generated/x.py", "--force-exclude").exit_code == 0


def test_output_file_and_statistics(run_cli, tmp_path):
    write(tmp_path / "a.py", SILENT + SILENT)
    result = run_cli("check", "a.py", "--output-format", "json", "-o", "out.json")
    assert result.exit_code == 1
    assert len(json.loads((tmp_path / "out.json").read_text())) == 2
    result = run_cli("check", "a.py", "--statistics")
    assert "AGL302" in result.stdout and "2" in result.stdout


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "json-lines", "sarif", "github", "gitlab"])
def test_every_output_format_runs(run_cli, tmp_path, fmt):
    write(tmp_path / "a.py", SILENT)
    result = run_cli("check", "a.py", "--output-format", fmt)
    assert result.exit_code == 1
    assert result.stdout.strip()


def test_full_format_has_code_frame_and_help(run_cli, tmp_path):
    write(tmp_path / "a.py", SILENT)
    out = run_cli("check", "a.py").stdout
    assert "except Exception:" in out and "^" in out and "help:" in out
    assert "\x1b[" not in out  # no colour when not a terminal


def test_rule_command(run_cli):
    result = run_cli("rule", "AGL302")
    assert result.exit_code == 0
    for heading in ("What it does", "Why is this bad?", "Example", "Use instead", "Configuration", "Standard"):
        assert f"## {heading}" in result.stdout
    assert run_cli("rule", "silent-broad-except").stdout == result.stdout
    everything = run_cli("rule", "--all").stdout
    assert "AGL302" in everything and "AGL900" in everything
    bad = run_cli("rule", "AGL320")
    assert bad.exit_code == 2 and "did you mean `AGL302`" in bad.stderr


def test_python_dash_m_and_console_script(tmp_path, agentlint_exe):
    write(tmp_path / "a.py", SILENT)
    for cmd in ([sys.executable, "-m", "agentlint"], [agentlint_exe]):
        proc = subprocess.run([*cmd, "check", "a.py", "--output-format", "concise"], cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 1, proc.stderr
        assert "a.py:3:1: AGL302" in proc.stdout


def test_parallel_run_matches_serial(run_cli, tmp_path):
    for i in range(40):
        write(tmp_path / f"m{i}.py", SILENT if i % 3 == 0 else CLEAN)
    serial = run_cli("check", "--output-format", "json", "--no-cache", "-j", "1").stdout
    parallel = run_cli("check", "--output-format", "json", "--no-cache", "-j", "2").stdout
    assert json.loads(serial) == json.loads(parallel)
    assert len(json.loads(serial)) == 14


def test_no_color_env_and_pipe(tmp_path, agentlint_exe):
    write(tmp_path / "a.py", SILENT)
    env = {**os.environ, "FORCE_COLOR": "1"}
    coloured = subprocess.run([agentlint_exe, "check", "a.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert "\x1b[" in coloured.stdout
    env["NO_COLOR"] = "1"
    plain = subprocess.run([agentlint_exe, "check", "a.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert "\x1b[" not in plain.stdout
