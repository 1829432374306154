"""Wrong options of every option task: each is wrong and distinct, each is a near miss that only the picture rules
out, and no options-only rule (compiler/verify/shortcuts.py) beats chance by more than 10 points.

The fits below recompute, independently of the expression language, which options satisfy the question; exactly
one must, and it must be the answer. A new option task needs an `@option_fit` in its grammar's tests/tasks/ file."""
from __future__ import annotations

import sys
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from tessera.trace.instance import generate
from tessera.trace.loop import sample_state
from tessera.validate.audit import Row, cv_options_learned
from tessera.verify.shortcuts import OPTION_RULES
from tests.conftest import ROOT
from tests.tasks import OPTION_FITS
from tests.tasks.common import step
from tests.tasks.games.chess import reachable, square
from tests.tasks.graphs.rooted_tree import _up
from tests.tasks.graphs.weighted_graph import _joined
from tests.tasks.icons._shared import PANEL_KEYS
from tests.tasks.icons.sequence import expected_next
sys.path.insert(0, str(ROOT))
from bench.options_only import (
    chess_pattern,
    options_shown,
    panel_medoid,
    quick_instance,
)


# Which listed options satisfy each option task's question: recomputed independently of the expression language, in
# the file of the task's grammar (tests/tasks/<domain>/<grammar>.py, `@option_fit`).
FITS = OPTION_FITS


def test_every_option_task_has_fits(taxonomy):
    """FITS names exactly the compiled option tasks, so the tests below parametrize over it without compiling."""
    assert sorted(FITS) == sorted(t for t, task in taxonomy.tasks.items() if task.answer_type == "option")


@pytest.mark.parametrize("task_id", sorted(FITS))
def test_one_right_option_and_distinct_wrong_ones(taxonomy, task_id):
    task = taxonomy.tasks[task_id]
    for level in (0, 2, 5, 9):
        for seed in range(3):
            inst = generate(task, 500 + seed, level, vocab=taxonomy.vocab)
            letters, texts = options_shown(inst.prompt)
            assert len(texts) >= 2 and len(set(texts)) == len(texts), (level, seed, texts)
            assert FITS[task_id](inst.trace) == [letters.index(inst.answer)], (level, seed, texts)


# -- near misses: what each task's wrong options must be --------------------------------------------------------
def _traces(taxonomy, task_id, seeds=4):
    task = taxonomy.tasks[task_id]
    for level in range(10):
        for seed in range(seeds):
            yield level, quick_trace(task, 700 + seed, level, taxonomy.vocab)


def quick_trace(task, seed, level, vocab) -> dict:
    """The parts of a trace the checks read (state and steps), without drawing the scene: the generation loop's
    unrendered sample, so these are exactly the instances `generate(task, seed, level)` builds."""
    drawn = sample_state(task, seed, level, vocab=vocab)
    return {"state": drawn.state, "steps": drawn.steps, "query": drawn.query, "answer": drawn.answer}


def test_spinner_options_are_probabilities_this_spinner_can_have(taxonomy):
    """Every option is j/n for some count 1 <= j < n (another colour's probability), never k/(n - k) or 1/(k + 1)."""
    for level, tr in _traces(taxonomy, "symbolic.spinner.probability_option"):
        n = len(tr["state"]["sectors"])
        for o in tr["steps"]["options"]:
            j = Fraction(o) * n
            assert j.denominator == 1 and 1 <= j < n, (level, o, n)
        assert len(tr["steps"]["options"]) == min(4, n - 1)


def test_clock_options_all_fit_the_question(taxonomy):
    """Every option is some drawable clock time (the row's minute step) plus the asked delay: the question's delay
    and the row's step rule none out, only reading the clocks does."""
    for level, tr in _traces(taxonomy, "symbolic.clock_row.time_after_option"):
        st, delta = tr["state"], tr["steps"]["delta"]
        for o in tr["steps"]["options"]:
            h, m = map(int, o.split(":"))
            start = (h % 12 * 60 + m - delta) % 720
            assert start % 60 % st["step"] == 0, (level, o, delta, st["step"])
        assert len(tr["steps"]["options"]) == 4 + level // 4


def test_chess_wrong_options_are_on_the_move_pattern(taxonomy):
    """Every option is a square the piece's pattern reaches on an empty board, all at one distance from it; the wrong
    ones are taken or behind a piece (so the question alone, which names the piece and its square, cannot tell them
    apart)."""
    for level, tr in _traces(taxonomy, "games.chess.move_option"):
        st, mover = tr["state"], tr["steps"]["mover"]
        alone = {**st, "pieces": [mover]}
        pattern = {square(st, r, c) for r, c in reachable(alone, mover, captures=False)}
        legal = {square(st, r, c) for r, c in reachable(st, mover, captures=False)}
        options = tr["steps"]["options"]
        assert set(options) <= pattern, (level, options, pattern)
        assert len([o for o in options if o in legal]) == 1
        assert 3 <= len(options) <= 4
        # all at one distance from the piece: the right one is not simply the nearest
        at = {max(abs(int(o[1:]) - (st["rows"] - mover["row"])), abs(ord(o[0].upper()) - 65 - mover["col"])) for o in options}
        assert len(at) == 1, (level, options, square(st, mover["row"], mover["col"]))


