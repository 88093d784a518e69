"""Run the LibCST rules over a corpus with and without the ast decision of which files
LibCST parses (``Rule.needs_cst``) and count the files whose findings differ (must be 0),
and how many files each way parses.

    python bench/prefilter_soundness.py CORPUS/src [-j 2] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from agentlint.api import settings_for
from agentlint.engine import analyze, cst_pass
from agentlint.rules.registry import per_file_rules

CODES = [rule.meta.code for rule in per_file_rules()]
SETTINGS = settings_for(select=CODES)


def _run(path: str, prefilter: bool) -> tuple[list[str], bool]:
    analyze.CST_PREFILTER = prefilter
    parsed = False
    real = cst_pass.run_cst_rules

    def counting(*args, **kwargs):
        nonlocal parsed
        parsed = True
        return real(*args, **kwargs)

    analyze.run_cst_rules = counting
    try:
        with open(path, "rb") as fh:
            result = analyze.analyze_content(path, fh.read(), SETTINGS)
    finally:
        analyze.run_cst_rules = real
    return sorted(repr(d) for d in result.diagnostics), parsed


def compare(path: str) -> tuple[str, bool, bool, bool]:
    with_decision, parsed_with = _run(path, True)
    without, parsed_without = _run(path, False)
    return path, with_decision == without, parsed_with, parsed_without


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    files = sorted(str(p) for p in Path(args.corpus).rglob("*.py"))
    if args.limit:
        files = files[: args.limit]
    differ: list[str] = []
    parsed_with = parsed_without = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for path, same, with_decision, without in pool.map(compare, files, chunksize=16):
            if not same:
                differ.append(path)
            parsed_with += with_decision
            parsed_without += without
    print(f"files: {len(files)}; rules: {', '.join(CODES)}")
    print(f"parsed with LibCST: {parsed_with} with the ast decision, {parsed_without} without")
    print(f"files whose findings differ: {len(differ)}")
    for path in differ[:20]:
        print(f"  {os.path.relpath(path, args.corpus)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
