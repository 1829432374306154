"""What an instance is and how it is recorded: the Instance, its trace (canonical JSON, hashes, the library
versions), the witness as drawn geometry, and the paths of the state's scene objects. The generation loop
(trace/loop.py) fills these in; tools, the dataset rows and replay read them.
"""
from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..errors import TesseraError

if TYPE_CHECKING:  # annotations only: the dataset rows and `tessera sample`'s files import this module cheaply
    from ..codegen.task import CompiledTask
    from ..sample.rng import Rng

TRACE_FORMAT = "tessera.trace/1"
VARIETIES = ("none", "mild", "strong")  # render-only visual variety; "none" is the plain look, byte for byte


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    import importlib.metadata
    import platform

    import jinja2
    import lark
    import numpy
    import skia

    from ..version import __version__

    import PIL
    from PIL import features
    from zlib_ng import zlib_ng

    # libdeflate (the `deflate` package, which bundles one libdeflate release) writes every PNG (render/png.py; zlib
    # and zlib-ng wrote them until 0.9, and stay recorded); the libjpeg-turbo that Pillow bundles codes the jpeg
    # edit, OpenCV runs the raster edits' pixel passes (raster.py)
    return {"tessera": __version__, "python": platform.python_version(), "skia": skia.__version__,
            "numpy": numpy.__version__, "zlib": zlib.ZLIB_RUNTIME_VERSION, "zlib_ng": zlib_ng.ZLIBNG_VERSION,
            "deflate": importlib.metadata.version("deflate"), "lark": lark.__version__, "jinja2": jinja2.__version__,
            "pillow": PIL.__version__, "libjpeg": features.version("jpg") or "none",
            "opencv": _opencv_version()}


