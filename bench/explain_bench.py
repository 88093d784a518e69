"""Benchmark `agentlint explain` (not a test: numbers depend on the machine and its load).

What it measures, on one corpus, in one run:

1. facts extraction: ``extract_facts`` over every parsed file, one process, for the
   working tree's ``agentlint`` package and (``--facts-baseline REV``) the package at a
   git revision (``git archive``), each in its own process, best of ``--repeat``;
2. cold explain: an empty cache folder (every file analysed, the index written);
3. warm explain: each ``--symbol`` once with no kept callers (the memo removed), then
   ``--repeat`` times (the question asked again), wall time of the whole process
   (interpreter start included), with the ``--timings`` breakdown.

    python bench/explain_bench.py --corpus CORPUS/src \\
        --symbol SYSTEM_PROMPT --symbol MEMORY_READ_PROMPT_TEMPLATE --facts-baseline HEAD
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


_FACTS_TIMER = """
import ast, sys, time
sys.path.insert(0, sys.argv[1])
try:
    from agentlint.facts.module import extract_facts
except ImportError:  # a revision from before the packages by stage
    from agentlint.facts import extract_facts
from agentlint.api import settings_for
try:
    from agentlint.engine.discovery import discover
except ImportError:
    from agentlint.discovery import discover
corpus, repeat = sys.argv[2], int(sys.argv[3])
trees = []
for path in discover([corpus], settings_for(root=corpus)).files:
    try:
        with open(path, "rb") as fh:
            trees.append((path, ast.parse(fh.read())))
    except (SyntaxError, ValueError, OSError, RecursionError):
        pass
best = float("inf")
for _ in range(repeat):
    started = time.process_time()
    for path, tree in trees:
        extract_facts(path, tree)
    best = min(best, time.process_time() - started)
print(len(trees), best)
"""


def _time_facts(package_root: str, corpus: str, repeat: int) -> tuple[int, float]:
    out = subprocess.run(
        [sys.executable, "-c", _FACTS_TIMER, package_root, corpus, str(repeat)],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    return int(out[0]), float(out[1])


def bench_facts(corpus: str, baseline: str | None, repeat: int) -> None:
    roots = {"working tree": str(ROOT)}
    if baseline:
        folder = tempfile.mkdtemp()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", baseline, "agentlint"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        roots[baseline] = folder
    results = {name: _time_facts(root, corpus, repeat) for name, root in roots.items()}
    files = next(iter(results.values()))[0]
    print(f"facts extraction over {files} parsed files (CPU seconds, best of {repeat}):")
    for name, (_files, seconds) in results.items():
        print(f"  {name:>14}: {seconds:.2f} s")


def run_explain(agentlint: str, symbol: str, corpus: str, cache: str) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(
        [agentlint, "explain", symbol, corpus, "--cache-dir", cache, "--timings", "-o", os.devnull],
        capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        raise SystemExit(f"explain {symbol} failed ({result.returncode}): {result.stderr}")
    timings = next((line for line in result.stderr.splitlines() if line.startswith("timings:")), "")
    return elapsed, timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--symbol", action="append", default=[])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cache-dir", help="Reuse this cache folder (default: a new one, so the first run is cold).")
    parser.add_argument("--agentlint", default=str(Path(sys.executable).with_name("agentlint")))
    parser.add_argument("--facts-baseline", metavar="REV", help="Also time agentlint/facts.py at this git revision.")
    parser.add_argument("--skip-facts", action="store_true")
    parser.add_argument("--facts-only", action="store_true", help="Time the facts extraction only.")
    args = parser.parse_args()

    if not args.skip_facts:
        bench_facts(args.corpus, args.facts_baseline, args.repeat)
    if args.facts_only:
        return
    symbols = args.symbol or ["SYSTEM_PROMPT"]
    cache = args.cache_dir or tempfile.mkdtemp(prefix="explain-bench-")
    elapsed, timings = run_explain(args.agentlint, symbols[0], args.corpus, cache)
    print(f"first explain with cache folder {cache}: {elapsed:.2f} s  ({timings})")
    for symbol in symbols:
        # The first question on a symbol resolves its callers; they are kept (the memo
        # beside the index) until the project changes, so repeats are faster.
        for memo in Path(cache, "explain").glob("*.memo"):
            memo.unlink()
        first, timings = run_explain(args.agentlint, symbol, args.corpus, cache)
        print(f"first question {symbol} (no callers kept): {first:.2f} s  ({timings})")
        runs = [run_explain(args.agentlint, symbol, args.corpus, cache) for _ in range(args.repeat)]
        times = sorted(t for t, _ in runs)
        print(
            f"warm explain {symbol}: median {statistics.median(times):.2f} s, "
            f"min {times[0]:.2f} s, max {times[-1]:.2f} s over {len(times)} runs"
        )
        print(f"  last: {runs[-1][1]}")


if __name__ == "__main__":
    main()
