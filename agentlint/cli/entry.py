"""The `agentlint` program: its console script, and `python -m agentlint`.

The garbage collector is paused before anything else of the program is imported, and
resumed once the command's module is loaded (``engine.collector``): loading the modules
allocates some hundred thousand objects that live as long as the process, and every
collection on the way would examine them again and free nothing. Code that imports
agentlint, or calls ``cli.main.main`` itself (click's test runner), keeps its collector
as it is.

The program also ends without the interpreter's teardown (``_leave``). Tearing down
frees, one by one, every object the run left alive: the modules, and in a partial run
the project facts of every other file. After an edit that moves a file's facts in the
1,204-file package that took about 17 ms, a twentieth of the run; a run answered from
the cache lost 3 ms to it. Nothing outside the process can see it.
"""

import os
import sys
from typing import NoReturn

from agentlint.engine.collector import pause_for_start_up

pause_for_start_up()  # first: the imports below are what it is for

from agentlint.cli.main import main  # noqa: E402


def entry_point() -> None:
    try:
        main()
    except SystemExit as done:  # how click ends every command, findings or not
        _leave(done.code)


def _leave(code: object) -> NoReturn:
    """End the process as ``sys.exit(code)`` would, without tearing the interpreter
    down. Whatever a command writes is whole before it returns (reports, the cache,
    fixed files: each written to a new file and renamed), so only the standard streams
    need flushing. No command of agentlint leaves a thread running or registers an
    `atexit` hook; an uncaught exception or Ctrl-C does not come here."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # `sys.exit("message")`: the message on stderr, status 1
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # the reader went away (`| head`), or the stream is closed
            pass
    os._exit(status)