def _opencv_version() -> str:
    """OpenCV's version from its package's metadata (importing cv2 costs 0.15 s, and plain builds never use it)."""
    import importlib.metadata

    for dist in ("opencv-python-headless", "opencv-python", "opencv-contrib-python-headless", "opencv-contrib-python"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "none"


@dataclass
class RenderInputs:
    """What drew the accepted picture, kept beside the instance (not serialised: the trace rebuilds it): the render
    stream as it stood when that render began, so a tool can redraw the same picture at another resolution."""
    level: int
    vocab: dict
    rng: Rng  # the render stream at the start of the accepted render attempt (copy it before drawing from it)
    scale: float
    variety: str


@dataclass
class Instance:
    instance_id: str
    task: CompiledTask
    png: bytes
    prompt: str
    answer: Any
    label: dict
    witness: dict
    trace: dict
    stats: dict = field(default_factory=dict)
    rgb: Any = None  # decoded pixels of `png` (not serialised)
    render_inputs: RenderInputs | None = None  # what drew `png` (not serialised; tools.zoom redraws from it)

    def record(self) -> dict:
        """The instance as written next to its image: what a consumer needs, without the full trace."""
        t = self.task
        return {
            "instance_id": self.instance_id, "task": t.id, "domain": t.domain, "grammar": t.grammar.id,
            "operations": t.operations, "bucket": t.bucket, "answer_type": t.answer_type,
            "query": self.trace["query"], "level": self.trace["level"], "seed": self.trace["seed"],
            "prompt": self.prompt, "answer": self.answer, "label": self.label, "witness": self.witness,
            "image_sha256": self.trace["hashes"]["image"],
        }


def object_paths(state: dict) -> dict[int, str]:
    """id(record) → its path in the state ("bars[2]"); records are the scene objects witnesses can name."""
    paths: dict[int, str] = {}

    def walk(v, path):
        if isinstance(v, dict):
            paths.setdefault(id(v), path)
            for k, x in v.items():
                walk(x, f"{path}.{k}")
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{path}[{i}]")

    for name, v in state.items():
        walk(v, name)
    return paths


def traced(value: Any, paths: dict[int, str]) -> Any:
    """A value for the trace: scene objects become {"$ref": path} so steps read as references into the state."""
    if isinstance(value, dict):
        p = paths.get(id(value))
        if p is not None:
            return {"$ref": p}
        return {k: traced(v, paths) for k, v in value.items()}
    if isinstance(value, list):
        return [traced(v, paths) for v in value]
    return value


def witness(task: CompiledTask, value: Any, paths: dict[int, str], render_map: dict) -> dict:
    kind = task.witness_kind
    if kind == "scalar":
        return {"kind": kind, "value": value}

    def geom(obj, what: str):
        p = paths.get(id(obj))
        if p is None:
            raise TesseraError(f"{task.witness.where}: task {task.id}: the witness is not a scene object from the "
                               f"state")
        entry = render_map.get(p)
        if entry is None:
            raise TesseraError(f"{task.witness.where}: task {task.id}: witness object {p} was not drawn by the scene "
                               f"(no mark binds it)")
        return p, entry[what]

    if kind in ("bbox", "point"):
        p, g = geom(value, kind)
        return {"kind": kind, "objects": [p], "value": g}
    if kind == "segment":
        if len(value) != 2:
            raise TesseraError(f"{task.witness.where}: task {task.id}: a segment witness needs exactly two objects, "
                               f"got {len(value)}")
        (pa, a), (pb, b) = geom(value[0], "point"), geom(value[1], "point")
        return {"kind": kind, "objects": [pa, pb], "value": [a[0], a[1], b[0], b[1]]}
    if kind == "map":
        entries = {name: geom(obj, "bbox") for name, obj in value.items()}
        return {"kind": kind, "objects": [p for p, _ in entries.values()],
                "value": {name: g for name, (_, g) in entries.items()}}
    pairs = [geom(v, "bbox") for v in value]
    return {"kind": kind, "objects": [p for p, _ in pairs], "value": [g for _, g in pairs]}


def instance_record(task: CompiledTask, seed: int, level: int, q: dict, forced: bool, seeds: dict,
                    stream_overrides: dict, attempts: int, rejections: dict, state: dict, result, paths: dict,
                    rendered, render_attempts: int, image_scale: float, template_index: int, prompt: str,
                    label: dict, witness_: dict, variety: str, balance: dict | None) -> tuple[str, dict]:
    """(instance id, trace) of an accepted sample: the hashes that name it and everything replay rebuilds it from."""
    hashes = {
        "task_spec": task.spec_hash, "grammar_spec": task.grammar.spec_hash,
        "contract": sha256(canonical_json(label | {"answer": None})),
        "state": sha256(canonical_json(state)), "prompt": sha256(prompt), "image": sha256(rendered.png),
    }
    instance_id = sha256(canonical_json([task.id, hashes["state"], hashes["prompt"], hashes["image"],
                                         result.answer]))[:24]
    trace = {
        "format": TRACE_FORMAT, "instance_id": instance_id, "task": task.id, "seed": seed, "level": level,
        "query": q, "query_forced": forced,
        "streams": seeds, "stream_overrides": dict(stream_overrides),
        "attempts": attempts, "rejections": rejections,
        "state": state, "steps": {k: traced(v, paths) for k, v in result.steps.items()},
        "program_work": result.work,
        "answer": result.answer, "label": label, "witness": witness_,
        "render": {"decisions": rendered.decisions, "render_attempts": render_attempts,
                   "render_map": rendered.render_map, "scale": image_scale,
                   # the final image's size: a varied canvas differs from the grammar's
                   "width": int(rendered.rgb.shape[1]), "height": int(rendered.rgb.shape[0])},
        "prompt_template": template_index, "prompt": prompt,
        "versions": versions(), "hashes": hashes,
    }
    if variety != "none":
        trace["variety"] = variety
    if balance is not None:
        trace["balance"] = balance  # only balanced builds carry it: other traces keep the bytes they always had
    return instance_id, trace
