"""The agent model of one file: its tools and the parameters a model fills, its model
calls and agent runs, and the agents nested under others."""
