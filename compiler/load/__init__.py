"""Stage 1, load: YAML files → plain data with source positions → pydantic models."""
