"""One tool session over one instance: run a model's calls, answer each with text and maybe an image, record all.

- zoom(box, scale k): the box of the picture as the renderer draws it at k times its pixel scale — the same state
  and the same render stream (theme, canvas, jitter, placements, raster edits with their drawn parameters), so
  the same drawing decisions (checked: a redraw whose decisions differ from the trace's is an error, never a wrong
  picture), drawn at k× and cut to box·k. It is a redraw, not an enlarged crop: text, lines and edges are as
  sharp as a picture drawn at that size. Raster edits act per pixel at the new resolution (noise as fine as at
  1×, a blur of the same passes), exactly as `generate(image_scale=k)` would apply them. The whole picture is
  drawn, not the box alone: skia chops the edges of paths at a clip, which moves anti-aliased pixels along curves
  and slanted lines, while the whole picture at k× equals a direct render at k× pixel for pixel.
- crop(box): the pixels of the shown image inside the box.
- inspect(point): where the task is offered it (codegen.task: the grammar declares render.tools.inspect and the
  task's program never reads the field), the declared text field of the record whose mark is under the point
  (the smallest such mark; the later drawn among equals).

Calls are recorded as {raw, tool, args, text, image: {sha256, width, height} | null}; `trace()` is what a tool
episode adds to its instance's trace (`tools`), and `replay_calls` re-runs the calls and compares every text and
every image hash. Everything is deterministic but the watchdog of `acall`: a call that takes longer than
`time_limit_s` is answered with a text error and recorded as timed out (replay checks its tool and arguments, and
cannot check a result that was never returned). The bounds in ToolLimits that decide results (calls, scale,
pixels) are deterministic, so a result never depends on the machine. An episode that could not show a result
(training/episode.py: no room left in its token budget) marks the call `withheld`; replay still checks it.
"""
from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from ..errors import TesseraError
from ..trace.record import canonical_json, object_paths, sha256
from .calls import CALL_CLOSE, CALL_OPEN, CallError, check_arguments, find_call, parse_call
from .limits import TOOLS, ToolLimits

TOOLS_FORMAT = "tessera.tools/1"
MAX_RAW_RECORDED = 1200  # characters of a call's text kept in the trace (a call longer than 1000 is refused)


@dataclass
class ToolResult:
    text: str  # what the model reads back
    png: bytes | None = None  # the image it gets, if any
    tool: str | None = None  # the tool called (None: the call could not be read)
    args: dict | None = None  # its arguments in whole pixels, as run
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return not self.text.startswith("tool error:")


def offered_tools(task, limits: ToolLimits) -> tuple[str, ...]:
    """The tools a session on this task offers: the limits' list, less inspect where the task has no rule."""
    return tuple(t for t in limits.offer if t != "inspect" or task.inspect)


def _png_of(rgb, instance) -> bytes:
    from ..render.png import encode_png

    decisions = instance.trace["render"]["decisions"]
    noisy = any(e.get("edit") == "gauss" for e in decisions.get("raster", []) or [])
    return encode_png(rgb, noisy, fast=instance.trace.get("variety", "none") != "none")


