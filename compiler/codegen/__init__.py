"""Stage 3, compile: type-checked specs become executable generators (closures, templates, compiled scenes)."""
