"""The README shows real output: the demo block must match what the CLI prints."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_demo_output_is_real(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- demo-output:start -->\n```text\n(.*?)\n```\n<!-- demo-output:end -->", readme, re.S)
    assert block, "README lost its demo output block"
    proc = subprocess.run(
        [sys.executable, "-m", "agentlint", "check", "fixtures/demo", "--cache-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.rstrip("\n") == block.group(1)


def test_readme_opens_with_the_two_setup_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first, second = re.findall(r"```sh\n(.*?)\n```", readme, re.S)[:2]
    assert first == "pip install . && agentlint check fixtures/demo"
    assert second == "pip install '.[test]' && pytest"
