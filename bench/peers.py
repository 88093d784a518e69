#!/usr/bin/env python3
"""agentlint beside the other agent linters and its own baselines, on the same files, in
one run (a benchmark, not a test).

For each folder given, every command runs as one whole process, one after the other,
``--repeat`` times; the table keeps the median of the whole-process CPU seconds (user +
system of the process and everything it waited for) and of the wall seconds, and prints
agentlint's cold CPU divided by each tool's:

- ``ast.parse`` of every file (this script, ``--ast-parse``): the floor of any ast linter;
- LibCST ``parse_module`` of every file (``corpus/parse_bench.py parse -j 1`` of the shared
  folder): what a LibCST linter cannot go below;
- ``agentlint check --no-cache -j 1`` (every default rule), ``--select AGL302`` (in one
  process and with the default ``--jobs``) and ``--select AGL201`` (the facts pass);
- ``ruff check --no-cache --select BLE001,E722`` (ruff's broad-except rules, the nearest
  to AGL302), when ruff is installed beside agentlint;
- the agent linters agentguard-linter, spendlint (telemetry off) and agentic-guard, from
  a virtualenv of their own (``--peers-venv``; ``--install-peers`` makes it).

    python bench/peers.py FOLDER [FOLDER ...] [--repeat 3] [--pin CPU] [--write-docs FILE]

``--pin CPU`` runs every one-process command on that CPU alone: on a machine whose speed
moves from minute to minute, the ratios then hold better (the commands that use every
core, agentlint's default ``--jobs`` and ruff, are never pinned).
"""

from __future__ import annotations

import argparse
import ast
import datetime as _dt
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_DIR = BENCH_DIR.parent
PEERS = ("agentguard-linter==0.1.1", "spendlint==0.1.4", "agentic-guard==0.1.0")


@dataclass
class Tool:
    name: str
    argv: list[str]
    shown: str
    """The command as the report prints it: relative paths and placeholders only."""
    env: dict[str, str] | None = None
    parallel: bool = False
    """Uses every core (agentlint's default `--jobs`, ruff): never pinned (``--pin``)."""


def ast_parse(folder: str) -> int:
    count = 0
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(root, name), "rb") as fh:
                    try:
                        ast.parse(fh.read())
                    except (SyntaxError, ValueError):
                        pass
                count += 1
    return count


def timed(tool: Tool, cwd: str, pin: int | None = None) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, exit status) of one whole run of ``tool``; with
    ``pin``, a one-process tool runs on that CPU alone."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = {**os.environ, **(tool.env or {})}
    on_one_cpu = (lambda: os.sched_setaffinity(0, {pin})) if pin is not None and not tool.parallel else None
    proc = subprocess.run(tool.argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          preexec_fn=on_one_cpu)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.returncode


def tools_for(folder: str, args: argparse.Namespace) -> list[Tool]:
    python = sys.executable
    agentlint = str(Path(python).parent / "agentlint")
    ruff = Path(python).parent / "ruff"
    found = [
        Tool("ast.parse, every file", [python, __file__, "--ast-parse", folder], "python bench/peers.py --ast-parse DIR"),
        Tool("LibCST parse_module, every file", [python, str(args.shared_dir / "corpus" / "parse_bench.py"), "parse", "-j", "1", folder],
             "python ../shared/corpus/parse_bench.py parse -j 1 DIR"),
        Tool("agentlint (default rules)", [agentlint, "check", folder, "--no-cache", "-j", "1", "--exit-zero", "-q"],
             "agentlint check DIR --no-cache -j 1 --exit-zero -q"),
        Tool("agentlint --select AGL302", [agentlint, "check", folder, "--no-cache", "-j", "1", "--select", "AGL302", "--exit-zero", "-q"],
             "agentlint check DIR --no-cache -j 1 --select AGL302 --exit-zero -q"),
        Tool("agentlint --select AGL302, default jobs", [agentlint, "check", folder, "--no-cache", "--select", "AGL302", "--exit-zero", "-q"],
             "agentlint check DIR --no-cache --select AGL302 --exit-zero -q", parallel=True),
        Tool("agentlint facts pass (--select AGL201)", [agentlint, "check", folder, "--no-cache", "-j", "1", "--select", "AGL201", "--exit-zero", "-q"],
             "agentlint check DIR --no-cache -j 1 --select AGL201 --exit-zero -q"),
    ]
    if ruff.exists():
        found.append(Tool("ruff BLE001,E722", [str(ruff), "check", folder, "--no-cache", "--select", "BLE001,E722", "--exit-zero", "-q"],
                          "ruff check DIR --no-cache --select BLE001,E722 --exit-zero -q", parallel=True))
    peers = args.peers_venv / "bin"
    if (peers / "agentguard").exists():
        found.append(Tool("agentguard-linter 0.1.1", [str(peers / "agentguard"), "scan", folder], "agentguard scan DIR"))
    if (peers / "spendlint").exists():
        found.append(Tool("spendlint 0.1.4", [str(peers / "spendlint"), folder], "SPENDLINT_TELEMETRY=off spendlint DIR",
                          env={"SPENDLINT_TELEMETRY": "off"}))
    if (peers / "agentic-guard").exists():
        found.append(Tool("agentic-guard 0.1.0", [str(peers / "agentic-guard"), "scan", folder], "agentic-guard scan DIR"))
    return found


