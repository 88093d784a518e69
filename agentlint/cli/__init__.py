"""The command line: one module per command, the options they share in ``options``."""
