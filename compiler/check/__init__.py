"""Stage 2, check: cross-file rules (references, query bounds, task identity, taxonomy coverage)."""
