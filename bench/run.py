#!/usr/bin/env python3
"""agentlint performance benchmark (a benchmark, not a timed test).

Measures, in one run and on the same files:

  1. LibCST parse-only throughput (shared/corpus/parse_bench.py ``parse``), -j 1 and -j N
  2. ``agentlint check`` with a fresh, empty cache dir ("cold"): wall time + peak memory
  3. the same command again with the same cache dir ("warm")
  4. ``agentlint check ONE_FILE.py`` incl. interpreter start (median of 10 runs)
  5. fixit 2.x (``fixit lint``, default rules) on a subset (``--fixit-limit K``) of the corpus,
     together with parse-only and agentlint-cold on exactly that subset

and prints a markdown table of values, ratios and targets (optionally also written to a file
with ``--write-docs``).  See bench/README.md.

Only the standard library is used.  Peak memory is sampled from /proc (Linux only), see
``TreeSampler``.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_DIR = BENCH_DIR.parent
FIXIT_SPEC = "fixit==2.2.1"

TARGET_COLD_VS_PARSE = 0.35  # cold <= 0.35x LibCST parse-only (-j N)
TARGET_WARM_VS_COLD = 0.03  # warm <= 0.03x cold
TARGET_ONE_FILE_S = 0.15  # one file <= 0.15 s incl. interpreter start
EDIT_PROMPT = ("You are a careful assistant. Answer the user's question from the documents given, cite each "
               "document you use, and say so plainly when they do not hold the answer")
"""The prompt a pre-commit edit appends (long enough for the prompt comparison to read it)."""
TARGET_PEAK_MIB = 300.0  # peak memory <= 300 MiB on the full corpus


from _proc import TreeSampler  # noqa: E402  (a sibling module of this script)


@dataclass
class Run:
    cmd: list[str]
    wall_s: float
    returncode: int
    stdout: str
    stderr: str
    peak_rss_mib: float = 0.0  # max over samples of sum(VmRSS) of the process tree
    peak_pss_mib: float = 0.0  # max over samples of sum(Pss) of the process tree
    main_maxrss_mib: float = 0.0  # exact RSS high-water of the top process (wait4)
    max_procs: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def crashed(self) -> bool:
        """The process died (uncaught exception, signal, timeout) - its time means nothing."""
        return self.returncode < 0 or "Traceback (most recent call last)" in self.stderr

    @property
    def clean(self) -> bool:
        return self.returncode == 0 and not self.crashed


def best_of(runs: list[Run]) -> Run:
    """Fastest of repeated runs (min wall, as timeit does on a noisy machine), worst memory.

    A run that crashed is returned as is, so the failure is reported."""
    for r in runs:
        if r.crashed:
            return r
    b = min(runs, key=lambda r: r.wall_s)
    out = Run(b.cmd, b.wall_s, b.returncode, b.stdout, b.stderr, extra=dict(b.extra))
    out.peak_rss_mib = max(r.peak_rss_mib for r in runs)
    out.peak_pss_mib = max(r.peak_pss_mib for r in runs)
    out.main_maxrss_mib = max(r.main_maxrss_mib for r in runs)
    out.max_procs = max(r.max_procs for r in runs)
    out.extra["walls"] = [r.wall_s for r in runs]
    return out


def run_cmd(cmd, *, cwd=None, sample_mem=True, timeout=3600.0, stdout_path=None) -> Run:
    """Run ``cmd``; wall time measured externally around fork/exec..exit."""
    out_fh = open(stdout_path, "wb") if stdout_path else tempfile.TemporaryFile()
    err_fh = tempfile.TemporaryFile()
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out_fh, stderr=err_fh, stdin=subprocess.DEVNULL)
        sampler = TreeSampler(proc.pid) if sample_mem else None
        if sampler:
            sampler.start()
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        _, status, rusage = os.wait4(proc.pid, 0)
        killer.cancel()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if sampler:
            sampler.stop()
        stdout = ""
        if not stdout_path:
            out_fh.seek(0)
            stdout = out_fh.read().decode("utf-8", "replace")
        err_fh.seek(0)
        stderr = err_fh.read().decode("utf-8", "replace")
    finally:
        out_fh.close()
        err_fh.close()
    r = Run(list(map(str, cmd)), wall, proc.returncode, stdout, stderr)
    r.main_maxrss_mib = rusage.ru_maxrss / 1024.0  # Linux: KiB
    if sampler:
        r.peak_rss_mib = sampler.max_rss_kib / 1024.0
        r.peak_pss_mib = sampler.max_pss_kib / 1024.0
        r.max_procs = sampler.max_procs
    return r


# --------------------------------------------------------------------------------------
# corpus
# --------------------------------------------------------------------------------------


def ensure_corpus(corpus_dir: Path, variant: str, shared: Path, rebuild: bool) -> Path:
    src = corpus_dir / "src"
    if rebuild or not (corpus_dir / "MANIFEST.txt").is_file() or not src.is_dir():
        script = shared / "corpus" / "make-corpus.sh"
        log(f"building corpus: {script} {corpus_dir} {variant}")
        env = dict(os.environ, PYTHON=sys.executable)
        subprocess.run(["bash", str(script), str(corpus_dir), variant], check=True, env=env)
    else:
        first = (corpus_dir / "MANIFEST.txt").read_text().splitlines()[:1]
        have = re.search(r"variant=(\w+)", first[0]).group(1) if first and "variant=" in first[0] else "?"
        if have != variant:
            log(f"note: {corpus_dir} holds a '{have}' corpus (asked for '{variant}'); using it as is")
    return src


def list_py(src: Path) -> list[str]:
    """Relative paths of every *.py file under src, in sorted (string) order."""
    out = []
    for root, dirs, files in os.walk(src):
        for f in files:
            if f.endswith(".py"):
                out.append(os.path.relpath(os.path.join(root, f), src))
    return sorted(out)


def count_lines(src: Path, rels: list[str]) -> dict[str, int]:
    res = {}
    for r in rels:
        with open(src / r, "rb") as fh:
            res[r] = fh.read().count(b"\n")
    return res


def stage_subset(src: Path, rels: list[str], dest: Path) -> Path:
    """Copy ``rels`` (relative to src) into dest/src, keeping relative paths."""
    out = dest / "src"
    for r in rels:
        (out / r).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / r, out / r)
    return out


# --------------------------------------------------------------------------------------
# tools
# --------------------------------------------------------------------------------------


def public(path: "str | Path") -> str:
    """How the report names a path: relative to the project (or its shared folder beside
    it), else by its last part alone; never a path of the machine it ran on."""
    absolute = os.path.abspath(str(path))
    for base, shown in ((str(PROJECT_DIR), ""), (str(PROJECT_DIR.parent / "shared"), "../shared/")):
        if absolute == base or absolute.startswith(base + os.sep):
            return shown + os.path.relpath(absolute, base)
    return os.path.basename(absolute)


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def parse_kv(line: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+)=(\S+)", line))


def script_python(script: Path) -> str:
    """Interpreter from a console script's shebang (falls back to sys.executable)."""
    try:
        with open(script, "rb") as fh:
            first = fh.readline().decode("utf-8", "replace").strip()
        if first.startswith("#!"):
            interp = shlex.split(first[2:])[0]
            if os.path.isfile(interp) and os.access(interp, os.X_OK):
                return interp
    except OSError:
        pass
    return sys.executable


