"""The eye-audit properties of issue 11 (part 4, first half), measured on the taxonomy of this checkout: yes share per
yes/no task (overall and the range over prompt forms), chess legality, component_count's spread, move_vertex
images, marks on tasks that never mention them, option texts that read as option letters.

    python bench/board_fixes.py        (about 1.5 minutes on 2 cores)
"""
from __future__ import annotations

import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.taxonomy import compile_taxonomy  # noqa: E402
from tessera.trace.instance import generate  # noqa: E402
from tests.tasks.games.chess import reachable  # noqa: E402

tax = compile_taxonomy(ROOT)


def g(task_id: str, seed: int):
    return generate(tax.tasks[task_id], seed, seed % 10, vocab=tax.vocab)


def yes_shares(n: int) -> None:
    """Yes share per yes/no task, and its range over the values of each query variable (the prompt forms)."""
    for t in sorted(x for x, task in tax.tasks.items() if task.contract.id == "yes_no"):
        ys, form = [], collections.defaultdict(list)
        for s in range(n):
            inst = g(t, s)
            ys.append(bool(inst.answer))
            for k, v in inst.trace["query"].items():
                if k != "outcome" and len(tax.tasks[t].queries[k]) > 1:  # a prompt form, not a fixed input
                    form[f"{k}={v}"].append(bool(inst.answer))
        shares = [sum(v) / len(v) for v in form.values()]
        span = f"  form range {min(shares):.2f} .. {max(shares):.2f}" if shares else ""
        print(f"yes {t:50} {sum(ys) / n:.2f}{span}")


def chess_legality(per_task: int) -> None:
    bad, n = collections.Counter(), 0
    for t in sorted(x for x in tax.tasks if x.startswith("games.chess.")):
        for s in range(per_task):
            st = g(t, s).trace["state"]
            n += 1
            kings = [p for p in st["pieces"] if p["kind"] == "king"]
            if sorted(k["side"] for k in kings) != ["black", "white"]:
                bad["not one king per side"] += 1
                continue
            a, b = kings
            if max(abs(a["row"] - b["row"]), abs(a["col"] - b["col"])) < 2:
                bad["kings adjacent"] += 1
            if any((k["row"], k["col"]) in reachable(st, p, True)
                   for k in kings for p in st["pieces"] if p["side"] != k["side"]):
                bad["a king in check"] += 1
    print(f"chess {n} positions:", dict(bad))


def component_spread(n: int) -> None:
    by_band = collections.defaultdict(collections.Counter)
    for s in range(n):
        by_band[(s % 10) // 5][g("graphs.weighted_graph.component_count", s).answer] += 1
    print("component_count levels 0-4:", dict(sorted(by_band[0].items())),
          " levels 5-9:", dict(sorted(by_band[1].items())))


def fixed_vertices(n: int) -> None:
    fixed = 0
    for s in range(n):
        inst = g("geometry.lattice_polygon.move_vertex", s)
        name = inst.prompt.split("Vertex ")[1].split(" ")[0]
        v = next(p for p in inst.trace["state"]["vertices"] if p["name"] == name)
        fixed += [v["x"], v["y"]] == inst.answer
    print(f"move_vertex: image == vertex in {fixed}/{n}")


def stray_marks(n: int) -> None:
    def marked(key):
        return lambda st: sum(c["marked"] for c in st[key])
    for t, count in [("puzzles.sudoku.missing_digit", marked("cells")), ("puzzles.sudoku.missing_set", marked("cells")),
                     ("puzzles.tiles.has_line", marked("tiles")), ("puzzles.tiles.longest_run", marked("tiles")),
                     ("graphs.maze.dead_ends", lambda st: sum(c["mark"] != "" for c in st["cells"]))]:
        hits = sum(count(g(t, s).trace["state"]) > 0 for s in range(n))
        print(f"marks {t:40} {hits}/{n} with a mark the question never mentions")


def option_collisions(per_task: int) -> None:
    hits = collections.Counter()
    for t in sorted(x for x, task in tax.tasks.items() if task.contract.id == "option_letter"):
        for s in range(per_task):
            lines = [ln for ln in g(t, s).prompt.splitlines() if len(ln) > 3 and ln[0].isupper() and ln[1:3] == ". "]
            letters = {ln[0] for ln in lines}
            hits[t] += any(ln[3:].strip() in letters for ln in lines)
    print(f"option text == an option letter (of {per_task}):", {k: v for k, v in hits.items() if v})


if __name__ == "__main__":
    yes_shares(200)
    chess_legality(50)
    component_spread(200)
    fixed_vertices(200)
    stray_marks(50)
    option_collisions(40)
