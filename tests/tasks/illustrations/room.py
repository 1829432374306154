"""Oracles of the grammar illustrations.room (grammars/illustrations/room.yaml, programs/illustrations/room/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- room ---------------------------------------------------------------------------------------------------------
@oracle("illustrations.room.count_at")
def _room_count_at(tr):
    host, rel = step(tr, "host"), tr["query"]["rel"]
    return sum(o["host"] == host and o["rel"] == rel for o in tr["state"]["objects"])


@oracle("illustrations.room.relation_of")
def _room_relation(tr):
    return {"on": "on", "under": "under", "beside": "next to"}[step(tr, "it")["rel"]]


@oracle("illustrations.room.host_of")
def _room_host(tr):
    return tr["state"]["hosts"][step(tr, "it")["host"]]["kind"]


@oracle("illustrations.room.count_kind")
def _room_count_kind(tr):
    return sum(o["kind"] == tr["query"]["kind"] for o in tr["state"]["objects"])


@oracle("illustrations.room.left_of")
def _room_left(tr):
    return step(tr, "a")["x"] < step(tr, "b")["x"]


@oracle("illustrations.room.more_on")
def _room_more_on(tr):
    host, objs = step(tr, "host"), tr["state"]["objects"]
    on = sum(o["host"] == host and o["rel"] == "on" for o in objs)
    under = sum(o["host"] == host and o["rel"] == "under" for o in objs)
    return on > under
