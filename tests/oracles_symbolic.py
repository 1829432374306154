"""Independent oracles for the symbolic domain: clock readings from hand angles, balances solved by substitution
in order, spinner probabilities as exact fractions."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction

from tests.oracles import step


def _minutes(clock) -> int:
    """Minutes after 12 o'clock, recovered from where the hour hand points (0.5° per minute)."""
    hour_hand = ((clock["hour"] % 12) * 30 + clock["minute"] / 2) % 360
    return round(hour_hand * 2)


def _text(total: int) -> str:
    total %= 720
    h, m = divmod(total, 60)
    return f"{h if h else 12}:{m:02d}"


def _read_time(tr):
    return _text(_minutes(step(tr, "pick")))


def _elapsed(tr):
    start, stop = step(tr, "start"), step(tr, "stop")
    return (_minutes(stop) - _minutes(start)) % 720


def _extreme_clock(tr):
    clocks = tr["state"]["clocks"]
    pick = min if tr["query"]["extreme"] == "earliest" else max
    return pick(clocks, key=_minutes)["label"]


def _hand_angle(tr):
    c = step(tr, "pick")
    hour_hand = (c["hour"] % 12) * 30 + c["minute"] * 0.5
    minute_hand = c["minute"] * 6
    gap = abs(hour_hand - minute_hand)
    return min(gap, 360 - gap)


def _time_after(tr):
    c = step(tr, "pick")
    right = _text(_minutes(c) + step(tr, "delta"))
    options = step(tr, "options")
    assert options.count(right) == 1
    return "ABCDEFGH"[options.index(right)]


def _solve_balances(tr) -> dict[str, int]:
    """Substitution, scale by scale: each scale has exactly one kind of shape not weighed before."""
    known: dict[str, int] = {}
    for scale in tr["state"]["scales"]:
        right = sum(int(t) for t in scale["right"])
        left_known = sum(int(t) if t.isdigit() else known.get(t, 0) for t in scale["left"])
        new = [t for t in scale["left"] if not t.isdigit() and t not in known]
        assert new and len(set(new)) == 1
        known[new[0]] = (right - left_known) // len(new)
        assert left_known + known[new[0]] * len(new) == right
    return known


def _shape_weight(tr):
    return _solve_balances(tr)[step(tr, "target")]


def _total_weight(tr):
    return sum(_solve_balances(tr).values())


def _color_chance(tr):
    sectors = tr["state"]["sectors"]
    color = step(tr, "color")
    hits = sum(s["color"] == color for s in sectors)
    p = Fraction(hits, len(sectors))
    return float(p if tr["query"]["event"] == "lands on" else 1 - p)


def _likely_color(tr):
    counts = Counter(s["color"] for s in tr["state"]["sectors"])
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(counts, key=counts.get)


def _probability_option(tr):
    sectors = tr["state"]["sectors"]
    color = step(tr, "color")
    p = Fraction(sum(s["color"] == color for s in sectors), len(sectors))
    values = [Fraction(o) for o in step(tr, "options")]
    assert values.count(p) == 1
    return "ABCDEFGH"[values.index(p)]


def _heavier_than(tr) -> dict[str, set[str]]:
    """Every kind → the kinds it is shown (directly or through a chain of balances) to outweigh."""
    beats: dict[str, set[str]] = {}
    for scale in tr["state"]["scales"]:
        (left,), (right,) = scale["left"], scale["right"]
        heavy, light = (left, right) if scale["tilt"] == -1 else (right, left)
        assert scale["tilt"] in (-1, 1)
        beats.setdefault(heavy, set()).add(light)
        beats.setdefault(light, set())
    changed = True
    while changed:  # transitive closure
        changed = False
        for k in beats:
            more = set().union(*(beats[j] for j in beats[k])) - beats[k]
            if more:
                beats[k] |= more
                changed = True
    return beats


def _weight_ranking(tr) -> list[str]:
    beats = _heavier_than(tr)
    ranking = sorted(beats, key=lambda k: -len(beats[k]))
    assert [len(beats[k]) for k in ranking] == list(range(len(beats) - 1, -1, -1))  # a total order
    return ranking


def _extreme_shape(tr):
    ranking = _weight_ranking(tr)
    return ranking[0] if tr["query"]["extreme"] == "heaviest" else ranking[-1]


