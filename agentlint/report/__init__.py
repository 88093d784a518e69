"""Output formats: how a run's findings are written out (``write.write_report``), and
what identifies a finding across edits (``identity``)."""
