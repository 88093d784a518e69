"""`agentlint explain`: the symbol and call graph over every file's facts, the index it
is built from, and the answer (who reads a prompt, up to the roots) and its rendering."""
