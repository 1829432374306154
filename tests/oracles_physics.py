"""Oracles for the physics domain's mechanics, instruments and motion graphs (independent Python over the recorded
state; the circuit and lens oracles live in oracles_games.py)."""
from __future__ import annotations

import math

from tests.oracles import step

ORACLES: dict = {}


# ---- physics.lever: moments about the pivot (distance signed: left of the pivot negative)
def _lever_turns(weights):
    left = sum(w["mass"] * -w["d"] for w in weights if w["d"] < 0)
    right = sum(w["mass"] * w["d"] for w in weights if w["d"] > 0)
    return left, right


def _lever_tip(tr):
    left, right = _lever_turns(tr["state"]["weights"])
    return "left" if left > right else "right" if right > left else "level"


def _lever_mass(tr):
    ws = tr["state"]["weights"]
    (ask,) = [w for w in ws if w["ask"]]
    left, right = _lever_turns([w for w in ws if not w["ask"]])
    mass, rem = divmod(abs(left - right), abs(ask["d"]))
    assert rem == 0 and (ask["d"] < 0) == (right > left)
    return mass


def _lever_distance(tr):
    s = tr["state"]
    left, right = _lever_turns(s["weights"])
    dist, rem = divmod(abs(left - right), s["extra"])
    assert rem == 0 and 1 <= dist <= s["L"]
    return dist


ORACLES.update({
    "physics.lever.tip_side": _lever_tip,
    "physics.lever.missing_mass": _lever_mass,
    "physics.lever.balance_distance": _lever_distance,
})


# ---- physics.gear_train: each mesh reverses the turn; teeth per minute pass equally on both sides of a mesh
def _gear_direction(tr):
    s = tr["state"]
    i = [g["name"] for g in s["gears"]].index(step(tr, "gear")["name"])
    cw = s["clockwise"]
    for _ in range(i):
        cw = not cw
    return "clockwise" if cw else "anticlockwise"


def _gear_speed(tr):
    from fractions import Fraction

    gears = tr["state"]["gears"]
    i = [g["name"] for g in gears].index(step(tr, "gear")["name"])
    speed = Fraction(step(tr, "rpm"))
    for a, b in zip(gears[:i], gears[1:i + 1]):
        speed = speed * a["teeth"] / b["teeth"]
    assert speed.denominator == 1
    return int(speed)


def _gear_teeth(tr):
    return step(tr, "gear")["teeth"]


def _gear_fastest(tr):
    gears = tr["state"]["gears"]
    key = min if tr["query"]["extreme"] == "fastest" else max
    best = key(g["teeth"] for g in gears)
    (name,) = [g["name"] for g in gears if g["teeth"] == best]
    return name


ORACLES.update({
    "physics.gear_train.turn_direction": _gear_direction,
    "physics.gear_train.gear_speed": _gear_speed,
    "physics.gear_train.count_teeth": _gear_teeth,
    "physics.gear_train.fastest_gear": _gear_fastest,
})


# ---- physics.free_body: resultant of axis-aligned forces
def _fb_components(forces):
    fx = sum(f["mag"] * f["ux"] for f in forces)
    fy = sum(f["mag"] * f["uy"] for f in forces)
    return fx, fy


def _fb_direction(tr):
    fx, fy = _fb_components(tr["state"]["forces"])
    vert = "up" if fy > 0 else "down" if fy < 0 else ""
    horiz = "right" if fx > 0 else "left" if fx < 0 else ""
    return "-".join(p for p in (vert, horiz) if p) or "none"


def _fb_net(tr):
    fx, fy = _fb_components(tr["state"]["forces"])
    assert fx == 0 or fy == 0
    return int(math.hypot(fx, fy))


def _fb_missing(tr):
    forces = tr["state"]["forces"]
    (ask,) = [f for f in forces if f["ask"]]
    axis = "ux" if ask["ux"] else "uy"
    # equilibrium along the asked arrow's axis: ? + (same-way forces) = (opposite forces)
    same = sum(f["mag"] for f in forces if not f["ask"] and f[axis] == ask[axis])
    opposite = sum(f["mag"] for f in forces if f[axis] == -ask[axis])
    assert opposite - same > 0
    return opposite - same


ORACLES.update({
    "physics.free_body.net_direction": _fb_direction,
    "physics.free_body.net_force": _fb_net,
    "physics.free_body.missing_force": _fb_missing,
})


# ---- physics.motion_graph: slopes and areas of a piecewise straight graph
def _mg_corners(state):
    return list(zip(state["ts"], state["ys"]))


def _mg_stretches(state):
    c = _mg_corners(state)
    return [(chr(65 + i), c[i], c[i + 1]) for i in range(len(c) - 1)]


def _mg_speed(tr):
    name = step(tr, "seg")["name"]
    ((_, (t0, y0), (t1, y1)),) = [s for s in _mg_stretches(tr["state"]) if s[0] == name]
    v, rem = divmod(y1 - y0, t1 - t0)
    assert rem == 0
    return v


def _mg_stopped(tr):
    return sum(t1 - t0 for _, (t0, y0), (t1, y1) in _mg_stretches(tr["state"]) if y0 == y1)


def _mg_fastest(tr):
    from fractions import Fraction

    moving = [(Fraction(y1 - y0, t1 - t0), n) for n, (t0, y0), (t1, y1) in _mg_stretches(tr["state"]) if y1 != y0]
    target = (max if tr["query"]["extreme"] == "fastest" else min)(v for v, _ in moving)
    (name,) = [n for v, n in moving if v == target]
    return name


