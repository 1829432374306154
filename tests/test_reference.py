"""The generated reference (docs/reference/) and JSON Schemas (compiler/schema/): fresh, complete
against what the scene compiler accepts, right about which keys take expressions, and strict enough that every
bundled library file validates while crafted mistakes are rejected (checked with the `jsonschema` library)."""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from tessera import reference
from tessera.codegen.scene import SceneCompiler
from tessera.errors import Diagnostics
from tessera.expr.builtins import BUILTINS
from tessera.expr.compile import Scope
from tessera.expr.template import FILTERS
from tessera.load.yaml_source import parse_yaml
from tessera.spec.guides import GUIDES
from tessera.spec.marks import MARKS
from tessera.spec.properties import (FRAMES, NODE, PANELS, SCALE, TABLE_COLUMN, TILES, VALUE_KINDS,
                                     all_guide_properties, all_mark_properties, expression_column, takes_expression)

ROOT = Path(__file__).resolve().parent.parent
PROBE = "zz_probe"


# -- freshness ----------------------------------------------------------------------------------------------------
def test_committed_reference_and_schemas_are_what_the_generator_writes_now():
    stale = reference.stale(ROOT)
    assert stale == [], f"stale generated files {stale}; run: python -m compiler.reference"


def test_the_check_names_every_missing_changed_or_extra_file(tmp_path):
    written = reference.write(tmp_path)
    assert "docs/reference/marks.md" in written and "compiler/schema/grammar.schema.json" in written
    assert reference.stale(tmp_path) == []
    (tmp_path / "docs/reference/marks.md").write_text("# edited by hand\n")
    (tmp_path / "compiler/schema/old.schema.json").write_text("{}")
    (tmp_path / "compiler/schema/program.schema.json").unlink()
    assert reference.stale(tmp_path) == ["compiler/schema/old.schema.json", "compiler/schema/program.schema.json",
                                         "docs/reference/marks.md"]


def test_output_is_deterministic_and_holds_no_machine_paths():
    first = reference.outputs(ROOT)
    assert reference.outputs(ROOT) == first
    for path, text in first.items():
        assert str(ROOT) not in text and "/home/" not in text and "/tmp/" not in text, path


# -- drift: what the scene compiler accepts is what the reference lists ------------------------------------------
def _unknown_key_lists(scene: str) -> dict[str, set[str]]:
    """Compile a probe scene whose every mapping holds the key PROBE; the compiler's unknown-key errors list what
    each place accepts."""
    diags = Diagnostics()
    doc = parse_yaml("scene:\n" + scene, "probe.yaml", diags)
    SceneCompiler(doc, diags).node(doc, doc.data["scene"], ("scene",), Scope({}, True))
    found = {}
    for d in diags.sorted():
        m = re.match(rf"unknown key '{PROBE}' in (.+?) \(allowed here: (.*)\)$", d.message)
        if m:
            found[m.group(1)] = set(filter(None, m.group(2).split(", ")))
    return found


def _names(props) -> set[str]:
    return {p.name for p in props}


