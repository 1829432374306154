"""What the commands print: rich consoles, progress bars, the compile summary and the build table. The CLI, the Python
API (`tessera.build(progress=True)`), the demo gallery and the dev loop share them; it imports nothing of tessera, so
any of them may (before 0.11 they lived in cli.py, and api, gallery and dev imported the CLI back).
"""
from __future__ import annotations

import sys
from collections import Counter


def console(stderr: bool = False):
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    # Tables stay readable when piped (CI logs): no 80-column squeeze for long task ids.
    return Console(stderr=stderr, highlight=False, soft_wrap=True, width=None if stream.isatty() else 140)


def escape(text: str) -> str:
    """Text from a dataset or trace, printed as itself: rich must not read `[...]` in it as markup."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=console(True), transient=True)


def summary(tax, seconds: float, only: list[str] | None = None) -> dict:
    """The compile summary (of the tasks in `only`, when given, and the grammars and domains they use)."""
    # headers and check results: a warm compile cache builds no task to summarise them
    tasks = tax.infos() if only is None else [tax.info(t) for t in only]
    grammars = sorted({t.grammar for t in tasks}) if only is not None else list(tax.grammars)
    domains = tax.domains if only is None else {d: [t for t in ids if t in set(only)]
                                                for d, ids in tax.domains.items() if set(ids) & set(only)}
    return {
        "taxonomy": tax.name, "domains": len(domains), "grammars": len(grammars), "tasks": len(tasks),
        "queries": sum(len(t.query_space()) for t in tasks),
        "contracts": len(tax.contracts) if only is None else len({t.contract for t in tasks}),
        "components": sorted(tax.components),
        "composed_grammars": sum(1 for g in grammars if tax.grammar_composed(g)),
        "answer_types": dict(sorted(Counter(t.answer_type for t in tasks).items())),
        "buckets": dict(sorted(Counter(t.bucket for t in tasks).items())),
        "operations": dict(sorted(Counter(op for t in tasks for op in t.operations).items())),
        "by_domain": {
            d: {"grammars": len({tax.info(t).grammar for t in ids}), "tasks": len(ids)}
            for d, ids in sorted(domains.items())
        },
        "compile_seconds": round(seconds, 4),
    }


def print_build_table(con, result, config) -> None:
    from rich.table import Table

    table = Table(title=f"build {config.spec.build}: {sum(s['rows'] for s in result.manifest['splits'].values())} "
                        f"rows in {result.seconds:.1f} s" + (f" ({result.resumed_shards} shards resumed)"
                                                             if result.resumed_shards else ""))
    for col in ("task", "accepted", "rejected (reason ×n)", "retries", "ms/inst"):
        table.add_column(col, justify="left" if col in ("task", "rejected (reason ×n)") else "right")
    for tid in config.tasks:
        st = result.stats.get(tid)
        if st is None:
            continue
        rej = ", ".join(f"{k} ×{v}" for k, v in st.rejected.most_common(3)) or "—"
        ms = f"{st.seconds / st.accepted * 1000:.1f}" if st.accepted and st.seconds else "—"
        table.add_row(tid, str(st.accepted), rej, str(sum(st.retries.values())), ms)
    con.print(table)
    splits = ", ".join(f"{k}: {v['rows']} rows in {len(v['files'])} shard(s)" for k, v in result.manifest["splits"].items())
    con.print(f"wrote {result.out} ({splits}); load it with datasets.load_dataset('{result.out}')")
