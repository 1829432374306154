"""A seeded fuzz of the scene language and components at run time: mutate a grammar's scene (or a component it
uses), compile the one-grammar library through `tessera.compile`, then sample and render instances of one of its
tasks in-process (levels 0 and 9, variety none and strong). What issue 24 asks of every case:

- no traceback: each compile and each sample ends with a valid instance or a clean error (CompileFailed,
  TesseraError);
- no error from author YAML without a position: every compile diagnostic names `path:line:col` inside the library,
  and so does every run-time error (a render that failed, or a state or program step whose error is quoted in a
  sampling failure); a sampling failure that names the constraint that keeps failing, or a render that stayed
  illegible, is an outcome of sampling rather than an error in the YAML and is counted apart;
- no sample over the documented CPU bound: README, "Bounds and untrusted input", evaluation: a sample is bounded by
  4,000,000 steps and "a hopeless task ends in about a second". A sample is measured in CPU seconds
  (time.process_time, so a busy machine does not make it flake) against SAMPLE_CPU_S, three times that second.

    .venv/bin/python bench/fuzz_scene.py                    # 1000 cases, seed 24, all four sample settings
    .venv/bin/python bench/fuzz_scene.py --cases 300 --seed 3 --kind camera --kind add_use --show 10

tests/test_fuzz_scene.py runs a bounded, seeded number of cases of the same engine in the suite.
"""
from __future__ import annotations

import argparse
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SAMPLE_CPU_S = 3.0  # README: a sample is bounded by its step budget and "ends in about a second"; three times that
COMPILE_CPU_S = 10.0  # one grammar and its tasks compile in well under a second; this is far past any of them
CASE_CPU_S = 40.0  # a watchdog (CPU time, ITIMER_PROF): a case still running after this is a hang
ALL_SAMPLES = ((0, "none"), (9, "strong"), (9, "none"), (0, "strong"))  # (level, variety)

POSITION = re.compile(r"(?P<path>[^\s:()`'\"\[\]]+\.yaml):(?P<line>\d+):(?P<col>\d+)")

# -- the library ----------------------------------------------------------------------------------------------------
_USE = re.compile(r"\buse:\s*([a-z][a-z0-9_]*)")
_GRAMMAR_OF = re.compile(r"(?m)^grammar:\s*(\S+)")


@dataclass
class Library:
    """The bundled library's grammars, the task files of each and the components each uses (transitively)."""
    grammars: dict[str, Path]  # grammar id → file
    programs: dict[str, list[Path]]  # grammar id → its task files
    components: dict[str, Path]  # component name → file
    params: dict[str, dict]  # component name → its params (name → spec)
    uses: dict[str, set[str]]  # grammar id → components it uses, directly or through other components

    @classmethod
    def read(cls, root: Path = ROOT) -> "Library":
        grammars = {_GRAMMAR_OF.search(p.read_text())[1]: p for p in sorted((root / "grammars").rglob("*.yaml"))}
        programs: dict[str, list[Path]] = {g: [] for g in grammars}
        for p in sorted((root / "programs").rglob("*.yaml")):
            g = _GRAMMAR_OF.search(p.read_text())
            if g and g[1] in programs:
                programs[g[1]].append(p)
        components = {p.stem: p for p in sorted((root / "components").glob("*.yaml"))}
        params = {name: (yaml.safe_load(p.read_text()) or {}).get("params") or {} for name, p in components.items()}
        direct = {name: set(_USE.findall(p.read_text())) & set(components) for name, p in components.items()}
        uses = {}
        for g, p in grammars.items():
            todo, seen = set(_USE.findall(p.read_text())) & set(components), set()
            while todo:
                c = todo.pop()
                if c not in seen:
                    seen.add(c)
                    todo |= direct[c]
            uses[g] = seen
        return cls(grammars, programs, components, params, uses)


def make_base(base: Path, lib: Library) -> Path:
    """A library root with every contract and component and the vocabulary; each case adds one grammar."""
    for d in ("contracts", "components"):
        shutil.copytree(ROOT / d, base / d)
    (base / "taxonomy").mkdir()
    shutil.copy(ROOT / "taxonomy/vocab.yaml", base / "taxonomy/vocab.yaml")
    return base