class ToolSession:
    def __init__(self, instance, limits: ToolLimits | None = None):
        self.instance = instance
        self.limits = limits or ToolLimits()
        self.offered = offered_tools(instance.task, self.limits)
        render = instance.trace["render"]
        self.width, self.height = int(render["width"]), int(render["height"])
        self.calls: list[dict] = []
        self._zoomed: tuple[int, object] | None = None  # (k, pixels): the last redraw, zoomed into again cheaply

    # -- what the model is told ---------------------------------------------------------------------------------
    def describe(self) -> str:
        """The tool section of the prompt: the syntax, each offered tool, the bounds."""
        if not self.offered or self.limits.max_calls == 0:
            return ""
        lines = [f"Before you answer you may call a tool: write one call in a reply, e.g. "
                 f'{CALL_OPEN}{{"name": "zoom", "box": [x0, y0, x1, y1], "scale": 2}}{CALL_CLOSE}, and its result '
                 f"comes back. Tools:"]
        if "zoom" in self.offered:
            lines.append(f'- zoom {{"box": [x0, y0, x1, y1], "scale": k}}: the box redrawn from the scene at k times '
                         f"the resolution (k from 2 to {self.limits.max_scale}, default 2), sharper than the pixels")
        if "crop" in self.offered:
            lines.append('- crop {"box": [x0, y0, x1, y1]}: the pixels of the box as shown')
        if "inspect" in self.offered:
            for name, rule in self.instance.task.inspect.items():
                what = rule.says or f"the {rule.field} of the mark there"
                lines.append(f'- inspect {{"point": [x, y]}}: {what}, for the mark under the point')
        lines.append(f"Boxes and points are in pixels of the first image ({self.width} × {self.height}, x to the "
                     f"right and y down from its top-left corner); a returned image holds at most "
                     f"{self.limits.max_image_pixels} pixels. One call per reply, at most {self.limits.max_calls} "
                     f"calls. A reply without a call is your final answer.")
        return "\n".join(lines)

    # -- running calls -------------------------------------------------------------------------------------------
    def call(self, reply_or_call: str) -> ToolResult:
        """Run the next call (a call's text, or a whole reply holding one) and record it. Never raises."""
        raw = self._raw(reply_or_call)
        result = self.run(raw, len(self.calls))
        self.record(raw, result)
        return result

    async def acall(self, reply_or_call: str) -> ToolResult:
        """call() in a worker thread under the time limit: a call that outlasts it is answered with a text error
        (the thread finishes on its own; its result is dropped)."""
        raw = self._raw(reply_or_call)
        index = len(self.calls)
        self.calls.append({})  # the call's place: calls made meanwhile are numbered after it
        try:
            result = await asyncio.wait_for(asyncio.to_thread(self.run, raw, index), self.limits.time_limit_s)
        except asyncio.TimeoutError:
            name, args = self._read(raw)
            result = ToolResult(f"tool error: {name or 'the call'} took longer than "
                                f"{self.limits.time_limit_s:g} s", None, name, args, True)
        self.calls[index] = self._entry(raw, result)
        return result

    @staticmethod
    def _raw(reply_or_call: str) -> str:
        text = reply_or_call if isinstance(reply_or_call, str) else ""
        found = find_call(text)
        return (found if found is not None else text)[:MAX_RAW_RECORDED]

    def _read(self, raw: str) -> tuple[str | None, dict | None]:
        try:
            name, args = parse_call(raw)
            return (name, check_arguments(name, args, self.width, self.height, self.limits.max_scale)) \
                if name in TOOLS else (name, None)
        except CallError:
            return None, None

    def run(self, raw: str, index: int) -> ToolResult:
        """The result of `raw` as call number `index` (from 0) of the session, without recording it. Never raises:
        every failure is a text error."""
        name = None
        try:
            name, args = parse_call(raw)
            if name not in TOOLS:
                raise CallError(f"unknown tool {name[:40]!r} (tools: {', '.join(self.offered) or 'none'})")
            if name not in self.offered:
                raise CallError(f"{name} is not available for this picture (tools: "
                                f"{', '.join(self.offered) or 'none'})")
            if index >= self.limits.max_calls:
                raise CallError(f"no calls left ({self.limits.max_calls} per episode): answer now")
            args = check_arguments(name, args, self.width, self.height, self.limits.max_scale)
            return getattr(self, f"_{name}")(args)
        except CallError as exc:
            return ToolResult(f"tool error: {exc}", None, name if name in TOOLS else None, None)
        except TesseraError as exc:  # a redraw that could not be made: said, never raised
            return ToolResult(f"tool error: {name} could not redraw the picture ({str(exc)[:200]})", None, name, None)

    def _entry(self, raw: str, result: ToolResult) -> dict:
        image = None
        if result.png is not None:
            from ..render.png import image_size

            w, h = image_size(result.png)
            image = {"sha256": sha256(result.png), "width": w, "height": h}
        entry: dict[str, object] = {"raw": raw, "tool": result.tool, "args": result.args, "text": result.text,
                                    "image": image}
        if result.timed_out:
            entry["timed_out"] = True
        return entry

    def record(self, raw: str, result: ToolResult) -> None:
        self.calls.append(self._entry(raw, result))

    def trace(self) -> dict:
        """What a tool episode adds to its instance's trace under `tools`."""
        return {"format": TOOLS_FORMAT, "limits": self.limits.to_mapping(), "offered": list(self.offered),
                "calls": [dict(c) for c in self.calls]}

    # -- the tools -----------------------------------------------------------------------------------------------
    def _region_size(self, w: int, h: int, what: str) -> None:
        if w * h > self.limits.max_image_pixels:
            raise CallError(f"{what} would return {w} × {h} = {w * h} pixels; the limit is "
                            f"{self.limits.max_image_pixels}: ask for a smaller box" +
                            (" or scale" if what == "zoom" else ""))

    def _crop(self, args: dict) -> ToolResult:
        x0, y0, x1, y1 = args["box"]
        self._region_size(x1 - x0, y1 - y0, "crop")
        rgb = self.instance.rgb
        if rgb is None:  # an instance without its pixels: the PNG holds them
            from ..render.png import decode_image_rgb

            rgb = decode_image_rgb(self.instance.png)
        png = _png_of(rgb[y0:y1, x0:x1], self.instance)
        return ToolResult(f"crop [{x0}, {y0}, {x1}, {y1}]: {x1 - x0} × {y1 - y0} pixels of the image as shown",
                          png, "crop", args)

    def _zoom(self, args: dict) -> ToolResult:
        (x0, y0, x1, y1), k = args["box"], args["scale"]
        self._region_size((x1 - x0) * k, (y1 - y0) * k, "zoom")
        redrawn = self.width * k * self.height * k
        if redrawn > self.limits.max_render_pixels:
            raise CallError(f"zoom at {k}× would redraw {redrawn} pixels; the limit is "
                            f"{self.limits.max_render_pixels}: use a smaller scale")
        rgb = self.redraw(k)
        region = rgb[y0 * k:y1 * k, x0 * k:x1 * k]  # cut to the redrawn picture (its size rounds like the shown one)
        png = _png_of(region, self.instance)
        return ToolResult(f"zoom [{x0}, {y0}, {x1}, {y1}] at {k}×: the box redrawn at {k} times the resolution, "
                          f"{region.shape[1]} × {region.shape[0]} pixels", png, "zoom", args)

    def redraw(self, k: int):
        """The whole picture drawn at k times its pixel scale from the instance's render inputs (pixels)."""
        if self._zoomed is not None and self._zoomed[0] == k:
            return self._zoomed[1]
        from ..render.marks import RenderRejected
        from ..render.scene import draw_scene

        inst = self.instance
        r = inst.render_inputs
        if r is None:
            raise TesseraError("the instance carries no render inputs (zoom needs it as generate() built it)")
        state = inst.trace["state"]
        try:
            drawn = draw_scene(inst.task.grammar, state, r.level, r.vocab, r.rng.copy(), object_paths(state),
                               r.scale, None, r.variety, zoom=k, check=False)
        except RenderRejected as exc:
            raise TesseraError(str(exc)) from None
        if canonical_json(drawn.decisions) != canonical_json(inst.trace["render"]["decisions"]):
            raise TesseraError("its drawing decisions differ from the instance's")
        self._zoomed = (k, drawn.rgb)
        return drawn.rgb

    def _inspect(self, args: dict) -> ToolResult:
        x, y = args["point"]
        state, render_map = self.instance.trace["state"], self.instance.trace["render"]["render_map"]
        best = None  # (area, order, text)
        for order, (path, entry) in enumerate(render_map.items()):
            m = _RECORD_PATH.fullmatch(path)
            rule = self.instance.task.inspect.get(m.group(1)) if m else None
            if m is None or rule is None:
                continue
            bx0, by0, bx1, by1 = entry["bbox"]
            if not (bx0 <= x <= bx1 and by0 <= y <= by1):
                continue
            area = (bx1 - bx0) * (by1 - by0)
            if best is None or area < best[0] or (area == best[0] and order > best[1]):
                record = state[m.group(1)][int(m.group(2))]
                best = (area, order, f"{rule.field} = {record[rule.field]}")
        if best is None:
            return ToolResult(f"inspect [{x}, {y}]: no mark there that inspect reads", None, "inspect", args)
        return ToolResult(f"inspect [{x}, {y}]: {best[2]}", None, "inspect", args)