def install_peers(venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *PEERS], check=True)


MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "package.json", "Pipfile")
"""Files that make a folder a project's top for agentlint (``engine/boundaries.py``)."""


def placement_warning(folder: str) -> str | None:
    """Why timings of ``folder`` would not be of its files alone: under a project's top
    (a project marker above it, this repository's own included), agentlint also reads
    that project's other files as the context of a partial run; under a hidden folder,
    agentguard-linter skips every file."""
    path = Path(folder).resolve()
    for parent in path.parents:
        if any((parent / marker).is_file() for marker in MARKERS):
            return f"inside the project at {parent}: agentlint also reads its other files; copy the folder elsewhere"
    if any(part.startswith(".") for part in path.parts):
        return "under a hidden folder, which agentguard-linter skips; copy the folder elsewhere"
    return None


def count_files(folder: str) -> tuple[int, int]:
    files = lines = 0
    for root, _dirs, names in os.walk(folder):
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(root, name), "rb") as fh:
                    lines += fh.read().count(b"\n")
    return files, lines


def report(folder: str, label: str, args: argparse.Namespace) -> list[str]:
    files, lines = count_files(folder)
    tools = tools_for(folder, args)
    runs: dict[str, list[tuple[float, float, int]]] = {t.name: [] for t in tools}
    for _ in range(args.repeat):
        for tool in tools:  # interleaved, so a busy moment of the machine hits every tool
            runs[tool.name].append(timed(tool, str(PROJECT_DIR), args.pin))
    cpu = {name: statistics.median(r[0] for r in rs) for name, rs in runs.items()}
    wall = {name: statistics.median(r[1] for r in rs) for name, rs in runs.items()}
    ours = cpu["agentlint (default rules)"]
    out = [
        f"### {label}: {files:,} files, {lines:,} lines",
        "",
        "| tool | CPU s | wall s | agentlint (default rules) ÷ tool | command |",
        "|---|---|---|---|---|",
    ]
    for tool in tools:
        statuses = {r[2] for r in runs[tool.name]}
        note = "" if statuses <= {0, 1} else f" (exit {sorted(statuses)})"
        share = f"{ours / cpu[tool.name]:.2f}" if cpu[tool.name] > 0 else "n/a"
        out.append(f"| {tool.name}{note} | {cpu[tool.name]:.2f} | {wall[tool.name]:.2f} | {share} | `{tool.shown}` |")
    select = cpu["agentlint --select AGL302"]
    parse = cpu["ast.parse, every file"]
    if "ruff BLE001,E722" in wall:
        ruff_wall = wall["ruff BLE001,E722"]
        out += ["", f"`--select AGL302` takes {wall['agentlint --select AGL302, default jobs'] / ruff_wall:.1f}× the wall time of "
                f"ruff's broad-except rules with agentlint's default `--jobs` (ruff uses every core too), "
                f"{wall['agentlint --select AGL302'] / ruff_wall:.1f}× in one process, and {select / parse:.1f}× the CPU of "
                "`ast.parse` alone."]
    out += [f"The facts pass (`--select AGL201`: every file's facts and agent model, one model rule) takes "
            f"{cpu['agentlint facts pass (--select AGL201)'] / parse:.1f}× the CPU of `ast.parse`."]
    out += [f"agentlint's default rules take {ours / cpu['LibCST parse_module, every file']:.2f}× the CPU of LibCST parse-only "
            f"and {ours / cpu['ast.parse, every file']:.1f}× that of `ast.parse`.", ""]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*")
    parser.add_argument("--label", action="append", default=[], help="a name per folder for the report")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shared-dir", type=Path, default=PROJECT_DIR.parent / "shared")
    parser.add_argument("--peers-venv", type=Path, default=BENCH_DIR / ".venv-peers")
    parser.add_argument("--install-peers", action="store_true", help=f"create --peers-venv with {', '.join(PEERS)}")
    parser.add_argument("--write-docs", type=Path, help="also write the report to this markdown file")
    parser.add_argument("--pin", type=int, metavar="CPU",
                        help="run every one-process command on this CPU alone (steadier ratios on a busy machine)")
    parser.add_argument("--ast-parse", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ast_parse:
        ast_parse(args.ast_parse)
        return 0
    if args.install_peers and not args.peers_venv.exists():
        install_peers(args.peers_venv)
    load = os.getloadavg()[0]
    lines = [
        f"Measured by `bench/peers.py` on {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC: one process per "
        f"command, run {args.repeat}× interleaved, medians; Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"1-minute load {load:.1f} at the start"
        + (f"; every one-process command pinned to one CPU ({args.pin}), agentlint's default `--jobs` and ruff not."
           if args.pin is not None else "."),
        "",
    ]
    for folder in args.folders:
        warning = placement_warning(folder)
        if warning:
            print(f"peers.py: warning: {folder}: {warning}", file=sys.stderr)
    for index, folder in enumerate(args.folders):
        label = args.label[index] if index < len(args.label) else os.path.basename(os.path.normpath(folder))
        lines += report(folder, label, args)
    text = "\n".join(lines)
    print(text)
    if args.write_docs:
        args.write_docs.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
