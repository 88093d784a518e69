"""Peak memory of a process tree, sampled from /proc (Linux only): what bench/run.py
reports as the peak memory of a run."""

from __future__ import annotations

import os
import threading


# --------------------------------------------------------------------------------------
# process-tree memory sampler
# --------------------------------------------------------------------------------------


def _ppid_map() -> dict[int, list[int]]:
    """parent pid -> child pids, for every process visible in /proc."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:  # process went away
            continue
        # comm (field 2) may contain spaces/parens: fields after the last ')' are fixed
        rest = stat[stat.rfind(b")") + 2 :].split()
        children.setdefault(int(rest[1]), []).append(int(name))
    return children


def _children(pid: int) -> list[int] | None:
    """Children of pid via /proc/<pid>/task/<tid>/children (None where the kernel lacks it)."""
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out  # gone
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                out.extend(int(c) for c in fh.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}/children") and os.path.exists(f"/proc/{pid}/task/{tid}"):
                return None
        except OSError:
            pass
    return out


def _descendants(root: int) -> list[int]:
    """root and all its descendants (cheap per-task children files, else a full /proc scan)."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        kids = _children(pid)
        if kids is None:
            break
        out.append(pid)
        todo.extend(kids)
    else:
        return out
    children = _ppid_map()
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def _status_kib(pid: int, key: bytes) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class TreeSampler(threading.Thread):
    """Every ``interval`` s sum VmRSS (every ``slow`` intervals also PSS) over a process and
    all its descendants.

    Records the maximum of the sums.  Sum-of-RSS over-counts pages shared between forked
    workers (copy-on-write); sum-of-PSS splits shared pages between the sharers and is the
    fairer "how much memory does the tree use" number.  Peaks shorter than the interval can
    be missed; the main process's exact high-water mark comes from wait4() separately.
    """

    def __init__(self, pid: int, interval: float = 0.05, slow: int = 5):
        super().__init__(daemon=True)
        self.slow = slow
        self.pid = pid
        self.interval = interval
        self.max_rss_kib = 0
        self.max_pss_kib = 0
        self.max_procs = 0
        self.samples = 0
        self._halt = threading.Event()

    def run(self) -> None:
        # VmRSS is cheap (~0.03 ms/process) and read every tick; the process list and PSS
        # (smaps_rollup walks the page tables, ~1 ms/process) only every ``slow``-th tick, so
        # the sampler itself stays at a few % of one CPU.
        pids: list[int] = []
        tick = 0
        while not self._halt.is_set():
            if tick % self.slow == 0:
                pids = _descendants(self.pid)
                pss = sum(_pss_kib(p) for p in pids)
                self.max_pss_kib = max(self.max_pss_kib, pss)
                self.max_procs = max(self.max_procs, len(pids))
            rss = sum(_status_kib(p, b"VmRSS:") for p in pids)
            self.max_rss_kib = max(self.max_rss_kib, rss)
            self.samples += 1
            tick += 1
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()