def py_eval(python: str, code: str) -> str:
    try:
        return subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120).stdout.strip() or "?"
    except Exception:  # noqa: BLE001
        return "?"


def dist_version(python: str, dist: str) -> str:
    return py_eval(python, f"import importlib.metadata as m; print(m.version({dist!r}))")


def ensure_fixit(venv: Path) -> Path:
    fixit = venv / "bin" / "fixit"
    if fixit.exists():
        return fixit
    log(f"creating {venv} and installing {FIXIT_SPEC} (one time)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", FIXIT_SPEC],
        check=True,
    )
    return fixit


def parse_bench(python: str, shared: Path, jobs: int, target: Path, timeout: float) -> Run:
    cmd = [python, str(shared / "corpus" / "parse_bench.py"), "parse", "-j", str(jobs), str(target)]
    log("running: " + shlex.join(cmd))
    r = run_cmd(cmd, cwd=PROJECT_DIR, timeout=timeout)
    lines = [l for l in r.stdout.splitlines() if l.startswith("mode=")]
    r.extra = parse_kv(lines[-1]) if lines else {}
    if r.crashed or not r.extra:
        log(f"parse_bench failed rc={r.returncode}: {r.stderr[-2000:]}")
    return r


class Agentlint:
    def __init__(self, exe: Path, jobs: int, pass_jobs: bool):
        self.exe = exe
        self.jobs = jobs
        self.pass_jobs = pass_jobs

    def check_cmd(self, target, cache_dir=None, output="/dev/null", json_out=True) -> list[str]:
        cmd = [str(self.exe), "check", str(target)]
        if json_out:
            cmd += ["--output-format", "json", "--exit-zero"]
        if cache_dir is not None:
            cmd += ["--cache-dir", str(cache_dir)]
        if output is not None:
            cmd += ["-o", str(output)]
        if self.pass_jobs:
            cmd += ["--jobs", str(self.jobs)]
        return cmd

    def run(self, cmd, cwd, timeout) -> Run:
        log("running: " + shlex.join(cmd))
        r = run_cmd(cmd, cwd=cwd, timeout=timeout)
        if not r.clean:
            log(f"agentlint failed rc={r.returncode} after {r.wall_s:.2f}s; stderr tail:\n{r.stderr[-3000:]}")
        return r


