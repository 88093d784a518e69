"""The engine: settings, discovery, cache, per-file analysis, the project phase and
project boundaries, tools declared across modules, suppressions and fixes."""
