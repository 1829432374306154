"""The main job on the bundled taxonomy: compile, sample every task at a spread of levels, verify and replay each
instance, and write the instances plus an HTML gallery (image, prompt, answer, witness box) to one folder."""
from __future__ import annotations

import html
import json
import shutil
import time
from pathlib import Path

from .cli import summary, write_instance
from .taxonomy import compile_taxonomy
from .trace.instance import generate
from .trace.replay import replay_trace
from .verify.score import score


def _levels(n: int) -> list[int]:
    if n <= 1:
        return [0]
    return [round(i * 9 / (n - 1)) for i in range(n)]


def run_demo(root: Path, out: Path, per_task: int, con) -> int:
    from rich.progress import Progress
    from rich.table import Table

    t0 = time.perf_counter()
    tax = compile_taxonomy(root)
    info = summary(tax, time.perf_counter() - t0)
    con.print(f"compiled [bold]{info['tasks']}[/] tasks over {info['grammars']} grammars in {info['domains']} domains "
              f"in {info['compile_seconds'] * 1000:.0f} ms")
    # Write into a side folder and swap it in at the end, so a half-written gallery never looks finished.
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    cards, rows, failures = [], [], 0
    with Progress(console=con, transient=True) as progress:
        job = progress.add_task("sampling", total=len(tax.tasks) * per_task)
        for tid in sorted(tax.tasks):
            task = tax.tasks[tid]
            times, ok_replay, ok_verify = [], 0, 0
            for i, level in enumerate(_levels(per_task)):
                s = time.perf_counter()
                inst = generate(task, seed=i, level=level, vocab=tax.vocab)
                times.append(time.perf_counter() - s)
                write_instance(inst, partial / tid)
                good = score(inst.label, f'{{"answer": {json.dumps(inst.answer)}}}').reward == 1.0
                ok_verify += good
                ok_replay += replay_trace(inst.trace, tax).ok
                cards.append(_card(tid, inst, level))
                progress.advance(job)
            failures += (per_task - ok_replay) + (per_task - ok_verify)
            rows.append((tid, task.answer_type, per_task, sum(times) / len(times) * 1000, ok_verify, ok_replay))
    (partial / "index.html").write_text(_page(tax.name, cards))
    (partial / "summary.json").write_text(json.dumps(info, indent=2) + "\n")
    if out.exists():
        shutil.rmtree(out)
    partial.rename(out)

    table = Table(title="demo: every task sampled, verified and replayed")
    for col in ("task", "answer", "n", "ms/inst", "verifier", "replay"):
        table.add_column(col, justify="right" if col in ("n", "ms/inst") else "left")
    for tid, typ, n, ms, v, r in rows:
        table.add_row(tid, typ, str(n), f"{ms:.1f}", f"{v}/{n}", f"{r}/{n}")
    con.print(table)
    con.print(f"wrote {len(cards)} instances to [bold]{out}[/]; open {out / 'index.html'} to look at them")
    return 0 if failures == 0 else 1


def _card(tid: str, inst, level: int) -> str:
    w, h = inst.trace["render"]["width"], inst.trace["render"]["height"]
    boxes = ""
    wit = inst.witness
    geoms = [] if wit["kind"] == "scalar" else ([wit["value"]] if wit["kind"] in ("bbox", "point") else wit["value"])
    for g in geoms:
        if len(g) == 4:
            x0, y0, x1, y1 = g
            boxes += (f'<div class="box" style="left:{x0 / w * 100:.2f}%;top:{y0 / h * 100:.2f}%;'
                      f'width:{(x1 - x0) / w * 100:.2f}%;height:{(y1 - y0) / h * 100:.2f}%"></div>')
        else:
            x, y = g
            boxes += f'<div class="pt" style="left:{x / w * 100:.2f}%;top:{y / h * 100:.2f}%"></div>'
    return (f'<div class="card"><div class="img"><img src="{html.escape(tid)}/{inst.instance_id}.png">{boxes}</div>'
            f'<div class="meta"><b>{html.escape(tid)}</b> · level {level} · {html.escape(json.dumps(inst.trace["query"]))}'
            f'<pre>{html.escape(inst.prompt)}</pre><div>answer: <b>{html.escape(json.dumps(inst.answer))}</b> '
            f'({inst.task.answer_type}) · witness: {wit["kind"]}</div></div></div>')


def _page(name: str, cards: list[str]) -> str:
    return f"""<!doctype html><meta charset="utf-8"><title>Tessera gallery — {html.escape(name)}</title>
<style>body{{font-family:sans-serif;margin:16px;background:#f4f4f6}}.grid{{display:grid;
grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:14px}}.card{{background:#fff;padding:10px;
border-radius:8px;box-shadow:0 1px 3px #0002}}.img{{position:relative}}.img img{{width:100%;display:block}}
.box{{position:absolute;border:2px solid #e0f;box-sizing:border-box}}.pt{{position:absolute;width:8px;height:8px;
margin:-4px;background:#e0f;border-radius:50%}}pre{{white-space:pre-wrap;font-size:12px}}.meta{{font-size:13px}}
</style><h1>Tessera gallery — {html.escape(name)}</h1><p>Magenta boxes are the image-space witnesses.</p>
<div class="grid">{''.join(cards)}</div>"""