def find_key(data, key):
    """First value of ``key`` anywhere in nested dicts/lists (KeyError if absent)."""
    todo = [data]
    while todo:
        d = todo.pop(0)
        if isinstance(d, dict):
            if key in d:
                return d[key]
            todo.extend(d.values())
        elif isinstance(d, list):
            todo.extend(d)
    raise KeyError(key)


def summarize_json(path: Path) -> str:
    """Best-effort description of agentlint's JSON output (format may evolve)."""
    try:
        data = json.loads(path.read_text() or "null")
    except Exception as e:  # noqa: BLE001
        return f"unreadable JSON ({type(e).__name__})"
    diags = data
    if isinstance(data, dict):
        for key in ("diagnostics", "results", "violations", "findings"):
            if isinstance(data.get(key), list):
                diags = data[key]
                break
    if isinstance(diags, list):
        files = {d.get("filename") or d.get("path") or d.get("file") for d in diags if isinstance(d, dict)}
        files.discard(None)
        codes: dict[str, int] = {}
        for d in diags:
            if isinstance(d, dict):
                c = str(d.get("code") or d.get("rule") or "?")
                codes[c] = codes.get(c, 0) + 1
        top = ", ".join(f"{c}×{n}" for c, n in sorted(codes.items(), key=lambda kv: -kv[1])[:8])
        return f"{len(diags)} diagnostics in {len(files)} files ({top})"
    return f"JSON {type(data).__name__}"


# --------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------


def fmt_s(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f} s"


def fmt_mib(r: Run | None) -> str:
    if r is None:
        return "n/a"
    return (f"{r.peak_pss_mib:.0f} MiB PSS / {r.peak_rss_mib:.0f} MiB RSS sum ({r.max_procs} procs); "
            f"main proc max RSS {r.main_maxrss_mib:.0f} MiB")


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "**FAIL**")


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or not b:
        return None
    return a / b


