"""Cross-file checks: references resolve, tasks are unique, the taxonomy index covers every task exactly once.

They read only headers (load.library), so they run on every start without parsing a document."""
from __future__ import annotations

import fnmatch
import re

from ..errors import Diagnostics, EvalError
from ..load.library import Library
from ..spec.assets import find_asset


def check_references(lib: Library, diags: Diagnostics) -> None:
    for tid, unit in lib.programs.items():
        h = unit.header
        if h["grammar"] not in lib.grammars:
            diags.error(unit.pos("grammar"), f"task '{tid}' uses unknown grammar '{h['grammar']}'"
                                             f"{_known(lib.grammars)}", code="unknown-ref")
        if h["contract"] not in lib.contracts:
            diags.error(unit.pos("contract"), f"task '{tid}' uses unknown contract "
                                              f"'{h['contract']}'{_known(lib.contracts)}", code="unknown-ref")
        # A task is found by its id: programs/<id with dots as folders>.yaml (a warning: the id still works).
        want = "programs/" + tid.replace(".", "/") + ".yaml"
        shown = unit.display.replace("\\", "/")  # relative to the root, or absolute when the root is elsewhere
        if shown != want and not shown.endswith("/" + want):
            diags.warning(unit.pos("id"), f"task id '{tid}' does not match its file: expected it at {want}",
                          code="task-id-path")


# Vocabularies that hold asset names, by the suffix of their name: `icon_kinds`, `turning_icon_kinds` ... name mono
# icons (the icon mark), `..._object_kinds` coloured objects (the object mark). An entry is the name itself or a
# record whose `name` is the asset (its other fields, such as `label`, are the author's words).
_ASSET_VOCABS = (("icon_kinds", "mono"), ("object_kinds", "colour"))


def check_vocab_assets(lib: Library, diags: Diagnostics) -> None:
    """Every asset name in a vocabulary that holds them (see _ASSET_VOCABS) is in the asset library: a misspelt or
    removed name is an `unknown-asset` error at its place in taxonomy/vocab.yaml, not a failure when some task first
    draws it. Reads the header; the document is parsed only to place an error."""
    unit = lib.vocab_unit
    if unit is None:  # no vocab.yaml: no vocabularies
        return
    for key, entries in lib.vocab.items():
        kind = next((k for suffix, k in _ASSET_VOCABS if key == suffix or key.endswith("_" + suffix)), None)
        if kind is None:
            continue
        for i, entry in enumerate(entries):
            name = entry.get("name") if isinstance(entry, dict) else entry
            loc: tuple = ("vocab", key, i, "name") if isinstance(entry, dict) else ("vocab", key, i)
            if not isinstance(name, str):
                diags.error(unit.doc.pos(loc), f"vocabulary '{key}' holds asset names: entry {i} should be a name or a record "
                                   f"with a `name`, not {entry!r}", code="unknown-asset")
                continue
            try:
                find_asset(kind, name)
            except EvalError as exc:
                diags.error(unit.doc.pos(loc), f"vocabulary '{key}' (asset names): {exc}", code="unknown-asset")


def _known(table: dict) -> str:
    if not table:
        return ""
    return f" (known: {', '.join(sorted(table))})"


def check_duplicates(identities: dict[str, str], lib: Library, diags: Diagnostics) -> None:
    """Two tasks with the same identity (task id → identity hash) are one task: the second one is reported."""
    seen: dict[str, str] = {}
    for tid in sorted(identities, key=lambda t: (lib.programs[t].display, t)):
        ident = identities[tid]
        if ident in seen:
            first = seen[ident]
            diags.error(lib.programs[tid].pos("id"), f"task '{tid}' duplicates task '{first}' "
                                                     f"({lib.programs[first].display}): same grammar, same program up "
                                                     f"to literal operands and names, same answer type and contract. "
                                                     f"Make the differing literal a query variable of one task instead",
                                                             code="duplicate-id")
        else:
            seen[ident] = tid


# A pattern is a task-id prefix with `*` wildcards (`charts.*`, `charts.bar_*`): no `?` or `[...]` sets, whose
# translation to a regular expression can take seconds per match, and no longer than a task id could sensibly be.
_PATTERN = re.compile(r"[a-z0-9_.*]{1,200}")


def resolve_taxonomy(lib: Library, diags: Diagnostics) -> dict[str, list[str]]:
    """Domain → task ids, from the taxonomy index (ids or `prefix.*` patterns).

    A pattern that matches no task is a warning, not an error: a root holding only some domains (an author's
    working copy, a subset shipped with a paper) still compiles. A listed id that names no task stays an error."""
    if lib.taxonomy is None:
        return {}
    unit = lib.taxonomy
    owner: dict[str, str] = {}
    domains: dict[str, list[str]] = {}
    for dname, patterns in unit.header["domains"].items():
        ids: list[str] = []
        for pattern, line, col in patterns:
            from ..errors import Position

            at = Position(unit.display, line, col)
            if "*" in pattern and not _PATTERN.fullmatch(pattern):
                diags.error(at, f"'{pattern[:80]}' is not a task pattern: use a task id, or an id prefix "
                                f"with * (like charts.*), at most 200 characters of a-z 0-9 _ . *",
                                        code="taxonomy-listing")
                continue
            if "*" in pattern:
                hits = sorted(t for t in lib.programs if fnmatch.fnmatchcase(t, pattern))
                if not hits:
                    diags.warning(at, f"pattern '{pattern}' matches no task (domain '{dname}' is empty in this "
                                      f"root)", code="pattern-unmatched")
            else:
                hits = [pattern] if pattern in lib.programs else []
                if not hits:
                    diags.error(at, f"taxonomy lists unknown task '{pattern}'", code="unknown-ref")
            for tid in hits:
                if tid in owner:
                    if owner[tid] != dname or tid in ids:
                        diags.error(at, f"task '{tid}' is listed twice (also under '{owner[tid]}')",
                                code="duplicate-id")
                    continue
                task_domain = tid.split(".")[0]
                if task_domain != dname:
                    diags.error(at, f"task '{tid}' belongs to domain '{task_domain}', not '{dname}'",
                            code="taxonomy-listing")
                    continue
                owner[tid] = dname
                ids.append(tid)
        domains[dname] = ids
    for tid, program in lib.programs.items():
        if tid not in owner:
            diags.error(program.pos("id"), f"task '{tid}' is not listed in the taxonomy "
                                           f"({unit.display}); add it (or a pattern) under its domain",
                                                   code="taxonomy-listing")
    return domains
