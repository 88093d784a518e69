"""`python -m agentlint`, the same as the `agentlint` command.

`python -m` puts the current folder first on `sys.path`, so a checked repository's own
`click.py`, `json.py` or `libcst.py` would be imported (and run) in place of the real
ones. The current folder is dropped from the path before anything else is imported,
unless it is the folder this package was imported from (a source checkout). The
`agentlint` console script never has this problem.
"""

import os
import sys


def _drop_current_folder() -> None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cwd = os.getcwd()
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != cwd or cwd == here]


_drop_current_folder()

from agentlint.cli.entry import entry_point  # noqa: E402  (after the path is safe)

if __name__ == "__main__":
    entry_point()
