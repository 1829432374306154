"""Issue 11, part 4 (first half): the properties an eye audit found broken, each measured on at least 100 instances
across levels, by plain Python over the recorded state (no expression language), so a bug there cannot hide here.

The instances are drawn as `generate` draws them (same streams, same attempts) but not rendered: the properties
live in the state and the program's steps, and rendering would make these tests ten times slower.
"""
from __future__ import annotations

from collections import Counter

import pytest

from tessera.errors import SamplingFailed
from tessera.trace.loop import sample_state
from tests.tasks.games.chess import reachable

N = 100  # instances per property, levels 0..9 in turn


def draw(taxonomy, task_id: str, seed: int, level: int):
    """(query, state, steps, answer) of the instance `generate(task, seed, level)` builds, without its render (the
    generation loop's unrendered sample)."""
    try:
        drawn = sample_state(taxonomy.tasks[task_id], seed, level, vocab=taxonomy.vocab)
    except SamplingFailed as exc:
        raise AssertionError(f"{task_id} (level {level}, seed {seed}) found no state: {exc}") from None
    return drawn.query, drawn.state, drawn.steps, drawn.answer


def instances(taxonomy, task_id: str, n: int = N):
    return [draw(taxonomy, task_id, seed, seed % 10) for seed in range(n)]


# -- yes/no tasks: the outcome is drawn with the query, so neither answer can be learnt from the prompt ----------
def yes_no_tasks(taxonomy) -> list[str]:
    return sorted(t for t, task in taxonomy.tasks.items() if task.contract.id == "yes_no")


def test_every_yes_no_task_draws_its_outcome_with_the_query(taxonomy):
    tasks = yes_no_tasks(taxonomy)
    assert len(tasks) >= 11
    for task_id in tasks:
        assert sorted(taxonomy.tasks[task_id].queries.get("outcome", [])) == ["no", "yes"], task_id


@pytest.mark.parametrize("task_id", ["puzzles.tiles.has_line", "graphs.digraph.one_way_reach",
                                     "graphs.weighted_graph.connected_pair", "physics.ray_optics.image_nature",
                                     "geometry.circle_plane.circles_overlap", "symbolic.balance_compare.heavier_pair",
                                     "graphs.maze.goal_reachable", "graphs.digraph.has_cycle",
                                     "icons.shape_field.relation",
                                     "geometry.transformed_shape.reflection_or_rotation"])
def test_yes_no_answer_is_the_drawn_outcome_at_every_level(taxonomy, task_id):
    drawn = instances(taxonomy, task_id)
    assert all(answer is (query["outcome"] == "yes") for query, _, _, answer in drawn)
    share = sum(answer for *_, answer in drawn) / len(drawn)
    assert 0.4 <= share <= 0.6, share
    # every prompt form (query value) gets both answers: 'length 3' used to be 92 % yes
    by_form = Counter((k, v, answer) for query, _, _, answer in drawn for k, v in query.items() if k != "outcome")
    for (k, v, _answer) in by_form:
        assert by_form[(k, v, True)] and by_form[(k, v, False)], (task_id, k, v)


def test_has_line_is_even_for_each_length(taxonomy):
    drawn = instances(taxonomy, "puzzles.tiles.has_line", 200)
    for length in (3, 4):
        answers = [a for q, _, _, a in drawn if q["length"] == length]
        assert len(answers) >= 70 and 0.4 <= sum(answers) / len(answers) <= 0.6, (length, sum(answers), len(answers))
    # the answer is right: recomputed from the tiles
    for query, state, _, answer in drawn[:50]:
        lines = [[t["color"] for t in sorted((t for t in state["tiles"] if t[key] == k), key=lambda t: t[other])]
                 for key, other, n in (("row", "col", state["rows"]), ("col", "row", state["cols"])) for k in range(n)]
        best = max(max(sum(1 for _ in g) for g in _groups(line)) for line in lines)
        assert answer is (best >= query["length"])


def _groups(line):
    run = [line[0]]
    for c in line[1:]:
        if c == run[-1]:
            run.append(c)
        else:
            yield run
            run = [c]
    yield run


