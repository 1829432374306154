"""index.html of `tessera audit`: a headline table, the thresholds exceeded, a per-task table with flagged cells in
red, and per task three small plots drawn here as inline SVG (answer shares, dHash distance histogram, figures per
level). No scripts, no fonts or styles from the network: the file opens offline and shows the same everywhere.
Every text from the dataset is HTML-escaped (task ids are checked, but answers and prompts are free text)."""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any

RED = "#c62828"
BAR = "#4a78b5"
LINE_COLOURS = {"objects": "#4a78b5", "work": "#c0631b", "marks": "#6a9a3a", "answer_magnitude": "#8e44ad",
                "distinct_answers": "#7f8c8d"}


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def num(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


# -- plots ------------------------------------------------------------------------------------------------------
def svg_bars(counts: dict[str, int], total: int, width: int = 260, row: int = 14) -> str:
    """Horizontal bars: each answer's share of the task's rows (the top 12)."""
    items = list(counts.items())[:12]
    if not items:
        return ""
    h = row * len(items) + 4
    label_w = 90
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h}" role="img" '
             f'aria-label="answer shares">']
    for i, (answer, n) in enumerate(items):
        y = 2 + i * row
        share = n / total if total else 0
        w = max(1.0, (width - label_w - 40) * share)
        text = answer if len(answer) <= 14 else answer[:13] + "…"
        parts.append(f'<text x="{label_w - 4}" y="{y + row - 4}" font-size="10" text-anchor="end">{esc(text)}</text>'
                     f'<rect x="{label_w}" y="{y + 1}" width="{w:.1f}" height="{row - 3}" fill="{BAR}"/>'
                     f'<text x="{label_w + w + 3:.1f}" y="{y + row - 4}" font-size="10">{n} ({pct(share)})</text>')
    parts.append("</svg>")
    return "".join(parts)


def svg_histogram(hist: list[int], bits: int, bin_width: int, width: int = 260, height: int = 80) -> str:
    """dHash Hamming distances of every pair of images of the task; bins at or under `bits` are red."""
    if not hist or not sum(hist):
        return ""
    top = max(hist)
    n = len(hist)
    bw = (width - 10) / n
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 14}" role="img" '
             f'aria-label="hash distance histogram">']
    for i, c in enumerate(hist):
        if not c:
            continue
        h = max(1.0, (height - 4) * c / top)
        colour = RED if i * bin_width <= bits else BAR
        parts.append(f'<rect x="{5 + i * bw:.1f}" y="{height - h:.1f}" width="{max(bw - 1, 1):.1f}" '
                     f'height="{h:.1f}" fill="{colour}"><title>{i * bin_width}–{(i + 1) * bin_width - 1} bits: '
                     f'{c} pairs</title></rect>')
    parts.append(f'<text x="5" y="{height + 12}" font-size="9">0</text>'
                 f'<text x="{width - 5}" y="{height + 12}" font-size="9" text-anchor="end">{n * bin_width} bits'
                 f'</text></svg>')
    return "".join(parts)


def svg_levels(per_level: dict[str, dict], width: int = 260, height: int = 80) -> str:
    """Each figure per level, scaled to its own maximum (the legend gives lowest → highest level)."""
    series = {k: {int(lv): v for lv, v in vals.items()} for k, vals in per_level.items() if vals}
    levels = sorted({lv for vals in series.values() for lv in vals})
    if len(levels) < 2:
        return ""
    lo, hi = levels[0], levels[-1]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 14}" role="img" '
             f'aria-label="figures per level">']
    for name, vals in series.items():
        top = max(vals.values()) or 1
        pts = " ".join(f"{5 + (lv - lo) / (hi - lo) * (width - 10):.1f},{height - 2 - (v / top) * (height - 6):.1f}"
                       for lv, v in sorted(vals.items()))
        parts.append(f'<polyline fill="none" stroke="{LINE_COLOURS.get(name, "#333")}" stroke-width="1.5" '
                     f'points="{pts}"><title>{esc(name)}</title></polyline>')
    parts.append(f'<text x="5" y="{height + 12}" font-size="9">level {lo}</text>'
                 f'<text x="{width - 5}" y="{height + 12}" font-size="9" text-anchor="end">level {hi}</text></svg>')
    return "".join(parts)