def _heavier_pair(tr):
    a, b = step(tr, "pair")
    return b in _heavier_than(tr)[a]


def _weight_order(tr):
    ranking = _weight_ranking(tr)
    return ranking if tr["query"]["order"] == "heaviest to lightest" else ranking[::-1]


# -- tally chart: a row's number is its strokes (the count field is what the marks draw) ------------------------------


def _tally_rows(tr):
    return {r["label"]: r["count"] for r in tr["state"]["rows"]}


def _tally_read(tr):
    return _tally_rows(tr)[step(tr, "pick")["label"]]


def _tally_total(tr):
    return sum(_tally_rows(tr).values())


def _tally_difference(tr):
    a, b = step(tr, "pair")
    return abs(a["count"] - b["count"])


def _tally_extreme(tr):
    rows = _tally_rows(tr)
    pick = max if tr["query"]["extreme"] == "most" else min
    best = pick(rows.values())
    (name,) = [k for k, v in rows.items() if v == best]
    return name


# -- Roman numerals: parsed from the numeral the card shows, never from its stored value ----------------------------

_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _parse_roman(text: str) -> int:
    total = 0
    for i, ch in enumerate(text):
        v = _ROMAN[ch]
        total += -v if i + 1 < len(text) and _ROMAN[text[i + 1]] > v else v
    return total


def _card_values(tr):
    out = {}
    for c in tr["state"]["cards"]:
        out[c["label"]] = _parse_roman(c["numeral"])
        assert out[c["label"]] == c["value"]
    return out


def _roman_value(tr):
    return _card_values(tr)[step(tr, "pick")["label"]]


def _roman_sum(tr):
    values = _card_values(tr)
    return sum(values[c["label"]] for c in step(tr, "pair"))


def _roman_extreme(tr):
    values = _card_values(tr)
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(values, key=values.get)


# -- dice: pips are the face value; nets are folded here with vectors, not with the grammar's opposite table -------


def _pip_sum(tr):
    return sum(d["value"] for d in tr["state"]["dice"])


def _face_count(tr):
    return sum(d["value"] == tr["query"]["face"] for d in tr["state"]["dice"])


def _color_pips(tr):
    hue = step(tr, "hue")
    return sum(d["value"] for d in tr["state"]["dice"] if d["color"] == hue)


def _fold_normals(faces) -> dict[int, tuple]:
    """Fold the net around square 0 (lying face down): crossing an edge turns the next square up by 90 degrees,
    so its outward normal is the direction it was walked in, and the old normal becomes its backward axis."""
    at = {(f["row"], f["col"]): f["i"] for f in faces}
    neg = lambda a: tuple(-x for x in a)  # noqa: E731
    frames = {faces[0]["i"]: ((1, 0, 0), (0, 1, 0), (0, 0, -1))}  # (col axis, row axis, normal)
    todo = [(faces[0]["row"], faces[0]["col"])]
    while todo:
        r, c = todo.pop()
        u, v, n = frames[at[(r, c)]]
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            nxt = at.get((r + dr, c + dc))
            if nxt is None or nxt in frames:
                continue
            if dc:
                axis = u if dc > 0 else neg(u)
                frames[nxt] = (neg(n) if dc > 0 else n, v, axis)
            else:
                axis = v if dr > 0 else neg(v)
                frames[nxt] = (u, neg(n) if dr > 0 else n, axis)
            todo.append((r + dr, c + dc))
    assert len(frames) == 6 and len({f[2] for f in frames.values()}) == 6, "not a cube net"
    return {i: f[2] for i, f in frames.items()}


def _net_opposite(tr):
    pick = step(tr, "pick")
    faces = [f for f in tr["state"]["faces"] if f["sheet"] == pick["sheet"]]
    normals = _fold_normals(faces)
    (other,) = [f for f in faces if normals[f["i"]] == tuple(-x for x in normals[pick["i"]])]
    return other["value"]


def _net_side_sum(tr):
    pick = step(tr, "pick")
    faces = [f for f in tr["state"]["faces"] if f["sheet"] == pick["sheet"]]
    normals = _fold_normals(faces)
    n = normals[pick["i"]]
    # the four sides are the faces whose normal is perpendicular to the named face's
    return sum(f["value"] for f in faces if sum(a * b for a, b in zip(normals[f["i"]], n)) == 0)


