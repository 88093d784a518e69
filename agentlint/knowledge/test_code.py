"""What counts as test code, by path (the `tests` setting, explain's grouping)."""

from __future__ import annotations

import os

TEST_FOLDERS = frozenset({"tests", "test", "testing"})


def is_test_path(path: str) -> bool:
    """Test code: under a `tests`/`test`/`testing` folder, `test_*.py`, `*_test.py`,
    `conftest.py` (the conventions pytest and unittest discovery use)."""
    parts = path.replace(os.sep, "/").split("/")
    name = parts[-1]
    return (
        any(p in TEST_FOLDERS for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
        or name == "conftest.py"
    )
