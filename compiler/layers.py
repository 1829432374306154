"""The layers of the `tessera` package, lowest first: a module may import (at module or function level) from its own
layer and from the layers below it, never from one above. tests/test_layers.py enforces it over the import graph
that bench/import_graph.py prints (`python bench/import_graph.py` shows the cycles and the package edges).

    errors, layers   typed errors and positions; this table                         (imports nothing of tessera)
    cache            the on-disk compile cache
    load             YAML with positions, the library's files, their models
    spec             the scene vocabulary: marks, guides, frames, colour words, font classes, raster edits
                     (names, channels, types, defaults; no skia) — what the checker and the renderer both read
    expr             the expression and template languages and their builtins
    check            taxonomy and query checks over loaded YAML
    codegen          compile grammars, programs, contracts, components and scenes to closures and a scene IR
    taxonomy         the compiled library (compile every file, resolve tasks)
    verify           the verifier: parse a response, score it (reads nothing above errors)
    sample           draw a state from a compiled grammar
    execute          run a compiled program on a state
    render           draw a compiled scene over a state (skia)
    trace            one instance end to end (sample → execute → render → record) and its replay
    tools            tool calls over an instance (zoom, crop, inspect)
    validate         gates, audits and readers over instances and datasets
    export           build a dataset: rows, shards, provenance, card, balance
    gallery, dev,    contact sheets, the author's dev loop and the generated reference docs and JSON Schemas
    reference        (reads the registries of every layer below)
    api              the Python API
    cli              the `tessera` command
    tessera          the package's `__init__` (the lazy facade over api and errors)

The package of a module is its first name below `tessera` (`render` for tessera.render.marks, `api` for
tessera.api). Packages in one layer may import each other.
"""
from __future__ import annotations

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "layers", "codes"),
    ("cache",),
    ("load",),
    ("spec",),
    ("expr",),
    ("check",),
    ("codegen",),
    ("taxonomy",),
    ("verify",),
    ("sample",),
    ("execute",),
    ("render",),
    ("trace",),
    ("tools",),
    ("validate",),
    ("export",),
    ("gallery", "dev", "reference"),
    ("api",),
    ("cli",),
    ("tessera",),
)

LAYER_OF: dict[str, int] = {package: i for i, layer in enumerate(LAYERS) for package in layer}