# -- the page ---------------------------------------------------------------------------------------------------
STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:right;vertical-align:top}
td:first-child,th:first-child{text-align:left}
.bad{color:#fff;background:#c62828}
.ok{color:#1b5e20}
.task{border-top:1px solid #ddd;padding:.5em 0}
.plots{display:flex;gap:1.5em;flex-wrap:wrap}
.plots div{font-size:12px}
.legend span{margin-right:.8em}
code{font-size:12px}
"""

HEADLINE_ROWS = [
    ("tasks (rows)", lambda h: f"{h['tasks']} ({h['rows']} rows; {h['tasks_flaggable']} with enough rows to flag)"),
    ("option tasks whose best options-only rule is within chance + margin",
     lambda h: "{} of {}".format(*h["option_tasks_within_options_only_limit"])),
    ("option tasks whose learned options-and-question scorer is within chance + margin",
     lambda h: "{} of {}".format(*h["option_tasks_within_options_learned_limit"])),
    ("yes/no tasks with a yes share in range", lambda h: "{} of {}".format(*h["yes_no_tasks_within_yes_share"])),
    ("tasks within the top-answer share limit", lambda h: "{} of {}".format(*h["tasks_within_top_share_limit"])),
    ("tasks whose answer or work grows with level", lambda h: "{} of {}".format(*h["tasks_whose_answer_or_work_grows"])),
    ("tasks flat with level (no figure grows)", lambda h: str(h["tasks_flat_with_level"])),
    ("mean top-answer share / normalised entropy", lambda h: f"{pct(h['mean_top_share'])} / {num(h['mean_entropy'])}"),
    ("mean accuracy: chance / majority / same prompt / naive Bayes",
     lambda h: f"{pct(h['mean_chance'])} / {pct(h['mean_majority'])} / {pct(h['mean_prompt_lookup'])} / "
               f"{pct(h['mean_naive_bayes'])}"),
    ("option tasks: best options-only rule / learned scorer vs chance",
     lambda h: f"{pct(h['mean_options_only_best'])} / {pct(h['mean_options_learned'])} vs "
               f"{pct(h['mean_options_only_chance'])}"),
    ("pooled yes share", lambda h: pct(h["pooled_yes_share"])),
    ("near-duplicate image pairs: within tasks / across splits / across tasks",
     lambda h: f"{h['near_duplicate_pairs_within_tasks']} / {h['near_duplicate_pairs_across_splits']} / "
               f"{h['near_duplicate_pairs_across_tasks']}"),
    ("generation: rejected attempts", lambda h: pct(h["reject_rate"])),
    ("thresholds exceeded", lambda h: str(h["violations"])),
]


def headline_rows(report: dict) -> list[tuple[str, str]]:
    h = report["headline"]
    return [(name, get(h)) for name, get in HEADLINE_ROWS]


def _size(figure: dict | None) -> str:
    return "—" if not figure else f"{figure['min']:g}"


def _cell(text: str, bad: bool) -> str:
    return f'<td class="bad">{text}</td>' if bad else f"<td>{text}</td>"


def write_html(report: dict, path: Path) -> None:
    th = report["thresholds"]
    flagged: dict[tuple[str, str], str] = {(v["task"], v["threshold"]): v["detail"] for v in report["violations"]}
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>tessera audit: {esc(report['build'])}</title>"
           f"<style>{STYLE}</style></head><body>",
           f"<h1>Audit of {esc(report['build'])}</h1><p><code>{esc(report['dataset'])}</code> — "
           + ("<b class='ok'>within every threshold</b>" if report["ok"] else
              f"<b style='color:{RED}'>{len(report['violations'])} threshold(s) exceeded</b>") + "</p>",
           "<h2>Headline</h2><table id='headline'><tr><th>figure</th><th>value</th></tr>"]
    out += [f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in headline_rows(report)]
    out.append("</table>")
    out.append("<h2>Thresholds</h2><table><tr><th>name</th><th>value</th><th>from</th></tr>")
    out += [f"<tr><td>{esc(k)}</td><td>{v:g}</td><td>{esc(report['threshold_sources'][k])}</td></tr>"
            for k, v in th.items()]
    out.append("</table>")
    if report["violations"]:
        out.append("<h2>Exceeded</h2><table><tr><th>threshold</th><th>task</th><th>detail</th></tr>")
        out += [f"<tr><td>{esc(v['threshold'])}</td><td><a href='#{esc(v['task'])}'>{esc(v['task'])}</a></td>"
                f"<td style='text-align:left'>{esc(v['detail'])}</td></tr>" for v in report["violations"]]
        out.append("</table>")

    out.append("<h2>Tasks</h2><p>Rates are shown with their counts; tasks with fewer than "
               f"{th['min_rows']:g} rows are never flagged. Baselines are 5-fold cross-validated.</p>"
               "<table id='tasks'><tr><th>task</th><th>rows</th><th>answers</th><th>entropy</th>"
               "<th>top share (limit)</th><th>yes share</th><th>letters</th><th>chance</th><th>majority</th>"
               "<th>same prompt</th><th>naive Bayes</th><th>options-only best (rows)</th><th>options learned</th>"
               "<th>min hash dist</th>"
               "<th>near dups</th><th>grows with level</th><th>smallest answer text / mark px</th></tr>")
    from .audit import top_share_limit

    for t, i in report["tasks"].items():
        b = i["baselines"]
        opts = i.get("options_only")
        yes = i.get("yes")
        lv = i["levels"]
        grows = [k for k, g in lv["growth"].items() if g["grows"]]
        limit = top_share_limit(i["distinct_answers"], th)
        letters = " ".join(f"{esc(k)}:{n}" for k, n in (i.get("letters") or {}).items())
        out.append(
            f"<tr><td><a href='#{esc(t)}'>{esc(t)}</a></td><td>{i['rows']}</td><td>{i['distinct_answers']}</td>"
            f"<td>{num(i['entropy'])}</td>"
            + _cell(f"{pct(i['top_share'])} ({i['top_count']}/{i['rows']}; ≤{pct(limit)})", (t, "top_share") in flagged)
            + _cell(f"{pct(yes['share'])} ({yes['yes']}/{yes['n']})" if yes else "—", (t, "yes_share") in flagged)
            + f"<td>{letters or '—'}</td><td>{pct(b['chance'])}</td><td>{pct(b['majority'])}</td>"
              f"<td>{pct(b['prompt_lookup'])}</td><td>{pct(b['naive_bayes'])}</td>"
            + _cell(f"{pct(opts['best_accuracy'])} {esc(opts['best_rule'])} ({opts['rows']})" if opts else "—",
                    (t, "options_only") in flagged)
            + _cell(pct(opts["learned"]) if opts else "—", (t, "options_learned") in flagged)
            + f"<td>{i['images']['min_distance'] if i['images']['min_distance'] is not None else '—'}</td>"
              f"<td>{i['images']['near_duplicate_pairs']}</td>"
            + _cell(esc(", ".join(grows)) or "nothing", (t, "level_growth") in flagged)
            + f"<td>{_size(i.get('sizes', {}).get('text_px'))} / {_size(i.get('sizes', {}).get('mark_px'))}</td></tr>")
    out.append("</table>")

    cross = report["cross_task_near_duplicates"]
    out.append(f"<h2>Near-duplicate images across tasks</h2><p>{cross['pairs']} pair(s) within "
               f"{report['near_duplicate_bits']} bits over {cross['rows_compared']} rows"
               + (" (a sample)" if cross["sampled"] else "") + ".</p>")
    if cross["task_pairs"]:
        out.append("<table><tr><th>tasks</th><th>pairs</th><th>example ids (distance)</th></tr>")
        out += [f"<tr><td>{esc(' / '.join(p['tasks']))}</td><td>{p['pairs']}</td>"
                f"<td>{esc(p['example'][0])} {esc(p['example'][1])} ({p['example'][2]})</td></tr>"
                for p in cross["task_pairs"][:30]]
        out.append("</table>")

    out.append("<h2>Generation reliability (worst first)</h2><table><tr><th>task</th><th>accepted</th>"
               "<th>attempts</th><th>rejected</th><th>retries</th><th>reasons</th></tr>")
    for s in report["reliability"][:40]:
        reasons = ", ".join(f"{k} ×{n}" for k, n in {**s["reasons"], **s["retry_reasons"]}.items())
        out.append(f"<tr><td>{esc(s['task'])}</td><td>{s['accepted']}</td><td>{s['attempts']}</td>"
                   f"<td>{s['rejected']} ({pct(s['reject_rate'])})</td><td>{s['retries']}</td>"
                   f"<td style='text-align:left'>{esc(reasons) or '—'}</td></tr>")
    out.append("</table>")

    legend = "".join(f"<span style='color:{c}'>■ {esc(k)}</span>" for k, c in LINE_COLOURS.items())
    out.append(f"<h2>Per task</h2><p class='legend'>Figures per level, each scaled to its maximum: {legend}</p>")
    from .audit import HIST_BIN

    for t, i in report["tasks"].items():
        notes = [f"<li style='color:{RED}'>{esc(v['threshold'])}: {esc(v['detail'])}</li>"
                 for v in report["violations"] if v["task"] == t]
        out.append(f"<div class='task' id='{esc(t)}'><h3>{esc(t)}</h3>" + (f"<ul>{''.join(notes)}</ul>" if notes else "")
                   + "<div class='plots'>"
                   f"<div>answer shares<br>{svg_bars(i['answer_counts'], i['rows'])}</div>"
                   f"<div>hash distances ({i['images']['pairs']} pairs)<br>"
                   f"{svg_histogram(i['images']['histogram'], report['near_duplicate_bits'], HIST_BIN)}</div>"
                   f"<div>figures per level<br>{svg_levels(i['levels']['per_level'])}</div></div></div>")
    out.append("</body></html>\n")
    Path(path).write_text("".join(out), encoding="utf-8")