# -- marks the question never mentions are not drawn -------------------------------------------------------------
# (task, what its scene marks: a count over the state) → how many marks the task's question needs
MARKS = {
    "puzzles.sudoku": (lambda st: sum(c["marked"] for c in st["cells"]), {"marked_cell": 1}),
    "puzzles.tiles": (lambda st: sum(t["marked"] for t in st["tiles"]), {"region_size": 1}),
    "graphs.maze": (lambda st: sum(c["mark"] != "" or c["color"] != "" for c in st["cells"]),
                    {"goal_reachable": 2, "route_length": 2}),
    "geometry.lattice_polygon": (lambda st: len(st["drawn"]) - len(st["vertices"]), {"points_inside": "m"}),
    "geometry.transformed_shape": (lambda st: len(st["drawn"]) - 2 * len(st["shape"]), {"apply_to_point": 1}),
    "icons.sequence": (lambda st: len(st["drawn"]), {"next_panel": 4}),
    "geometry.circle_plane": (lambda st: len(st["drawn"]), {"nearest_point": "m", "points_in_circle": "m"}),
    "icons.icon_matrix": (lambda st: len(st["drawn"]) + (st["gap_at"] >= 0), {"missing_panel": 5}),
    "geometry.symmetric_figure": (lambda st: int(st["cut"] > 0), {"complete_mirror": 1}),
    "icons.tile_pattern": (lambda st: int(st["asked"]["row"] >= 0), {"missing_tile": 1}),
    "games.go": (lambda st: sum(s["marked"] for s in st["stones"]), {"liberties": 1}),
    "games.reversi": (lambda st: len(st["ringed"]), {"flips": 1}),
    "puzzles.magic_square": (lambda st: sum(c["asked"] for c in st["grid"]), {"missing_number": 1}),
    "games.dominoes": (lambda st: len(st["options"]), {"fits_end": "m"}),
}


