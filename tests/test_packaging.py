"""What a user downloads: the sdist and the wheel, built for real (`python -m build`).

Both carry the MIT licence (`License-Expression: MIT`, the LICENSE file); the metadata
names the Python versions `requires-python` claims; the sdist ships its tests with
everything they read (fixtures, docs, README), and a part of its suite runs from the
unpacked sdist alone.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".ci", ".venv*", "venv*", "build", "dist", "*.egg-info", "__pycache__", ".agentlint_cache",
    ".hypothesis", ".pytest_cache", ".ruff_cache",
)
"""What a checkout holds besides its sources: virtualenvs, build output, caches."""


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    pytest.importorskip("build")
    # Built from a copy of the checkout: setuptools stages the sdist and writes its
    # egg-info inside the source folder, so two builds from one checkout at once (the
    # suite on several Pythons, as `.ci/run` runs it) would take each other's files.
    source = tmp_path_factory.mktemp("source") / "agentlint"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE)
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        # not the checkout: a leftover build/ folder there would shadow the build package
        cwd=out,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out


def _sdist(dist: Path) -> tarfile.TarFile:
    (path,) = dist.glob("*.tar.gz")
    return tarfile.open(path)


def _metadata(text: str) -> email.message.Message:
    return email.message_from_string(text)


def test_licence_and_metadata(dist: Path):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = _metadata(archive.read(info).decode("utf-8"))
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
        assert not any(n.startswith(("tests/", "fixtures/")) for n in names)  # the wheel holds the package only
    assert metadata["License-Expression"] == "MIT"
    assert metadata["License-File"] == "LICENSE"
    assert metadata.get_all("Keywords")
    classifiers = metadata.get_all("Classifier")
    assert "Typing :: Typed" in classifiers
    # the versions the classifiers name are the ones requires-python claims, and tested
    minimum = tuple(int(p) for p in re.fullmatch(r">=(\d+)\.(\d+)", project["requires-python"]).groups())
    named = sorted(
        tuple(int(p) for p in c.rsplit(" ", 1)[1].split("."))
        for c in classifiers
        if re.fullmatch(r"Programming Language :: Python :: \d+\.\d+", c)
    )
    assert named[0] == minimum
    assert named == [(3, minor) for minor in range(minimum[1], named[-1][1] + 1)]


def test_the_sdist_ships_what_its_tests_read(dist: Path):
    with _sdist(dist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    for needed in (
        "LICENSE", "README.md", "pyproject.toml", ".pre-commit-hooks.yaml",
        "tests/conftest.py", "tests/test_fixtures.py", "fixtures/demo/support_agent/tools.py", "docs/rules/AGL302.md",
        "docs/configuration.md",
    ):
        assert needed in names, needed
    for test in (ROOT / "tests").glob("test_*.py"):
        assert f"tests/{test.name}" in names, test.name
    assert not [n for n in names if "__pycache__" in n or ".agentlint_cache" in n or n.endswith(".pyc")]


def test_tests_run_from_the_unpacked_sdist(dist: Path, tmp_path: Path):
    with _sdist(dist) as archive:
        archive.extractall(tmp_path, filter="data") if sys.version_info >= (3, 12) else archive.extractall(tmp_path)
    (unpacked,) = tmp_path.iterdir()
    env = {**os.environ, "PYTHONPATH": str(unpacked), "PYTHONDONTWRITEBYTECODE": "1"}
    where = subprocess.run(
        [sys.executable, "-c", "import agentlint; print(agentlint.__file__)"],
        cwd=unpacked, env=env, capture_output=True, text=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(unpacked), where.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
         "tests/test_docs.py", "tests/test_structure.py", "tests/test_fixtures.py", "-k", "AGL302 or structure or docs"],
        cwd=unpacked, env=env, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout
