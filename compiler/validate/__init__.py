"""Stage 8, validate: per-instance quality gates, perceptual hashes, whole-dataset validation."""