@pytest.mark.parametrize("grammar_id", sorted(MARKS))
def test_marks_are_drawn_only_for_the_tasks_that_ask_about_them(taxonomy, grammar_id):
    count, wanted = MARKS[grammar_id]
    tasks = sorted(t for t, task in taxonomy.tasks.items() if task.grammar.id == grammar_id)
    assert len(tasks) >= 2 and set(wanted) < {t.split(".")[-1] for t in tasks}
    per_task = max(20, N // len(tasks))
    for task_id in tasks:
        need = wanted.get(task_id.split(".")[-1], 0)
        for seed in range(per_task):
            _, state, _, _ = draw(taxonomy, task_id, seed, seed % 10)
            expect = state[need] if isinstance(need, str) else need
            assert count(state) == expect, (task_id, seed)


def test_marked_scenes_still_draw_their_mark(taxonomy):
    """The sudoku highlight and the tiles ring are on the cell the program reads (its witness)."""
    for seed in range(N // 2):
        _, state, steps, _ = draw(taxonomy, "puzzles.sudoku.marked_cell", seed, seed % 10)
        assert [c for c in state["cells"] if c["marked"]] == [steps["marked"]] and not steps["marked"]["shown"]
        _, state, steps, _ = draw(taxonomy, "puzzles.tiles.region_size", seed, seed % 10)
        assert [t for t in state["tiles"] if t["marked"]] == [steps["marked"]]


# -- chess: legal enough not to mislead --------------------------------------------------------------------------
def attacked_squares(state: dict, side: str) -> set[tuple[int, int]]:
    """Squares the pieces of the other side than `side` could capture on."""
    out = set()
    for p in state["pieces"]:
        if p["side"] != side:
            out |= reachable(state, p, captures=True)
    return out


def test_chess_positions_have_one_king_per_side_apart_and_no_check(taxonomy):
    tasks = sorted(t for t in taxonomy.tasks if t.startswith("games.chess."))
    seen = 0
    for task_id in tasks:
        for seed in range(N // len(tasks) + 10):
            _, state, steps, _ = draw(taxonomy, task_id, seed, seed % 10)
            kings = [p for p in state["pieces"] if p["kind"] == "king"]
            assert sorted(k["side"] for k in kings) == ["black", "white"], (task_id, seed)
            a, b = kings
            assert max(abs(a["row"] - b["row"]), abs(a["col"] - b["col"])) >= 2
            for k in kings:
                assert (k["row"], k["col"]) not in attacked_squares(state, k["side"]), (task_id, seed, "check")
            squares = [(p["row"], p["col"]) for p in state["pieces"]]
            assert len(set(squares)) == len(squares)
            if task_id.endswith("attacked_pieces"):
                assert all(t["kind"] != "king" for t in steps["attacked"])
            seen += 1
    assert seen >= N


# -- weighted_graph.component_count: the piece count spreads over a range that grows with level ------------------
def pieces(state: dict) -> int:
    parent = list(range(state["n"]))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i
    for e in state["edges"]:
        parent[root(e["a"])] = root(e["b"])
    return len({root(i) for i in range(state["n"])})


def test_component_count_spreads_with_level(taxonomy):
    per_level = {lv: Counter() for lv in range(10)}
    for seed in range(200):
        level = seed % 10
        _, state, _, answer = draw(taxonomy, "graphs.weighted_graph.component_count", seed, level)
        assert answer == pieces(state) == state["piece_count"]
        assert 1 <= answer <= 2 + level // 2
        per_level[level][answer] += 1
    low = per_level[0] + per_level[1]
    high = per_level[8] + per_level[9]
    assert set(low) == {1, 2} and len(high) >= 5 and max(high) == 6
    overall = sum(per_level.values(), Counter())
    # uniform over 1..2 + level // 2 at each level: 1 and 2 are common overall (about 0.29 each), but no more
    assert max(overall.values()) / sum(overall.values()) <= 0.4 and overall[1] + overall[2] <= 0.7 * 200, overall
    # the other tasks keep the randomly drawn edges (and their bytes)
    for task_id in taxonomy.tasks:
        if task_id.startswith("graphs.weighted_graph.") and not task_id.endswith("component_count"):
            assert taxonomy.tasks[task_id].queries["piece_draw"] == [0]


# -- a move must move the point asked about -----------------------------------------------------------------------
MOVES = {
    "reflection in the x-axis": lambda x, y: (x, -y),
    "reflection in the y-axis": lambda x, y: (-x, y),
    "reflection in the line y = x": lambda x, y: (y, x),
    "reflection in the line y = -x": lambda x, y: (-y, -x),
    "rotation of 90° counterclockwise about the origin": lambda x, y: (-y, x),
    "rotation of 90° clockwise about the origin": lambda x, y: (y, -x),
    "rotation of 180° about the origin": lambda x, y: (-x, -y),
}


@pytest.mark.parametrize("task_id, moved, how", [
    ("geometry.lattice_polygon.move_vertex", lambda st, steps: steps["corner"], lambda st, q: q["move"]),
    ("geometry.transformed_shape.apply_to_point", lambda st, steps: st["probe"], lambda st, q: st["move"]),
])
def test_the_point_asked_about_is_not_fixed_by_the_move(taxonomy, task_id, moved, how):
    assert set(MOVES) == set(taxonomy.vocab["plane_transformations"])
    for seed in range(N):
        query, state, steps, answer = draw(taxonomy, task_id, seed, seed % 10)
        p = moved(state, steps)
        image = MOVES[how(state, query)](p["x"], p["y"])
        assert list(image) == answer and image != (p["x"], p["y"]), (task_id, seed)


# -- the answer-format instruction and the contract agree ---------------------------------------------------------
def _examples(instruction: str, answer_format: str) -> list[str]:
    """The responses an instruction shows: each `for example X` (and `or Y`) as a whole final answer."""
    tail = instruction.split("for example ", 1)[1].rstrip(".")
    return tail.split(" or ") if answer_format == "json" else [tail]


@pytest.mark.parametrize("answer_format", ["json", "boxed", "tag"])
def test_every_contract_s_instruction_examples_earn_full_reward(taxonomy, answer_format):
    """Each bundled contract's instruction, in every convention, shows answers that its own verifier reads as the
    strict form: a prompt that says "give a fraction" must not invite the bare `4/5` that JSON cannot hold."""
    from tessera.verify.score import format_instruction, score
    truths = {("number", "probability"): 0.25, ("string", "clock_time"): "3:05", ("integer", "text"): 3,
              ("number", "text"): 2.5, ("string", "text"): "red", ("option", "text"): "B",
              ("boolean", "text"): True}
    contracts = {task.contract.id: task.contract for task in taxonomy.tasks.values()}
    checked = 0
    for contract in contracts.values():
        form = contract.spec.normalize.form
        truth = truths.get((contract.type, form))
        if truth is None:
            continue  # lists, sets, coordinates: covered by tests/test_answer_formats.py
        text = format_instruction(contract.type, contract.items, contract.spec.key, answer_format, form)
        label = contract.label(truth, answer_format)
        for example in _examples(text, answer_format):
            got = score(label, "Working.\n" + example)
            assert (got.answer, got.format) == (1.0, 1.0), (contract.id, answer_format, example, got)
        checked += 1
    assert checked >= 6


def test_spinner_probability_prompt_says_how_to_write_a_fraction(taxonomy):
    from tessera.trace.instance import generate
    from tessera.verify.score import score
    inst = generate(taxonomy.tasks["symbolic.spinner.color_probability"], 3, 4, vocab=taxonomy.vocab)
    assert "Give a fraction or a decimal." in inst.prompt and 'or {"answer": "1/4"}.' in inst.prompt
    num = round(inst.answer * 120)
    quoted = f'{{"answer": "{num}/120"}}'
    assert score(inst.label, quoted).reward == 1.0  # the form the instruction shows
    assert score(inst.label, f'{{"answer": {inst.answer}}}').reward == 1.0
    # a bare fraction is not JSON: the answer is read, the format point is not given (as the instruction implies)
    bare = score(inst.label, f'{{"answer": {num}/120}}')
    assert (bare.answer, bare.format) == (1.0, 0.0)


# -- option letters are never confusable with the options' own texts ------------------------------------------------
def test_lettered_refuses_an_option_that_reads_as_an_option_letter():
    from tests.test_templates import check, render_error
    message = render_error("{{ xs | lettered }}", {"xs": ["F", "a", "H", "K"]})
    assert message == ("template at t:1:1: filter 'lettered': option B reads 'a', which is also an option letter "
                       "(A to D), so an answer cannot tell them apart; label the scene's objects from a letter past "
                       "the options (letter(4 + i))")
    t, _ = check("{{ xs | lettered }}", {"xs"})
    assert t.render({"xs": ["E", "F", "G", "H"]}) == "A. E\nB. F\nC. G\nD. H"  # letters past the options are fine
    assert t.render({"xs": ["A3", "B1"]}) == "A. A3\nB. B1"


def test_no_option_task_offers_a_node_lettered_like_an_option(taxonomy):
    from tessera.trace.instance import generate
    option_tasks = sorted(t for t, task in taxonomy.tasks.items() if task.contract.id == "option_letter")
    assert len(option_tasks) >= 13
    seen = 0
    for task_id in option_tasks:
        for seed in range(8):
            inst = generate(taxonomy.tasks[task_id], seed, (3 * seed) % 10, vocab=taxonomy.vocab)
            lines = [ln for ln in inst.prompt.splitlines() if len(ln) > 3 and ln[0].isupper() and ln[1:3] == ". "]
            letters = {ln[0] for ln in lines}
            assert all(ln[3:].strip().upper() not in letters for ln in lines), (task_id, seed, lines)
            seen += 1
    assert seen >= 100
    # the graph tasks with options letter their nodes past the option letters A to D, in the image too
    for task_id in ("graphs.weighted_graph.neighbor_option", "graphs.rooted_tree.common_ancestor"):
        for seed in range(N // 2):
            _, state, _, _ = draw(taxonomy, task_id, seed, seed % 10)
            assert all(v["label"] not in "ABCD" for v in state["nodes"]), (task_id, seed)