def _mg_area(tr):
    start = step(tr, "from")["name"]
    total = 0
    for n, (t0, y0), (t1, y1) in _mg_stretches(tr["state"]):
        if n >= start:
            total += (t1 - t0) * (y0 + y1) / 2  # a trapezium under each stretch
    assert total == int(total)
    return int(total)


ORACLES.update({
    "physics.motion_graph.segment_speed": _mg_speed,
    "physics.motion_graph.stopped_time": _mg_stopped,
    "physics.motion_graph.fastest_stretch": _mg_fastest,
    "physics.motion_graph.area_distance": _mg_area,
})


# ---- graduated instruments: a reading is the value at the top of the column / the bottom of the meniscus
def _thermo_read(tr):
    name = step(tr, "t")["name"]
    (t,) = [t for t in tr["state"]["thermos"] if t["name"] == name]
    assert tr["state"]["lo"] < t["value"] < tr["state"]["hi"] and t["value"] % tr["state"]["step"] == 0
    return t["value"]


def _thermo_diff(tr):
    a, b = step(tr, "a"), step(tr, "b")
    return abs(a["value"] - b["value"])


def _cyl_read(tr):
    (c,) = [c for c in tr["state"]["cylinders"] if c["name"] == tr["query"]["which"]]
    return c["value"]


def _cyl_stone(tr):
    by = {c["name"]: c["value"] for c in tr["state"]["cylinders"]}
    assert by["after"] > by["before"]
    return by["after"] - by["before"]


ORACLES.update({
    "physics.thermometer.read_temperature": _thermo_read,
    "physics.thermometer.temperature_difference": _thermo_diff,
    "physics.measuring_cylinder.read_volume": _cyl_read,
    "physics.measuring_cylinder.stone_volume": _cyl_stone,
})


# ---- physics.spring: Hooke's law, extension = length - natural length (spring A carries nothing)
def _spring_ext(tr, name):
    sp = {s["name"]: s for s in tr["state"]["springs"]}
    assert sp["A"]["load"] == 0
    return sp[name]["end"] - sp["A"]["end"]


def _spring_extension(tr):
    return _spring_ext(tr, step(tr, "s")["name"])


def _spring_stiffness(tr):
    s = step(tr, "s")
    per_cm, rem = divmod(s["load"], _spring_ext(tr, s["name"]))
    assert rem == 0
    return per_cm


def _spring_load(tr):
    from fractions import Fraction

    known, q = step(tr, "known"), step(tr, "q")
    assert q["ask"] and not known["ask"]
    load = Fraction(known["load"], _spring_ext(tr, known["name"])) * _spring_ext(tr, q["name"])
    assert load.denominator == 1
    return int(load)


ORACLES.update({
    "physics.spring.extension": _spring_extension,
    "physics.spring.stiffness": _spring_stiffness,
    "physics.spring.unknown_load": _spring_load,
})


# ---- physics.resistor_network: series blocks add, a parallel block's conductances add
def _network_ohms(state):
    from fractions import Fraction

    total = sum(1 / sum(Fraction(1, r) for r in b["rs"]) for b in state["blocks"])
    assert total.denominator == 1
    return int(total)


def _network_current(tr):
    amps, rem = divmod(tr["state"]["volts"], _network_ohms(tr["state"]))
    assert rem == 0
    return amps


ORACLES.update({
    "physics.resistor_network.total_resistance": lambda tr: _network_ohms(tr["state"]),
    "physics.resistor_network.battery_current": _network_current,
})


# ---- physics.laser_mirrors: trace the beam cell by cell ('/' swaps right↔up and down↔left, '\' right↔down, left↔up)
def _laser_trace(state):
    size = state["size"]
    at = {(q["row"], q["col"]): q["kind"] for q in state["mirrors"]}
    r, c, dr, dc = state["r0"], -1, 0, 1
    bounces = 0
    for _ in range(4 * size * size + 4):
        r, c = r + dr, c + dc
        if not (0 <= r < size and 0 <= c < size):
            return (r, c), bounces
        kind = at.get((r, c))
        if kind == "/":
            dr, dc = -dc, -dr
            bounces += 1
        elif kind == "\\":
            dr, dc = dc, dr
            bounces += 1
    raise AssertionError("the beam loops")


def _laser_target(tr):
    spot, _ = _laser_trace(tr["state"])
    (name,) = [t["name"] for t in tr["state"]["targets"] if (t["row"], t["col"]) == spot]
    return name


ORACLES.update({
    "physics.laser_mirrors.beam_target": _laser_target,
    "physics.laser_mirrors.bounce_count": lambda tr: _laser_trace(tr["state"])[1],
})


# ---- physics.ruler: a length is the difference of two end readings (positions kept in tenths of a cm)
def _pencil_cm(p):
    return (p["t1"] - p["t0"]) / 10


def _ruler_length(tr):
    name = step(tr, "p")["name"]
    (p,) = [p for p in tr["state"]["pencils"] if p["name"] == name]
    return _pencil_cm(p)


def _ruler_difference(tr):
    lengths = [_pencil_cm(p) for p in tr["state"]["pencils"]]
    return round(max(lengths) - min(lengths), 1)


ORACLES.update({
    "physics.ruler.pencil_length": _ruler_length,
    "physics.ruler.length_difference": _ruler_difference,
})
