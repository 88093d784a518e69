"""What a run loads. A one-file pre-commit run pays for every module it imports, so a
run answered from the cache must not load the analysis (facts, agent model, rules,
LibCST), and one that analyses must load it only then."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

ANALYSIS = (
    "agentlint.engine.analyze",
    "agentlint.engine.worker",
    "agentlint.engine.project",
    "agentlint.engine.cst_pass",
    "agentlint.facts.module",
    "agentlint.facts.agents.model",
    "agentlint.rules.api",
    "agentlint.rules.silent_broad_except",
    "libcst",
)
"""Modules that only the analysis of a file needs."""

HEAVY = (*ANALYSIS, "agentlint.cli.fix", "agentlint.adopt.add_noqa", "agentlint.adopt.baseline", "agentlint.report.identity")
"""Those, and the modules of `--fix`, `--add-noqa` and the baselines."""

SILENT = textwrap.dedent(
    """\
    import httpx


    def lookup(order_id):
        try:
            return httpx.get(f"https://shop.example/{order_id}").text
        except Exception:
            return ""
    """
)

# The command in-process, then the modules it really loaded (a module named for later
# loading sits in sys.modules as a stand-in until first used).
PROBE = textwrap.dedent(
    """\
    import json, sys
    from agentlint.cli.main import main
    try:
        main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
    loaded = sorted(n for n, m in list(sys.modules.items()) if m is not None and type(m).__name__ != "_LazyModule")
    print(json.dumps({"code": code, "loaded": loaded}))
    """
)


def _loaded(tmp_path, *args: str) -> tuple[int, set[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    last = proc.stdout.strip().splitlines()[-1]
    data = json.loads(last)
    return data["code"], set(data["loaded"])


def _heavy(loaded: set[str], names: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(name for name in names if name in loaded)


def test_a_run_answered_from_the_cache_loads_no_analysis(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (tmp_path / "tools.py").write_text(SILENT)
    code, cold = _loaded(tmp_path, "check", "tools.py")
    assert code == 1
    assert _heavy(cold) == sorted(ANALYSIS)  # the first run analyses (and the test can fail)
    code, warm = _loaded(tmp_path, "check", "tools.py")
    assert code == 1
    assert _heavy(warm) == []
    code, warm_json = _loaded(tmp_path, "check", "tools.py", "--output-format", "json", "--baseline", "missing.json")
    assert code == 2 and _heavy(warm_json, ANALYSIS) == []  # a bad baseline is said before any analysis
    assert "agentlint.adopt.baseline" in warm_json


def test_listing_the_rules_loads_no_rule(tmp_path):
    code, loaded = _loaded(tmp_path, "rule", "--all")
    assert code in (0, None)
    assert _heavy(loaded) == []


def test_pattern_and_temporary_file_modules_load_only_when_needed(tmp_path):
    # A one-file run with the default excludes and no `.gitignore` compiles no pattern,
    # and writes its cache entry without `tempfile`; a `.gitignore` loads pathspec.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (tmp_path / "tools.py").write_text(SILENT)
    code, loaded = _loaded(tmp_path, "check", "tools.py")
    assert code == 1
    assert sorted({"pathspec", "tempfile", "shutil"} & loaded) == []
    assert (tmp_path / ".agentlint_cache").is_dir()  # the entry was written
    (tmp_path / ".gitignore").write_text("build/\n")
    code, loaded = _loaded(tmp_path, "check", "--no-cache", "tools.py")
    assert code == 1 and "pathspec" in loaded


# The program itself (its console script runs ``cli.entry``), counting the collections
# that start before the start-up objects are frozen.
PROGRAM = textwrap.dedent(
    """\
    import gc, json, os, sys
    def _exit(status):  # the program ends without teardown: here it comes back to report
        raise SystemExit(status)
    os._exit = _exit
    early = []
    base = gc.get_freeze_count()  # not 0 on every Python: 3.12 starts with some frozen
    gc.callbacks.append(lambda phase, info: phase == "start" and gc.get_freeze_count() == base and early.append(1))
    sys.argv = ["agentlint", *sys.argv[1:]]
    code = None
    try:
        import agentlint.cli.entry
        agentlint.cli.entry.entry_point()
    except SystemExit as exc:
        code = exc.code
    print(json.dumps({"code": code, "early": len(early), "enabled": gc.isenabled(), "frozen": gc.get_freeze_count() - base}))
    """
)


def test_the_program_collects_no_garbage_while_it_loads_and_code_calling_it_keeps_its_collector(tmp_path):
    (tmp_path / "tools.py").write_text(SILENT)
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM, "check", "--no-cache", "tools.py"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["code"] == 1  # the finding: the run went through
    assert data["enabled"] and data["frozen"] > 10_000
    # only the imports of the module that pauses it may see collections (`typing`)
    assert data["early"] <= 5
    # click's test runner, or any code calling ``main``: the collector is left alone
    caller = PROGRAM.replace("import agentlint.cli.entry\n    agentlint.cli.entry.entry_point()",
                             "from agentlint.cli.main import main\n    main()")
    assert caller != PROGRAM
    proc = subprocess.run(
        [sys.executable, "-c", caller, "check", "--no-cache", "tools.py"], cwd=tmp_path, capture_output=True, text=True,
        check=False,
    )
    left_alone = json.loads(proc.stdout.strip().splitlines()[-1])
    # (collections come less often on newer Pythons: a dozen on 3.13, some forty before)
    assert left_alone["code"] == 1 and left_alone["frozen"] == 0 and left_alone["early"] > max(8, data["early"])


# The program as its console script runs it, with an `atexit` hook that would speak at
# the interpreter's teardown.
ENDING = textwrap.dedent(
    """\
    import atexit, sys
    atexit.register(lambda: print("torn down", file=sys.stderr))
    sys.argv = ["agentlint", *sys.argv[1:]]
    from agentlint.cli.entry import entry_point
    entry_point()
    """
)


def test_the_program_ends_with_its_status_and_output_but_without_teardown(tmp_path):
    (tmp_path / "tools.py").write_text(SILENT)
    (tmp_path / "clean.py").write_text("x = 1\n")
    found = subprocess.run([sys.executable, "-c", ENDING, "check", "--no-cache", "tools.py"],
                           cwd=tmp_path, capture_output=True, text=True, check=False)
    assert found.returncode == 1 and "AGL302" in found.stdout and "Found 1 error." in found.stdout
    assert "torn down" not in found.stderr
    clean = subprocess.run([sys.executable, "-c", ENDING, "check", "--no-cache", "clean.py"],
                           cwd=tmp_path, capture_output=True, text=True, check=False)
    assert clean.returncode == 0 and "All checks passed!" in clean.stdout and "torn down" not in clean.stderr
    bad = subprocess.run([sys.executable, "-c", ENDING, "check", "--no-cache", "--select", "NOPE1", "tools.py"],
                         cwd=tmp_path, capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "NOPE1" in bad.stderr and "torn down" not in bad.stderr
    # a reader that goes away after the first line: status 2, nothing said (as before)
    many = "".join(f"def f{i}():\n    try:\n        g()\n    except Exception:\n        return None\n" for i in range(400))
    (tmp_path / "many.py").write_text(many)
    program = subprocess.Popen([sys.executable, "-c", ENDING, "check", "--no-cache", "many.py"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert program.stdout is not None and program.stderr is not None
    program.stdout.readline()
    program.stdout.close()
    assert program.wait(timeout=60) == 2
    assert program.stderr.read() == b""


def test_leaving_keeps_what_sys_exit_would_give(monkeypatch, capsys):
    from agentlint.cli import entry

    ended: list[int] = []

    def _exit(status):
        ended.append(status)
        raise SystemExit(status)

    monkeypatch.setattr(entry.os, "_exit", _exit)
    for code, status in ((None, 0), (0, 0), (1, 1), (2, 2), ("no such file", 1)):
        try:
            entry._leave(code)
        except SystemExit:
            pass
        assert ended[-1] == status
    assert capsys.readouterr().err == "no such file\n"


PRE_GA = ("agentlint.rules.pre_ga_names", "agentlint.rules._pre_ga_imports", "agentlint.rules._pre_ga_tree")
TOML = "tomllib" if sys.version_info >= (3, 11) else "tomli"


def test_rule_modules_and_toml_load_only_for_files_that_need_them(tmp_path):
    # A file that never names `agent_framework` cannot hold a pre-GA name: the pre-GA
    # rules' modules stay unloaded (``registry.Entry.needs_text``); one without `except`
    # spares AGL302's. A pyproject.toml that does not mention agentlint is not parsed.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (tmp_path / "tools.py").write_text(SILENT)
    code, loaded = _loaded(tmp_path, "check", "--no-cache", "tools.py")
    assert code == 1 and "agentlint.rules.silent_broad_except" in loaded
    assert _heavy(loaded, PRE_GA) == [] and TOML not in loaded
    (tmp_path / "plain.py").write_text("def f(x):\n    return x + 1\n")
    code, loaded = _loaded(tmp_path, "check", "--no-cache", "plain.py")
    assert code == 0 and "agentlint.engine.analyze" in loaded  # it was analysed
    assert "agentlint.rules.silent_broad_except" not in loaded
    (tmp_path / "maf.py").write_text("from agent_framework import FunctionApprovalRequestContent\n")
    (tmp_path / "pyproject.toml").write_text("[tool.agentlint]\nignore = []\n")
    code, loaded = _loaded(tmp_path, "check", "--no-cache", "maf.py")
    assert code == 1 and _heavy(loaded, PRE_GA) == sorted(PRE_GA) and TOML in loaded
