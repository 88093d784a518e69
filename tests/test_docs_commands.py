"""Every command shown in docs/*.md runs, and prints what the page says it prints.

Conventions for the pages (see docs/getting-started.md for examples):

- ```console (or ```text) blocks whose first line starts with `$ ` are transcripts:
  each `$ command` is run with bash, stdout and stderr together (as a terminal shows
  them), and its output must equal the lines that follow, up to the next `$ `. A line
  `...` stands for any number of lines. A command line ending in `\\` continues on the
  next line.
- ```sh / ```bash / ```shell blocks: every command is run and must exit 0 or 1 (findings)
  without a traceback; text after two spaces and `#` is a comment.
- ```yaml blocks: the `run:` and `script:` commands of CI jobs are run the same way
  (files they write with `-o` must exist and hold the report); a pre-commit config must
  name a hook of this repository's .pre-commit-hooks.yaml, whose entry and args are run.
- `pip install` / `pipx install` / `uv tool install` are not run (no network in tests):
  what they install must be this distribution or the checkout.
- ```toml blocks that configure agentlint must pass its configuration validation.

The commands of a page run in a scratch copy of a fixture project, one copy per page,
in order, so a page can tell a story (init, baseline, edit, check). The project is
`fixtures/demo` unless an HTML comment `<!-- docs-test: project=PATH -->` (PATH relative
to the repository) comes before the block; each such comment starts a fresh copy.
Paths of the scratch copy in the output read `/path/to/project`.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agentlint import DISTRIBUTION

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DEFAULT_PROJECT = "fixtures/demo"
PROJECT_OF_PAGE = {"explain.md": "fixtures/projects/support_desk"}
"""Pages this test does not own say it in prose; their project is set here."""
SYNTAX_ONLY_SH_PAGES: frozenset[str] = frozenset()
"""Pages whose ```sh blocks show the forms of a command with names from an imaginary
app (`SYSTEM_PROMPT`, `src/`): their commands must be accepted by the CLI (no usage
error, no crash) but may report that the name is not there (exit 2 with an
`agentlint: error:` message). Their transcripts are still checked exactly."""
SHELL_LANGS = ("sh", "bash", "shell")
TRANSCRIPT_LANGS = ("console", "text")
INSTALLERS = ("pip install", "pipx install", "uv tool install", "uv pip install", "python -m pip install")

_FENCE = re.compile(r"^(`{3,})([\w-]*)\s*$")
_MARKER = re.compile(r"<!--\s*docs-test:\s*project=(\S+)\s*-->")


@dataclass
class Block:
    page: str
    line: int
    lang: str
    text: str
    project: str
    copy: int
    """Blocks with the same copy number share one scratch copy of the project."""


@dataclass
class Page:
    name: str
    blocks: list[Block] = field(default_factory=list)


def parse_page(path: Path) -> Page:
    page = Page(path.relative_to(DOCS).as_posix())
    project = PROJECT_OF_PAGE.get(page.name, DEFAULT_PROJECT)
    copy = 0
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        marker = _MARKER.search(lines[i])
        if marker:
            project = marker.group(1)
            copy += 1
        fence = _FENCE.match(lines[i])
        if fence:
            ticks, lang = fence.groups()
            end = i + 1
            while end < len(lines) and lines[end].strip() != ticks:
                end += 1
            page.blocks.append(Block(page.name, i + 1, lang, "\n".join(lines[i + 1 : end]), project, copy))
            i = end
        i += 1
    return page


def pages() -> list[Page]:
    return [parse_page(p) for p in sorted(DOCS.rglob("*.md"))]


def is_transcript(block: Block) -> bool:
    return block.lang in TRANSCRIPT_LANGS and block.text.lstrip().startswith("$ ")


def runnable(page: Page) -> bool:
    return any(
        is_transcript(b) or b.lang in SHELL_LANGS or (b.lang == "yaml" and _yaml_commands(b)) for b in page.blocks
    )


# -- running ---------------------------------------------------------------------------


