"""Independent recomputation of the illustrations tasks from the recorded state (and the program's recorded random
picks: which thing or piece of furniture a question names). Plain Python over the placed sprites: a relation is
read from where a thing was put (its host and anchor), counts from the drawn things, tile answers from the slots."""
from __future__ import annotations

from tests.oracles import step


# -- room ---------------------------------------------------------------------------------------------------------
def _room_count_at(tr):
    host, rel = step(tr, "host"), tr["query"]["rel"]
    return sum(o["host"] == host and o["rel"] == rel for o in tr["state"]["objects"])


def _room_relation(tr):
    return {"on": "on", "under": "under", "beside": "next to"}[step(tr, "it")["rel"]]


def _room_host(tr):
    return tr["state"]["hosts"][step(tr, "it")["host"]]["kind"]


def _room_count_kind(tr):
    return sum(o["kind"] == tr["query"]["kind"] for o in tr["state"]["objects"])


def _room_left(tr):
    return step(tr, "a")["x"] < step(tr, "b")["x"]


def _room_more_on(tr):
    host, objs = step(tr, "host"), tr["state"]["objects"]
    on = sum(o["host"] == host and o["rel"] == "on" for o in objs)
    under = sum(o["host"] == host and o["rel"] == "under" for o in objs)
    return on > under


# -- street -------------------------------------------------------------------------------------------------------
def _kinds(tr, kind):
    return [s for s in tr["state"]["items"] if s["kind"] == kind]


def _street_count(tr):
    return len(_kinds(tr, tr["query"]["kind"]))


def _street_left(tr):
    ref = step(tr, "ref")
    return sum(s["x"] < ref["x"] for s in _kinds(tr, tr["query"]["kind"]))


def _street_between(tr):
    a, b = step(tr, "a"), step(tr, "b")
    row = [s for s in tr["state"]["items"] if s["row"] == a["row"] and min(a["x"], b["x"]) < s["x"] < max(a["x"], b["x"])]
    assert len(row) == 1 and a["row"] == b["row"]
    return row[0]["kind"]


def _street_nearer(tr):
    a, b = step(tr, "a"), step(tr, "b")
    return max((a, b), key=lambda s: s["row"])["kind"]  # row 2 is the road at the front


def _street_more(tr):
    a, b = step(tr, "a"), step(tr, "b")
    na, nb = len(_kinds(tr, a)), len(_kinds(tr, b))
    assert na != nb
    return a if na > nb else b


def _street_road(tr):
    return [s["kind"] for s in sorted((s for s in tr["state"]["items"] if s["row"] == 2), key=lambda s: s["x"])]


# -- shelf --------------------------------------------------------------------------------------------------------
SHELVES = ("top", "middle", "bottom")


def _on(tr, shelf):
    # what stands on a shelf: its base at that board, read from the things' heights rather than their labels
    things = tr["state"]["things"]
    levels = sorted({round(t["y"], 6) for t in things}, reverse=True)
    st = tr["state"]
    boards = [round(st["case"]["y"] + a["v0"] * st["sh"], 6) for a in st["anchors"]]
    assert set(levels) <= set(boards)
    return [t for t in things if round(t["y"], 6) == boards[SHELVES.index(shelf)]]


def _shelf_count(tr):
    return sum(t["kind"] == tr["query"]["kind"] for t in _on(tr, tr["query"]["shelf"]))


def _shelf_which(tr):
    it = step(tr, "it")
    return next(s for s in SHELVES if any(t is it or t == it for t in _on(tr, s)))


def _shelf_fullest(tr):
    sizes = [len(_on(tr, s)) for s in SHELVES]
    assert sizes.count(max(sizes)) == 1
    return SHELVES[sizes.index(max(sizes))]


def _shelf_neighbour(tr):
    things, at = tr["state"]["things"], step(tr, "at")
    me = things[at]
    row = sorted((t for t in things if t["y"] == me["y"]), key=lambda t: t["x"])
    k = row.index(me)
    return row[k - 1 if tr["query"]["side"] == "left" else k + 1]["kind"]


def _shelf_without(tr):
    kind = tr["query"]["kind"]
    empty = [s for s in SHELVES if not any(t["kind"] == kind for t in _on(tr, s))]
    assert len(empty) == 1
    return empty[0]


