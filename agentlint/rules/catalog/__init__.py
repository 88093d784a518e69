"""Every rule's metadata (``RuleMeta``: code, name, summary, documentation page, settings
and their defaults, help), one module per family of rules; each rule class's ``meta`` is
its entry here. (The engine's own codes are in ``builtin``.)

The metadata lives apart from the checks so that listing the rules (configuration,
`agentlint rule`, the docs pages, SARIF, a run answered from the cache) does not import
the analysis the checks run on. So these modules import ``diagnostics`` and
``knowledge`` (settings defaults, word lists a page quotes) and nothing heavier.
"""