class Scratch:
    """A scratch copy of a fixture project, where a page's commands run."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.copy: int | None = None
        self.cwd: Path | None = None
        self.count = 0

    def enter(self, project: str, copy: int) -> Path:
        if copy != self.copy or self.cwd is None:
            source = ROOT / project
            assert source.is_dir(), f"docs-test project {project} does not exist"
            self.count += 1
            self.cwd = self.tmp / f"copy{self.count}" / source.name
            shutil.copytree(source, self.cwd, ignore=shutil.ignore_patterns(".agentlint_cache", "__pycache__"))
            self.copy = copy
        return self.cwd

    def run(self, command: str, where: str) -> subprocess.CompletedProcess:
        assert self.cwd is not None
        bindir = str(Path(sys.executable).parent)
        env = {
            "PATH": f"{bindir}:/usr/bin:/bin",
            "HOME": str(self.tmp),
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        proc = subprocess.run(
            ["bash", "-c", command],
            cwd=self.cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        assert "Traceback (most recent call last)" not in proc.stdout, f"{where}: `{command}` crashed:\n{proc.stdout}"
        return proc


def _commands(text: str) -> list[str]:
    """Shell lines without comments; `\\` continuations joined."""
    out: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        out.append(re.split(r"\s{2,}#", line, maxsplit=1)[0].strip())
    return out


def _check_install(command: str, where: str) -> None:
    words = shlex.split(command)
    targets = [w for w in words[2:] if not w.startswith("-") and w not in ("install", "tool", "pip")]
    assert targets, f"{where}: `{command}` installs nothing"
    for target in targets:
        name = re.split(r"[\[<>=!~ ]", target, maxsplit=1)[0]
        assert name in (DISTRIBUTION, "."), (
            f"{where}: `{command}` installs `{name}`; this project is `{DISTRIBUTION}` on PyPI "
            "(`agentlint` is somebody else's)"
        )


def run_shell(
    scratch: Scratch, command: str, where: str, *, syntax_only: bool = False
) -> subprocess.CompletedProcess | None:
    if command.startswith(INSTALLERS):
        _check_install(command, where)
        return None
    proc = scratch.run(command, where)
    if syntax_only and proc.returncode == 2:
        assert proc.stdout.startswith("agentlint: error: "), f"{where}: `{command}` is not accepted:\n{proc.stdout}"
        return proc
    assert proc.returncode in (0, 1), f"{where}: `{command}` exited {proc.returncode}:\n{proc.stdout}"
    return proc


def _match(expected: list[str], actual: list[str]) -> bool:
    pattern = "".join("(?:.*\n)*?" if line == "..." else re.escape(line) + "\n" for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


def run_transcript(scratch: Scratch, block: Block) -> None:
    steps: list[tuple[str, list[str]]] = []
    continued = False
    for line in block.text.splitlines():
        if continued:
            steps[-1] = (steps[-1][0][:-1].rstrip() + " " + line.strip(), [])
        elif line.startswith("$ "):
            steps.append((line[2:].rstrip(), []))
        else:
            steps[-1][1].append(line.rstrip())
        continued = (line.startswith("$ ") or continued) and line.endswith("\\")
    for command, expected in steps:
        where = f"docs/{block.page}:{block.line}"
        if command.startswith(INSTALLERS):
            _check_install(command, where)
            continue
        proc = scratch.run(command, where)
        actual = [line.rstrip() for line in proc.stdout.replace(str(scratch.cwd), "/path/to/project").splitlines()]
        while expected and expected[-1] == "":
            expected.pop()
        while actual and actual[-1] == "":
            actual.pop()
        assert _match(expected, actual), (
            f"{where}: `{command}` printed (exit {proc.returncode}):\n" + "\n".join(actual) + "\n\nthe page says:\n" + "\n".join(expected)
        )


def _yaml_commands(block: Block) -> list[tuple[str, str]]:
    """(kind, command) for the commands in a YAML snippet: CI `run`/`script` steps, and
    `precommit` for each hook of a pre-commit config."""
    import yaml

    try:
        data = yaml.safe_load(block.text)
    except yaml.YAMLError:
        return []
    out: list[tuple[str, str]] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            if "repos" in node and isinstance(node["repos"], list):
                for repo in node["repos"]:
                    for hook in repo.get("hooks", []):
                        local = repo.get("repo") == "local"
                        out.append(("local-hook" if local else "precommit", yaml.safe_dump(hook)))
                return
            for key, value in node.items():
                if key == "run" and isinstance(value, str):
                    out.extend(("run", c) for c in _commands(value))
                elif key in ("script", "before_script") and isinstance(value, list):
                    out.extend(("run", c) for v in value for c in _commands(str(v)))
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(data)
    return out


def run_yaml(scratch: Scratch, block: Block) -> None:
    import yaml

    where = f"docs/{block.page}:{block.line}"
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    for kind, command in _yaml_commands(block):
        if kind in ("precommit", "local-hook"):
            # pre-commit runs `entry args... files...` (the files staged: here, all of them).
            hook = yaml.safe_load(command)
            if kind == "precommit":
                assert hook["id"] in hooks, f"{where}: hook `{hook['id']}` is not in .pre-commit-hooks.yaml"
                entry = hooks[hook["id"]]["entry"]
            else:
                entry = hook["entry"]
            files = sorted(str(p.relative_to(scratch.cwd)) for p in scratch.cwd.rglob("*.py"))
            args = " ".join(shlex.quote(a) for a in [*hook.get("args", []), *files])
            run_shell(scratch, f"{entry} {args}", where)
            continue
        proc = run_shell(scratch, command, where)
        if proc is None:
            continue
        words = shlex.split(command)
        for flag in ("-o", "--output-file"):
            if flag in words:
                report = scratch.cwd / words[words.index(flag) + 1]
                assert report.is_file(), f"{where}: `{command}` did not write {report.name}"
                import json

                json.loads(report.read_text(encoding="utf-8"))


def check_toml(block: Block) -> None:
    from agentlint.engine.config import validate
    from agentlint.rules.registry import all_rules

    where = f"docs/{block.page}:{block.line}"
    data = tomllib.loads(block.text)
    table = data.get("tool", {}).get("agentlint")
    if table is not None:
        validate(table, all_rules(), where)


# -- the tests -------------------------------------------------------------------------


@pytest.mark.parametrize("page", [p for p in pages() if runnable(p)], ids=lambda p: p.name)
def test_page_commands(page: Page, tmp_path):
    scratch = Scratch(tmp_path)
    for block in page.blocks:
        if not (is_transcript(block) or block.lang in SHELL_LANGS or block.lang == "yaml"):
            continue
        scratch.enter(block.project, block.copy)
        if is_transcript(block):
            run_transcript(scratch, block)
        elif block.lang in SHELL_LANGS:
            for command in _commands(block.text):
                run_shell(scratch, command, f"docs/{page.name}:{block.line}", syntax_only=page.name in SYNTAX_ONLY_SH_PAGES)
        else:
            run_yaml(scratch, block)


@pytest.mark.parametrize(
    "block",
    [b for p in pages() for b in p.blocks if b.lang == "toml" and "[tool.agentlint" in b.text],
    ids=lambda b: f"{b.page}:{b.line}",
)
def test_toml_snippets_are_valid_configuration(block: Block):
    check_toml(block)


def test_the_adoption_pages_are_exercised():
    runnable_pages = {p.name for p in pages() if runnable(p)}
    for name in ("getting-started.md", "suppression.md", "pre-commit.md", "ci.md", "configuration.md", "explain.md"):
        assert name in runnable_pages, f"docs/{name} shows no command this test runs"


# -- the configuration reference cannot drift -------------------------------------------


def _documented(section: str) -> set[str]:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    start = text.index(f"<!-- {section}:start -->")
    end = text.index(f"<!-- {section}:end -->")
    return set(re.findall(r"^\| `([^`]+)` \|", text[start:end], re.M))


def test_configuration_reference_lists_every_top_level_key():
    from agentlint.engine.config import _KEYS

    documented = _documented("keys")
    missing = sorted(set(_KEYS) - documented)
    extra = sorted(documented - set(_KEYS))
    assert not missing, (
        f"docs/configuration.md does not document the key(s) {missing} (config._KEYS): add a row to the table "
        "between <!-- keys:start --> and <!-- keys:end -->"
    )
    assert not extra, f"docs/configuration.md documents {extra}, which config._KEYS does not have"


def test_configuration_reference_lists_every_rule_setting():
    from agentlint.rules.registry import all_rules

    settings = {f"rules.{code}.{name}" for code, meta in all_rules().items() for name in meta.settings}
    documented = _documented("rule-settings")
    missing = sorted(settings - documented)
    extra = sorted(documented - settings)
    assert not missing, (
        f"docs/configuration.md does not document the rule setting(s) {missing} (RuleMeta.settings): add a row "
        "to the table between <!-- rule-settings:start --> and <!-- rule-settings:end -->"
    )
    assert not extra, f"docs/configuration.md documents {extra}, which no rule declares"


def test_distribution_name_matches_pyproject():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["name"] == DISTRIBUTION
    assert data["project"]["scripts"]["agentlint"] == "agentlint.cli.entry:entry_point"
