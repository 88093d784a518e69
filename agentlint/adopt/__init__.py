"""Adopting agentlint on code that already has findings: baselines, `--add-noqa` and
`agentlint init`."""
