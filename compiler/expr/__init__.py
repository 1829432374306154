"""The expression language: parsed with lark, type-checked against a scope, compiled once to Python closures."""
