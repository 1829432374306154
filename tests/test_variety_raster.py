"""Visual variety (issue 12, parts 4–6): raster edits after drawing, canvas scale and aspect, the `variety` setting.

Measured on the pixels: witness boxes stay on their marks after every edit; an over-strong edit is rejected as
illegible; the same seed gives the same bytes (in another process too), another render seed another picture with
the same answer; mild and strong instances replay byte for byte; `variety: none` rebuilds instances made by the
code before variety existed, byte for byte."""
from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np
import pytest

from tessera.cli import main, write_instance
from tessera.errors import CompileFailed, SamplingFailed, TesseraError
from tessera.render import raster
from tessera.render.marks import RenderRejected
from tessera.render.png import decode_png_rgb
from tessera.render.theme import COLORS
from tessera.trace.instance import canonical_json, generate
from tessera.validate.replay import replay_files, replay_trace
from tests.bounds import run_bounded
from tests.conftest import ROOT

BASELINE = ROOT / "tests" / "data" / "variety_none_baseline.json"


def sha(data) -> str:
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


# -- variety none: exactly the bytes before variety existed -----------------------------------------------------
def test_variety_none_rebuilds_the_stored_instances(taxonomy):
    for case in json.loads(BASELINE.read_text())["instances"]:
        task = taxonomy.tasks[case["task"]]
        for kwargs in ({}, {"variety": "none"}):
            inst = generate(task, case["seed"], case["level"], vocab=taxonomy.vocab, **kwargs)
            assert inst.instance_id == case["instance_id"], case["task"]
            assert sha(inst.png) == case["image_sha256"], case["task"]
            assert sha(decode_png_rgb(inst.png).tobytes()) == case["pixels_sha256"], case["task"]
            # Versions and the source hashes of the grammar and program are the files' versions, not the instance:
            # declaring canvas ranges (used by mild and strong only) changes a grammar's hash, not its plain bytes.
            trace = {k: v for k, v in inst.trace.items() if k != "versions"}
            trace["hashes"] = {k: v for k, v in trace["hashes"].items() if k not in ("task_spec", "grammar_spec")}
            assert sha(canonical_json(trace)) == case["trace_sha256"], case["task"]
            assert "variety" not in inst.trace and "raster" not in inst.trace["render"]["decisions"]


# -- determinism ------------------------------------------------------------------------------------------------
DET_CASES = [("icons.shape_field.count_matching", 2, "strong"), ("pages.data_table.cell_lookup", 4, "strong"),
             ("charts.line_chart.largest_change", 1, "mild"), ("graphs.weighted_graph.cheapest_route", 2, "strong")]


def test_same_seed_same_bytes_and_another_render_seed_another_picture(taxonomy):
    for tid, seed, variety in DET_CASES:
        task = taxonomy.tasks[tid]
        a = generate(task, seed, 4, vocab=taxonomy.vocab, variety=variety)
        b = generate(task, seed, 4, vocab=taxonomy.vocab, variety=variety)
        assert a.png == b.png and canonical_json(a.trace) == canonical_json(b.trace)
        assert a.trace["variety"] == variety and a.trace["render"]["decisions"]["raster"] is not None
        plain = generate(task, seed, 4, vocab=taxonomy.vocab)
        other = generate(task, seed, 4, vocab=taxonomy.vocab, variety=variety, stream_seeds={"render": 12345})
        for inst in (plain, other):
            assert inst.png != a.png
            assert (inst.answer, inst.label, inst.prompt) == (a.answer, a.label, a.prompt)
            assert inst.trace["state"] == a.trace["state"]


DOMAINS = ("charts", "games", "geometry", "graphs", "icons", "illustrations", "pages", "physics", "puzzles",
           "symbolic", "three_d")


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_task_renders_under_strong_variety_with_the_plain_answer(taxonomy, domain):
    """Every task of the library draws under strong variety at its smallest and largest level (a grammar whose
    canvas range squeezed its layout failed a third of its strong renders while every plain build passed), and
    the picture is all that changes: the answer, label, prompt and state are the plain instance's."""
    tasks = [tid for tid in sorted(taxonomy.tasks) if tid.split(".")[0] == domain]
    assert tasks, domain
    for tid in tasks:
        task = taxonomy.tasks[tid]
        for seed, level in ((1, 0), (2, 9)):
            plain = generate(task, seed, level, vocab=taxonomy.vocab)
            varied = generate(task, seed, level, vocab=taxonomy.vocab, variety="strong")  # SamplingFailed: a bug
            assert (varied.answer, varied.label, varied.prompt) == (plain.answer, plain.label, plain.prompt), tid
            assert varied.trace["state"] == plain.trace["state"], tid
            assert varied.png != plain.png, tid


