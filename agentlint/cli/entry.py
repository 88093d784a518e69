"""The `agentlint` program: its console script, and `python -m agentlint`.

The garbage collector is paused before anything else of the program is imported, and
resumed once the command's module is loaded (``engine.collector``): loading the modules
allocates some hundred thousand objects that live as long as the process, and every
collection on the way would examine them again and free nothing. Code that imports
agentlint, or calls ``cli.main.main`` itself (click's test runner), keeps its collector
as it is.
"""

from agentlint.engine.collector import pause_for_start_up

pause_for_start_up()  # first: the imports below are what it is for

from agentlint.cli.main import main  # noqa: E402


def entry_point() -> None:
    main()
