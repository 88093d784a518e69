"""agentlint: a static analyzer for Python AI-agent code, built on LibCST."""

__version__ = "0.1.0"
