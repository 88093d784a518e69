"""The rules: one module per rule (or family), the rule API they are written against
(``api``, ``diagnostics``), the LibCST traversal they share, every rule's metadata and
documentation (``catalog``), and the registry of every code (``registry``)."""
