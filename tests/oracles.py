"""Independent Python recomputation of every bundled task's answer from the recorded state (and the program's
recorded random picks, which are inputs, not answers). Written without the expression language on purpose."""
from __future__ import annotations

import math
import re
from collections import Counter


def resolve(trace: dict, value):
    """Turn {"$ref": "shapes[3]"} into the state object it names."""
    if isinstance(value, dict) and set(value) == {"$ref"}:
        obj = trace["state"]
        for name, index in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", value["$ref"]):
            obj = obj[name] if name else obj[int(index)]
        return obj
    if isinstance(value, list):
        return [resolve(trace, v) for v in value]
    return value


def step(trace: dict, name: str):
    return resolve(trace, trace["steps"][name])


def first_mode(values):
    counts = Counter(values)
    best = max(counts.values())
    return next(v for v in values if counts[v] == best)


def _bar_extremum(tr):
    # the extreme bar, or from level 6 the second in that order
    bars = sorted(tr["state"]["bars"], key=lambda b: b["value"], reverse=tr["query"]["extreme"] == "highest")
    return bars[0 if tr["level"] < 6 else 1]["label"]


def _bar_difference(tr):
    vals = [b["value"] for b in tr["state"]["bars"]]
    return max(vals) - min(vals)


def _bar_above_mean(tr):
    vals = [b["value"] for b in tr["state"]["bars"]]
    avg = sum(vals) / len(vals)
    return sum(v > avg for v in vals)


def _bar_sorted(tr):
    bars = tr["state"]["bars"]
    desc = tr["query"]["order"] == "descending"
    return [b["label"] for b in sorted(bars, key=lambda b: b["value"], reverse=desc)]


def _line_change(tr):
    pts = tr["state"]["points"]
    diffs = [(pts[i + 1]["value"] - pts[i]["value"], pts[i + 1]["month"]) for i in range(len(pts) - 1)]
    pick = max if tr["query"]["direction"] == "increase" else min
    return pick(diffs)[1]


def _line_rises(tr):
    pts = tr["state"]["points"]
    return sum(pts[i + 1]["value"] > pts[i]["value"] for i in range(len(pts) - 1))


def _line_mean(tr):
    vals = [p["value"] for p in tr["state"]["points"]]
    return sum(vals) / len(vals)


def _scatter_above(tr):
    return sum(p["y"] > tr["query"]["threshold"] for p in tr["state"]["points"])


def _scatter_majority(tr):
    groups = [p["group"] for p in tr["state"]["points"]]
    top = Counter(groups).most_common(1)[0][0]
    return "ABCDEFGH"[step(tr, "options").index(top)]


def _field_count_matching(tr):
    pick = step(tr, "pick")
    attr = tr["query"]["attribute"]
    return sum(s[attr] == pick[attr] for s in tr["state"]["shapes"])


def _field_conjunction(tr):
    pick = step(tr, "pick")
    return sum(s["color"] == pick["color"] and s["size"] == pick["size"] for s in tr["state"]["shapes"])


def _field_relation(tr):
    a, b = step(tr, "a"), step(tr, "b")
    rel = tr["query"]["relation"]
    return {"left of": a["x"] < b["x"], "right of": a["x"] > b["x"], "above": a["y"] < b["y"],
            "below": a["y"] > b["y"]}[rel]


def _field_nearest(tr):
    ref = step(tr, "ref")
    others = [s for s in tr["state"]["shapes"] if s is not ref]
    return min(others, key=lambda s: math.hypot(s["x"] - ref["x"], s["y"] - ref["y"]))["color"]


def _field_left_to_right(tr):
    shapes = tr["state"]["shapes"]
    kind = first_mode([s["shape"] for s in shapes])
    return [s["color"] for s in sorted((s for s in shapes if s["shape"] == kind), key=lambda s: s["x"])]


def _field_present(tr):
    kind = step(tr, "kind")
    return sorted({s["color"] for s in tr["state"]["shapes"] if s["shape"] == kind})


def _grid_row(tr):
    st = tr["state"]
    counts = [sum(p["row"] == r for p in st["pieces"]) for r in range(st["rows"])]
    target = max(counts) if tr["query"]["extreme"] == "most" else min(counts)
    return counts.index(target) + 1


def _grid_empty(tr):
    st = tr["state"]
    return st["rows"] * st["cols"] - len(st["pieces"])


def _grid_common_option(tr):
    top = Counter(p["shape"] for p in tr["state"]["pieces"]).most_common(1)[0][0]
    return "ABCDEFGH"[step(tr, "options").index(top)]


def _grid_column_color(tr):
    col, color = step(tr, "column"), step(tr, "color")
    return sum(p["col"] == col and p["color"] == color for p in tr["state"]["pieces"])


ORACLES = {
    "charts.bar_chart.extremum_label": _bar_extremum,
    "charts.bar_chart.value_difference": _bar_difference,
    "charts.bar_chart.count_above_mean": _bar_above_mean,
    "charts.bar_chart.sorted_labels": _bar_sorted,
    "charts.line_chart.largest_change": _line_change,
    "charts.line_chart.count_rises": _line_rises,
    "charts.line_chart.mean_value": _line_mean,
    "charts.scatter_plot.count_above": _scatter_above,
    "charts.scatter_plot.majority_group": _scatter_majority,
    "icons.shape_field.count_matching": _field_count_matching,
    "icons.shape_field.count_conjunction": _field_conjunction,
    "icons.shape_field.relation": _field_relation,
    "icons.shape_field.nearest_color": _field_nearest,
    "icons.shape_field.colors_left_to_right": _field_left_to_right,
    "icons.shape_field.colors_present": _field_present,
    "icons.shape_grid.row_extreme": _grid_row,
    "icons.shape_grid.empty_cells": _grid_empty,
    "icons.shape_grid.common_shape_option": _grid_common_option,
    "icons.shape_grid.column_color_count": _grid_column_color,
}


def same_answer(answer_type: str, expected, actual) -> bool:
    if answer_type == "number":
        return abs(expected - actual) <= 0.05 + 1e-9
    if answer_type == "set":
        return sorted(expected) == sorted(actual)
    return expected == actual


def _merge_domain_oracles() -> None:
    """Oracles of other domains live in tests/oracles_<domain>.py, each with its own ORACLES dict."""
    import importlib
    from pathlib import Path

    for path in sorted(Path(__file__).parent.glob("oracles_*.py")):
        module = importlib.import_module(f"tests.{path.stem}")
        overlap = set(module.ORACLES) & set(ORACLES)
        assert not overlap, f"{path.name} redefines oracles for {sorted(overlap)}"
        ORACLES.update(module.ORACLES)


_merge_domain_oracles()
