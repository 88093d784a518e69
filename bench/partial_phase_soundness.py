"""Check that a partial run which takes a remembered project phase over an edit reports
what the project phase itself finds: the phase moved with lines that moved
(``agentlint.engine.line_shift``), or the parts of it whose facts the edit left alone
(``agentlint.engine.phase_parts``).

For each project given, in a scratch copy: one full run fills the cache; then, for each
sampled file and each edit (three that move lines without changing what they say: a
comment on top, a blank line in the middle, the last blank line removed; three that
change facts: a framework import on top, the same import appended, a prompt appended),
a partial run of that file as pre-commit makes it is compared with the same run after
the remembered phase was forgotten, and with the findings in that file of a run over
the whole project. The remembered phase is put back after each comparison, so every
edit starts from the same remembered phase. Prints, per project
and edit, how many runs took the moved phase and how many kept parts of the phase, and
every difference; exits 1 on a difference.

    python bench/partial_phase_soundness.py [--files N] PROJECT ...

Not a test: it runs agentlint in-process, many times, on projects of any size.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import random
import shutil
import sys
import tempfile
import time

from agentlint.cli.main import main
from agentlint.engine import phase_parts
from agentlint.engine import run as engine
from agentlint.engine.stat_index import RACY_SECONDS


def _check(args: list[str]) -> list[dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(["check", *args, "--output-format", "json", "--exit-zero", "--force-exclude"], standalone_mode=False)
        except SystemExit:
            pass
    return json.loads(out.getvalue() or "[]")


def _edits(text: str) -> list[tuple[str, str]]:
    lines = text.splitlines(keepends=True)
    out = [("comment on top", "# an edit\n" + text)]
    middle = len(lines) // 2
    out.append(("blank line in the middle", "".join(lines[:middle] + ["\n"] + lines[middle:])))
    blanks = [i for i, line in enumerate(lines) if not line.strip()]
    if blanks:
        out.append(("last blank line removed", "".join(lines[: blanks[-1]] + lines[blanks[-1] + 1:])))
    out.append(("import on top", _IMPORT + text))
    ending = "" if not text or text.endswith("\n") else "\n"
    out.append(("import appended", text + ending + _IMPORT))
    out.append(("prompt appended", text + ending + _PROMPT))
    # from the phase the run before remembered (its kept parts, its moved findings)
    out.append((_AFTER + "import and prompt appended", text + ending + _IMPORT + _PROMPT))
    return out


_AFTER = "then "
"""An edit made after the one before it: its run starts from what that run remembered."""


_IMPORT = "from openai import OpenAI as EditedClient\n"
_PROMPT = (
    'EDITED_PROMPT = """You are a careful support assistant. Answer the customer\'s question from the '
    'documents given, cite each document you use, and say so plainly when they do not hold the answer."""\n'
)


def check_project(source: str, files: int, seed: int) -> tuple[dict[str, list[int]], list[str]]:
    """Per edit, (runs, runs that took the moved phase, runs that kept parts of it); and
    the differences found."""
    moved = [0]
    parts = [0]
    original = engine._moved_findings
    original_parts = phase_parts.kept_parts

    def counting(record, lines):
        found = original(record, lines)
        if found is not None:
            moved[0] += 1
        return found

    def counting_parts(*args):
        kept = original_parts(*args)
        if kept:
            parts[0] += 1
        return kept

    engine._moved_findings = counting
    phase_parts.kept_parts = counting_parts
    scratch = tempfile.mkdtemp(prefix="shift-")
    root = os.path.join(scratch, os.path.basename(source.rstrip("/")))
    shutil.copytree(source, root, symlinks=True)
    # a file changed in the last seconds is read again by every run (its time stamps may
    # not tell the next change): the project's files are older than that, as in use
    time.sleep(RACY_SECONDS + 0.5)
    here = os.getcwd()
    counts: dict[str, list[int]] = {}
    problems: list[str] = []
    try:
        os.chdir(root)
        everything = _check(["."])
        with_findings = sorted({d["filename"] for d in everything})
        python = sorted(os.path.relpath(p) for p in glob.glob("**/*.py", recursive=True))
        random.Random(seed).shuffle(python)
        sample = [os.path.relpath(p) for p in with_findings if p.endswith(".py")][: files // 2]
        sample += [p for p in python if p not in sample][: files - len(sample)]
        for path in sample:
            with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read()
            _check([path])  # the remembered phase of this file, before its edits
            record = glob.glob(".agentlint_cache/*/*/project-phase.json")
            kept = open(record[0], "rb").read() if record else None
            written = None
            for name, edited in _edits(text):
                if name.startswith(_AFTER) and written is not None:
                    with open(record[0], "wb") as fh:
                        fh.write(written)
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
                    fh.write(edited)
                before, before_parts = moved[0], parts[0]
                found = _check([path])
                count = counts.setdefault(name, [0, 0, 0])
                count[0] += 1
                count[1] += moved[0] - before
                count[2] += parts[0] - before_parts
                written = open(record[0], "rb").read() if record and os.path.exists(record[0]) else None
                for stale in glob.glob(".agentlint_cache/*/*/project-phase.json"):
                    os.remove(stale)
                expected = _check([path])
                if found != expected:
                    problems.append(f"{path}: {name}: {len(found)} findings, the project phase finds {len(expected)}")
                # a partial run reports what a run over the whole project reports in its file
                whole = [d for d in _check(["."]) if d["filename"] == os.path.abspath(path)]
                if found != whole:
                    problems.append(f"{path}: {name}: {len(found)} findings, a run of the project finds {len(whole)}")
                if kept is not None:
                    with open(record[0], "wb") as fh:
                        fh.write(kept)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(text)
    finally:
        os.chdir(here)
        engine._moved_findings = original
        phase_parts.kept_parts = original_parts
        shutil.rmtree(scratch, ignore_errors=True)
    return counts, problems


def main_(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="+")
    parser.add_argument("--files", type=int, default=20, help="files edited per project (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    failed = False
    for project in args.projects:
        counts, problems = check_project(project, args.files, args.seed)
        took = "; ".join(f"{name}: {moved} moved, {parts} kept parts, of {runs}"
                         for name, (runs, moved, parts) in counts.items())
        print(f"{project}: {took}; {len(problems)} differences")
        for problem in problems:
            print(f"  {problem}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main_())
