"""Everything read from one file's ``ast``: module facts (definitions, imports, calls,
references, receiver bindings), the agent model (tools, agents, model calls), cost and
prompt facts, newer-syntax lowering and notebooks. Nothing here runs a rule."""
