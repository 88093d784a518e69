"""The documentation speaks of the project alone: no absolute paths of a machine, no
"our machine". (docs/performance.md is a generated benchmark report, and the rule pages
are rendered from the rules' metadata: both are checked where they are made.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|tmp|root|home|opt|Users|mnt|srv|private|var/folders)/")
OUR_MACHINE = re.compile(r"\b(?:our|my)\b[\w\s-]{0,20}\bmachines?\b|\bthis machine\b", re.IGNORECASE)


def pages() -> list[Path]:
    docs = [p for p in (ROOT / "docs").glob("*.md") if p.name != "performance.md"]
    return [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted(docs)]


def test_no_machine_paths_in_the_docs():
    found = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for pattern in (MACHINE_PATH, OUR_MACHINE):  # a phrase may run over a line break
            for match in pattern.finditer(text):
                number = text.count("\n", 0, match.start()) + 1
                found.append(f"{page.relative_to(ROOT)}:{number}: {' '.join(match.group(0).split())}")
    assert found == []


def test_the_patterns_catch_what_they_are_for():
    assert MACHINE_PATH.search("run it in /work/wt/cli") and MACHINE_PATH.search("(/tmp/x)")
    assert not MACHINE_PATH.search("-o /dev/stdout, x.py -> /etc/passwd, /path/to/project")
    assert OUR_MACHINE.search("on our 2-core machine") and OUR_MACHINE.search("on our 2-core\nmachine")
    assert not OUR_MACHINE.search("a fresh machine")