def test_every_key_the_scene_compiler_accepts_is_in_the_reference():
    p = PROBE
    marks = "".join(f"    - {kind}: {{{p}: 1}}\n" for kind in MARKS)
    guides = "".join(f"    - {kind}: {{each: '[1]', {p}: 1, columns: [{{text: '1', {p}: 1}}]}}\n" for kind in GUIDES)
    scene = (f"  {p}: 1\n  marks:\n{marks}  guides:\n{guides}  layers:\n"
             + "".join(f"    - frame: {{{kind}: {{{p}: 1}}}}\n" for kind in FRAMES)
             + f"    - frame: {{cartesian: {{x: {{linear: '[0, 1]', {p}: 1}}, y: {{linear: '[0, 1]'}}}}}}\n"
             + f"    - panels: {{each: '[1]', panel: {{}}, {p}: 1}}\n"
             + f"    - tiles: {{rows: 1, cols: 1, each: '[1]', source: 0, scene: {{}}, {p}: 1}}\n")
    accepted = _unknown_key_lists(scene)
    listed = {"a scene node": _names(NODE), "a scale": _names(SCALE), "panels": _names(PANELS),
              "tiles": _names(TILES), "a column": _names(TABLE_COLUMN),
              **{f"a {k} frame": _names(props) for k, props in FRAMES.items()},
              **{f"a {k} mark": _names(props) for k, props in all_mark_properties().items()},
              **{f"a {k} guide": _names(props) for k, props in all_guide_properties().items()}}
    assert accepted == listed
    # and each of them is on its page
    pages = reference.pages()
    for kind, props in all_mark_properties().items():
        section = pages["marks.md"].split(f"\n## {kind}\n")[1].split("\n## ")[0]
        every = pages["marks.md"].split("\n## Every mark\n")[1].split("\n## ")[0]
        for prop in props:
            assert f"| `{prop.name}` |" in section + every, (kind, prop.name)
    for place, page in ((NODE, "frames.md"), (SCALE, "frames.md"), (PANELS, "frames.md"), (TILES, "frames.md"),
                        (TABLE_COLUMN, "guides.md")):
        for prop in place:
            assert f"| `{prop.name}` |" in pages[page], prop.name


def test_the_keys_the_old_hand_written_tables_missed_are_listed():
    pages = reference.pages()
    arc = pages["marks.md"].split("\n## arc\n")[1].split("\n## ")[0]
    segments = pages["marks.md"].split("\n## segments\n")[1].split("\n## ")[0]
    path = pages["marks.md"].split("\n## path\n")[1].split("\n## ")[0]
    box = pages["marks.md"].split("\n## box\n")[1].split("\n## ")[0]
    assert "| `r_inner` | number |" in arc
    assert "| `cap` | `butt` \\| `round` | `butt` |" in segments
    assert "| `arrow` | `none` \\| `end` \\| `start` \\| `both` | `none` |" in path and "| `dash` |" in path
    assert "| `occluded` | `allow` \\| `redraw` | `allow` |" in box
    assert "| `treemap` | `treemap(values, aspect)` | list of {x, y, x2, y2} |" in pages["builtins.md"]
    assert "| `bucket` | `spatial` \\| `math` \\| `diagram` \\| `pattern_logic` \\| `counting` |" in pages["files.md"]


# -- the Expression? column says what the compiler does -----------------------------------------------------------
def _probe_value(prop):
    # A bare word is a listed word where the key lists words, so the probe is written as an expression that cannot
    # be one: `(zz_probe)`. A template prints it, a name refuses it, an expression reports the unknown name.
    return [f"({PROBE})"] * 4 if prop.form == "expressions" else f"({PROBE})"


def _reads_probe_as_expression(scene_for) -> bool:
    diags = Diagnostics()
    doc = parse_yaml("scene:\n" + scene_for, "probe.yaml", diags)
    SceneCompiler(doc, diags).node(doc, doc.data["scene"], ("scene",), Scope({}, True))
    return any(d.code == "unknown-name" and PROBE in d.message for d in diags.sorted())