# -- logic circuits: evaluated recursively from the output gate down -------------------------------------------------

_GATES = {
    "AND": lambda xs: int(all(xs)), "OR": lambda xs: int(any(xs)), "XOR": lambda xs: sum(xs) % 2,
    "NAND": lambda xs: 1 - int(all(xs)), "NOR": lambda xs: 1 - int(any(xs)), "NOT": lambda xs: 1 - xs[0],
}


def _circuit_out(nodes, bits) -> int:
    by_id = {n["id"]: n for n in nodes}

    def value(i):
        n = by_id[i]
        if n["kind"] == "IN":
            return bits[n["label"]]
        assert len(n["ins"]) == (1 if n["kind"] == "NOT" else 2)
        return _GATES[n["kind"]]([value(c) for c in n["ins"]])

    (root,) = [n["id"] for n in nodes if n["parent"] < 0]
    return value(root)


def _circuit_bits(tr):
    return {n["label"]: n["bit"] for n in tr["state"]["nodes"] if n["kind"] == "IN"}


def _circuit_output(tr):
    out = _circuit_out(tr["state"]["nodes"], _circuit_bits(tr))
    assert out == tr["query"]["bit"]
    return out


def _circuit_flips(tr):
    nodes, bits = tr["state"]["nodes"], _circuit_bits(tr)
    base = _circuit_out(nodes, bits)
    return sum(_circuit_out(nodes, {**bits, k: 1 - v}) != base for k, v in bits.items())


def _circuit_gate_count(tr):
    kind = step(tr, "kind")
    return sum(n["kind"] == kind for n in tr["state"]["nodes"])


# -- truth tables: the written expression is parsed and evaluated here ------------------------------------------------


