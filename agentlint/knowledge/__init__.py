"""Framework and logging knowledge, as data.

Rules ask these tables questions instead of carrying their own lists, so teaching
agentlint about a new logging library or a new tool decorator is adding a row here.
This package imports nothing else of agentlint (it sits on the ground floor) and nothing
heavy: the tables are plain tuples and frozensets of strings, and the few helpers
below work on names only, never on syntax trees.
"""