ORACLES = {
    "illustrations.shelf.count_on_shelf": _shelf_count,
    "illustrations.shelf.which_shelf": _shelf_which,
    "illustrations.shelf.fullest_shelf": _shelf_fullest,
    "illustrations.shelf.left_neighbour": _shelf_neighbour,
    "illustrations.shelf.shelf_without": _shelf_without,
    "illustrations.street.count_kind": _street_count,
    "illustrations.street.count_left_of": _street_left,
    "illustrations.street.between": _street_between,
    "illustrations.street.nearer": _street_nearer,
    "illustrations.street.more_of": _street_more,
    "illustrations.street.road_order": _street_road,
    "illustrations.room.count_at": _room_count_at,
    "illustrations.room.relation_of": _room_relation,
    "illustrations.room.host_of": _room_host,
    "illustrations.room.count_kind": _room_count_kind,
    "illustrations.room.left_of": _room_left,
    "illustrations.room.more_on": _room_more_on,
}


# -- tile puzzles -----------------------------------------------------------------------------------------------
def _slots(tr):
    return tr["state"]["slots"]


def _tp_count_turned(tr):
    return sum(s["turn"] % 4 != 0 for s in _slots(tr))


def _tp_which_turned(tr):
    (hit,) = [k for k, s in enumerate(_slots(tr)) if s["turn"] % 4]
    return hit + 1


def _tp_swapped(tr):
    out = [k for k, s in enumerate(_slots(tr)) if s["src"] != k]
    assert len(out) == 2 and _slots(tr)[out[0]]["src"] == out[1] and _slots(tr)[out[1]]["src"] == out[0]
    return [str(k + 1) for k in out]


def _tp_count_moved(tr):
    slots = _slots(tr)
    assert sorted(s["src"] for s in slots) == list(range(len(slots)))  # a permutation: nothing lost, nothing turned
    return sum(s["src"] != k for k, s in enumerate(slots))


def missing_tile_fits(tr) -> list[int]:
    """The candidate tiles (by position) that fill the empty slot upright: the missing tile, not turned."""
    (gap,) = [k for k, s in enumerate(_slots(tr)) if s["src"] == -1]
    return [i for i, o in enumerate(tr["state"]["options"]) if o["src"] == gap and o["turn"] % 4 == 0]


def _tp_missing(tr):
    (fit,) = missing_tile_fits(tr)
    return tr["state"]["options"][fit]["letter"]


ORACLES.update({
    "illustrations.tile_puzzle.count_turned": _tp_count_turned,
    "illustrations.tile_puzzle.which_turned": _tp_which_turned,
    "illustrations.tile_puzzle.swapped_pair": _tp_swapped,
    "illustrations.tile_puzzle.count_moved": _tp_count_moved,
    "illustrations.tile_puzzle.missing_tile": _tp_missing,
})

OPTION_FITS = {"illustrations.tile_puzzle.missing_tile": missing_tile_fits}


# -- pets ---------------------------------------------------------------------------------------------------------
def _inside(tr, host):
    """The guests drawn within a host's anchor box (a bowl's inside, a tree's crown), read from positions."""
    h = tr["state"]["hosts"][host]
    out = []
    for g in tr["state"]["guests"]:
        if h["x"] - h["w"] / 2 < g["x"] < h["x"] + h["w"] / 2 and h["y"] < g["y"] < h["y"] + h["h"]:
            out.append(g)
    return out


def _pets_fish(tr):
    return sum(g["kind"] == "fish" for g in _inside(tr, step(tr, "bowl")))


def _pets_birds(tr):
    hosts = tr["state"]["hosts"]
    return sum(g["kind"] == "bird" for i, h in enumerate(hosts) if h["kind"] == "tree" for g in _inside(tr, i))


def _pets_fullest(tr):
    hosts = tr["state"]["hosts"]
    counts = {i: len(_inside(tr, i)) for i, h in enumerate(hosts) if h["kind"] == "bowl"}
    best = max(counts.values())
    (top,) = [i for i, n in counts.items() if n == best]
    return hosts[top]["color"]


ORACLES.update({
    "illustrations.pets.fish_in_bowl": _pets_fish,
    "illustrations.pets.birds_in_trees": _pets_birds,
    "illustrations.pets.fullest_bowl": _pets_fullest,
})