def _places():
    """(place, property, probe scene with that property set to the unknown name PROBE)."""
    def flow(value) -> str:
        return json.dumps(value)

    for prop in NODE:
        yield "node", prop, f"  {prop.name}: {flow(_probe_value(prop))}\n"
    for kind, props in all_mark_properties().items():
        for prop in props:
            yield kind, prop, f"  marks:\n    - {kind}: {{{prop.name}: {flow(_probe_value(prop))}}}\n"
    for kind, props in all_guide_properties().items():
        for prop in props:
            body = {"each": "[1]", "columns": [{"text": "1"}], prop.name: _probe_value(prop)}
            yield kind, prop, f"  guides:\n    - {kind}: {flow(body)}\n"
    for prop in TABLE_COLUMN:
        col = {"text": "1", prop.name: _probe_value(prop)}
        yield "column", prop, f"  guides:\n    - table: {flow({'each': '[1]', 'columns': [col]})}\n"
    for kind, props in FRAMES.items():
        for prop in props:
            yield kind, prop, f"  frame: {flow({kind: {prop.name: _probe_value(prop)}})}\n"
    for prop in SCALE:
        scale = {prop.name: _probe_value(prop)} if prop.name in ("linear", "log", "band") else \
            {"linear": "[0, 1]", prop.name: _probe_value(prop)}
        yield "scale", prop, f"  frame: {flow({'cartesian': {'x': scale, 'y': {'linear': '[0, 1]'}}})}\n"
    for prop in PANELS:
        base = {"items": [{}]} if prop.name in ("items", "max") else {"each": "[1]", "panel": {}}
        yield "panels", prop, f"  panels: {flow({**base, prop.name: _probe_value(prop)})}\n"
    for prop in TILES:
        base = {"rows": 1, "cols": 1, "each": "[1]", "source": 0, "scene": {}}
        yield "tiles", prop, f"  tiles: {flow({**base, prop.name: _probe_value(prop)})}\n"


def test_a_key_takes_an_expression_exactly_when_the_reference_says_so():
    """Each key in turn is given the unknown name PROBE: the compiler reports it as an unknown name exactly for the
    keys whose Expression? cell is yes (a template prints it, a name binds it, a word or number refuses it)."""
    wrong = [(place, prop.name, expression_column(prop)) for place, prop, scene in _places()
             if _reads_probe_as_expression(scene) != takes_expression(prop)]
    assert wrong == []


# -- registries are complete --------------------------------------------------------------------------------------
def test_every_function_and_filter_has_a_signature_a_result_and_a_summary():
    assert [b.name for b in BUILTINS.values() if not (b.signature and b.returns and b.doc)] == []
    assert [n for n, f in FILTERS.items() if not (f.signature and f.returns and f.doc)] == []


def test_every_value_kind_used_by_the_scene_language_is_explained():
    kinds = {ch.kind for m in MARKS.values() for ch in m.channels.values()}
    kinds |= {k for g in GUIDES.values() for k, _ in g.exprs.values()}
    kinds |= {p.type for props in (NODE, SCALE, PANELS, TILES, TABLE_COLUMN, *FRAMES.values())
              for p in props if p.form == "expression"}
    assert kinds - set(VALUE_KINDS) == set()


# -- the JSON Schemas ---------------------------------------------------------------------------------------------
SCHEMAS = {name.removesuffix(".schema.json"): schema for name, schema in reference.schemas().items()}


@functools.lru_cache(maxsize=None)
def _validator(kind: str) -> Draft202012Validator:
    shipped = json.loads((ROOT / "compiler" / "schema" / f"{kind}.schema.json").read_text())
    Draft202012Validator.check_schema(shipped)
    return Draft202012Validator(shipped)


def _kind_of(path: Path) -> str:
    rel = path.relative_to(ROOT)
    if rel.parts[0] == "taxonomy":
        return "build" if "builds" in rel.parts else ("vocab" if rel.name == "vocab.yaml" else "taxonomy")
    return {"grammars": "grammar", "programs": "program", "contracts": "contract", "components": "component"}[
        rel.parts[0]]


def test_every_bundled_library_file_validates_against_its_schema():
    validators = {kind: _validator(kind) for kind in SCHEMAS}
    files = [p for top in ("grammars", "programs", "contracts", "components", "taxonomy")
             for p in sorted((ROOT / top).rglob("*.yaml"))]
    assert len(files) > 400 and {_kind_of(p) for p in files} == set(SCHEMAS)
    bad = {}
    for path in files:
        errors = list(validators[_kind_of(path)].iter_errors(yaml.safe_load(path.read_text())))
        if errors:
            bad[str(path.relative_to(ROOT))] = [e.message for e in errors][:3]
    assert bad == {}


