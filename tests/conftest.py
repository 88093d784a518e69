import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@pytest.fixture
def run_cli(tmp_path, monkeypatch):
    """Invoke the CLI through click's runner from inside tmp_path."""
    from click.testing import CliRunner

    from agentlint.cli.main import main

    def run(*args, input=None, cwd=None, env=None):
        monkeypatch.chdir(cwd or tmp_path)
        runner = CliRunner()
        return runner.invoke(main, list(args), input=input, env=env, catch_exceptions=False)

    return run


@pytest.fixture
def agentlint_exe():
    """The installed console script next to the running interpreter."""
    exe = Path(sys.executable).with_name("agentlint")
    if not exe.exists():
        pytest.skip("agentlint console script is not installed")
    return str(exe)