def place_grammar(root: Path, lib: Library, gid: str) -> Path:
    """Put grammar `gid` and its tasks (alone) into the root, with a taxonomy index of its domain."""
    for d in ("grammars", "programs"):
        shutil.rmtree(root / d, ignore_errors=True)
    domain = gid.split(".")[0]
    src = lib.grammars[gid]
    dest = root / src.relative_to(ROOT)
    dest.parent.mkdir(parents=True)
    shutil.copy(src, dest)
    for p in lib.programs[gid]:
        (root / p.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(p, root / p.relative_to(ROOT))
    (root / "taxonomy/taxonomy.yaml").write_text(
        f'taxonomy: fuzz\nversion: 1\ndomains:\n  {domain}:\n    summary: Fuzzed.\n    tasks: ["{domain}.*"]\n')
    return dest


# -- values a mutation writes -----------------------------------------------------------------------------------
# Numbers at the edges (0, -1, ±1e300, 2^62), expressions that make NaN or infinity, huge and empty ranges.
NUMBERS = [0, -1, 1, 0.5, 1e300, -1e300, 1e-300, "1e300", "-1e300", "1e300 * 10", "0 / 0", "1 / 0", "0.0 / 0.0",
           "sqrt(-1)", "log(0)", "1e308 + 1e308", "1e300 - 1e300", "2 ** 62", "-(2 ** 62)", "4611686018427387903",
           "10 ** 20", "-0.0", 65536, 100000, -100000, 4096, 2048, 8192]
INTS = [0, -1, 1, 2, 16, 17, 64, 256, 257, 10000, "2 ** 40", "-(2 ** 40)", "10 ** 9"]
COLORS = ["red", "ink", "paper", "'#zzzzzz'", "'nope'", "''", "'#ffffff'", "'#000'", "series"]
TEXTS = ["'hello'", "''", 1e300, "1e300", "'x' * 3000", "'\\n'", 0, -1, "'{{ x }}'", "'\u202e mirrored'"]
POINTS = ["[]", "[[0, 0]]", "[[0, 0], [1e300, 1e300]]", "[[0, 0], [-1e300, 1e300], [1, 1]]",
          "[{x: 0, y: 0}, {x: 1, y: 1}]", "[[i, i] for i in range(5000)]", "[[0, 0], [0, 0], [0, 0]]",
          "[[i % 7, i % 5] for i in range(300)]", "[[0 / 1, 1], [2, 3e300]]"]
POINTS3 = ["[]", "[[0, 0, 0], [1, 0, 0], [1, 1, 0]]", "[[0, 0, 0], [1e300, 0, 0], [0, 1e300, 0]]",
           "[{x: 0, y: 0, z: 0}, {x: 1, y: 0, z: 0}, {x: 0, y: 1, z: 1}]", "[[i, i, i] for i in range(3000)]"]
NUM_LISTS = ["[]", "[0]", "[1e300, -1]", "[0, 0]", "[1, 2, 3]", "[-1e300, 1e300]", "list(range(9000))",
             "[0.5 for i in range(50)]"]
LISTS = ["[]", "range(0)", "range(3)", "range(200)", "range(2000)", "range(9999)", "range(10001)",
         "[{} for i in range(40)]", "[1e300]", "[[]]", "range(100000)"]
BOOLS = [True, False, "1 > 0", "canvas.width > 100000"]  # an expression that is false (the scene reads no `level`)
SHAPES = ["'circle'", "''", "'nope'", "'square'", "'star'"]
SVG_PATHS = ["'M 0 0 L 1 1'", "'M 0 0 L 1e300 1e300 Z'", "''", "'Q'", "'M 0 0 ' * 900", "'M 0 0 C 1 1 2 2'"]
ANY = ["[]", "[[0, 0, 1, 1]]", "[[0, 0, 1e300, 1]]", "[[i, 0, i, 1] for i in range(3000)]", "0", "[[0, 0]]"]

BY_KIND = {"pos": NUMBERS, "number": NUMBERS, "integer": INTS, "color": COLORS, "shown": TEXTS, "points": POINTS,
           "points3": POINTS3, "nums": NUM_LISTS, "list": LISTS, "boolean": BOOLS, "string": SHAPES,
           "palette": SHAPES, "any": ANY}

# Parameter kinds of components (components/*.yaml `params`): values of each kind, and of the wrong kind.
PARAM_VALUES = {
    "list": LISTS + ["[{label: 'a', value: 1e300}, {label: 'b', value: -1e300}]",
                     "[{label: 'a', value: 0}, {label: 'a', value: 0}]"],
    "number": NUMBERS, "integer": INTS, "template": ["", "{{ 1e300 }}", "x" * 3000, "{{ 0 }}"],
    "string": ["''", "'nope'", "'x' * 5000"], "color": COLORS, "boolean": BOOLS, "any": LISTS + NUMBERS,
    "fn": ["b -> 1e300", "b -> -1e300", "b -> 0 / 0", "b -> b", "b -> 0", "b -> ''", "b -> 'x' * 2000",
           "b -> sqrt(-1)", "b -> [b]", "b -> 1e300 * 10", "b -> 'nope'", "b -> -1"],
}


def extreme(rng, kind: str):
    return rng.choice(BY_KIND.get(kind, NUMBERS))


# -- walking a scene ------------------------------------------------------------------------------------------------
def scene_nodes(node, out=None) -> list[dict]:
    """Every scene node (a mapping) of a scene tree: the root, layers, panels, tiles' scenes."""
    out = [] if out is None else out
    if not isinstance(node, dict):
        return out
    out.append(node)
    for child in node.get("layers") or []:
        scene_nodes(child, out)
    panels = node.get("panels")
    if isinstance(panels, dict):
        scene_nodes(panels.get("panel"), out)
        for child in panels.get("items") or []:
            scene_nodes(child, out)
    tiles = node.get("tiles")
    if isinstance(tiles, dict):
        scene_nodes(tiles.get("scene"), out)
    return out


def leaves(tree, out=None) -> list[tuple]:
    """(container, key) of every scalar below `tree`."""
    out = [] if out is None else out
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    for k, v in items:
        if isinstance(v, (dict, list)):
            leaves(v, out)
        else:
            out.append((tree, k))
    return out


def frames_in(scene) -> list[dict]:
    return [n["frame"] for n in scene_nodes(scene) if isinstance(n.get("frame"), dict)]


# -- mutations: each edits the case's documents (a dict of path → YAML data) and says what it did ---------------------
@dataclass
class Target:
    """What one case edits: the grammar document, and the component documents it may change or add."""
    root: Path
    lib: Library
    gid: str
    grammar: dict
    docs: dict = field(default_factory=dict)  # path → data of every document edited (the grammar's included)

    def scene(self) -> dict | None:
        render = self.grammar.get("render")
        return render.get("scene") if isinstance(render, dict) and isinstance(render.get("scene"), dict) else None

    def component(self, name: str) -> dict:
        path = self.root / "components" / f"{name}.yaml"
        if path not in self.docs:
            self.docs[path] = yaml.safe_load(path.read_text())
        return self.docs[path]

    def scenes(self, rng) -> dict:
        """A scene to edit: the grammar's, or (half the time, when it uses one) a component's."""
        used = sorted(self.lib.uses[self.gid])
        if used and rng.random() < 0.5:
            c = self.component(rng.choice(used))
            if isinstance(c.get("scene"), dict):
                return c["scene"]
        return self.scene()


def _random_channels(rng, kind: str, each: bool) -> dict:
    from tessera.render.marks import MARKS

    spec = MARKS[kind]
    body = {}
    if each:
        body["each"] = rng.choice(["range(0)", "range(3)", "range(40)", "range(400)", "range(3000)", "[]",
                                   "range(10001)"])
        body["as"] = "it"
    for name, ch in spec.channels.items():
        if ch.required or rng.random() < 0.3:
            if each and ch.kind in ("pos", "number") and rng.random() < 0.4:
                body[name] = rng.choice(["it", "it * 1e300", "it / 7", "-it", "it % 3"])
            elif name == "d":
                body[name] = rng.choice(SVG_PATHS)
            else:
                body[name] = extreme(rng, ch.kind)
    return body


def m_number(t: Target, rng) -> str:
    """Replace one scalar of a scene (a channel, a let, a region, a frame or scale parameter, a with-argument)."""
    scene = t.scenes(rng)
    spots = [(c, k) for c, k in leaves(scene) if k not in ("use", "as", "index", "group")]
    if not spots:
        return "no scalar"
    c, k = rng.choice(spots)
    c[k] = rng.choice(NUMBERS + LISTS[:3] + ["[]"])
    return f"{k} := {c[k]!r}"


def m_state(t: Target, rng) -> str:
    """Replace a state field with an extreme number, a huge or empty range, an empty list."""
    state = t.grammar.get("state")
    if not isinstance(state, dict) or not state:
        return "no state"
    name = rng.choice(sorted(state))
    state[name] = rng.choice(NUMBERS + LISTS + ["[]", "[[] for i in range(3)]", "''"])
    return f"state {name} := {state[name]!r}"


def m_mark(t: Target, rng) -> str:
    """Add a mark of a random kind, with extreme channel values, to a random node (maybe over a range)."""
    from tessera.render.marks import MARKS

    nodes = [n for n in scene_nodes(t.scenes(rng)) if "use" not in n]
    if not nodes:
        return "no node"
    kind = rng.choice(sorted(MARKS))
    node = rng.choice(nodes)
    body = _random_channels(rng, kind, rng.random() < 0.5)
    if not isinstance(node.get("marks"), list):
        node["marks"] = []
    node["marks"].append({kind: body})
    return f"mark {kind} {body}"


def _frame(rng) -> dict:
    kind = rng.choice(["canvas", "cartesian", "plane", "polar", "grid", "camera"])
    if kind == "canvas":
        return {"canvas": {}}
    if kind == "cartesian":
        def scale():
            k = rng.choice(["linear", "log", "band"])
            return {k: rng.choice(NUM_LISTS if k != "band" else LISTS + ["['a', 'a']"])}
        return {"cartesian": {"x": scale(), "y": scale()}}
    if kind == "plane":
        return {"plane": {"x": rng.choice(NUM_LISTS), "y": rng.choice(NUM_LISTS)}}
    if kind == "polar":
        body = {k: rng.choice(NUMBERS) for k in ("start", "inner", "sweep") if rng.random() < 0.6}
        if rng.random() < 0.5:
            body["r"] = {"linear": rng.choice(NUM_LISTS)}
        return {"polar": body}
    if kind == "grid":
        return {"grid": {"rows": rng.choice(INTS), "cols": rng.choice(INTS), "hex": rng.random() < 0.3}}
    return {"camera": _camera(rng)}


def _camera(rng) -> dict:
    bounds = rng.choice(["[[0, 0, 0], [1, 1, 1]]", "[[1, 1, 1], [0, 0, 0]]", "[[0, 0, 0], [0, 0, 0]]",
                         "[[0, 0, 0], [1e300, 1e300, 1e300]]", "[[-1e300, 0, 0], [1e300, 1, 1]]", "[]",
                         "[[0, 0], [1, 1]]", "[[0, 0, 0], [5, 5, 0]]", "[[0, 0, 0], [1e-300, 1e-300, 1e-300]]"])
    body = {"projection": rng.choice(["isometric", "orthographic", "perspective"]), "bounds": bounds}
    for key in ("azimuth", "elevation", "distance"):
        if rng.random() < 0.6:
            body[key] = rng.choice(NUMBERS)
    return body


def m_frame(t: Target, rng) -> str:
    """Give a random node a frame of a random kind with extreme parameters."""
    nodes = [n for n in scene_nodes(t.scenes(rng)) if "use" not in n]
    if not nodes:
        return "no node"
    node = rng.choice(nodes)
    node["frame"] = _frame(rng)
    return f"frame {node['frame']}"


def m_camera(t: Target, rng) -> str:
    """Change a camera's projection, angles, distance or bounds; or add a layer with a camera and 3-D marks."""
    cams = [f["camera"] for f in frames_in(t.scenes(rng)) if isinstance(f.get("camera"), dict)]
    if cams and rng.random() < 0.6:
        cam = rng.choice(cams)
        key = rng.choice(["azimuth", "elevation", "distance", "bounds", "projection"])
        cam[key] = _camera(rng)[key] if key in ("bounds", "projection") else rng.choice(NUMBERS)
        return f"camera {key} := {cam[key]!r}"
    scene = t.scene()
    if scene is None:
        return "no scene"
    kind = rng.choice(["box", "prism", "cylinder", "face", "text3"])
    layer = {"frame": {"camera": _camera(rng)}, "marks": [{kind: _random_channels(rng, kind, rng.random() < 0.6)}]}
    _add_layer(scene, layer)
    return f"camera layer {layer}"


def _add_layer(scene: dict, layer: dict) -> None:
    if "use" in scene:  # a node that uses a component has no layers: wrap it
        inner = {k: scene.pop(k) for k in list(scene) if k in ("use", "with")}
        scene["layers"] = [inner]
    if not isinstance(scene.get("layers"), list):
        scene["layers"] = []
    scene["layers"].append(layer)


def _args(t: Target, rng, name: str, extreme_share: float = 0.5) -> dict:
    """Arguments for a use of component `name`: extreme values of each parameter's kind, else its default."""
    out = {}
    for pname, spec in (t.lib.params.get(name) or {}).items():
        kind = spec.get("kind", "any") if isinstance(spec, dict) else "any"
        if "default" in (spec or {}) and rng.random() > extreme_share:
            continue
        out[pname] = rng.choice(PARAM_VALUES.get(kind, NUMBERS))
    return out


def m_use_args(t: Target, rng) -> str:
    """Replace one argument of a component use with an extreme value of its kind (or of another kind)."""
    scene = t.scenes(rng)
    uses = [n for n in scene_nodes(scene) if isinstance(n.get("use"), str) and n["use"] in t.lib.params]
    if not uses:
        return m_add_use(t, rng)
    node = rng.choice(uses)
    params = t.lib.params[node["use"]]
    if not params:
        return "no params"
    pname = rng.choice(sorted(params))
    kind = params[pname].get("kind", "any") if isinstance(params[pname], dict) else "any"
    if rng.random() < 0.15:
        kind = rng.choice(sorted(PARAM_VALUES))  # the wrong kind: a positioned compile error
    if not isinstance(node.get("with"), dict):
        node["with"] = {}
    node["with"][pname] = rng.choice(PARAM_VALUES.get(kind, NUMBERS))
    return f"use {node['use']} with {pname} := {node['with'][pname]!r}"


def m_add_use(t: Target, rng) -> str:
    """Add a layer that uses a random component with extreme arguments."""
    scene = t.scene()
    if scene is None:
        return "no scene"
    name = rng.choice(sorted(t.lib.components))
    layer = {"use": name, "with": _args(t, rng, name)}
    if rng.random() < 0.3:
        layer["region"] = rng.choice(["[0, 0, 1, 1]", "[0, 0, 0, 0]", "[1, 1, 0, 0]", "[0, 0, 1e300, 1]",
                                      "[-1, -1, 2, 2]"])
    _add_layer(scene, layer)
    return f"add use {layer}"


def m_nested_use(t: Target, rng) -> str:
    """Put a chain of new components between a use and its component: the use calls the first, each calls the next
    (a few times: nested uses fan out), the last calls the component, every argument handed on unchanged; one
    argument may be wrapped as well (see m_wrap)."""
    scene = t.scenes(rng)
    uses = [n for n in scene_nodes(scene) if isinstance(n.get("use"), str) and n["use"] in t.lib.params]
    if not uses:
        return m_add_use(t, rng)
    node = rng.choice(uses)
    last, given = node["use"], dict(node.get("with") or {})
    depth, fan = rng.randint(1, 4), rng.randint(1, 3)
    chain = [f"fz_chain_{i}" for i in range(depth)]
    kinds = {p: ((t.lib.params[last].get(p) or {}).get("kind", "any")) for p in given}
    for i, name in enumerate(chain):
        nxt = chain[i + 1] if i + 1 < depth else last
        handed = {p: "{{ %s }}" % p if kinds[p] == "template" else p for p in given}
        body = {"layers": [{"use": nxt, "with": dict(handed)} for _ in range(fan)]}
        t.docs[t.root / "components" / f"{name}.yaml"] = {
            "component": name, "summary": "Fuzzed.", "params": {p: {"kind": kinds[p]} for p in given},
            "scene": body}
    node["use"] = chain[0]
    if given and rng.random() < 0.5:
        p = rng.choice(sorted(given))
        if isinstance(given[p], str) and kinds[p] != "template":
            node["with"][p] = _wrapped(given[p], rng)
    return f"chain {depth} × {fan} → {last}"


# Wrappers that keep an expression's type (mostly): a number pushed to an extreme or made NaN, a list emptied or
# grown to thousands of copies of its first item, a lambda's result pushed the same way.
NUM_WRAPS = ["({}) * 1e300", "({}) - 1e300", "({}) * 0", "-({})", "({}) / 0", "({}) * 1e300 * 1e300",
             "({}) + 2 ** 61", "({}) * 1000", "({}) - ({})", "({}) * 1e-300"]
LIST_WRAPS = ["({})[:0]", "[({})[0] for i in range(500)]", "[({})[0] for i in range(4000)]",
              "[({})[0] for i in range(10001)]", "({}) + ({})", "({})[:1]"]


def _wrapped(expr: str, rng) -> str:
    if "->" in expr:
        head, _, body = expr.partition("->")
        return f"{head.strip()} -> {rng.choice(NUM_WRAPS).format(body.strip(), body.strip())}"
    wraps = LIST_WRAPS if rng.random() < 0.4 else NUM_WRAPS
    return rng.choice(wraps).format(expr, expr)


def m_wrap(t: Target, rng) -> str:
    """Wrap one expression of a scene (a channel, let, frame parameter or a component's argument) so that it keeps
    its type but takes an extreme value: huge, tiny, zero, negative, NaN-making, an empty or a huge list."""
    scene = t.scenes(rng)
    spots = [(c, k) for c, k in leaves(scene) if isinstance(c[k], str) and k not in ("use", "as", "index", "group")
             and not (isinstance(c, dict) and k in ("title", "caption", "header"))]
    if not spots:
        return "no expression"
    c, k = rng.choice([(c, k) for c, k in spots if k not in _OPTIONS] or spots)
    c[k] = _wrapped(c[k], rng)
    return f"{k} := {c[k]!r}"


_OPTIONS = {"sizes", "anchor", "baseline", "weight", "halo", "occluded", "arrow", "cap", "curve", "closed", "square",
            "projection", "side", "shape", "scale", "header", "lines", "labels", "line", "grid", "clear", "bind"}


def m_count(t: Target, rng) -> str:
    """Make a mark, guide or panels `each` draw nothing, one item, or thousands of copies of its first item."""
    scene = t.scenes(rng)
    spots = [(c, k) for c, k in leaves(scene) if k == "each" and isinstance(c[k], str)]
    if not spots:
        return m_wrap(t, rng)
    c, k = rng.choice(spots)
    n = rng.choice([0, 1, 300, 2000, 5000, 10000])
    c[k] = f"[({c[k]})[0] for i in range({n})]" if n else f"({c[k]})[:0]"
    return f"each := {c[k]!r}"


def m_state_wrap(t: Target, rng) -> str:
    """Wrap a state field so that it keeps its type with an extreme value (see m_wrap)."""
    state = t.grammar.get("state")
    spots = sorted(k for k, v in (state or {}).items() if isinstance(v, (str, int, float)) and not isinstance(v, bool))
    if not spots:
        return "no state"
    name = rng.choice(spots)
    state[name] = _wrapped(str(state[name]), rng)
    return f"state {name} := {state[name]!r}"


def m_recursive_use(t: Target, rng) -> str:
    """A component that uses itself, directly or through another (refused when compiling, at the use)."""
    scene = t.scene()
    if scene is None:
        return "no scene"
    a, b = "fz_rec_a", "fz_rec_b"
    direct = rng.random() < 0.5
    for name, other in ((a, a if direct else b), (b, a)):
        t.docs[t.root / "components" / f"{name}.yaml"] = {
            "component": name, "summary": "Fuzzed.", "params": {"n": {"kind": "integer", "default": "3"}},
            "scene": {"layers": [{"use": other, "with": {"n": "n - 1"}}],
                      "marks": [{"circle": {"x": 0.5, "y": 0.5, "r": "n"}}]}}
    _add_layer(scene, {"use": a, "with": {"n": rng.choice(INTS)}})
    if not direct and rng.random() < 0.5:  # or a bundled component made to use itself
        used = sorted(t.lib.uses[t.gid])
        if used:
            name = rng.choice(used)
            c = t.component(name)
            if isinstance(c.get("scene"), dict) and "use" not in c["scene"]:
                c["scene"].setdefault("layers", [])
                if isinstance(c["scene"]["layers"], list):
                    c["scene"]["layers"].append({"use": name, "with": _args(t, rng, name, 0.0)})
                    return f"recursive {name}"
    return f"recursive {'direct' if direct else 'mutual'}"


def m_structure(t: Target, rng) -> str:
    """Delete a key of a node, empty one of its lists, or copy a node into its own layers."""
    nodes = scene_nodes(t.scenes(rng))
    node = rng.choice(nodes)
    if not node:
        return "empty node"
    how = rng.choice(["delete", "empty", "copy"])
    key = rng.choice(sorted(node))
    if how == "delete":
        del node[key]
    elif how == "empty":
        node[key] = rng.choice([[], {}, "", None])
    else:
        copy = yaml.safe_load(yaml.safe_dump(node))
        node.setdefault("layers", [])
        if isinstance(node["layers"], list) and "use" not in node:
            node["layers"].append(copy)
    return f"{how} {key}"


def m_panels(t: Target, rng) -> str:
    """Add panels or tiles with extreme counts, columns, gaps and sources."""
    scene = t.scene()
    if scene is None:
        return "no scene"
    if rng.random() < 0.5:
        layer = {"panels": {"each": rng.choice(LISTS), "as": "p", "cols": rng.choice(INTS),
                            "panel": {"marks": [{"circle": {"x": 0.5, "y": 0.5, "r": rng.choice(NUMBERS)}}],
                                      "frame": {"plane": {"x": "[0, 1]", "y": "[0, 1]"}}}}}
        if rng.random() < 0.3:
            layer["panels"]["max"] = rng.choice([1, 256, 300, 0])
    else:
        rows, cols = rng.choice(INTS), rng.choice(INTS)
        layer = {"tiles": {"rows": rows, "cols": cols, "each": rng.choice(LISTS), "source": rng.choice(INTS),
                           "turn": rng.choice(INTS), "scene": {"marks": [{"rect": {"x": 0, "y": 0, "x2": 1,
                                                                                  "y2": 1, "fill": "red"}}],
                                                              "frame": {"plane": {"x": "[0, 1]", "y": "[0, 1]"}}}}}
        if rng.random() < 0.5:
            layer["tiles"]["slot_cols"] = rng.choice(INTS)
    _add_layer(scene, layer)
    return f"layer {layer}"


def m_guide(t: Target, rng) -> str:
    """Add a guide (axis, legend, ramp, table) with extreme values to a node."""
    nodes = [n for n in scene_nodes(t.scenes(rng)) if "use" not in n]
    if not nodes:
        return "no node"
    node = rng.choice(nodes)
    kind = rng.choice(["axis", "legend", "ramp", "table"])
    if kind == "axis":
        g = {"axis": {"scale": rng.choice(["x", "y", "r", "theta"]), "values": rng.choice(LISTS + NUM_LISTS)}}
    elif kind == "legend":
        g = {"legend": {"each": rng.choice(LISTS), "label": rng.choice(TEXTS), "color": rng.choice(COLORS)}}
    elif kind == "ramp":
        g = {"ramp": {"domain": rng.choice(NUM_LISTS), "palette": rng.choice(["'viridis'", "'nope'", "''"])}}
    else:
        g = {"table": {"each": rng.choice(LISTS), "columns": [{"header": "h", "text": rng.choice(TEXTS)}]}}
    node.setdefault("guides", [])
    if isinstance(node["guides"], list):
        node["guides"].append(g)
    return f"guide {g}"


def m_canvas(t: Target, rng) -> str:
    """Change the canvas: width, height, scale and aspect ranges; or a node's region and inset."""
    render = t.grammar.get("render")
    if not isinstance(render, dict):
        return "no render"
    if rng.random() < 0.5:
        canvas = render.setdefault("canvas", {})
        if not isinstance(canvas, dict):
            return "canvas not a mapping"
        key = rng.choice(["width", "height", "scale", "aspect"])
        canvas[key] = rng.choice([0, -1, 1, 64, 2048, 2049, 1e300, [0.1, 10], [1, 0.5], [1e-300, 1e300], [0, 0]])
        return f"canvas {key} := {canvas[key]!r}"
    node = rng.choice(scene_nodes(t.scenes(rng)))
    key = rng.choice(["region", "inset"])
    node[key] = rng.choice(["[0, 0, 1, 1]", "[0, 0, 0, 0]", "[1, 1, 0, 0]", "[0.5, 0.5, 0.5, 0.5]", "1e300",
                            "[-1e300, 0, 1, 1]", "2048", "[0, 0]", "-1", "[1e300, 1e300]", 10000])
    return f"{key} := {node[key]!r}"


MUTATIONS = {f.__name__[2:]: f for f in (m_number, m_state, m_mark, m_frame, m_camera, m_use_args, m_add_use,
                                         m_nested_use, m_recursive_use, m_structure, m_panels, m_guide, m_canvas,
                                         m_wrap, m_count, m_state_wrap)}
# The type-keeping mutations reach run time most often: they are drawn more.
WEIGHTS = {"wrap": 3, "count": 2, "state_wrap": 2, "nested_use": 2, "camera": 2, "mark": 2}


# -- running one case -----------------------------------------------------------------------------------------------
@dataclass
class Run:
    """One compile or one sample of a case: its outcome and CPU seconds."""
    what: str  # "compile" or "sample L variety"
    outcome: str  # ok, error, rejected (a sampling outcome), unpositioned, traceback, slow, hang
    seconds: float
    message: str = ""


@dataclass
class Case:
    index: int
    kind: str
    grammar: str
    change: str = ""
    runs: list[Run] = field(default_factory=list)
    yaml: dict = field(default_factory=dict)  # path → text of the edited documents (to reproduce a failure)

    @property
    def problems(self) -> list[Run]:
        return [r for r in self.runs if r.outcome in PROBLEMS]


PROBLEMS = ("unpositioned", "traceback", "slow", "hang")


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


def positioned(message: str, root: Path) -> bool:
    """Does the message name a `path:line:col` (line and column from 1) of a file inside the library root?"""
    for m in POSITION.finditer(message):
        path = Path(m["path"])
        where = path if path.is_absolute() else root / path
        if int(m["line"]) > 0 and int(m["col"]) > 0 and where.resolve().is_relative_to(root.resolve()):
            return True
    return False


# Sampling failures whose subject is a constraint or legibility, not a mistake at one place in the YAML: they name
# the constraint that keeps failing (or the legibility rule), which is what an author needs.
_SAMPLING_OUTCOME = re.compile(r"no state satisfied the constraints|sampling used its whole work budget|"
                               r"no legible render in")
_QUOTED_ERROR = re.compile(r"(?:last error|its error): (.*)", re.S)


def classify_error(exc: BaseException, root: Path) -> tuple[str, str]:
    """(outcome, message) of an exception raised by compile or generate."""
    from tessera.errors import CompileFailed, EvalError, TesseraError

    if isinstance(exc, CompileFailed):
        bad = [str(d) for d in exc.diagnostics.sorted() if not d.pos.line or not positioned(str(d), root)]
        return ("unpositioned", bad[0]) if bad else ("error", str(exc).splitlines()[0])
    if isinstance(exc, EvalError) or not isinstance(exc, TesseraError):
        return "traceback", "".join(traceback.format_exception(exc, limit=-6))
    message = str(exc)
    if _SAMPLING_OUTCOME.search(message) and "rendering failed" not in message:
        quoted = _QUOTED_ERROR.search(message)
        # A step's error quoted in the failure (a state or program expression that raised) must say where it is.
        if quoted and not re.search(r"^\S+ \(|constraint '", quoted[1]) and not positioned(quoted[1], root):
            return "unpositioned", message
        return "rejected", message
    return ("error" if positioned(message, root) else "unpositioned"), message


def _timed(what: str, fn, root: Path, bound: float) -> tuple[Run, object]:
    t0 = time.process_time()
    value = None
    try:
        value = fn()
        outcome, message = "ok", ""
    except _Hang:
        outcome, message = "hang", f"still running after {CASE_CPU_S:g} s of CPU"
    except BaseException as exc:  # noqa: BLE001 - anything escaping the API is a finding
        outcome, message = classify_error(exc, root)
    seconds = time.process_time() - t0
    if seconds > bound and outcome not in ("hang", "traceback"):
        outcome, message = "slow", f"{seconds:.2f} s of CPU (bound {bound:g} s); {outcome}: {message}"
    return Run(what, outcome, seconds, message), value


def run_case(base: Path, lib: Library, index: int, rng, kinds=None, samples=ALL_SAMPLES) -> Case:
    import tessera
    from tessera.trace.instance import generate

    kind = rng.choice([k for k in sorted(kinds or MUTATIONS) for _ in range(WEIGHTS.get(k, 1))])
    gid = rng.choice(sorted(lib.grammars))
    case = Case(index, kind, gid)
    gpath = place_grammar(base, lib, gid)
    t = Target(base, lib, gid, yaml.safe_load(gpath.read_text()))
    t.docs[gpath] = t.grammar
    originals = {p: p.read_bytes() for p in (base / "components").glob("*.yaml")}
    try:
        case.change = MUTATIONS[kind](t, rng)[:300]
        for path, data in t.docs.items():
            text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1_000_000)
            path.write_text(text)
            case.yaml[str(path.relative_to(base))] = text
        old = signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, CASE_CPU_S)
        try:
            run, tax = _timed("compile", lambda: tessera.compile(base), base, COMPILE_CPU_S)
            case.runs.append(run)
            if tax is not None:
                tasks = sorted(tid for tid in tax.tasks if tax.info(tid).grammar == gid)
                task_id = rng.choice(tasks)
                run, task = _timed("compile task", lambda: tax.task(task_id), base, COMPILE_CPU_S)
                if run.outcome != "ok":
                    case.runs.append(run)
                else:
                    seed = rng.randrange(1000)
                    for level, variety in samples:
                        run, _ = _timed(f"sample {task_id} seed {seed} level {level} {variety}",
                                        lambda: generate(task, seed, level, None, tax.vocab, variety=variety),
                                        base, SAMPLE_CPU_S)
                        case.runs.append(run)
                        if run.outcome == "hang":
                            break
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, old)
    finally:
        for p in (base / "components").glob("*.yaml"):
            if p not in originals:
                p.unlink()
        for p, data in originals.items():
            if p.read_bytes() != data:
                p.write_bytes(data)
    return case


