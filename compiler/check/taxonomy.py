"""Cross-file checks: references resolve, tasks are unique, the taxonomy index covers every task exactly once."""
from __future__ import annotations

import fnmatch
import re

from ..errors import Diagnostics
from ..load.library import Library


def check_references(lib: Library, diags: Diagnostics) -> None:
    for tid, loaded in lib.programs.items():
        spec, doc = loaded.spec, loaded.doc
        if spec.grammar not in lib.grammars:
            diags.error(doc.pos(("grammar",)), f"task '{tid}' uses unknown grammar '{spec.grammar}'"
                                               f"{_known(lib.grammars)}")
        if spec.answer.contract not in lib.contracts:
            diags.error(doc.pos(("answer", "contract")), f"task '{tid}' uses unknown contract "
                                                         f"'{spec.answer.contract}'{_known(lib.contracts)}")


def _known(table: dict) -> str:
    if not table:
        return ""
    return f" (known: {', '.join(sorted(table))})"


def check_duplicates(tasks: dict, lib: Library, diags: Diagnostics) -> None:
    """Two tasks with the same identity are one task: the second one is reported."""
    seen: dict[str, str] = {}
    for tid in sorted(tasks, key=lambda t: (lib.programs[t].doc.path, t)):
        ident = tasks[tid].identity
        if ident in seen:
            first = seen[ident]
            doc = lib.programs[tid].doc
            diags.error(doc.pos(("task",)), f"task '{tid}' duplicates task '{first}' ({lib.programs[first].doc.path}):"
                                            f" same grammar, same program up to literal operands and names, same "
                                            f"answer type and contract. Make the differing literal a query variable "
                                            f"of one task instead")
        else:
            seen[ident] = tid


# A pattern is a task-id prefix with `*` wildcards (`charts.*`, `charts.bar_*`): no `?` or `[...]` sets, whose
# translation to a regular expression can take seconds per match, and no longer than a task id could sensibly be.
_PATTERN = re.compile(r"[a-z0-9_.*]{1,200}")


def resolve_taxonomy(lib: Library, diags: Diagnostics) -> dict[str, list[str]]:
    """Domain → task ids, from the taxonomy index (ids or `prefix.*` patterns)."""
    if lib.taxonomy is None:
        return {}
    spec, doc = lib.taxonomy.spec, lib.taxonomy.doc
    owner: dict[str, str] = {}
    domains: dict[str, list[str]] = {}
    for dname, dom in spec.domains.items():
        ids: list[str] = []
        for i, pattern in enumerate(dom.tasks):
            loc = ("domains", dname, "tasks", i)
            if "*" in pattern and not _PATTERN.fullmatch(pattern):
                diags.error(doc.pos(loc), f"'{pattern[:80]}' is not a task pattern: use a task id, or an id prefix "
                                          f"with * (like charts.*), at most 200 characters of a-z 0-9 _ . *")
                continue
            if "*" in pattern:
                hits = sorted(t for t in lib.programs if fnmatch.fnmatchcase(t, pattern))
                if not hits:
                    diags.error(doc.pos(loc), f"pattern '{pattern}' matches no task")
            else:
                hits = [pattern] if pattern in lib.programs else []
                if not hits:
                    diags.error(doc.pos(loc), f"taxonomy lists unknown task '{pattern}'")
            for tid in hits:
                if tid in owner:
                    if owner[tid] != dname or tid in ids:
                        diags.error(doc.pos(loc), f"task '{tid}' is listed twice (also under '{owner[tid]}')")
                    continue
                task_domain = tid.split(".")[0]
                if task_domain != dname:
                    diags.error(doc.pos(loc), f"task '{tid}' belongs to domain '{task_domain}', not '{dname}'")
                    continue
                owner[tid] = dname
                ids.append(tid)
        domains[dname] = ids
    for tid, loaded in lib.programs.items():
        if tid not in owner:
            diags.error(loaded.doc.pos(("task",)), f"task '{tid}' is not listed in the taxonomy "
                                                   f"({doc.path}); add it (or a pattern) under its domain")
    return domains
