"""The layer order of tessera.layers holds: no module imports (at module or function level) from a package in a
higher layer, except the imports listed in ALLOWED below — today's violations, each of which must still exist, so
the list can only shrink. The graph is read statically (bench/import_graph.py), nothing is imported."""
from __future__ import annotations

import textwrap

from bench.import_graph import Edge, build_graph, cycles, package_edges, package_of, strongly_connected
from tessera.layers import LAYER_OF, LAYERS

# (importing module, imported module, kind): known imports from a lower layer into a higher one. Remove an entry
# when its import goes; never add one (move the shared code down a layer instead). Empty since 0.11: the 16 upward
# imports of 0.10 went with the dataset package (schema, names, readers, card, provenance, phash), replay in
# validate, the generation loop's options rules in verify, the version in tessera.version and the commands'
# printing in tessera.console.
ALLOWED: set[tuple[str, str, str]] = set()


def upward_imports(edges: list[Edge], layer_of: dict[str, int] = LAYER_OF) -> set[tuple[str, str, str]]:
    """Every (source, target, kind) whose target's package sits in a higher layer than its source's."""
    return {(e.source, e.target, e.kind) for e in edges
            if e.kind != "typing" and layer_of[package_of(e.source)] < layer_of[package_of(e.target)]}


def test_every_package_has_a_layer_once():
    nodes, _ = build_graph()
    packages = {package_of(n) for n in nodes}
    assert packages - set(LAYER_OF) == set(), "a new package must be placed in tessera.layers.LAYERS"
    named = [p for layer in LAYERS for p in layer]
    assert len(named) == len(set(named))


def test_no_import_from_a_higher_layer():
    _, edges = build_graph()
    found = upward_imports(edges)
    assert found - ALLOWED == set(), "imports from a higher layer (move the shared code down instead)"
    assert ALLOWED - found == set(), "these imports are gone: remove them from ALLOWED"


def test_no_package_cycle():
    # 0.10 had one, api-cli-dev-export-gallery-tessera-tools-trace-validate, mostly through function-level imports
    # (replay reading a dataset through validate and export, validate reading what export wrote, the generation loop
    # running validate's options rules, api, gallery and dev importing the CLI back for its printing).
    nodes, edges = build_graph()
    packages = sorted({package_of(n) for n in nodes})
    assert strongly_connected(packages, set(package_edges(edges, ("module", "function")))) == []


def test_the_pipeline_reads_in_layer_order():
    # The folders show the pipeline: each stage sits above the ones it reads (tessera.layers, README "Layout").
    order = ["load", "check", "codegen", "sample", "execute", "render", "trace", "dataset", "validate", "export"]
    assert [LAYER_OF[p] for p in order] == sorted(LAYER_OF[p] for p in order)
    assert len({LAYER_OF[p] for p in order}) == len(order)


def test_codegen_never_imports_render():
    # The type checker reads the scene vocabulary from tessera.spec; before 0.11 codegen.scene imported the skia
    # renderer (render.marks, render.guides, render.theme) to learn it, and render imported codegen back.
    _, edges = build_graph()
    into_render = {(e.source, e.target) for e in edges if package_of(e.target) == "render"
                   and package_of(e.source) in ("codegen", "check", "expr", "spec")}
    assert into_render == set()
    packages = sorted({package_of(n) for n in build_graph()[0]})
    in_package_cycles = {p for comp in strongly_connected(packages, set(package_edges(edges, ("module", "function"))))
                         for p in comp}
    assert in_package_cycles.isdisjoint({"check", "codegen", "expr", "render", "spec"})


def _package(tmp_path, files: dict[str, str]):
    root = tmp_path / "compiler"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_the_check_sees_function_level_imports_and_skips_type_checking(tmp_path):
    # A crafted package: load reaches up into render inside a function (a lazy import is still a violation), and
    # again under TYPE_CHECKING (never executed: not one); render imports load at module level (allowed).
    root = _package(tmp_path, {
        "__init__.py": "",
        "load/__init__.py": "",
        "load/files.py": """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from ..render.draw import Painter
            else:
                from ..errors import X

            def read():
                from ..render import draw
                return draw
            """,
        "render/__init__.py": "",
        "render/draw.py": "from ..load.files import read\nfrom tessera.load import files\n",
        "errors.py": "",
    })
    nodes, edges = build_graph(root)
    assert nodes == ["tessera", "tessera.errors", "tessera.load", "tessera.load.files", "tessera.render",
                     "tessera.render.draw"]
    assert {(e.source, e.target, e.kind, e.line) for e in edges} == {
        ("tessera.load.files", "tessera.render.draw", "typing", 4),
        ("tessera.load.files", "tessera.errors", "module", 6),  # the `else:` of TYPE_CHECKING runs
        ("tessera.load.files", "tessera.render.draw", "function", 9),
        ("tessera.render.draw", "tessera.load.files", "module", 1),
        ("tessera.render.draw", "tessera.load.files", "module", 2),  # absolute `from tessera.load import files`
    }
    assert upward_imports(edges) == {("tessera.load.files", "tessera.render.draw", "function")}
    assert cycles(nodes, edges, ("module",)) == []
    assert cycles(nodes, edges, ("module", "function")) == [["tessera.load.files", "tessera.render.draw"]]


def test_the_renderer_draws_the_spec_exactly():
    # The spec declares the vocabulary and the renderer binds to it: every mark declared is drawn (with the spec's
    # own channel table), every theme role the spec names is resolved, every guide has a draw function.
    from tessera.render import guides, marks, theme
    from tessera.spec import colors, guides as spec_guides, marks as spec_marks

    assert set(marks.MARKS) == set(spec_marks.MARKS)
    for name, kind in marks.MARKS.items():
        spec = spec_marks.MARKS[name]
        assert (kind.channels, kind.options, kind.summary, kind.batch) == \
            (spec.channels, spec.options, spec.summary, spec.batch)
    assert tuple(theme.ROLES) == colors.ROLE_NAMES
    assert set(guides.DRAW) == set(spec_guides.GUIDES)


def test_a_literal_svg_path_is_checked_without_the_renderer():
    # codegen parses literal path data with tessera.spec.svg; the renderer builds its skia path from the same
    # commands, so both agree on what is an error and where (before, codegen imported render.marks for this).
    import pytest

    from tessera.errors import EvalError
    from tessera.spec.svg import svg_commands

    assert svg_commands("m10,20 l30 0 0 30 z") == (("M", 10.0, 20.0), ("L", 40.0, 20.0), ("L", 40.0, 50.0), ("Z",))
    with pytest.raises(EvalError, match="draws nothing"):
        svg_commands("M 1 1 M 2 2")  # skia replaces a moveto that follows a moveto: one point
    with pytest.raises(EvalError, match=r"'C' takes 6 numbers, at character 9"):
        svg_commands("M 0 0 C 1")
