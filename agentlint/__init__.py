"""agentlint: a static analyzer for Python AI-agent code, built on LibCST."""

__version__ = "0.1.0"

DISTRIBUTION = "agentlint-cst"
"""The name on PyPI (`pip install agentlint-cst`): `agentlint` there is an unrelated
project. The command and the import package are `agentlint`."""
