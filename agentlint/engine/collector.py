"""Python's cyclic garbage collector, paused while one file is analysed.

An `ast` parse allocates one object per node, and the facts and the agent model read
the tree while it is alive: every collection those allocations trigger examines the
live nodes again and frees nothing. The trees and the agent model of a file are freed
by reference counting when it is done, because nothing of one file's analysis refers
back to what owns it (``tests/test_collector.py`` holds every fixture to leaving no
cyclic garbage), so the collector can wait until then. Before, a cold run spent about
an eighth of its CPU time in collections (1.0 s of 8 s on the small corpus).

The same holds while the program's modules load: objects that live as long as the
process, examined by about forty collections that free nothing (a twentieth of a
one-file run). The `agentlint` program (``cli.entry``) pauses the collector from its
start until its command's module is loaded, then moves everything alive out of the
collector's sight (``gc.freeze``: no later collection examines it, and the process
pool's workers, forked after, do not copy its pages by touching it) and resumes it."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collections_paused() -> Iterator[None]:
    """No automatic collection inside the block; the collector's state is restored
    after it (a caller that turned it off keeps it off)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


_paused_for_start_up = False


def pause_for_start_up() -> None:
    """For the program's entry point only (``cli.entry``; not for code that imports
    agentlint): no collection until ``start_up_done``."""
    global _paused_for_start_up
    if gc.isenabled():
        gc.disable()
        _paused_for_start_up = True


def start_up_done() -> None:
    """The command's modules are loaded: freeze what is alive and collect again. Does
    nothing unless ``pause_for_start_up`` paused the collector."""
    global _paused_for_start_up
    if _paused_for_start_up:
        _paused_for_start_up = False
        gc.freeze()
        gc.enable()