def test_sequence_candidates_cross_two_changes(taxonomy):
    """The four candidates are the right panel with two properties changed in every combination: each changed value
    shows in exactly two candidates and no candidate is nearer the others than the rest (no medoid)."""
    for level, tr in _traces(taxonomy, "icons.sequence.next_panel"):
        st = tr["state"]
        options, right = st["options"], expected_next(st["panels"])
        varying = [k for k in PANEL_KEYS if len({o[k] for o in options}) > 1]
        assert len(varying) == 2, (level, options)
        for k in varying:
            assert sorted(Counter(o[k] for o in options).values()) == [2, 2]
        assert options.count(right) == 1
        dist = [sum(sum(a[k] != b[k] for k in PANEL_KEYS) for b in options) for a in options]
        assert len(set(dist)) == 1, dist


def test_tree_and_graph_decoys_are_near_misses(taxonomy):
    """Common-ancestor decoys come from the two leaves' paths to the root first; neighbour decoys from two edges
    away first."""
    for level, tr in _traces(taxonomy, "graphs.rooted_tree.common_ancestor"):
        nodes = tr["state"]["nodes"]
        a, b = tr["steps"]["pair"]
        on_paths = {nodes[v]["label"] for v in set(_up(nodes, a["id"])[1:]) | set(_up(nodes, b["id"])[1:])}
        meet = tr["steps"]["meet"]["label"]
        wrong = [o for o in tr["steps"]["options"] if o != meet]
        expected = min(3, len(on_paths - {meet}))
        assert len([o for o in wrong if o in on_paths]) == expected, (level, wrong, on_paths)
    for level, tr in _traces(taxonomy, "graphs.weighted_graph.neighbor_option"):
        st, center = tr["state"], tr["steps"]["center"]["id"]
        near = _joined(st, center)
        two = {v for u in near for v in _joined(st, u)} - near - {center}
        labels = {st["nodes"][v]["label"]: v for v in range(len(st["nodes"]))}
        wrong = [labels[o] for o in tr["steps"]["options"] if labels[o] not in near]
        assert len([v for v in wrong if v in two]) == min(3, len(two)), (level, wrong, two)


def test_cube_views_all_look_like_views_of_the_asked_side(taxonomy):
    """The four side views have the same width, the same tallest column and the same direction of growth as the
    right one: only reading the stack tells them apart. One is the other side's view turned round."""
    for level, tr in _traces(taxonomy, "three_d.cube_views.match_view"):
        views = [v["heights"] for v in tr["state"]["views"]]
        assert len({len(v) for v in views}) == 1 and len({max(v) for v in views}) == 1, (level, views)
        falling = tr["query"]["side"] == "left"
        assert all(v == sorted(v, reverse=falling) for v in views), (level, views)


# -- options-only shortcuts -------------------------------------------------------------------------------------
TASK_RULES = {"games.chess.move_option": lambda prompt, texts, state: chess_pattern(prompt, texts),
              "icons.sequence.next_panel": panel_medoid}


@pytest.mark.parametrize("task_id", sorted(FITS))
def test_no_options_only_rule_beats_chance_by_ten_points(taxonomy, task_id):
    """200 instances over levels 0..9: each rule of OPTION_RULES (and the task's own rule reading the question or the
    drawn candidates) is right at most 10 points more often than a guess (a rule that cannot decide is a guess), the
    audit's learned scorer at most 15."""
    task = taxonomy.tasks[task_id]
    rules = dict(OPTION_RULES)
    if task_id in TASK_RULES:
        rules["task"] = TASK_RULES[task_id]
    hits, chance, rows = Counter(), 0.0, []
    count = 200
    for i in range(count):
        prompt, answer, state = quick_instance(task, 9000 + i, i % 10, taxonomy.vocab)
        letters, texts = options_shown(prompt)
        right, guess = letters.index(answer), 1.0 / len(texts)
        chance += guess
        rows.append(Row(f"{i % 5:08x}", "train", task_id, i % 10, "option", prompt, "", None, None, None, None, texts,
                        right))
        for name, rule in rules.items():
            pick = rule(prompt, texts, state) if name == "task" else rule(texts)
            hits[name] += guess if pick is None else float(pick == right)
    chance /= count
    over = {name: round(h / count, 3) for name, h in hits.items() if h / count > chance + 0.10}
    assert not over, f"chance {chance:.3f}: {over}"
    # the audit's learned scorer (naive Bayes over option relations and the question's words), at its own margin
    learned = cv_options_learned(rows, np.array([i % 5 for i in range(count)]))
    assert learned <= chance + 0.15, f"chance {chance:.3f}: learned {learned:.3f}"