def test_same_bytes_in_a_fresh_process(taxonomy):
    """Caches (the noise tile, coordinate grids) must not carry state from one render into the next."""
    code = ("import hashlib, sys; from compiler.taxonomy import compile_taxonomy; "
            "from tessera.trace.instance import generate; t = compile_taxonomy(sys.argv[1]); "
            "print(' '.join(hashlib.sha256(generate(t.tasks[k], int(s), 4, vocab=t.vocab, variety=v).png)"
            ".hexdigest() for k, s, v in (a.split(',') for a in sys.argv[2:])))")
    args = [f"{tid},{seed},{variety}" for tid, seed, variety in DET_CASES[:2]]
    proc = run_bounded([sys.executable, "-c", code, str(ROOT), *args], 120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    here = [sha(generate(taxonomy.tasks[t], s, 4, vocab=taxonomy.vocab, variety=v).png) for t, s, v in DET_CASES[:2]]
    assert proc.stdout.split() == here


def test_every_edit_is_deterministic_from_its_parameters():
    rgba = _synthetic()[0]
    for edits in _edit_cases():
        a, _ = raster.apply_edits(rgba, {}, edits, (250, 250, 250))
        b, _ = raster.apply_edits(rgba.copy(), {}, edits, (250, 250, 250))
        assert a.tobytes() == b.tobytes(), edits
        assert a.dtype == np.uint8 and a.shape == (*rgba.shape[:2], 3)
        assert not np.array_equal(a, rgba[..., :3]), f"{edits} changed nothing"


# -- witnesses stay on their marks ------------------------------------------------------------------------------
MARKS = {"red": ((60, 50, 180, 130), (220, 40, 40)), "green": ((300, 80, 420, 150), (40, 160, 60)),
         "blue": ((200, 220, 330, 330), (35, 95, 215)), "small": ((80, 280, 96, 296), (135, 60, 190))}


def _synthetic():
    rgba = np.full((384, 512, 4), 250, dtype=np.uint8)
    rgba[..., 3] = 255
    render_map = {}
    for name, ((x0, y0, x1, y1), rgb) in MARKS.items():
        rgba[y0:y1, x0:x1, :3] = rgb
        render_map[name] = {"bbox": [x0, y0, x1, y1], "point": [(x0 + x1) / 2, (y0 + y1) / 2]}
    return rgba, render_map


def _edit_cases() -> list[list[dict]]:
    """Every edit alone at the top of its strong bounds, a photo look, and a mixed chain."""
    b = {k: v[1] for k, v in raster.BOUNDS["strong"].items()}
    warp = {"edit": "warp", "angle": b["warp"]["angle"], "shear": b["warp"]["shear"], "px": b["warp"]["persp"],
            "py": -b["warp"]["persp"], "fill": None, "margin": 0.0}
    alone = {
        "warp": warp,
        "blur": {"edit": "blur", "passes": b["blur"]["passes"]},
        "jpeg": {"edit": "jpeg", "quality": b["jpeg"]["quality"][0]},
        "tone": {"edit": "tone", "brightness": -b["tone"]["brightness"], "contrast": 1 - b["tone"]["contrast"],
                 "gamma": 1 + b["tone"]["gamma"]},
        "vignette": {"edit": "vignette", "amount": b["vignette"]["amount"]},
        "scanlines": {"edit": "scanlines", "period": 2, "depth": b["scanlines"]["depth"]},
        "gauss": {"edit": "gauss", "sigma": b["gauss"]["sigma"], "seed": 99},
        "salt_pepper": {"edit": "salt_pepper", "fraction": b["salt_pepper"]["fraction"], "seed": 7},
        "file": {"edit": "file", "format": "jpeg", "quality": b["jpeg"]["quality"][0]},
    }
    assert set(alone) | {"photo"} == set(raster.EDITS)  # a new edit must join this test
    photo = [{**warp, "angle": -b["photo"]["angle"], "shear": 0.0, "px": b["photo"]["persp"],
              "py": b["photo"]["persp"], "fill": [58, 60, 66], "margin": 0.06},
             {"edit": "vignette", "amount": b["photo"]["amount"]},
             {"edit": "gauss", "sigma": b["photo"]["sigma"], "seed": 5}]
    return [[e] for e in alone.values()] + [photo, [warp, alone["blur"], alone["jpeg"], alone["gauss"]]]


def _mark_box(img: np.ndarray, entry: dict, margin: int = 10) -> tuple[int, int, int, int]:
    """The box of the pixels that have the mark's colour (as the edited picture shows it at the mark's point),
    searched around the witness box; lone pixels (salt and pepper, noise) do not count."""
    x0, y0, x1, y1 = entry["bbox"]
    px, py = (int(v) for v in entry["point"])
    ref = np.median(img[py - 2:py + 3, px - 2:px + 3, :3].reshape(-1, 3), axis=0)
    a0, b0 = max(0, int(x0) - margin), max(0, int(y0) - margin)
    win = img[b0:int(y1) + margin, a0:int(x1) + margin, :3].astype(int)
    mask = np.abs(win - ref).max(axis=2) < 55
    rows, cols = np.flatnonzero(mask.sum(axis=1) >= 3), np.flatnonzero(mask.sum(axis=0) >= 3)
    return a0 + cols[0], b0 + rows[0], a0 + cols[-1] + 1, b0 + rows[-1] + 1


def test_witness_boxes_stay_on_their_marks_after_every_edit():
    rgba, render_map = _synthetic()
    for edits in _edit_cases():
        out, moved = raster.apply_edits(rgba, render_map, edits, (250, 250, 250))
        geometric = any(e["edit"] == "warp" for e in edits)
        assert (moved != render_map) == geometric
        for name, entry in moved.items():
            fx0, fy0, fx1, fy1 = _mark_box(out, entry)
            x0, y0, x1, y1 = entry["bbox"]
            # the coloured pixels fill the witness box (up to blur and resampling at the edges) and stay inside it
            assert x0 - 1.5 <= fx0 <= x0 + 2.5 and y0 - 1.5 <= fy0 <= y0 + 2.5, (edits, name, entry, (fx0, fy0))
            assert x1 - 2.5 <= fx1 <= x1 + 1.5 and y1 - 2.5 <= fy1 <= y1 + 1.5, (edits, name, entry, (fx1, fy1))
            px, py = entry["point"]
            assert x0 < px < x1 and y0 < py < y1


def test_rotated_box_is_the_hull_of_the_turned_corners():
    edit = {"edit": "warp", "angle": 3.0, "shear": 0.0, "px": 0.0, "py": 0.0, "fill": None, "margin": 0.0}
    h = raster.homography(edit, 512, 384)
    (entry,) = raster._move_map({"m": {"bbox": [100, 100, 300, 200], "point": [200, 150]}}, h).values()
    s = h[0][0] / np.cos(np.radians(3))  # the shrink that keeps the turned canvas in the picture
    assert 0.9 < s < 1.0
    turned = [raster._apply_h(h, x, y) for x, y in ((100, 100), (300, 100), (300, 200), (100, 200))]
    assert entry["bbox"] == [round(min(p[0] for p in turned), 2), round(min(p[1] for p in turned), 2),
                             round(max(p[0] for p in turned), 2), round(max(p[1] for p in turned), 2)]
    # the canvas corners land inside the picture: no mark can leave it
    for x, y in ((0, 0), (512, 0), (512, 384), (0, 384)):
        cx, cy = raster._apply_h(h, x, y)
        assert 0 <= cx <= 512 and 0 <= cy <= 384


def _nearest_colour_name(rgb) -> str:
    return min(COLORS, key=lambda n: min(sum((a - b) ** 2 for a, b in zip(rgb, shade)) for shade in COLORS[n]))


def test_witness_points_land_on_the_named_colour_in_a_real_task(taxonomy, monkeypatch):
    """Warps and the photo look on a real scene: each shape's moved point is on a pixel of the shape's colour."""
    task = taxonomy.tasks["icons.shape_field.count_matching"]
    cases = _edit_cases()
    picked = [cases[0], cases[-2]]  # the strongest warp alone, the photo look
    for i, edits in enumerate(picked):
        monkeypatch.setattr("tessera.render.scene.draw_edits", lambda rng, strength, skip, e=edits: e)
        inst = generate(task, 11 + i, 6, vocab=taxonomy.vocab, variety="strong")
        img = decode_png_rgb(inst.png)
        assert inst.trace["render"]["decisions"]["raster"] == edits
        shapes = inst.trace["state"]["shapes"]
        checked = 0
        for k, shape in enumerate(shapes):
            entry = inst.trace["render"]["render_map"].get(f"shapes[{k}]")
            if entry is None or entry["bbox"][2] - entry["bbox"][0] < 12:
                continue
            x, y = (int(v) for v in entry["point"])
            pixel = np.median(img[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3), axis=0)
            assert _nearest_colour_name(pixel) == shape["color"], (k, shape, pixel)
            checked += 1
        assert checked >= 3
        if inst.witness["kind"] != "scalar":
            assert inst.witness["value"]  # witness geometry comes from the moved render map


# -- legibility -------------------------------------------------------------------------------------------------
def test_over_strong_edits_are_rejected_as_illegible():
    rgba, render_map = _synthetic()
    for over in ({"edit": "gauss", "sigma": 400.0, "seed": 1},
                 {"edit": "tone", "brightness": 0.0, "contrast": 0.15, "gamma": 1.0},
                 {"edit": "salt_pepper", "fraction": 0.7, "seed": 3}):
        with pytest.raises(RenderRejected, match=r"no longer legible after the raster edits .*: illegible$"):
            raster.apply_edits(rgba, render_map, [over], (250, 250, 250))
    # the strongest bounded chains pass the same check
    for edits in _edit_cases():
        raster.apply_edits(rgba, render_map, edits, (250, 250, 250))


def test_an_illegible_render_is_drawn_again_then_fails_with_a_message(taxonomy, monkeypatch):
    task = taxonomy.tasks["charts.bar_chart.extremum_label"]
    calls = []

    def draw(rng, strength, skip):
        calls.append(rng.draws)
        if len(calls) == 1:  # the first draw is unreadable: the instance must draw its render again
            return [{"edit": "gauss", "sigma": 400.0, "seed": 1}]
        return raster.draw_edits(rng, strength, skip)

    monkeypatch.setattr("tessera.render.scene.draw_edits", draw)
    inst = generate(task, 3, 2, vocab=taxonomy.vocab, variety="strong")
    assert inst.trace["render"]["render_attempts"] == 2
    assert inst.trace["rejections"] == {"render:illegible": 1}
    monkeypatch.setattr("tessera.render.scene.draw_edits", lambda rng, s, k: [{"edit": "gauss", "sigma": 400.0,
                                                                              "seed": 1}])
    with pytest.raises(SamplingFailed, match=r"no legible render in 8 attempts \(.* is no longer legible after "
                                              r"the raster edits"):
        generate(task, 3, 2, vocab=taxonomy.vocab, variety="strong")


def test_drawn_edits_stay_in_their_bounds():
    from tessera.sample.rng import Rng

    seen = set()
    for strength in ("mild", "strong"):
        bounds = {k: v[1] for k, v in raster.BOUNDS[strength].items()}
        rng = Rng(7)
        for _ in range(300):
            for e in raster.draw_edits(rng, strength):
                seen.add((strength, e["edit"]))
                if e["edit"] == "warp" and e["fill"] is None:
                    assert abs(e["angle"]) <= bounds["warp"]["angle"] and abs(e["px"]) <= bounds["warp"]["persp"]
                elif e["edit"] == "gauss":
                    assert 0 < e["sigma"] <= max(bounds["gauss"]["sigma"], bounds["photo"].get("sigma", 0))
                elif e["edit"] == "jpeg":
                    lo, hi = bounds["jpeg"]["quality"]
                    assert lo <= e["quality"] <= hi
                elif e["edit"] == "file":  # strong's JPEG file: at the jpeg edit's quality or a good one
                    assert strength in raster.FILE_STRENGTHS and e["format"] == "jpeg"
                    assert bounds["jpeg"]["quality"][0] <= e["quality"] <= raster.FILE_QUALITY[1]
            edits = raster.draw_edits(rng, strength)
            assert [e["edit"] for e in edits].count("file") == (strength in raster.FILE_STRENGTHS)
            assert strength not in raster.FILE_STRENGTHS or edits[-1]["edit"] == "file"
        assert raster.draw_edits(Rng(7), strength, skip=raster.EDITS) == []
        no_warp = Rng(8)
        assert all(e["edit"] != "warp" for _ in range(200) for e in raster.draw_edits(no_warp, strength, ("warp",)))
    # strong's jpeg edit becomes its file's quality; mild writes PNGs
    assert {e for s, e in seen if s == "strong"} == set(raster.EDITS) - {"photo", "jpeg"}
    assert {e for s, e in seen if s == "mild"} == set(raster.EDITS) - {"photo", "file"}
    assert raster.draw_edits(Rng(7), "none") == []
    assert raster.strength_for("strong", "mild") == "mild" and raster.strength_for("mild", "strong") == "mild"


def test_gauss_noise_never_stacks_on_jpeg_and_only_some_photo_looks_have_grain():
    """Of the per-pixel degradations, dense noise and JPEG are the costly ones in a PNG (about 100 kB and 30 kB a
    picture): a mild render, stored as a PNG, draws at most one of them (noise wins). A strong render is stored as
    a JPEG file, at the jpeg edit's quality when it drew one (35–85) and a good one (80–92) otherwise, whatever
    noise it has; the photo look adds grain to about half of its pictures; every other edit keeps its own odds."""
    from tessera.sample.rng import Rng

    rng = Rng(11)
    photos = photo_grain = gauss = jpeg = low = 0
    n = 3000
    for _ in range(n):
        names = [e["edit"] for e in raster.draw_edits(rng, "mild")]
        assert not ("gauss" in names and "jpeg" in names), names
        jpeg += "jpeg" in names
    assert 0.15 < jpeg / n < 0.4, jpeg
    for _ in range(n):
        edits = raster.draw_edits(rng, "strong")
        names = [e["edit"] for e in edits]
        assert names[-1] == "file" and "jpeg" not in names, names
        gauss += "gauss" in names
        low += edits[-1]["quality"] < raster.FILE_QUALITY[0]
    for i in range(n):  # the photo look alone: its first edit is the warp with a surface fill
        edits = raster.draw_edits(Rng(10_000 + i), "strong")
        if edits and edits[0]["edit"] == "warp" and edits[0]["fill"] is not None:
            photos += 1
            photo_grain += any(e["edit"] == "gauss" for e in edits)
    assert 0.3 < photo_grain / photos < 0.7, (photo_grain, photos)
    # the jpeg edit's odds (0.35), times the share of its qualities (35–85) under FILE_QUALITY's 80: about 0.31
    assert 0.08 < gauss / n < 0.3 and 0.2 < low / n < 0.4, (gauss, low)


# -- replay -----------------------------------------------------------------------------------------------------
def test_mild_and_strong_instances_replay_byte_for_byte(taxonomy, tmp_path):
    for tid, seed, variety in DET_CASES:
        inst = generate(taxonomy.tasks[tid], seed, 4, vocab=taxonomy.vocab, variety=variety)
        _, _, trace_file = write_instance(inst, tmp_path / variety)
        result = replay_files(trace_file, taxonomy)
        assert result.ok and result.checked == ["trace", "png", "json"], result.differences
    trace = dict(inst.trace, variety="mild")  # the strong one, said to be mild
    result = replay_trace(trace, taxonomy)
    assert not result.ok and "render: differs" in result.differences
    with pytest.raises(TesseraError, match="malformed trace: 'variety' should be one of none, mild, strong"):
        replay_trace(dict(inst.trace, variety="loud"), taxonomy)


def test_cli_sample_with_variety_replays(capsys, tmp_path, taxonomy):
    code = main(["--root", str(ROOT), "sample", "charts.bar_chart.sorted_labels", "--seed", "4", "--variety",
                 "strong", "--out", str(tmp_path), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0
    (trace_file,) = [f for f in info["files"] if f.endswith(".trace.json")]
    assert json.loads(open(trace_file).read())["variety"] == "strong"
    assert main(["--root", str(ROOT), "replay", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matched"] == 1
    with pytest.raises(SystemExit) as exit_info:  # argparse refuses a value outside its choices
        main(["--root", str(ROOT), "sample", "charts.bar_chart.sorted_labels", "--seed", "4", "--variety", "loud",
              "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "invalid choice: 'loud'" in capsys.readouterr().err
    with pytest.raises(TesseraError, match="variety must be one of none, mild, strong, got 'loud'"):
        generate(taxonomy.tasks["charts.bar_chart.sorted_labels"], 0, variety="loud")


# -- grammars: declared canvas ranges and raster caps -----------------------------------------------------------
def _edit_grammar(root, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_bad_render_variety_keys_are_positioned_errors(library_copy):
    from tessera.taxonomy import compile_taxonomy

    _edit_grammar(library_copy, "grammars/charts/bar_chart.yaml", "canvas: {width: 512, height: 384, scale: [0.85, 1.25], aspect: [1.16, 1.53]}",
                  "canvas: {width: 512, height: 384, scale: [1.5, 1.2], aspect: [0.2, 1.0]}")
    _edit_grammar(library_copy, "grammars/charts/line_chart.yaml", "render:\n",
                  "render:\n  raster: {strength: extreme}\n")
    _edit_grammar(library_copy, "grammars/icons/shape_field.yaml", "render:\n",
                  "render:\n  raster: {skip: [blur, wobble]}\n")
    # a relative range (a factor around the canvas's own ratio) written where an absolute one belongs
    _edit_grammar(library_copy, "grammars/symbolic/roman_cards.yaml", "aspect: [1.25, 1.77]", "aspect: [0.85, 1.2]")
    with pytest.raises(CompileFailed) as info:
        compile_taxonomy(library_copy)
    text = str(info.value)

    def line(rel: str, needle: str) -> int:  # where the edit landed (the grammars themselves move on)
        return (library_copy / rel).read_text().splitlines().index(needle) + 1

    bar = line("grammars/charts/bar_chart.yaml",
               "  canvas: {width: 512, height: 384, scale: [1.5, 1.2], aspect: [0.2, 1.0]}")
    assert (f"grammars/charts/bar_chart.yaml:{bar}:44: error: render.canvas.scale must be [lo, hi] with 0.5 ≤ lo ≤ "
            f"hi ≤ 2.0, got [1.5, 1.2]") in text
    assert (f"grammars/charts/bar_chart.yaml:{bar}:64: error: render.canvas.aspect must be [lo, hi] with 0.4 ≤ lo ≤ "
            f"hi ≤ 2.5, got [0.2, 1.0]") in text
    assert (f"grammars/charts/line_chart.yaml:{line('grammars/charts/line_chart.yaml', '  raster: {strength: extreme}')}"
            f":22: error: expected 'none', 'mild' or 'strong', got string 'extreme'") in text
    assert (f"grammars/icons/shape_field.yaml:{line('grammars/icons/shape_field.yaml', '  raster: {skip: [blur, wobble]}')}"
            ":25: error: unknown raster edit 'wobble' (edits: warp, blur, jpeg, tone, vignette, scanlines, gauss, "
            "salt_pepper, photo, file)") in text
    roman = line("grammars/symbolic/roman_cards.yaml",
                 "  canvas: {width: 560, height: 380, scale: [0.85, 1.25], aspect: [0.85, 1.2]}")
    assert (f"grammars/symbolic/roman_cards.yaml:{roman}:66: error: render.canvas.aspect [0.85, 1.2] must contain the "
            f"canvas's own width/height ratio 1.47 (560 / 380): the range is absolute, not a factor, e.g. "
            f"[1.28, 1.69]") in text


def test_canvas_scale_and_aspect_vary_within_the_declared_range(fixture_lib, monkeypatch):
    from tessera.taxonomy import compile_taxonomy

    _edit_grammar(fixture_lib, "grammars/charts/bar_chart.yaml", "canvas: {width: 512, height: 384, scale: [0.85, 1.25], aspect: [1.16, 1.53]}",
                  "canvas: {width: 512, height: 384, scale: [0.8, 1.5], aspect: [0.75, 1.6]}\n"
                  "  raster: {strength: mild, skip: [jpeg]}")
    monkeypatch.chdir(fixture_lib)
    tax = compile_taxonomy(fixture_lib)
    task = tax.tasks["charts.bar_chart.extremum_label"]
    plain = generate(task, 1, 3, vocab=tax.vocab)
    assert (plain.trace["render"]["width"], plain.trace["render"]["height"]) == (512, 384)
    sizes = set()
    for seed in range(6):
        inst = generate(task, seed, 3, vocab=tax.vocab, variety="strong")
        r = inst.trace["render"]
        canvas = r["decisions"]["canvas"]
        img = decode_png_rgb(inst.png)
        assert img.shape[:2] == (r["height"], r["width"])
        assert 0.8 <= canvas["scale"] <= 1.5 and 0.75 <= canvas["aspect"] <= 1.6
        assert r["width"] == round(canvas["width"] * canvas["pixel_scale"])
        assert abs(canvas["width"] / canvas["height"] - canvas["aspect"]) < 0.02
        assert all(e["edit"] not in ("jpeg", "photo") for e in r["decisions"]["raster"])  # capped and skipped
        for entry in r["render_map"].values():  # witnesses in final-image pixels
            x0, y0, x1, y1 = entry["bbox"]
            assert 0 <= x0 < x1 <= r["width"] + 0.5 and 0 <= y0 < y1 <= r["height"] + 0.5
        assert inst.answer == generate(task, seed, 3, vocab=tax.vocab).answer
        assert replay_trace(inst.trace, tax).ok
        sizes.add((r["width"], r["height"]))
    assert len(sizes) == 6
    # mild uses the middle half of each range, around the plain canvas
    for seed in range(4):
        canvas = generate(task, seed, 3, vocab=tax.vocab, variety="mild").trace["render"]["decisions"]["canvas"]
        assert 0.9 <= canvas["scale"] <= 1.25 and 0.75 <= canvas["aspect"] <= 1.47


# -- builds: the config key, manifest and card ------------------------------------------------------------------
def test_build_config_variety_key(taxonomy, tmp_path):
    from tessera.dataset.card import render_card
    from tessera.export.config import load_build_config

    base = "build: tiny\nseed: 3\nselect: {tasks: [charts.bar_chart.sorted_labels]}\nper_task: {train: 2}\n"
    paths = {}
    for name, extra in (("plain", ""), ("none", "variety: none\n"), ("strong", "variety: strong\n"),
                        ("bad", "variety: loud\n")):
        paths[name] = tmp_path / f"{name}.yaml"
        paths[name].write_text(base + extra)
    plain, none, strong = (load_build_config(paths[k], taxonomy) for k in ("plain", "none", "strong"))
    assert plain.sha256 == none.sha256 != strong.sha256  # configs without variety keep their hash
    assert strong.spec.variety == "strong" and plain.spec.variety == "none"
    with pytest.raises(CompileFailed) as info:
        load_build_config(paths["bad"], taxonomy)
    assert f"{paths['bad']}:5:10: error:" in str(info.value) and "loud" in str(info.value)
    from tessera.export.build import plan

    items = plan(strong, taxonomy)["train"]
    assert {it.variety for it in items} == {"strong"}
    manifest = {"build": "tiny", "summary": "", "variety": "strong", "taxonomy": {"name": "t", "version": "1"},
                "splits": {"train": {"rows": 2, "files": [], "per_task": {"charts.bar_chart.sorted_labels": 2}}},
                "split_overlap": {"near_duplicate_bits": 12}, "config": {}, "seed": 3, "config_sha256": "c" * 64,
                "code_sha256": "d" * 64}
    card = render_card(manifest, taxonomy)
    assert "Visual variety: **strong: " in card
    assert "Visual variety: **none: " in render_card({**manifest, "variety": "none"}, taxonomy)


# -- gallery: one instance under several styles -----------------------------------------------------------------
def test_style_sheet_shows_one_instance_in_several_styles(taxonomy, capsys, tmp_path):
    from PIL import Image

    from tessera.gallery import style_instances

    instances = style_instances(taxonomy.tasks["icons.shape_field.count_matching"], 5, 3, taxonomy.vocab, 6)
    assert len({i.png for i in instances}) == 6 and len({json.dumps(i.answer) for i in instances}) == 1
    assert "variety" not in instances[0].trace and {i.trace.get("variety") for i in instances[1:]} == {"strong"}
    out = tmp_path / "sheet.png"
    code = main(["--root", str(ROOT), "styles", "icons.shape_field.count_matching", "--seed", "5", "--level", "3",
                 "--styles", "6", "--columns", "3", "--out", str(out), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["instances"] == [i.instance_id for i in instances]
    assert Image.open(out).size == (3 * 366 + 6, 2 * 286 + 6)
    assert main(["--root", str(ROOT), "styles", "icons.shape_field.count_matching", "--seed", "5", "--styles", "0",
                 "--out", str(out)]) == 1
    assert "styles must be between 1 and 64, got 0" in capsys.readouterr().err


def test_a_strong_build_validates_and_replays(taxonomy, tmp_path):
    """Noisy pictures are written with PNG's Up filter: the dataset validator's bounded decoder reads them too."""
    from tessera.export.build import build
    from tessera.export.config import load_build_config
    from tessera.validate.replay import replay_dataset
    from tessera.validate.dataset import validate_dataset

    cfg = tmp_path / "strong.yaml"
    cfg.write_text("build: strong\nseed: 2\nselect: {tasks: [icons.shape_field.count_matching]}\n"
                   "per_task: {train: 4, test: 1}\nvariety: strong\n")
    out = tmp_path / "ds"
    result = build(load_build_config(cfg, taxonomy), taxonomy, out, workers=1)
    assert result.manifest["variety"] == "strong" and result.manifest["config"]["variety"] == "strong"
    assert "Visual variety: **strong: " in (out / "README.md").read_text()
    report = validate_dataset(out)
    assert report.ok, report.problems
    replays = replay_dataset(out, ROOT)
    assert len(replays) == 5 and all(r.ok for r in replays)
    import pyarrow.parquet as pq

    rows = [r for f in sorted((out / "data").glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    traces = [json.loads(r["trace"]) for r in rows]
    assert {t["variety"] for t in traces} == {"strong"}
    # at least one noisy (Sub-filtered) picture went through the gates, the validator and replay (seed 2: two of five)
    assert any(e["edit"] == "gauss" for t in traces for e in t["render"]["decisions"]["raster"])


def test_the_bounded_decoder_reads_sub_filtered_pngs_and_refuses_other_filters():
    from tessera.render.png import encode_png
    from tessera.dataset.untrusted import UntrustedInput, decode_png_bounded

    pixels = np.random.RandomState(3).randint(0, 256, (20, 30, 3)).astype(np.uint8)
    for noisy in (False, True):
        assert (decode_png_bounded(encode_png(pixels, noisy)) == pixels).all()
        assert (decode_png_rgb(encode_png(pixels, noisy)) == pixels).all()
    import struct
    import zlib

    raw = np.zeros((20, 30 * 3 + 1), dtype=np.uint8)
    raw[::2, 0] = 1  # Sub on every other row: not what Tessera writes
    body = zlib.compress(raw.tobytes())
    png = encode_png(pixels)
    ihdr_end = 8 + 12 + 13
    chunk = struct.pack(">I", len(body)) + b"IDAT" + body + struct.pack(">I", zlib.crc32(b"IDAT" + body))
    forged = png[:ihdr_end] + chunk + png[-12:]
    with pytest.raises(UntrustedInput, match="the image rows use PNG filters Tessera does not write"):
        decode_png_bounded(forged)


def test_tone_edits_never_move_a_named_colour_out_of_its_word():
    """Brightness, contrast and gamma at the corners of the strong bounds: every shade of every colour family still
    reads as its colour word after the edit the stream would apply (the deviation is halved until it does)."""
    from tessera.render.raster import _tone_value, colour_safe_tone
    from tessera.render.theme import SHADE_FAMILIES, color_word_of

    shades = [(n, rgb) for fam in SHADE_FAMILIES.values() for n, rgbs in fam.items() for rgb in rgbs]
    reduced = 0
    for b in (-28.0, 0.0, 28.0):
        for c in (0.8, 1.0, 1.1):
            for g in (0.75, 1.0, 1.25):
                e = colour_safe_tone(b, c, g)
                reduced += (e["brightness"], e["contrast"], e["gamma"]) != (b, c, g)
                for name, rgb in shades:
                    if name in color_word_of(rgb):
                        edited = tuple(_tone_value(v, e["brightness"], e["contrast"], e["gamma"]) for v in rgb)
                        assert name in color_word_of(edited), (name, rgb, e)
    assert reduced > 0  # the bounds do reach colours that would change word: the check is doing work
    assert colour_safe_tone(0.0, 1.0, 1.0) == {"edit": "tone", "brightness": 0.0, "contrast": 1.0, "gamma": 1.0}
    # and it keeps the largest share of the drawn change that is safe (recomputed here shade by shade: the edit
    # tries its most fragile shades first, which must only ever save time)
    import random

    safe = [(n, rgb) for n, rgb in shades if n in color_word_of(rgb)]
    rng = random.Random(3)
    for _ in range(150):
        b, c, g = rng.uniform(-28, 28), 1 + rng.uniform(-0.2, 0.1), 1 + rng.uniform(-0.25, 0.25)
        for k in (1.0, 0.5, 0.25, 0.0):
            want = (round(b * k, 2), round(1.0 + (c - 1.0) * k, 4), round(1.0 + (g - 1.0) * k, 4))
            if all(n in color_word_of(tuple(_tone_value(v, *want) for v in rgb)) for n, rgb in safe):
                break
        e = colour_safe_tone(b, c, g)
        assert (e["brightness"], e["contrast"], e["gamma"]) == want


def test_vignette_and_scan_lines_never_darken_a_colour_out_of_its_word():
    """Tone is colour-safe on its own; vignette and scan lines darken further, so keep_colour_words halves them until
    the darkest pixel (a corner, on a scan line) of every colour the theme draws keeps its word."""
    from tessera.render.raster import _tone_value, colour_safe_tone, keep_colour_words
    from tessera.render.theme import SHADE_FAMILIES, color_word_of

    tone = colour_safe_tone(-10.0, 0.9, 1.1)  # as draw_edits makes it
    b, c, g = tone["brightness"], tone["contrast"], tone["gamma"]
    for family, names in SHADE_FAMILIES.items():
        for shade in range(3):
            palette = tuple((n, rgbs[shade % len(rgbs)]) for n, rgbs in names.items())
            edits = [dict(tone),
                     {"edit": "vignette", "amount": 0.4}, {"edit": "scanlines", "period": 2, "depth": 0.1}]
            kept = keep_colour_words([dict(e) for e in edits], palette)
            factor = (1 - kept[1]["amount"]) * (1 - kept[2]["depth"])
            for name, rgb in palette:
                if name in color_word_of(rgb):
                    dark = tuple(int(_tone_value(v, b, c, g) * factor) for v in rgb)
                    assert name in color_word_of(dark), (family, shade, name, dark)
    # a palette with nothing near a window's edge keeps the whole vignette
    calm = (("black", (10, 10, 10)),)
    assert keep_colour_words([{"edit": "vignette", "amount": 0.3}], calm) == [{"edit": "vignette", "amount": 0.3}]
    # and a pale orange at the edge of its window loses it
    edge = (("orange", (235, 120, 10)),)
    assert keep_colour_words([{"edit": "vignette", "amount": 0.3}], edge)[0]["amount"] < 0.1


# -- the fast paths compute the same integers as the plain ones -------------------------------------------------
def test_jpeg_adds_libjpegs_change_in_luma_to_every_channel(opencv_paths):
    import io

    from PIL import Image

    rgba, _ = _synthetic()
    img = np.ascontiguousarray(rgba[..., :3])
    # luma in fixed point, computed here from the channels (the edit asks OpenCV for it)
    c = img.astype(np.int64)
    y = (9798 * c[..., 0] + 19235 * c[..., 1] + 3735 * c[..., 2] + (1 << 14)) >> 15
    changes = []
    for quality in (35, 85):
        out = raster._jpeg(img, quality)
        coded = io.BytesIO()
        Image.fromarray(y.astype(np.uint8), "L").save(coded, "JPEG", quality=quality)
        change = np.asarray(Image.open(coded), dtype=np.int64) - y
        assert np.array_equal(out, np.clip(img + change[..., None], 0, 255))  # the same change in R, G and B
        assert np.array_equal(raster._jpeg(img, quality), out)  # and the same bytes again
        changes.append(np.abs(change).mean())
    assert changes[0] > changes[1] > 0  # lower quality, larger artefacts


def test_jpeg_without_pillows_codec_says_what_to_install(monkeypatch):
    from PIL import features

    from tessera.errors import TesseraError

    monkeypatch.setattr(features, "check_codec", lambda name: False)
    rgba, _ = _synthetic()
    with pytest.raises(TesseraError, match="needs Pillow's JPEG codec, which this Pillow was built without"):
        raster._jpeg(np.ascontiguousarray(rgba[..., :3]), 50)


def test_edits_after_the_first_work_in_place_with_the_bytes_of_fresh_copies():
    """apply_edits lets every photometric edit after the first write into the picture (the first keeps the clean
    drawing the legibility check needs): the bytes are those of each edit on a fresh copy, and the clean drawing
    is left as it was."""
    rgba, render_map = _synthetic()
    b = {k: v[1] for k, v in raster.BOUNDS["strong"].items()}
    chain = [{"edit": "tone", "brightness": -12.0, "contrast": 0.9, "gamma": 1.1},
             {"edit": "vignette", "amount": 0.3}, {"edit": "scanlines", "period": 3, "depth": 0.1},
             {"edit": "jpeg", "quality": 50}, {"edit": "gauss", "sigma": b["gauss"]["sigma"], "seed": 4},
             {"edit": "salt_pepper", "fraction": 0.004, "seed": 8}, {"edit": "blur", "passes": 1}]
    for start in range(len(chain)):
        edits = chain[start:] + chain[:start]  # each edit first once, and after others
        out, _ = raster.apply_edits(rgba, render_map, edits, (250, 250, 250), check=False)
        want = np.ascontiguousarray(rgba[..., :3])
        for e in edits:
            want = raster.PHOTOMETRIC[e["edit"]](want.copy(), e, False)
        assert np.array_equal(out, want), edits[0]["edit"]
    assert np.array_equal(_synthetic()[0], rgba)


def test_summed_area_tables_and_direct_sums_judge_every_box_alike(monkeypatch):
    rgba, render_map = _synthetic()
    for edits in _edit_cases():
        verdicts = []
        for share in (0.0, 1e9):  # always tables, never tables
            monkeypatch.setattr(raster, "SUMMED_AREA_SHARE", share)
            try:
                raster.apply_edits(rgba, render_map, edits, (250, 250, 250))
                verdicts.append("ok")
            except RenderRejected as exc:
                verdicts.append(str(exc))
        assert verdicts[0] == verdicts[1], edits
    over = {"edit": "gauss", "sigma": 400.0, "seed": 3}
    for share in (0.0, 1e9):
        monkeypatch.setattr(raster, "SUMMED_AREA_SHARE", share)
        with pytest.raises(RenderRejected, match="illegible"):
            raster.apply_edits(rgba, render_map, [over], (250, 250, 250))


@pytest.fixture(params=["simd+ipp", "plain"])
def opencv_paths(request):
    """OpenCV with its SIMD and IPP code (as shipped) and without either (its portable C++): the formulas below
    must hold on both, which is what makes its bytes the same on every CPU."""
    cv2 = raster._cv2()
    on = request.param == "simd+ipp"
    saved = cv2.useOptimized(), cv2.ipp.useIPP()
    cv2.setUseOptimized(on)
    cv2.ipp.setUseIPP(on)
    yield request.param
    cv2.setUseOptimized(saved[0])
    cv2.ipp.setUseIPP(saved[1])


def _warp_reference(img: np.ndarray, hmat, fill) -> np.ndarray:
    """The warp recomputed in int64 numpy from warp_maps: the four source pixels around each position (`fill`
    beyond the drawing) weighted (32 − a)(32 − b), a(32 − b), (32 − a)b, ab and rounded once, as OpenCV's
    fixed-point remap states it ((Σ · 32 + 2¹⁴) >> 15)."""
    h, w, _ = img.shape
    whole, frac = raster.warp_maps(hmat, w, h)
    pad = 2 + max(0, -int(whole.min()), int(whole[..., 0].max()) - w, int(whole[..., 1].max()) - h)  # `fill` there
    big = np.empty((h + 2 * pad, w + 2 * pad, 3), dtype=np.int64)
    big[:] = fill
    big[pad:-pad, pad:-pad] = img
    x, y = whole[..., 0].astype(np.int64) + pad, whole[..., 1].astype(np.int64) + pad
    a, b = (frac & 31).astype(np.int64)[..., None], (frac >> 5).astype(np.int64)[..., None]
    total = (big[y, x] * (32 - a) * (32 - b) + big[y, x + 1] * a * (32 - b) + big[y + 1, x] * (32 - a) * b
             + big[y + 1, x + 1] * a * b)
    return ((total * 32 + (1 << 14)) >> 15).astype(np.uint8)


def test_the_warp_is_opencvs_fixed_point_remap_recomputed(opencv_paths):
    """The warp's bytes are the stated integer formula (recomputed here) on a flat chart-like picture, a grain
    backdrop and random pixels of an odd size, for a warp alone and for the photo look's surface fill; and its
    maps put each pixel at the nearest 1/32 px to where the homography (in float64) sends it."""
    from tessera.render.backgrounds import texture

    rgba = _synthetic()[0]
    grain = texture("grain", (250, 245, 232), 5, 512, 384, True).copy()
    grain[60:130, 50:180, :3] = (220, 40, 40)
    noise = np.random.default_rng(5).integers(0, 256, (201, 333, 4), dtype=np.uint8)
    warps = [c[0] for c in _edit_cases()[:1]] + [_edit_cases()[-2][0]]
    for picture in (rgba, grain, noise):
        img = np.ascontiguousarray(picture[..., :3])
        h, w, _ = img.shape
        for edit in warps:
            hmat = raster.homography(edit, w, h)
            fill = edit["fill"] or (250, 250, 250)
            out = raster._warp(img, hmat, fill)
            assert np.array_equal(out, _warp_reference(img, hmat, fill)), (opencv_paths, edit)
            assert not np.array_equal(out, img)
            whole, frac = raster.warp_maps(hmat, w, h)
            sx, sy = raster.warp_positions(hmat, w, h)  # the positions' 1/32 px, rounded half to even
            x, y = (np.rint(v.astype(np.float64) * 32).astype(np.int64) for v in (sx, sy))
            assert np.array_equal(whole[..., 0], x >> 5) and np.array_equal(whole[..., 1], y >> 5)
            assert np.array_equal(frac, (y & 31) * 32 + (x & 31))
            inv = np.linalg.inv(np.array(hmat, dtype=np.float64))
            ys, xs = np.mgrid[0:h, 0:w] + 0.5
            p = inv @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
            want = (p[:2] / p[2]).T.reshape(h, w, 2) - 0.5  # the source position in pixel indices
            got = whole + np.stack([frac & 31, frac >> 5], axis=-1) / 32
            inside = ((want > 0) & (want < [w - 1, h - 1])).all(axis=-1)
            assert np.abs(got - want)[inside].max() <= 1 / 64 + 1e-3  # the nearest 1/32 px (float32 positions)
            assert inside.mean() > 0.5  # (the photo look shrinks the sheet onto its surface)
    # far outside the drawing, only `fill`
    shrink = {"edit": "warp", "angle": 0.0, "shear": 0.0, "px": 0.0, "py": 0.0, "fill": [58, 60, 66], "margin": 0.5}
    out = raster._warp(np.ascontiguousarray(rgba[..., :3]), raster.homography(shrink, 512, 384), (58, 60, 66))
    assert (out[:60, :60] == (58, 60, 66)).all() and (out[-60:, -60:] == (58, 60, 66)).all()


def test_the_opencv_pixel_steps_compute_their_formulas(opencv_paths):
    rng = np.random.default_rng(11)
    for shape in ((37, 51, 3), (36, 50, 3), (384, 512, 3)):
        img = rng.integers(0, 256, shape, dtype=np.uint8)
        img[5:20] = 250  # flat runs too, as drawings have
        # tone: each byte through the 256-level table
        lut = np.array([raster._tone_value(v, -9.5, 0.9, 1.15) for v in range(256)], dtype=np.uint8)
        assert np.array_equal(raster._tone(img, -9.5, 0.9, 1.15), lut[img])
        # blur: the binomial kernel's 2-D window on an edge-padded copy, summed in int64, rounded once
        for passes, kernel in ((1, [1, 2, 1]), (2, [1, 4, 6, 4, 1])):
            p = np.pad(img.astype(np.int64), ((passes, passes), (passes, passes), (0, 0)), mode="edge")
            h, w, _ = shape
            total = sum(ki * kj * p[i:i + h, j:j + w] for i, ki in enumerate(kernel) for j, kj in enumerate(kernel))
            assert np.array_equal(raster._blur(img, passes), (total + (1 << (4 * passes - 1))) >> (4 * passes))
        rgba = np.dstack([img, np.full(shape[:2], 255, np.uint8)])
        assert np.array_equal(raster._rgb(rgba), img)
        # vignette: each value less v · D / 256 rounded half to even, D the separable falloff in whole steps of
        # VIGNETTE_STEP levels
        h, w, _ = shape
        u = lambda n: (np.arange(n) + 0.5 - n / 2) / (n / 2)  # noqa: E731
        q = lambda n: np.rint(128 * 0.3 * u(n) ** 2 / raster.VIGNETTE_STEP) * raster.VIGNETTE_STEP  # noqa: E731
        dark = q(w)[None, :, None] + q(h)[:, None, None]
        assert set(np.unique(dark % raster.VIGNETTE_STEP).tolist()) == {0}
        assert np.array_equal(raster._vignette(img, 0.3), img - np.rint(img * dark / 256))
        # the legibility check's cells: each 2×2 cell's mean colour, rounded, then its fixed-point luma
        h2, w2 = shape[0] // 2, shape[1] // 2
        means = (img[:2 * h2, :2 * w2].astype(np.int64).reshape(h2, 2, w2, 2, 3).sum(axis=(1, 3)) + 2) >> 2
        grey = (9798 * means[..., 0] + 19235 * means[..., 1] + 3735 * means[..., 2] + (1 << 14)) >> 15
        assert np.array_equal(raster._cells(img), grey)
        # Gaussian noise: rows of the strip scaled in int16, added and clipped into 0..255
        k = round(9.0 / raster.NOISE_SD * 1024)
        h, w, _ = shape
        noise = (_strip_rows(77, h, w) * k) >> 10
        assert np.array_equal(raster._gauss(img, 9.0, 77), np.clip(img + noise, 0, 255))


def _strip_rows(seed: int, h: int, w: int) -> np.ndarray:
    """raster.noise_field recomputed one pixel at a time: the strip's values from the hash (murmur3's finaliser in
    Python integers), each row from its own hashed offset, wrapping at NOISE_STRIP."""
    def murmur(i: int, s: int) -> int:
        x = (i * 0x9E3779B1 + (s & 0xFFFFFFFF)) & 0xFFFFFFFF
        x ^= (s >> 32) & 0xFFFFFFFF
        x ^= x >> 16
        x = (x * 0x85EBCA6B) & 0xFFFFFFFF
        x ^= x >> 13
        x = (x * 0xC2B2AE35) & 0xFFFFFFFF
        return x ^ (x >> 16)

    n = raster.NOISE_STRIP
    strip = [(sum((murmur(i, 0x7E55E4A) >> b) & 255 for b in (0, 8, 16, 24)) - 510) >> 2 for i in range(3 * n)]
    out = np.empty((h, w, 3), dtype=np.int64)
    for y in range(h):
        start = murmur(y, seed) % n
        for x in range(w):
            out[y, x] = strip[3 * ((start + x) % n):3 * ((start + x) % n) + 3]
    return out


def test_gaussian_noise_is_int16_arithmetic_clipped_with_the_sd_asked_for():
    # Gaussian noise: int16 arithmetic, clipped into 0..255, with the sd asked for
    flat = np.full((200, 300, 3), 128, dtype=np.uint8)
    for sigma in (2.0, 9.0):
        noisy = raster._gauss(flat, sigma, 77).astype(np.int64)
        k = round(sigma / raster.NOISE_SD * 1024)
        assert np.array_equal(noisy, 128 + ((_strip_rows(77, 200, 300) * k) >> 10))
        assert abs((noisy - 128).std() - sigma) < 0.05 * sigma
    dark = raster._gauss(np.zeros((50, 60, 3), np.uint8), 9.0, 3)
    assert dark.min() == 0 and dark.max() > 0  # clipped, not wrapped


def test_the_strip_noise_shows_no_structure_a_viewer_could_see():
    """Rows of one strip at hashed offsets: every neighbour of a pixel (within 3 px, any direction, any channel)
    is uncorrelated with it, as independent noise would be, and the offsets are as varied as random draws (400 rows
    from 1,024 offsets: about 330 distinct; two rows that share one are far apart, on average)."""
    field = raster.noise_field(99, 400, 600).astype(np.float64)
    field -= field.mean()
    var = (field * field).mean()
    for dy in range(4):
        for dx in range(-3, 4):
            if dy or dx > 0:
                a = field[dy:, max(0, -dx):600 - max(0, dx)]
                b = field[:400 - dy, max(0, dx):600 - max(0, -dx)]
                assert abs((a * b).mean() / var) < 0.03, (dy, dx)
    assert abs((field[..., 0] * field[..., 1]).mean() / var) < 0.03  # channels apart
    assert len(set(raster.noise_offsets(99, 400).tolist())) > 0.75 * 400


def test_colour_windows_at_once_agree_with_one_at_a_time():
    from tessera.render.theme import HUE_WINDOWS, in_color_word, in_color_words

    rng = np.random.default_rng(4)
    cols = np.concatenate([rng.integers(0, 256, (3000, 3)), np.repeat(np.arange(0, 256, 15)[:, None], 3, axis=1),
                           [[255, 0, 0], [255, 255, 0], [0, 255, 255], [255, 0, 255], [200, 200, 201]]])
    names = [list(HUE_WINDOWS)[i % len(HUE_WINDOWS)] for i in range(len(cols))]
    want = [in_color_word(tuple(int(v) for v in c), n) for c, n in zip(cols, names)]
    assert in_color_words(cols, names).tolist() == want
    assert 0 < sum(want) < len(want)