_RECORD_PATH = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[(\d+)\]")  # a record of a top-level state list: "segs[3]"


# -- replay -------------------------------------------------------------------------------------------------------
def replay_calls(instance, tools: dict) -> list[str]:
    """Re-run a tool episode's recorded calls on its rebuilt instance under the recorded limits; the differences
    (empty: every text and every image hash matched). A malformed record raises TesseraError."""
    if not isinstance(tools, dict) or tools.get("format") != TOOLS_FORMAT:
        raise TesseraError(f"malformed trace: 'tools' should be a tool episode (format '{TOOLS_FORMAT}')")
    calls = tools.get("calls")
    if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("raw"), str) for c in calls):
        raise TesseraError("malformed trace: 'tools.calls' should be a list of recorded calls")
    session = ToolSession(instance, ToolLimits.from_mapping(tools.get("limits"), "malformed trace: tools.limits"))
    diffs = []
    if tools.get("offered") != list(session.offered):
        diffs.append(f"tools.offered: recorded {str(tools.get('offered'))[:80]}, rebuilt {list(session.offered)}")
    for i, rec in enumerate(calls):
        rebuilt = session._entry(rec["raw"], session.run(rec["raw"], i))
        session.calls.append(rebuilt)
        keys = ("tool", "args") if rec.get("timed_out") else ("tool", "args", "text", "image")
        for key in keys:
            if canonical_json(rec.get(key)) == canonical_json(rebuilt[key]):
                continue
            if key == "image":
                diffs.append(f"tools.calls[{i}]: the image differs (recorded {_image_text(rec.get(key))}, rebuilt "
                             f"{_image_text(rebuilt[key])})")
            else:
                diffs.append(f"tools.calls[{i}]: {key} differs (recorded {str(rec.get(key))[:80]!r}, "
                             f"rebuilt {str(rebuilt[key])[:80]!r})")
        extra = sorted(set(rec) - {"raw", "tool", "args", "text", "image", "timed_out", "withheld"})
        if extra:
            diffs.append(f"tools.calls[{i}]: {', '.join(extra)[:60]} not fields of a recorded call")
    return diffs


def _image_text(image) -> str:
    if not isinstance(image, dict):
        return "no image"
    return f"{str(image.get('width'))[:8]} × {str(image.get('height'))[:8]}, sha256 {str(image.get('sha256'))[:16]}…"
