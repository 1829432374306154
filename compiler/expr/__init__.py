"""The expression language: defined by lark's grammar (expr.lark) and parsed to lark's trees by fastparse (lark
itself parses what fastparse declines: syntax errors and a few lexer corners), type-checked against a scope,
compiled once to Python closures."""