@dataclass
class Report:
    cases: list[Case] = field(default_factory=list)

    @property
    def runs(self) -> list[Run]:
        return [r for c in self.cases for r in c.runs]

    @property
    def failures(self) -> list[Case]:
        return [c for c in self.cases if c.problems]

    def count(self, outcome: str) -> int:
        return sum(r.outcome == outcome for r in self.runs)

    def table(self) -> str:
        cols = ("ok", "error", "rejected", "unpositioned", "traceback", "slow", "hang")
        per: dict[str, Counter] = {}
        cpu: dict[str, float] = {}
        for c in self.cases:
            per.setdefault(c.kind, Counter())["cases"] += 1
            for r in c.runs:
                per[c.kind][r.outcome] += 1
                if r.what.startswith("sample"):
                    cpu[c.kind] = max(cpu.get(c.kind, 0.0), r.seconds)
        head = f"{'mutation':<14} {'cases':>5} " + " ".join(f"{k:>12}" for k in cols) + f" {'max s/sample':>12}"
        rows = [head]
        total = Counter()
        for kind in sorted(per):
            total.update(per[kind])
            rows.append(f"{kind:<14} {per[kind]['cases']:>5} " + " ".join(f"{per[kind][k]:>12}" for k in cols)
                        + f" {cpu.get(kind, 0.0):>12.2f}")
        rows.append(f"{'total':<14} {total['cases']:>5} " + " ".join(f"{total[k]:>12}" for k in cols)
                    + f" {max(cpu.values(), default=0.0):>12.2f}")
        return "\n".join(rows)

    def describe(self, case: Case) -> str:
        out = [f"-- case {case.index}: {case.kind} on {case.grammar}: {case.change}"]
        for r in case.problems:
            out.append(f"   {r.what}: {r.outcome} ({r.seconds:.2f} s)\n   {r.message[-2000:]}")
        return "\n".join(out)