def fmt_ratio(x: float | None) -> str:
    return "n/a" if x is None else (f"{x:.3f}×" if x < 1 else f"{x:.2f}×")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared-dir", type=Path, default=PROJECT_DIR.parent / "shared",
                    help="shared dir holding corpus/parse_bench.py and corpus/make-corpus.sh (default: ../shared)")
    ap.add_argument("--corpus-dir", type=Path, default=BENCH_DIR / ".corpus",
                    help="corpus dir (built with make-corpus.sh if it has no MANIFEST.txt/src); default bench/.corpus")
    ap.add_argument("--corpus", choices=["full", "small"], default="full", help="variant to build (default full)")
    ap.add_argument("--rebuild-corpus", action="store_true", help="re-run make-corpus.sh even if the corpus exists")
    ap.add_argument("--agentlint", type=Path, default=Path(sys.executable).parent / "agentlint",
                    help="agentlint executable (default: the one next to sys.executable)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="N for parse-only -j N (= the jobs agentlint uses; default os.cpu_count())")
    ap.add_argument("--fixit-limit", type=int, default=300,
                    help="run fixit (and the comparison runs) on the first K files in sorted order; 0 = all")
    ap.add_argument("--subset-mode", choices=["first", "stride"], default="first",
                    help="'first': first K files in sorted path order; 'stride': every (n/K)-th file")
    ap.add_argument("--fixit-venv", type=Path, default=BENCH_DIR / ".venv-fixit")
    ap.add_argument("--one-file", type=Path, help="file for the one-file timing (default: median-size corpus file)")
    ap.add_argument("--one-file-runs", type=int, default=10)
    ap.add_argument("--precommit-project", default="langchain-community",
                    help="folder of the corpus (relative to its src) for the pre-commit timing: one changed file "
                         "checked with --force-exclude in a project whose other files are cached ('' to skip)")
    ap.add_argument("--skip-agentlint", action="store_true")
    ap.add_argument("--skip-fixit", action="store_true")
    ap.add_argument("--skip-j1", action="store_true", help="skip the parse-only -j 1 run on the full corpus")
    ap.add_argument("--repeat", type=int, default=1,
                    help="repeat parse-only and agentlint cold/warm runs R times and keep the fastest (default 1)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="per-process timeout in seconds")
    ap.add_argument("--write-docs", type=Path, help="also write the markdown report to this file")
    a = ap.parse_args()

    shared = a.shared_dir.resolve()
    corpus_dir = a.corpus_dir.resolve()
    src = ensure_corpus(corpus_dir, a.corpus, shared, a.rebuild_corpus)
    rels = list_py(src)
    if not rels:
        log(f"no .py files under {src}")
        return 2
    nlines = count_lines(src, rels)
    total_lines = sum(nlines.values())
    log(f"corpus {src}: {len(rels)} files, {total_lines} lines")

    exe = a.agentlint
    if not exe.exists() and shutil.which(str(exe)):
        exe = Path(shutil.which(str(exe)))
    al_python = script_python(exe) if exe.exists() else sys.executable
    work = Path(tempfile.mkdtemp(prefix="agentlint-bench-"))
    notes: list[str] = []
    rows: list[tuple[str, ...]] = []
    res: dict[str, Run | None] = {}

    # ---------------------------------------------------------------- agentlint probe
    agentlint: Agentlint | None = None
    al_version = "n/a"
    if not a.skip_agentlint:
        if not exe.exists():
            notes.append(f"agentlint executable {exe} not found: agentlint rows skipped.")
        else:
            v = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
            al_version = dist_version(al_python, "agentlint")
            if v.returncode == 0 and v.stdout.strip():
                al_version = v.stdout.strip().split()[-1]
            h = subprocess.run([str(exe), "check", "--help"], capture_output=True, text=True)
            pass_jobs = "--jobs" in h.stdout
            agentlint = Agentlint(exe, a.jobs, pass_jobs)
            if pass_jobs:
                notes.append(f"agentlint was given `--jobs {a.jobs}` (same N as parse-only -j N).")
            else:
                notes.append(f"`agentlint check` has no --jobs option; it ran with its own default "
                             f"(expected os.cpu_count() = {os.cpu_count()}); parse-only used -j {a.jobs}.")

    # ---------------------------------------------------------------- full corpus
    loads = [os.getloadavg()[0]]
    rep = max(1, a.repeat)
    res["parse_j1"] = None if a.skip_j1 else best_of(
        [parse_bench(sys.executable, shared, 1, src, a.timeout) for _ in range(rep)])
    res["parse_jn"] = best_of([parse_bench(sys.executable, shared, a.jobs, src, a.timeout) for _ in range(rep)])
    res["cold"] = res["warm"] = None
    json_summary = None
    if agentlint:
        colds, warms = [], []
        for i in range(rep):
            cache = work / f"cache-full-{i}"
            cache.mkdir()
            colds.append(agentlint.run(agentlint.check_cmd(src, cache), corpus_dir, a.timeout))
            if colds[-1].crashed:
                break
            warms.append(agentlint.run(agentlint.check_cmd(src, cache), corpus_dir, a.timeout))
        res["cold"] = best_of(colds)
        res["warm"] = best_of(warms) if warms else None
        if res["warm"] is not None:
            # untimed: what did it report, and how many files did it check?  (warm cache, so cheap)
            jpath, spath = work / "full.json", work / "full.sarif"
            vr = run_cmd(agentlint.check_cmd(src, cache, output=jpath), cwd=corpus_dir, sample_mem=False,
                         timeout=a.timeout)
            json_summary = summarize_json(jpath) if not vr.crashed else f"verification run failed rc={vr.returncode}"
            sr = run_cmd([c if c != "json" else "sarif" for c in agentlint.check_cmd(src, cache, output=spath)],
                         cwd=corpus_dir, sample_mem=False, timeout=a.timeout)
            try:
                files_checked = find_key(json.loads(spath.read_text()), "filesChecked")
                json_summary += f"; files checked (SARIF filesChecked): {files_checked} of {len(rels)}"
                if files_checked != len(rels):
                    notes.append(f"**agentlint checked {files_checked} files, the corpus has {len(rels)}** "
                                 "(excludes / .gitignore / config?) - the ratios are not on the same files.")
            except Exception:  # noqa: BLE001
                json_summary += f"; files checked: unknown (SARIF run rc={sr.returncode})"

    # ---------------------------------------------------------------- one file
    if a.one_file:
        one_src = a.one_file.resolve()
    else:
        by_size = sorted(rels, key=lambda r: (nlines[r], r))
        one_src = src / by_size[len(by_size) // 2]
    one_lines = one_src.read_bytes().count(b"\n")
    one_times: list[float] = []
    one_crash = None
    base_times: list[float] = []
    if agentlint:
        # copy it into a scratch dir so no project config / default cache location is shared
        one_dir = work / "one"
        one_dir.mkdir()
        one = one_dir / one_src.name
        shutil.copy2(one_src, one)
        cmd = [str(exe), "check", one.name]
        log(f"running {a.one_file_runs}x: {shlex.join(cmd)}  (cwd={one_dir})")
        for _ in range(a.one_file_runs):
            r = run_cmd(cmd, cwd=one_dir, sample_mem=False, timeout=a.timeout)
            # findings give a non-zero exit; only a traceback / rc>1 means trouble
            if "Traceback (most recent call last)" in r.stderr or r.returncode > 1:
                one_crash = r
            one_times.append(r.wall_s)
        for _ in range(a.one_file_runs):
            base_times.append(run_cmd([al_python, "-c", "import libcst"], sample_mem=False).wall_s)

    # ---------------------------------------------------------------- pre-commit in a project
    pre_times: dict[str, list[float]] = {"end": [], "top": [], "fact": [], "prompt": []}
    pre_files = 0
    pre_crash = None
    project_src = src / a.precommit_project if a.precommit_project else None
    if agentlint and project_src is not None and project_src.is_dir():
        # a copy, so that the edits and the default cache location stay in the scratch dir
        pre_dir = work / "precommit"
        shutil.copytree(project_src, pre_dir)
        pre_rels = sorted(os.path.relpath(os.path.join(d, f), pre_dir) for d, _, fs in os.walk(pre_dir)
                          for f in fs if f.endswith(".py"))
        pre_files = len(pre_rels)
        by_size = sorted(pre_rels, key=lambda r: ((pre_dir / r).stat().st_size, r))
        changed = pre_dir / by_size[len(by_size) // 2]
        run_cmd([str(exe), "check", ".", "--exit-zero", "-q"], cwd=pre_dir, sample_mem=False, timeout=a.timeout)
        time.sleep(2.5)  # past the stat index's racy window: the other files are then trusted from `stat`
        cmd = [str(exe), "check", "--force-exclude", os.path.relpath(changed, pre_dir)]
        log(f"running {a.one_file_runs}x per kind of edit: {shlex.join(cmd)}  (cwd={pre_dir})")
        for where in ("end", "top", "fact", "prompt"):
            for i in range(a.one_file_runs):
                # a comment appended moves none of the file's facts; a line put on top moves them all;
                # a framework import appended is a new project fact, and so is a prompt (which the
                # prompt comparison reads, not the tool rules)
                text = changed.read_text(encoding="utf-8")
                edited = {"end": text + f"# edit {i}\n", "top": f"# edit {i}\n" + text,
                          "fact": text + f"from langchain_core.prompts import PromptTemplate as Edit{i}\n",
                          "prompt": text + f'EDIT_{i}_PROMPT = """{EDIT_PROMPT} (edit {i})"""\n'}[where]
                changed.write_text(edited, encoding="utf-8")
                r = run_cmd(cmd, cwd=pre_dir, sample_mem=False, timeout=a.timeout)
                if "Traceback (most recent call last)" in r.stderr or r.returncode > 1:
                    pre_crash = r
                pre_times[where].append(r.wall_s)

    # ---------------------------------------------------------------- fixit subset
    sub = None
    if not a.skip_fixit:
        k = a.fixit_limit if 0 < a.fixit_limit < len(rels) else len(rels)
        if k == len(rels):
            sub_rels, sub_src = rels, src
        else:
            if a.subset_mode == "first":
                sub_rels = rels[:k]
            else:
                step = len(rels) / k
                sub_rels = [rels[int(i * step)] for i in range(k)]
            sub_src = stage_subset(src, sub_rels, work / "subset")
        sub_lines = sum(nlines[r] for r in sub_rels)
        pkgs: dict[str, int] = {}
        for r in sub_rels:
            pkgs[r.split(os.sep)[0]] = pkgs.get(r.split(os.sep)[0], 0) + 1
        sub = {
            "k": k, "lines": sub_lines, "src": sub_src, "pkgs": pkgs,
            "first": sub_rels[0], "last": sub_rels[-1],
        }
        res["sub_parse"] = best_of([parse_bench(sys.executable, shared, a.jobs, sub_src, a.timeout) for _ in range(rep)])
        res["sub_cold"] = None
        if agentlint:
            runs = []
            for i in range(rep):
                cache = work / f"cache-subset-{i}"
                cache.mkdir()
                runs.append(agentlint.run(agentlint.check_cmd(sub_src, cache), sub_src.parent, a.timeout))
            res["sub_cold"] = best_of(runs)
        fixit = ensure_fixit(a.fixit_venv)
        sub["fixit_version"] = dist_version(str(a.fixit_venv / "bin" / "python"), "fixit")
        cmd = [str(fixit), "lint", str(sub_src)]
        log("running: " + shlex.join(cmd))
        out = work / "fixit.out"
        fr = run_cmd(cmd, cwd=sub_src.parent, timeout=a.timeout, stdout_path=out)
        text = out.read_text("utf-8", "replace")
        # fixit exits 1 when it reports lint errors; that's not a failure of the run
        sub["fixit_findings"] = sum(1 for l in text.splitlines() if re.match(r"^\S+\.py@\d+:\d+ ", l))
        tail = [l for l in (text + "\n" + fr.stderr).splitlines() if re.search(r"files? (checked|clean)", l)]
        sub["fixit_summary"] = re.sub(r"[^\x20-\x7e]", "", tail[-1]).strip() if tail else ""
        sub["fixit_rc"] = fr.returncode
        res["fixit"] = fr

    # ---------------------------------------------------------------- report
    def wall(key):
        r = res.get(key)
        return None if r is None or r.crashed else r.wall_s

    def reps(key):
        r = res.get(key)
        w = r.extra.get("walls") if r is not None else None
        return f"; runs: {', '.join(f'{x:.2f}' for x in w)} s" if w and len(w) > 1 else ""

    def inner(key):
        r = res.get(key)
        return float(r.extra["wall_s"]) if r is not None and "wall_s" in r.extra else None

    jn = a.jobs
    full = f"full ({len(rels)} files)"
    pj1, pjn = res.get("parse_j1"), res.get("parse_jn")
    rows.append(("LibCST parse-only, -j 1", full, fmt_s(wall("parse_j1")),
                 f"in-process {fmt_s(inner('parse_j1'))}{reps('parse_j1')}", fmt_mib(pj1), "—", "—", "—"))
    rows.append((f"LibCST parse-only, -j {jn}", full, fmt_s(wall("parse_jn")),
                 f"in-process {fmt_s(inner('parse_jn'))}{reps('parse_jn')}", fmt_mib(pjn),
                 f"{fmt_ratio(ratio(wall('parse_jn'), wall('parse_j1')))} of -j 1", "—", "—"))
    cold_r = ratio(wall("cold"), wall("parse_jn"))
    rows.append(("agentlint cold (empty cache)", full, fmt_s(wall("cold")), reps("cold").lstrip("; "), fmt_mib(res.get("cold")),
                 f"{fmt_ratio(cold_r)} parse-only -j {jn} ({fmt_ratio(ratio(wall('cold'), wall('parse_j1')))} of -j 1)",
                 f"≤ {TARGET_COLD_VS_PARSE}× parse-only",
                 verdict(None if cold_r is None else cold_r <= TARGET_COLD_VS_PARSE)))
    warm_r = ratio(wall("warm"), wall("cold"))
    rows.append(("agentlint warm (same cache)", full, fmt_s(wall("warm")), reps("warm").lstrip("; "), fmt_mib(res.get("warm")),
                 f"{fmt_ratio(warm_r)} cold", f"≤ {TARGET_WARM_VS_COLD}× cold",
                 verdict(None if warm_r is None else warm_r <= TARGET_WARM_VS_COLD)))
    peak = None
    if res.get("cold") is not None and not res["cold"].crashed:
        peak = max(res["cold"].peak_pss_mib, res["warm"].peak_pss_mib if res.get("warm") else 0)
    rows.append(("agentlint peak memory (cold/warm, process tree)", full,
                 "n/a" if peak is None else f"{peak:.0f} MiB PSS", "PSS summed over main + worker processes",
                 "", "—", f"≤ {TARGET_PEAK_MIB:.0f} MiB",
                 verdict(None if peak is None else peak <= TARGET_PEAK_MIB)))
    one_med = statistics.median(one_times) if one_times and one_crash is None else None
    rows.append((f"agentlint check ONE_FILE.py (median of {a.one_file_runs})",
                 f"1 file, {one_lines} lines", fmt_s(one_med),
                 (f"min {min(one_times):.3f} / max {max(one_times):.3f} s; "
                  f"`python -c 'import libcst'` median {statistics.median(base_times):.3f} s") if one_times else "",
                 "", "—", f"≤ {TARGET_ONE_FILE_S} s",
                 verdict(None if one_med is None else one_med <= TARGET_ONE_FILE_S)))
    for where, what in (("end", "a comment appended"), ("top", "a line put on top"),
                        ("fact", "a framework import appended"), ("prompt", "a prompt appended")):
        times = pre_times[where]
        if not times:
            continue
        pre_med = statistics.median(times) if pre_crash is None else None
        rows.append((f"pre-commit: one changed file of a project ({what}), `--force-exclude` (median of {len(times)})",
                     f"1 of {pre_files} files", fmt_s(pre_med), f"min {min(times):.3f} / max {max(times):.3f} s",
                     "", "—", f"≤ {TARGET_ONE_FILE_S} s", verdict(None if pre_med is None else pre_med <= TARGET_ONE_FILE_S)))
    if sub:
        sdesc = f"subset ({sub['k']} files)"
        rows.append((f"LibCST parse-only, -j {jn}", sdesc, fmt_s(wall("sub_parse")),
                     f"in-process {fmt_s(inner('sub_parse'))}{reps('sub_parse')}", fmt_mib(res.get("sub_parse")), "—", "—", "—"))
        rows.append(("agentlint cold (empty cache)", sdesc, fmt_s(wall("sub_cold")), reps("sub_cold").lstrip("; "), fmt_mib(res.get("sub_cold")),
                     f"{fmt_ratio(ratio(wall('sub_cold'), wall('sub_parse')))} parse-only -j {jn}", "—", "—"))
        fw = res["fixit"].wall_s if "Traceback (most recent call last)" not in res["fixit"].stderr else None
        rows.append((f"fixit {sub['fixit_version']} `fixit lint` (default rules)", sdesc, fmt_s(fw),
                     f"{sub['fixit_findings']} findings; fixit says: {sub['fixit_summary']}", fmt_mib(res["fixit"]),
                     f"{fmt_ratio(ratio(fw, wall('sub_cold')))} agentlint cold; "
                     f"{fmt_ratio(ratio(fw, wall('sub_parse')))} parse-only", "—", "—"))

    # notes
    for key, label in (("cold", "agentlint cold"), ("warm", "agentlint warm"), ("sub_cold", "agentlint cold (subset)"),
                       ("parse_j1", "parse-only -j 1"), ("parse_jn", f"parse-only -j {jn}")):
        r = res.get(key)
        if r is not None and not r.clean:
            tail = "\n".join(r.stderr.strip().splitlines()[-15:])
            notes.append(f"{label} {'CRASHED' if r.crashed else 'exited non-zero'} (rc={r.returncode}, {r.wall_s:.2f} s):\n```\n{tail}\n```")
    if one_crash is not None:
        tail = "\n".join(one_crash.stderr.strip().splitlines()[-15:])
        notes.append(f"one-file run FAILED (rc={one_crash.returncode}):\n```\n{tail}\n```")
    for key in ("parse_j1", "parse_jn", "sub_parse"):
        r = res.get(key)
        if r is not None and r.extra.get("failed", "0") != "0":
            notes.append(f"{key}: LibCST failed to parse {r.extra['failed']} files.")
    if max(loads) > 0.5 * (os.cpu_count() or 1):
        notes.append(f"The machine was busy (1-min load average up to {max(loads):.1f} on {os.cpu_count()} CPUs): "
                     "other processes competed for the CPUs, so wall times are inflated and ratios between "
                     "runs made at different moments are noisy; re-run on an idle machine or with --repeat.")
    try:
        inside = corpus_dir.relative_to(PROJECT_DIR)
        notes.append(f"The corpus lies inside the project ({inside}): agentlint may apply the project's "
                     "[tool.agentlint] config and .gitignore to it; check the files-checked count.")
    except ValueError:
        pass
    if json_summary:
        notes.append(f"agentlint output on the full corpus (untimed verification run, warm cache): {json_summary}.")

    loads.append(os.getloadavg()[0])
    date = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    libcst_v = dist_version(sys.executable, "libcst")
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except Exception:  # noqa: BLE001
        pass
    try:
        mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem_gib = 0
    manifest = (corpus_dir / "MANIFEST.txt").read_text().strip() if (corpus_dir / "MANIFEST.txt").is_file() else ""
    cmdline = shlex.join(["python", *(public(x) if os.path.isabs(x) else x for x in sys.argv)])

    md: list[str] = []
    md.append("# agentlint performance\n")
    md.append(f"Measured by `bench/run.py` on {date}. A benchmark, not a test: numbers depend on the machine.\n")
    md.append("## Setup\n")
    md.append(f"- **machine**: {platform.system()} {platform.machine()}, nproc={os.cpu_count()}, "
              f"{mem_gib:.0f} GiB RAM{', ' + cpu if cpu else ''}")
    md.append(f"- **python**: {platform.python_version()}; libcst {libcst_v}; agentlint {al_version}")
    md.append(f"- **load**: 1-min load average {loads[0]:.2f} at start, {loads[-1]:.2f} at end "
              f"(on {os.cpu_count()} CPUs; anything else running skews the wall times); "
              f"timed runs repeated {rep}× and the fastest kept")
    md.append(f"- **corpus**: `{public(src)}` — {len(rels)} .py files, {total_lines:,} lines "
              f"(built by `../shared/corpus/make-corpus.sh`; MANIFEST below)")
    if sub:
        pk = ", ".join(f"{p} {n}" for p, n in sorted(sub["pkgs"].items(), key=lambda kv: -kv[1]))
        md.append(f"- **fixit subset**: {sub['k']} files / {sub['lines']:,} lines, "
                  f"{'first K files in sorted path order' if a.subset_mode == 'first' else 'every (n/K)-th file in sorted order'} "
                  f"(`{sub['first']}` … `{sub['last']}`; by package: {pk}); "
                  f"fixit, parse-only and agentlint all ran on exactly these files (copied to a scratch dir).")
    md.append(f"- **one file**: `{os.path.relpath(one_src, src) if str(one_src).startswith(str(src)) else one_src}` "
              f"({one_lines} lines, the median-size corpus file unless `--one-file` was given)")
    md.append(f"- **command**: `{cmdline}`")
    md.append("")
    md.append("## Results\n")
    md.append("| measurement | files | wall | detail | peak memory | ratio | target | status |")
    md.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        md.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    md.append("")
    md.append("## How it is measured\n")
    md.append("- **wall**: `time.perf_counter()` around the whole child process (fork/exec → exit, "
              "so interpreter start and imports are included); *in-process* is parse_bench.py's own `wall_s` "
              "(after imports).")
    md.append("- **peak memory**: a sampler thread in the harness sums, every 50 ms, VmRSS "
              "(`/proc/<pid>/status`) and, every 250 ms, PSS (`/proc/<pid>/smaps_rollup`) over the child "
              "and all its descendants (found through `/proc/<pid>/task/*/children`) and keeps the "
              "maximum of the sums. PSS splits pages shared between forked workers fairly; the RSS sum "
              "counts shared copy-on-write pages once per process, so it over-states the tree's "
              "footprint. Short peaks can be missed. The target is checked against the PSS sum; "
              "the top process's exact RSS high-water mark comes from `wait4()`.")
    md.append("- **cold**: fresh empty `--cache-dir`; **warm**: the identical command again with that cache dir. "
              "Each is a single run.")
    md.append("- **one file**: the file is copied into an empty scratch dir and `agentlint check FILE` is run "
              "there (default options, default cache location inside the scratch dir: first run cold, later ones warm).")
    md.append("- **pre-commit**: the `--precommit-project` folder of the corpus is copied into a scratch dir and "
              "checked once (`agentlint check .`, filling the default cache); then, before each timed run, its "
              "median-size file is edited (a comment appended, which moves none of its facts; a line put on "
              "top, which moves them all; a framework import appended, a new project fact that the tool parts "
              "of the project phase read; or a prompt appended, one that the prompt comparison reads) and "
              "`agentlint check --force-exclude FILE` is run there, as pre-commit does. When the file's project "
              "facts are unchanged, or only their lines moved, the remembered project phase holds (its findings "
              "moved with the lines) and no other file's facts are read; else the other files' facts come from "
              "the cache, decoded as far as the parts of the phase that read the changed facts read them, and "
              "those parts run again.")
    md.append("- **fixit**: installed on demand into `bench/.venv-fixit` (`python -m venv` + "
              f"`pip install {FIXIT_SPEC}`), run as `fixit lint DIR` with its default rules and its own "
              "process pool (one worker per CPU).")
    md.append("")
    md.append("Commands (CORPUS, CACHE, SUBSET are the paths above / scratch dirs):\n")
    md.append("```")
    md.append("python ../shared/corpus/parse_bench.py parse -j 1 CORPUS")
    md.append(f"python ../shared/corpus/parse_bench.py parse -j {jn} CORPUS")
    if agentlint:
        md.append(shlex.join(["agentlint", *agentlint.check_cmd("CORPUS", "CACHE")[1:]]) + "   # cold, then again: warm")
        md.append(f"agentlint check ONE_FILE.py   # x{a.one_file_runs}")
        if pre_times["end"]:
            md.append(f"agentlint check --force-exclude PROJECT_FILE.py   # x{a.one_file_runs} per kind of edit, in a copy of the project")
    if sub:
        md.append(f"{public(a.fixit_venv)}/bin/fixit lint SUBSET")
    md.append("```")
    if notes:
        md.append("\n## Notes\n")
        md.extend(f"- {n}" for n in notes)
    if manifest:
        md.append("\n## Corpus MANIFEST\n")
        md.append("```\n" + manifest + "\n```")
    report = "\n".join(md) + "\n"
    print(report)
    if a.write_docs:
        a.write_docs.parent.mkdir(parents=True, exist_ok=True)
        a.write_docs.write_text(report)
        log(f"wrote {a.write_docs}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
