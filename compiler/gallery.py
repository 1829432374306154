"""The main job on the bundled taxonomy: compile it, build a small dataset (taxonomy/builds/demo.yaml), validate
and replay the dataset, audit it (`tessera audit`: shortcuts a model could learn without the image), and write a
gallery page (image, prompt, answer, witness box) of its rows that links to the audit."""
from __future__ import annotations

import html
import json
import os
import shutil
import time
from pathlib import Path

import pyarrow.parquet as pq

from .dataset.layout import shard_files
from .render.png import image_suffix

DEMO_CONFIG = Path("taxonomy") / "builds" / "demo.yaml"


def run_demo(root: Path, out: Path, per_task: int | None, con, domains: list[str] | None = None) -> int:
    from .console import print_build_table, progress as _progress, summary
    from .export.build import StaleOutput, build
    from .export.config import load_build_config
    from .taxonomy import compile_taxonomy
    from .validate.replay import replay_dataset
    from .validate.dataset import validate_dataset

    t0 = time.perf_counter()
    tax = compile_taxonomy(root)
    info = summary(tax, time.perf_counter() - t0)
    con.print(f"compiled [bold]{info['tasks']}[/] tasks over {info['grammars']} grammars in {info['domains']} domains "
              f"in {info['compile_seconds'] * 1000:.0f} ms")
    config = load_build_config(root / DEMO_CONFIG, tax)
    if domains:  # a quick look at part of the library: the demo config's tasks in these domains only
        present = {t.split(".")[0] for t in tax.tasks}
        unknown = sorted(set(domains) - present)
        if unknown:
            con.print(f"[red]error:[/] no domain {', '.join(unknown)} in {root}; its domains are "
                      f"{', '.join(sorted(present))}")
            return 2
        config.tasks = [t for t in config.tasks if t.split(".")[0] in domains]
        config.counts = {split: {t: n for t, n in c.items() if t.split(".")[0] in domains}
                         for split, c in config.counts.items()}
        config.sha256 = f"{config.sha256}-domains-{'+'.join(sorted(set(domains)))}"
    if per_task is not None:
        config.counts = {split: {t: per_task if i == 0 else max(1, per_task // 3) for t in config.tasks}
                         for i, split in enumerate(config.counts)}
        config.sha256 = f"{config.sha256}-per-task-{per_task}"
    dataset = out / "dataset"
    workers = os.cpu_count() or 1
    try:
        with _progress() as progress:
            result = build(config, tax, dataset, workers, progress=progress)
    except StaleOutput:
        # The demo owns its folder: rows made from other inputs (an older checkout, an edited task) are replaced.
        con.print(f"{dataset} was built from other inputs; building it again")
        shutil.rmtree(dataset)
        with _progress() as progress:
            result = build(config, tax, dataset, workers, progress=progress)
    if not result.already_complete:
        print_build_table(con, result, config)
    with _progress() as progress:
        report = validate_dataset(dataset, progress)
        replays = replay_dataset(dataset, tax.root, workers, progress)
    matched = sum(r.ok for r in replays)
    con.print(f"validate: {'valid' if report.ok else 'INVALID: ' + '; '.join(report.problems[:5])}; "
              f"replay: {matched}/{len(replays)} byte for byte")
    from .validate.audit import run_audit
    from .validate.audit_html import headline_rows

    with _progress() as progress:
        audit = run_audit(dataset, out / "audit", None, progress)
    # A few rows per task are too few to flag a task (the audit's min_rows): the demo shows the report, and the
    # thresholds are enforced where they mean something, on a recipe build (`tessera audit`).
    figures = dict(headline_rows(audit.report))
    con.print(f"audit: {figures['tasks (rows)']}; {len(audit.violations)} threshold(s) exceeded")
    # The same instance under several styles (plain, then variety strong): what a varied training build looks like.
    styles = contact_sheet(style_instances(tax.tasks[config.tasks[0]], config.spec.seed, 3, tax.vocab))
    gallery = write_gallery(dataset, out / "gallery", tax.name, audit=Path("..") / "audit" / "index.html",
                            styles=styles)
    sheet = gallery.with_name("styles.png")
    con.print(f"dataset: [bold]{dataset}[/]   gallery: [bold]{gallery}[/]   audit: [bold]{out / 'audit' / 'index.html'}[/]"
              f"   styles: [bold]{sheet}[/]")
    return 0 if report.ok and matched == len(replays) else 1


def write_gallery(dataset: Path, folder: Path, name: str, audit: Path | None = None,
                  styles: bytes | None = None) -> Path:
    """One card per row: the picture with its witness drawn over it, the prompt, the answer; `audit` is the
    audit report to link to (relative to the gallery page), `styles` a contact sheet (PNG) shown above the cards."""
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    cards = []
    for shard in shard_files(dataset):
        for row in pq.read_table(shard).to_pylist():
            (partial / row["task"]).mkdir(exist_ok=True)
            rel = f"{row['task']}/{row['instance_id']}{image_suffix(row['image']['bytes'])}"
            (partial / rel).write_bytes(row["image"]["bytes"])
            cards.append(_card(row, rel))
    if styles is not None:
        (partial / "styles.png").write_bytes(styles)
    (partial / "index.html").write_text(_page(name, dataset, cards, audit, styles is not None))
    if folder.exists():
        shutil.rmtree(folder)
    partial.rename(folder)
    return folder / "index.html"


def _card(row: dict, rel: str) -> str:
    trace = json.loads(row["trace"])
    w, h = trace["render"]["width"], trace["render"]["height"]
    wit = json.loads(row["witness"])
    geoms = witness_geometries(wit)
    boxes = ""
    for g in geoms:
        if len(g) == 4:
            x0, y0, x1, y1 = g
            boxes += (f'<div class="box" style="left:{x0 / w * 100:.2f}%;top:{y0 / h * 100:.2f}%;'
                      f'width:{(x1 - x0) / w * 100:.2f}%;height:{(y1 - y0) / h * 100:.2f}%"></div>')
        else:
            x, y = g
            boxes += f'<div class="pt" style="left:{x / w * 100:.2f}%;top:{y / h * 100:.2f}%"></div>'
    return (f'<div class="card"><div class="img"><img src="{html.escape(rel)}" loading="lazy">{boxes}</div>'
            f'<div class="meta"><b>{html.escape(row["task"])}</b> · {row["split"]} · level {row["level"]} · '
            f'{html.escape(row["query"])}<pre>{html.escape(row["prompt"])}</pre><div>answer: '
            f'<b>{html.escape(row["answer"])}</b> ({row["answer_type"]}) · witness: {wit["kind"]}</div></div></div>')


def witness_geometries(wit: dict) -> list[list[float]]:
    """Boxes ([x0, y0, x1, y1]) and points ([x, y]) to draw for a witness; a segment shows as its two ends."""
    kind = wit["kind"]
    if kind == "scalar":
        return []
    value = wit["value"]
    if kind in ("bbox", "point"):
        return [value]
    if kind == "segment":
        return [value[:2], value[2:]]
    if kind == "map":
        return list(value.values())
    return list(value)


def _page(name: str, dataset: Path, cards: list[str], audit: Path | None = None, styles: bool = False) -> str:
    link = f' The <a href="{html.escape(audit.as_posix())}">audit</a> of this dataset.' if audit else ""
    if styles:
        link += ('</p><p>One instance, plain and then under <code>variety: strong</code> (the answer, label and '
                 'prompt stay the same):<br><img src="styles.png" style="max-width:100%" alt="styles">')
    return f"""<!doctype html><meta charset="utf-8"><title>Tessera gallery — {html.escape(name)}</title>
<style>body{{font-family:sans-serif;margin:16px;background:#f4f4f6}}.grid{{display:grid;
grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:14px}}.card{{background:#fff;padding:10px;
border-radius:8px;box-shadow:0 1px 3px #0002}}.img{{position:relative}}.img img{{width:100%;display:block}}
.box{{position:absolute;border:2px solid #e0f;box-sizing:border-box}}.pt{{position:absolute;width:8px;height:8px;
margin:-4px;background:#e0f;border-radius:50%}}pre{{white-space:pre-wrap;font-size:12px}}.meta{{font-size:13px}}
</style><h1>Tessera gallery — {html.escape(name)}</h1><p>{len(cards)} rows of {html.escape(str(dataset))}.
Magenta boxes are the image-space witnesses.{link}</p><div class="grid">{''.join(cards)}</div>"""


# -- one instance under several styles --------------------------------------------------------------------------
def style_instances(task, seed: int, level: int, vocab: dict, styles: int = 10, variety: str = "strong") -> list:
    """The same instance (state, query, prompt, answer) drawn `styles` times: first the plain picture, then under
    `variety` with render seeds of their own. Raises TesseraError if any answer, label or prompt differs (it
    cannot: only the render stream moves)."""
    from .errors import TesseraError
    from .sample.rng import derive_seed
    from .trace.loop import generate

    if not 1 <= styles <= 64:
        raise TesseraError(f"styles must be between 1 and 64, got {styles}")
    plain = generate(task, seed, level, vocab=vocab)
    out = [plain]
    for i in range(1, styles):
        render_seed = derive_seed(seed, task.id, f"render/style/{i}")
        inst = generate(task, seed, level, None, vocab, {"render": render_seed},
                        variety=variety)
        if (inst.answer, inst.label, inst.prompt) != (plain.answer, plain.label, plain.prompt):
            raise TesseraError(f"{task.id}: style {i} changed the answer, label or prompt")
        out.append(inst)
    return out


def contact_sheet(instances: list, columns: int = 5, cell: tuple[int, int] = (360, 280),
                  witness: bool = True) -> bytes:
    """A PNG grid of the instances' pictures, each fitted into `cell`, with its witness boxes drawn over it (so a
    reader sees them follow the marks through every warp)."""
    import io

    from PIL import Image, ImageDraw

    rows = -(-len(instances) // columns)
    gap = 6
    sheet = Image.new("RGB", (columns * (cell[0] + gap) + gap, rows * (cell[1] + gap) + gap), (226, 226, 230))
    for i, inst in enumerate(instances):
        img = Image.open(io.BytesIO(inst.png)).convert("RGB")
        k = min(cell[0] / img.width, cell[1] / img.height)
        if witness:
            draw = ImageDraw.Draw(img)
            for g in witness_geometries(inst.witness):
                if len(g) == 4:
                    draw.rectangle([g[0], g[1], g[2], g[3]], outline=(230, 0, 255), width=max(2, round(2 / k)))
                else:
                    r = max(3, round(4 / k))
                    draw.ellipse([g[0] - r, g[1] - r, g[0] + r, g[1] + r], fill=(230, 0, 255))
        img = img.resize((max(1, round(img.width * k)), max(1, round(img.height * k))), Image.Resampling.LANCZOS)
        x = gap + (i % columns) * (cell[0] + gap) + (cell[0] - img.width) // 2
        y = gap + (i // columns) * (cell[1] + gap) + (cell[1] - img.height) // 2
        sheet.paste(img, (x, y))
    buf = io.BytesIO()
    sheet.save(buf, "PNG")
    return buf.getvalue()