GRAMMAR = {"grammar": "demo.g", "summary": "a probe", "state": {"n": 3},
           "render": {"scene": {"frame": {"cartesian": {"x": {"linear": "[0, 1]"}, "y": {"band": "names"}}},
                                "marks": [{"rect": {"x": 0, "y": "n", "fill": "red"}}],
                                "guides": [{"axis": {"scale": "x"}}]}}}


def _errors(kind: str, doc: dict) -> list[tuple[list, str]]:
    """Each error where it is: inside a oneOf (marks, guides, frames) the branch that fits the key best."""
    return sorted((list(leaf.absolute_path), leaf.message)
                  for leaf in (best_match([e]) for e in _validator(kind).iter_errors(doc)))


def _with_mark(mark: dict) -> dict:
    doc = json.loads(json.dumps(GRAMMAR))
    doc["render"]["scene"]["marks"] = [mark]
    return doc


def test_crafted_mistakes_are_rejected_where_they_are():
    assert _errors("grammar", GRAMMAR) == []
    marks = ["render", "scene", "marks", 0]
    # an unknown mark
    [(where, message)] = _errors("grammar", _with_mark({"rectangle": {"x": 0, "y": 0}}))
    assert where == marks and "rectangle" in message
    # an unknown key in a known mark
    assert _errors("grammar", _with_mark({"rect": {"x": 0, "y": 0, "colour": "red"}})) == [
        (marks + ["rect"], "Additional properties are not allowed ('colour' was unexpected)")]
    # a word option takes a listed word or an expression (a string): a number is neither
    [(where, message)] = _errors("grammar", _with_mark({"line": {"x": 0, "y": 0, "x2": 1, "y2": 1, "arrow": 3}}))
    assert where == marks + ["line", "arrow"] and "3 is not valid under any of the given schemas" in message
    # a required channel left out; a YAML list where an expression belongs
    assert _errors("grammar", _with_mark({"rect": {"y": 0}})) == [(marks + ["rect"], "'x' is a required property")]
    assert _errors("grammar", _with_mark({"rect": {"x": [1], "y": 0}})) == [
        (marks + ["rect", "x"], "[1] is not of type 'number', 'string'")]
    # a frame key of another frame; a guide option that is neither a listed word nor an expression (a list)
    doc = json.loads(json.dumps(GRAMMAR))
    doc["render"]["scene"]["frame"] = {"polar": {"rows": 3}}
    doc["render"]["scene"]["guides"] = [{"axis": {"scale": ["x"]}}]
    assert [w for w, _ in _errors("grammar", doc)] == [["render", "scene", "frame", "polar"],
                                                       ["render", "scene", "guides", 0, "axis", "scale"]]
    # file-level keys come from the pydantic models
    program = {"task": "demo.g.t", "grammar": "demo.g", "summary": "s", "operations": ["count"],
               "bucket": "counting", "answer": {"value": "n", "contract": "integer_exact"},
               "witness": {"scalar": "n"}, "prompt": "How many?"}
    assert _errors("program", program) == []
    assert _errors("program", {**program, "bucket": "maths", "promt": "x"}) == [
        ([], "Additional properties are not allowed ('promt' was unexpected)"),
        (["bucket"], "'maths' is not one of ['spatial', 'math', 'diagram', 'pattern_logic', 'counting']")]


def test_the_package_ships_the_schemas_the_docs_show():
    for name in SCHEMAS:
        shipped = ROOT / "compiler" / "schema" / f"{name}.schema.json"
        assert f"compiler/schema/{name}.schema.json" in (ROOT / "docs/reference/files.md").read_text()
        assert json.loads(shipped.read_text())["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert '"schema/*.json"' in (ROOT / "pyproject.toml").read_text()
