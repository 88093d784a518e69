"""Crash sweep: every command over a corpus, counting what must never happen.

Not a test (it takes minutes on the PyPI corpus). It runs, on CORPUS:

1. `agentlint check CORPUS --select ALL --no-cache --exit-zero --output-format json`
   and counts internal errors (AGL003), unreadable files (AGL002), syntax errors
   (AGL001) and the exit status (anything but 0 is a failure with `--exit-zero`);
2. the same files through the engine in-process, to compare the number of files
   checked with the number discovered (every file must be checked);
3. `agentlint check CORPUS --diff --select ALL --no-cache` (every fix planned, none
   written): exit 0 or 1, never 2;
4. `agentlint tools CORPUS --no-cache` and `agentlint explain SYSTEM_PROMPT CORPUS`:
   exit 0 or 1, never 2.

It prints a markdown report (commands with relative paths) to paste into
docs/reliability.md:

    python bench/crash_sweep.py CORPUS/src --agentlint "$(command -v agentlint)"
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(cmd: list[str], cwd: str) -> tuple[int, str, str, float]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace")
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", help="folder to sweep (e.g. CORPUS/src)")
    parser.add_argument("--agentlint", default="agentlint", help="the agentlint command to run")
    args = parser.parse_args()
    corpus = os.path.abspath(args.corpus)
    exe = args.agentlint
    failures: list[str] = []
    rows: list[tuple[str, str, str]] = []

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "check.json")
        code, _stdout, stderr, seconds = _run(
            [exe, "check", ".", "--select", "ALL", "--no-cache", "--exit-zero", "--output-format", "json", "-o", out],
            corpus,
        )
        findings = json.load(open(out, encoding="utf-8")) if os.path.exists(out) else []
        by_code = collections.Counter(f["code"] for f in findings)
        rows.append(("`agentlint check . --select ALL --no-cache --exit-zero --output-format json`",
                     f"exit {code}, {seconds:.0f} s", f"{len(findings)} findings; AGL003 {by_code['AGL003']}, "
                     f"AGL002 {by_code['AGL002']}, AGL001 {by_code['AGL001']}"))
        if code != 0:
            failures.append(f"check exited {code}: {stderr[-500:]}")
        for f in findings:
            if f["code"] == "AGL003":
                failures.append(f"internal error: {f['filename']}: {f['message']}")

    sys.path.insert(0, str(ROOT))
    from agentlint.api import settings_for
    from agentlint.engine.discovery import discover
    from agentlint.engine.run import run

    settings = settings_for(select=["ALL"], root=corpus)
    files = discover([corpus], settings).files
    result = run(files, settings, use_cache=False, keep_facts=None)
    rows.append(("files discovered / checked (in-process)", "", f"{len(files)} / {result.files_checked}"))
    if result.files_checked != len(files):
        failures.append(f"checked {result.files_checked} of {len(files)} files")

    for label, cmd in (
        ("`agentlint check . --diff --select ALL --no-cache`", [exe, "check", ".", "--diff", "--select", "ALL", "--no-cache"]),
        ("`agentlint tools . --no-cache`", [exe, "tools", ".", "--no-cache"]),
        ("`agentlint calls . --no-cache`", [exe, "calls", ".", "--no-cache"]),
        ("`agentlint explain SYSTEM_PROMPT .`", [exe, "explain", "SYSTEM_PROMPT", ".", "--no-cache", "--format", "json"]),
    ):
        code, _stdout, stderr, seconds = _run(cmd, corpus)
        rows.append((label, f"exit {code}, {seconds:.0f} s", "internal error" if code == 2 else "ok"))
        if code not in (0, 1):
            failures.append(f"{label} exited {code}: {stderr[-500:]}")

    print("| command | outcome | what it found |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print("**0 failures**" if not failures else f"**{len(failures)} failures**")
    for line in failures[:50]:
        print(f"- {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
