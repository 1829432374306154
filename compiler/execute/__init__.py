"""Stage 5, execute: run a task program over a sampled state and query."""
