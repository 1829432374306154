"""The diagnostic codes: every diagnostic the compiler reports carries one of these stable names (as mypy's error codes
do), shown at the end of its line as `[code]`. Tests assert codes, not wording; docs/diagnostics.md is generated from
this table (`python -m compiler.codes > docs/diagnostics.md`, checked fresh by tests/test_codes.py).

A code never changes meaning once released: a new kind of mistake gets a new code. Severity is the default one; a
warning is shown by `tessera compile`, counted in its summary and made an error by `tessera compile --strict`."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    name: str
    stage: str
    severity: str  # "error" or "warning"
    description: str


_TABLE: list[tuple[str, str, str, str]] = [
    # stage, name, severity, description
    ("load", "file-access", "error", "a file or folder cannot be read, is not a regular file, or is a link"),
    ("load", "file-encoding", "error", "a file is not UTF-8 or holds a character YAML files may not hold"),
    ("load", "yaml-syntax", "error", "YAML syntax, or a YAML feature authoring files do not use (anchors, aliases, "
                                     "merge keys, several documents)"),
    ("load", "yaml-number", "error", "a YAML number out of range or not finite"),
    ("load", "duplicate-key", "error", "a key given twice in one mapping (or a field twice in one record)"),
    ("load", "unknown-key", "error", "a key (or a component parameter) that this place does not take"),
    ("load", "missing-key", "error", "a required key (or component parameter) is missing"),
    ("load", "value-type", "error", "a value of the wrong type or shape for its key"),
    ("load", "bad-id", "error", "an id or name that is not a lowercase dotted name"),
    ("load", "old-type-word", "error", "a type written in a word from before 0.11 (int, float, str, bool, text) in a "
                                       "component parameter or grammar input: the message names the word that "
                                       "replaced it (integer, number, string, boolean, template)"),
    ("check", "unknown-ref", "error", "a reference to a grammar, contract, task, component, domain or vocabulary "
                                      "that does not exist"),
    ("check", "duplicate-id", "error", "an id defined twice, or a task listed twice"),
    ("check", "taxonomy-listing", "error", "the taxonomy index and the tasks disagree (unlisted task, wrong domain, "
                                           "bad pattern, missing index)"),
    ("check", "pattern-unmatched", "warning", "a taxonomy pattern that matches no task"),
    ("check", "query-values", "error", "a query variable's values are empty, mixed, repeated or not scalars"),
    ("check", "bound", "error", "a size bound is exceeded (file, expression, nesting, query space, functions, ...)"),
    ("expr", "expr-syntax", "error", "an expression or function that does not parse, or a form that is not supported"),
    ("expr", "unknown-name", "error", "a name that is not bound where it is read (expression or template)"),
    ("expr", "unknown-field", "error", "a record field that the record does not have"),
    ("expr", "unknown-function", "error", "a call to a function that does not exist"),
    ("expr", "unknown-kind", "error", "an unknown mark, guide, frame, template filter or test, raster edit, font "
                                      "class, audit threshold or rule"),
    ("expr", "unknown-asset", "error", "an icon or object name, or an asset tag, that the asset library does not "
                                       "hold (docs/assets.md)"),
    ("expr", "reserved-name", "error", "a name that is reserved, private (_name), a function, or bound twice"),
    ("expr", "type-mismatch", "error", "an operand, argument or value of the wrong type"),
    ("expr", "arg-count", "error", "a call with the wrong number of arguments"),
    ("expr", "lambda-form", "error", "a lambda where none is allowed, or a function argument that is not a lambda"),
    ("expr", "not-allowed", "error", "a construct this place forbids (random functions in a deterministic place, "
                                     "template statements)"),
    ("expr", "level-outside-levels", "error", "`level` read outside a `levels:` block: name the difficulty "
                                              "parameter there and read its name"),
    ("check", "level-value", "error", "a `levels:` parameter that fails, or is not plain data, at one of the levels "
                                      "0-9 (each is evaluated at every level when compiling)"),
    ("template", "template-syntax", "error", "a template that does not parse"),
    ("scene", "scene-shape", "error", "a scene node, mark, guide, frame, scale or panel written in the wrong shape"),
    ("scene", "component-use", "error", "a component used wrongly (itself, with bad parameters, limits or "
                                        "requirements); errors inside a used component point back at the use"),
    ("contract", "contract-form", "error", "an answer contract's normalisation, synonyms or items are inconsistent"),
    ("task", "answer-type", "error", "a task's answer or witness does not have the type its contract expects"),
    ("task", "query-type", "error", "a query variable clashes with the state, or holds values its grammar cannot read"),
    ("task", "input-value", "error", "a value a grammar input does not take: a task's query value outside the "
                                     "input's values, or an input's default outside them"),
    ("task", "task-shape", "error", "a task without prompts, or whose id does not start with its grammar's domain"),
    ("task", "not-compiled", "error", "a unit did not compile for the reasons listed with it"),
    ("build", "build-config", "error", "a build configuration that selects nothing or asks for the impossible"),
    # warnings (tessera compile shows them; --strict makes them errors)
    ("lint", "task-id-path", "warning", "a task id that does not match the path of its file"),
    ("scene", "color-word-text", "error", "a bare colour word in a text channel: colour words are words only in "
                                          "colour channels (quote it for the word)"),
    ("lint", "unused-query-var", "warning", "a query variable that no step, requirement, answer, witness, prompt or "
                                            "grammar input reads (it multiplies the query space and changes nothing)"),
    ("lint", "query-literal-outside", "warning", "a literal compared (==, !=, in [...]) with a query variable or a "
                                                 "grammar input that takes none of its values: the comparison never "
                                                 "holds (or always does)"),
    ("lint", "level-no-effect", "warning", "a `levels:` parameter with the same value at all ten levels, or one that "
                                           "nothing reads"),
]

CODES: dict[str, Code] = {name: Code(name, stage, sev, desc) for stage, name, sev, desc in _TABLE}


def markdown() -> str:
    """docs/diagnostics.md: the table of codes."""
    lines = ["# Diagnostic codes", "",
             "<!-- generated by `python -m compiler.codes > docs/diagnostics.md`; tests/test_codes.py checks it is "
             "fresh -->", "",
             "Every diagnostic `tessera compile` prints ends with its code, as mypy's do:", "",
             "    grammars/charts/bar.yaml:12:5: error: unknown name 'hieght' in step (known here: ...)  "
             "[unknown-name]", "",
             "Warnings are shown and counted; `tessera compile --strict` makes them errors (exit 2).", "",
             "| code | stage | severity | meaning |", "| --- | --- | --- | --- |"]
    for c in CODES.values():
        lines.append(f"| `{c.name}` | {c.stage} | {c.severity} | {c.description} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
