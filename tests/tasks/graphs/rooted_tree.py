"""Oracles of the grammar graphs.rooted_tree (grammars/graphs/rooted_tree.yaml, programs/graphs/rooted_tree/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import options_matching, step
from tests.tasks.graphs._shared import _letter
from tests.tasks.registry import option_fit, oracle


# -- rooted trees -----------------------------------------------------------------------------------------------
def _up(nodes: list[dict], v: int) -> list[int]:
    """v, its parent, …, the root (ids)."""
    parent = {n["id"]: n["parent"] for n in nodes}
    chain = [v]
    while parent[chain[-1]] >= 0:
        chain.append(parent[chain[-1]])
    return chain


@oracle("graphs.rooted_tree.height")
def _tree_height(tr):
    nodes = tr["state"]["nodes"]
    tall = max(len(_up(nodes, n["id"])) - 1 for n in nodes)
    return tall + 1 if tr["query"]["measure"] == "levels" else tall


@oracle("graphs.rooted_tree.leaf_count")
def _tree_leaf_count(tr):
    nodes = tr["state"]["nodes"]
    parents = {n["parent"] for n in nodes}
    color = step(tr, "color")
    return sum(n["id"] not in parents and n["color"] == color for n in nodes)


@oracle("graphs.rooted_tree.parent_of")
def _tree_parent(tr):
    nodes = tr["state"]["nodes"]
    k = 1 if tr["query"]["relative"] == "parent" else 2
    return nodes[_up(nodes, step(tr, "node")["id"])[k]]["label"]


@oracle("graphs.rooted_tree.common_ancestor")
def _tree_common_ancestor(tr):
    nodes = tr["state"]["nodes"]
    a, b = step(tr, "pair")
    shared = set(_up(nodes, a["id"])) & set(_up(nodes, b["id"]))
    lowest = max(shared, key=lambda v: len(_up(nodes, v)))
    return _letter(step(tr, "options"), [nodes[lowest]["label"]])


# -- issue 13 (wave 2): depths, subtrees, tree distances, siblings; upstream sets and single arrows -------------------
@oracle("graphs.rooted_tree.node_depth")
def _tree_node_depth(tr):
    return len(_up(tr["state"]["nodes"], step(tr, "node")["id"])) - 1


@oracle("graphs.rooted_tree.subtree_size")
def _tree_subtree_size(tr):
    nodes = tr["state"]["nodes"]
    v = step(tr, "node")["id"]
    return sum(v in _up(nodes, n["id"])[1:] for n in nodes)


@oracle("graphs.rooted_tree.tree_distance")
def _tree_distance(tr):
    nodes = tr["state"]["nodes"]
    a, b = step(tr, "pair")
    up_a, up_b = _up(nodes, a["id"]), _up(nodes, b["id"])
    # steps up from a to the first node on b's chain, plus the steps up from b to it
    meet = next(v for v in up_a if v in up_b)
    return up_a.index(meet) + up_b.index(meet)


@oracle("graphs.rooted_tree.siblings")
def _tree_siblings(tr):
    nodes = tr["state"]["nodes"]
    me = step(tr, "node")
    return [n["label"] for n in nodes if n["parent"] == me["parent"] and n["id"] != me["id"]]


@oracle("graphs.rooted_tree.widest_level")
def _tree_widest_level(tr):
    nodes = tr["state"]["nodes"]
    per = {}
    for n in nodes:
        d = len(_up(nodes, n["id"]))  # 1 for the top node
        per[d] = per.get(d, 0) + 1
    return max(per, key=per.get)


@option_fit("graphs.rooted_tree.common_ancestor")
def _ancestor_fits(tr):
    nodes = tr["state"]["nodes"]
    a, b = step(tr, "pair")
    shared = set(_up(nodes, a["id"])) & set(_up(nodes, b["id"]))
    lowest = max(shared, key=lambda v: len(_up(nodes, v)))
    return options_matching(tr, [nodes[lowest]["label"]])
