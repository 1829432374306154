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


ORACLES = {
    "illustrations.room.count_at": _room_count_at,
    "illustrations.room.relation_of": _room_relation,
    "illustrations.room.host_of": _room_host,
    "illustrations.room.count_kind": _room_count_kind,
    "illustrations.room.left_of": _room_left,
    "illustrations.room.more_on": _room_more_on,
}