def fuzz(base: Path, cases: int, seed: int = 24, kinds=None, samples=ALL_SAMPLES, start: int = 0) -> Report:
    """`cases` seeded cases (case i is the same whatever ran before it: each has its own random stream)."""
    import random

    lib = Library.read()
    make_base(base, lib)
    report = Report()
    for i in range(start, start + cases):
        report.cases.append(run_case(base, lib, i, random.Random(f"{seed}:{i}"), kinds, samples))
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--start", type=int, default=0, help="first case index (to rerun one case: --start I --cases 1)")
    ap.add_argument("--kind", action="append", choices=sorted(MUTATIONS), help="only these mutations (repeatable)")
    ap.add_argument("--quick", action="store_true", help="two samples a case (level 0 none, level 9 strong)")
    ap.add_argument("--show", type=int, default=8, help="failures to print in full")
    ap.add_argument("--yaml", action="store_true", help="print the edited YAML of the failures shown")
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        report = fuzz(Path(tmp), args.cases, args.seed, args.kind, ALL_SAMPLES[:2] if args.quick else ALL_SAMPLES,
                      args.start)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(report.table())
    samples = [r for r in report.runs if r.what.startswith("sample")]
    print(f"\n{len(report.cases)} cases, {len(report.runs)} runs ({len(samples)} samples), "
          f"{len(report.failures)} cases with problems: {report.count('traceback')} tracebacks, "
          f"{report.count('unpositioned')} errors without a position, {report.count('slow')} over the CPU bound, "
          f"{report.count('hang')} hangs; {cpu:.1f} s CPU, {wall:.1f} s wall")
    for c in report.failures[:args.show]:
        print("\n" + report.describe(c))
        if args.yaml:
            for path, text in c.yaml.items():
                print(f"   --- {path}\n" + "\n".join("   " + ln for ln in text.splitlines()))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
