import json
from pathlib import Path

import pytest

from agentlint.engine.config import ConfigError, Overrides, load_settings, resolve_selector
from agentlint.rules.registry import all_rules

SILENT = "try:\n    pass\nexcept Exception:\n    pass\n"


def settings_in(folder: Path, **kw):
    return load_settings(start=folder, rules=all_rules(), **kw)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_zero_config_selects_default_rules(tmp_path):
    s = settings_in(tmp_path)
    assert "AGL302" in s.enabled and "AGL900" in s.enabled
    assert s.config_path is None


def test_nearest_pyproject_with_table_wins(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.agentlint]\nignore = ["AGL302"]\n')
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'x'\n")  # no table: skipped
    s = settings_in(tmp_path / "sub")
    assert s.config_path == str(tmp_path / "pyproject.toml")
    assert "AGL302" not in s.enabled


def test_agentlint_toml_beats_pyproject_in_same_folder(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.agentlint]\nignore = ["AGL302"]\n')
    write(tmp_path / "agentlint.toml", 'select = ["AGL3"]\n')
    s = settings_in(tmp_path)
    assert s.config_path.endswith("agentlint.toml")
    assert "AGL302" in s.enabled and "AGL900" not in s.enabled


@pytest.mark.parametrize(
    "toml, key, hint",
    [
        ('selct = ["AGL302"]', "selct", "select"),
        ('extend-exclud = ["x"]', "extend-exclud", "extend-exclude"),
        ('respect-gitignore = "yes"', "respect-gitignore", None),
        ('output-format = "sarf"', "output-format", None),
        ('select = ["AGL3O2"]', "select", "AGL302"),
        ('[per-file-ignores]\n"tests/*" = ["AGL39"]', "per-file-ignores.tests/*", None),
        ('[rules.AGL302]\nlogger-object = ["x"]', "rules.AGL302.logger-object", "logger-objects"),
        ('[rules.AGL302]\nlogger-objects = "log"', "rules.AGL302.logger-objects", None),
        ('[rules.AGL3O2]\nx = 1', "rules.AGL3O2", "AGL302"),
    ],
)
def test_bad_config_names_file_key_and_suggestion(tmp_path, toml, key, hint):
    cfg = write(tmp_path / "agentlint.toml", toml + "\n")
    with pytest.raises(ConfigError) as err:
        settings_in(tmp_path)
    message = str(err.value)
    assert str(cfg) in message
    assert f"`{key}`" in message
    if hint:
        assert f"did you mean `{hint}`" in message


def test_invalid_toml_is_a_config_error(tmp_path):
    cfg = write(tmp_path / "agentlint.toml", "select = [\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        settings_in(tmp_path)
    assert cfg.exists()


def test_cli_overrides_file(tmp_path):
    write(tmp_path / "agentlint.toml", 'select = ["AGL900"]\noutput-format = "json"\n')
    s = settings_in(tmp_path, overrides=Overrides(select=["AGL302"], output_format="concise"))
    assert "AGL302" in s.enabled and "AGL900" not in s.enabled
    assert s.output_format == "concise"


def test_isolated_ignores_config(tmp_path):
    write(tmp_path / "agentlint.toml", 'ignore = ["AGL302"]\n')
    assert "AGL302" in settings_in(tmp_path, isolated=True).enabled


def test_explicit_config_file(tmp_path):
    cfg = write(tmp_path / "elsewhere" / "custom.toml", 'ignore = ["AGL302"]\n')
    s = settings_in(tmp_path, config_file=cfg)
    assert "AGL302" not in s.enabled
    with pytest.raises(ConfigError, match="not found"):
        settings_in(tmp_path, config_file=tmp_path / "missing.toml")


def test_selectors():
    rules = all_rules()
    assert resolve_selector("AGL3", rules) >= {"AGL302"}
    assert resolve_selector("silent-broad-except", rules) == {"AGL302"}
    assert "AGL302" in resolve_selector("ALL", rules)
    with pytest.raises(ConfigError, match="did you mean `AGL302`"):
        resolve_selector("AGL320", rules)


def test_rule_settings_defaults_and_overrides(tmp_path):
    write(tmp_path / "agentlint.toml", '[rules.AGL302]\nreporter-callables = ["app.report"]\n')
    s = settings_in(tmp_path)
    assert s.rule_settings["AGL302"]["reporter-callables"] == ["app.report"]
    assert "logger-objects" in s.rule_settings["AGL302"]


def test_engine_codes_cannot_be_ignored(tmp_path):
    write(tmp_path / "agentlint.toml", 'ignore = ["AGL001"]\n')
    assert "AGL001" in settings_in(tmp_path).enabled


def test_per_file_ignores_in_a_run(run_cli, tmp_path):
    write(tmp_path / "agentlint.toml", '[per-file-ignores]\n"scripts/*" = ["AGL302"]\n')
    write(tmp_path / "scripts" / "one.py", SILENT)
    write(tmp_path / "app" / "two.py", SILENT)
    result = run_cli("check", "--output-format", "json", "--no-cache")
    files = {Path(d["filename"]).name for d in json.loads(result.stdout)}
    assert files == {"two.py"}
    assert result.exit_code == 1


def test_bad_config_exits_2_through_cli(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.agentlint]\nselct = ["AGL302"]\n')
    write(tmp_path / "a.py", "x = 1\n")
    result = run_cli("check", "a.py")
    assert result.exit_code == 2
    assert "pyproject.toml" in result.stderr and "`selct`" in result.stderr and "did you mean `select`" in result.stderr
