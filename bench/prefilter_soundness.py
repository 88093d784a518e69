"""Run the LibCST rules over a corpus with and without the ast decision of which files
(``Rule.needs_cst``) and which of their statements (``Rule.cst_regions``) LibCST parses,
and count the files whose findings differ (must be 0) and how each way parses.

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


def _run(path: str, prefilter: bool) -> tuple[list[str], str]:
    """The findings, and how LibCST parsed the file: "whole", "statements" or ""."""
    analyze.CST_PREFILTER = prefilter
    parsed = ""
    whole, some = cst_pass.run_cst_rules, cst_pass.run_on_statements

    def counting_whole(*args, **kwargs):
        nonlocal parsed
        parsed = parsed or "whole"
        return whole(*args, **kwargs)

    def counting_some(*args, **kwargs):
        nonlocal parsed
        found = some(*args, **kwargs)
        if found is not None:
            parsed = "statements"
        return found

    analyze.run_cst_rules, analyze.run_on_statements = counting_whole, counting_some
    try:
        with open(path, "rb") as fh:
            result = analyze.analyze_content(path, fh.read(), SETTINGS)
    finally:
        analyze.run_cst_rules, analyze.run_on_statements = whole, some
    return sorted(repr(d) for d in result.diagnostics), parsed


def compare(path: str) -> tuple[str, bool, str, str]:
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
    counts = {"whole": 0, "statements": 0, "without": 0}
    with ProcessPoolExecutor(args.jobs) as pool:
        for path, same, with_decision, without in pool.map(compare, files, chunksize=16):
            if not same:
                differ.append(path)
            if with_decision:
                counts[with_decision] += 1
            counts["without"] += bool(without)
    print(f"files: {len(files)}; rules: {', '.join(CODES)}")
    print(f"parsed with LibCST without the ast decision: {counts['without']} files")
    print(f"with it: {counts['whole']} files whole, {counts['statements']} files as the statements that can hold a finding")
    print(f"files whose findings differ: {len(differ)}")
    for path in differ[:20]:
        print(f"  {os.path.relpath(path, args.corpus)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