def _eval_expression(text: str, bits: dict[str, int]) -> int:
    """Left-to-right binary operators (AND, OR, XOR), prefix NOT, parentheses, single-letter inputs."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    pos = 0

    def operand():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "NOT":
            return 1 - operand()
        if tok == "(":
            v = expr()
            assert tokens[pos] == ")"
            pos += 1
            return v
        return bits[tok]

    def expr():
        nonlocal pos
        v = operand()
        while pos < len(tokens) and tokens[pos] in ("AND", "OR", "XOR"):
            o = tokens[pos]
            pos += 1
            w = operand()
            v = {"AND": v & w, "OR": v | w, "XOR": v ^ w}[o]
        return v

    out = expr()
    assert pos == len(tokens)
    return out


def _table_outputs(tr):
    st = tr["state"]
    outs = []
    for r in st["rows"]:
        names = {chr(65 + j): b for j, b in enumerate(r["bits"])}
        outs.append(_eval_expression(st["expression"], names))
        assert not r["shown"] or outs[-1] == r["q"]  # the cells shown agree with the expression
    return outs


def _table_missing(tr):
    outs = _table_outputs(tr)
    return [str(outs[r["i"]]) for r in tr["state"]["rows"] if not r["shown"]]


def _table_true_rows(tr):
    return sum(_table_outputs(tr))


# -- box equations: the drawn tokens are read with the usual precedence and the box is found by search ---------------


def _arith(tokens: list[str], box: int) -> int:
    pos = 0

    def atom():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            v = total()
            assert tokens[pos] == ")"
            pos += 1
            return v
        return box if tok == "box" else int(tok)

    def product():
        nonlocal pos
        v = atom()
        while pos < len(tokens) and tokens[pos] == "×":
            pos += 1
            v *= atom()
        return v

    def total():
        nonlocal pos
        v = product()
        while pos < len(tokens) and tokens[pos] in ("+", "−"):
            sign = 1 if tokens[pos] == "+" else -1
            pos += 1
            v += sign * product()
        return v

    out = total()
    assert pos == len(tokens)
    return out


def _solve_box(eq) -> int:
    tokens = eq["tokens"]
    k = tokens.index("=")
    left, right = tokens[:k], int(tokens[k + 1])
    (x,) = [x for x in range(0, 200) if _arith(left, x) == right]
    return x


def _box_value(tr):
    return _solve_box(step(tr, "pick"))


def _largest_box(tr):
    boxes = {e["label"]: _solve_box(e) for e in tr["state"]["eqs"]}
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(boxes, key=boxes.get)


def _box_sum(tr):
    return sum(_solve_box(e) for e in tr["state"]["eqs"])


# -- picture equations: substitution line by line, then the question line with × before + ---------------------------


def _solve_picture(tr) -> dict[str, int]:
    known: dict[str, int] = {}
    for line in tr["state"]["lines"][:-1]:
        k = line.index("=")
        left, total = [t for t in line[:k] if t != "+"], int(line[k + 1])
        new = [t for t in left if t not in known]
        assert new and len(set(new)) == 1 and "×" not in line
        rest = total - sum(known[t] for t in left if t in known)
        assert rest % len(new) == 0
        known[new[0]] = rest // len(new)
    return known


def _picture_value(tr):
    return _solve_picture(tr)[step(tr, "pick")["kind"]]


def _picture_question(tr):
    known = _solve_picture(tr)
    last = tr["state"]["lines"][-1]
    assert last[-2:] == ["=", "?"]
    terms, product = [], None
    for tok in last[:-2]:
        if tok == "×":
            product = terms.pop()
        elif tok != "+":
            terms.append(known[tok] * product if product is not None else known[tok])
            product = None
    return sum(terms)


# -- Morse: each message group is looked up in the key the picture shows ----------------------------------------------


def _morse_decode(tr):
    key = {k["code"]: k["letter"] for k in tr["state"]["key"]}
    assert len(key) == len(tr["state"]["key"])  # no two key entries share a code
    return "".join(key[g["code"]] for g in tr["state"]["groups"])


def _morse_signs(tr):
    sign = "-" if tr["query"]["sign"] == "dash" else "."
    return sum(g["code"].count(sign) for g in tr["state"]["groups"])


# -- abacus: the number is rebuilt from the beads counted on each rod and the rods' place names ---------------------

_PLACES = {"TTh": 10000, "Th": 1000, "H": 100, "T": 10, "O": 1}


def _abacus_number(tr) -> int:
    st = tr["state"]
    per_rod = Counter(b["rod"] for b in st["beads"])
    return sum(per_rod[r["i"]] * _PLACES[r["name"]] for r in st["rods"])


def _abacus_beads(tr):
    return len(tr["state"]["beads"])


def _abacus_add(tr):
    return _abacus_number(tr) + tr["query"]["extra"] * _PLACES[step(tr, "rod")["name"]]


# -- structural formulas: atoms and bonds read from the drawing, every valence checked ---------------------------------

_VALENCE = {"C": 4, "H": 1, "O": 2, "F": 1, "Cl": 1, "Br": 1}
_MASS = {"C": 12.0, "H": 1.0, "O": 16.0, "F": 19.0, "Cl": 35.5, "Br": 80.0}


def _molecule(tr) -> Counter:
    atoms, bonds = tr["state"]["atoms"], tr["state"]["bonds"]
    used = Counter()
    for b in bonds:
        used[b["a"]] += b["order"]
        used[b["b"]] += b["order"]
    for i, t in enumerate(atoms):
        assert used[i] == _VALENCE[t["el"]], (i, t, used[i])  # a real molecule: every bond of every atom drawn
    assert len(bonds) == len(atoms) - 1  # one connected, acyclic structure
    return Counter(t["el"] for t in atoms)


def _chem_atom_count(tr):
    return _molecule(tr)[step(tr, "element")]


def _chem_formula(tr):
    counts = _molecule(tr)
    order = ["C", "H"] + sorted(e for e in counts if e not in ("C", "H"))
    return "".join(e + (str(counts[e]) if counts[e] > 1 else "") for e in order if counts[e])


def _chem_bonds(tr):
    _molecule(tr)
    want = 1 if tr["query"]["kind"] == "single" else 2
    return sum(b["order"] == want for b in tr["state"]["bonds"])


def _chem_mass(tr):
    return sum(_MASS[e] * k for e, k in _molecule(tr).items())


# -- rhythm: the beats of a bar are the note values drawn in it (head hollow or filled, stem, flag) -------------------

_NOTE_BEATS = {8: 4.0, 4: 2.0, 2: 1.0, 1: 0.5}  # whole, half, quarter, eighth (durations in eighths)


def _bar_beats(tr, bar: int) -> float:
    return sum(_NOTE_BEATS[n["dur"]] for n in tr["state"]["notes"] if n["bar"] == bar)


def _rhythm_bar(tr):
    return _bar_beats(tr, step(tr, "pick")["i"])


def _rhythm_full(tr):
    meter = tr["state"]["meter"]
    return sum(_bar_beats(tr, b["i"]) == meter for b in tr["state"]["bars"])


def _rhythm_notes(tr):
    want = {"whole": 8, "half": 4, "quarter": 2, "eighth": 1}[step(tr, "kind")]
    return sum(n["dur"] == want for n in tr["state"]["notes"])


# -- Braille: each message cell is matched to the key by its raised dots -------------------------------------------


def _braille_decode(tr):
    key = {k["dots"]: k["letter"] for k in tr["state"]["key"]}
    assert len(key) == len(tr["state"]["key"])
    return "".join(key[c["dots"]] for c in tr["state"]["cells"])


def _braille_dots(tr):
    return sum(len(c["dots"]) for c in tr["state"]["cells"])


ORACLES = {
    "symbolic.balance_compare.extreme_shape": _extreme_shape,
    "symbolic.balance_compare.heavier_pair": _heavier_pair,
    "symbolic.balance_compare.weight_order": _weight_order,
    "symbolic.clock_row.read_time": _read_time,
    "symbolic.clock_row.elapsed_minutes": _elapsed,
    "symbolic.clock_row.extreme_clock": _extreme_clock,
    "symbolic.clock_row.hand_angle": _hand_angle,
    "symbolic.clock_row.time_after_option": _time_after,
    "symbolic.balance_equation.shape_weight": _shape_weight,
    "symbolic.balance_equation.total_weight": _total_weight,
    "symbolic.spinner.color_probability": _color_chance,
    "symbolic.spinner.likely_color": _likely_color,
    "symbolic.spinner.probability_option": _probability_option,
    "symbolic.tally_chart.read_count": _tally_read,
    "symbolic.tally_chart.total": _tally_total,
    "symbolic.tally_chart.difference": _tally_difference,
    "symbolic.tally_chart.extreme_row": _tally_extreme,
    "symbolic.roman_cards.card_value": _roman_value,
    "symbolic.roman_cards.card_sum": _roman_sum,
    "symbolic.roman_cards.extreme_card": _roman_extreme,
    "symbolic.dice_row.pip_sum": _pip_sum,
    "symbolic.dice_row.face_count": _face_count,
    "symbolic.dice_row.color_sum": _color_pips,
    "symbolic.dice_net.opposite_face": _net_opposite,
    "symbolic.dice_net.side_sum": _net_side_sum,
    "symbolic.logic_circuit.output_bit": _circuit_output,
    "symbolic.logic_circuit.flip_count": _circuit_flips,
    "symbolic.logic_circuit.gate_count": _circuit_gate_count,
    "symbolic.truth_table.fill_missing": _table_missing,
    "symbolic.truth_table.true_rows": _table_true_rows,
    "symbolic.box_equations.box_value": _box_value,
    "symbolic.box_equations.largest_box": _largest_box,
    "symbolic.box_equations.box_sum": _box_sum,
    "symbolic.shape_equations.shape_value": _picture_value,
    "symbolic.shape_equations.question_line": _picture_question,
    "symbolic.morse_key.decode_word": _morse_decode,
    "symbolic.morse_key.dash_count": _morse_signs,
    "symbolic.abacus.read_number": _abacus_number,
    "symbolic.abacus.bead_total": _abacus_beads,
    "symbolic.abacus.add_beads": _abacus_add,
    "symbolic.structural_formula.atom_count": _chem_atom_count,
    "symbolic.structural_formula.molecular_formula": _chem_formula,
    "symbolic.structural_formula.bond_count": _chem_bonds,
    "symbolic.structural_formula.molar_mass": _chem_mass,
    "symbolic.rhythm_staff.bar_beats": _rhythm_bar,
    "symbolic.rhythm_staff.full_bars": _rhythm_full,
    "symbolic.rhythm_staff.note_count": _rhythm_notes,
    "symbolic.braille_key.decode_word": _braille_decode,
    "symbolic.braille_key.raised_dots": _braille_dots,
}
