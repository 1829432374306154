"""`tessera`: compile, list, sample, replay, score and demo. Bad input gets a message and an exit status, never a
traceback: 2 for authoring/usage errors, 1 for a failed check (replay mismatch, unsatisfiable task)."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

from .errors import CompileFailed, Diagnostics, TesseraError

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _console(stderr: bool = False):
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    # Tables stay readable when piped (CI logs): no 80-column squeeze for long task ids.
    return Console(stderr=stderr, highlight=False, soft_wrap=True, width=None if stream.isatty() else 140)


def escape(text: str) -> str:
    """Text from a dataset or trace, printed as itself: rich must not read `[...]` in it as markup."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def _root(arg: str | None) -> Path:
    from .taxonomy import DEFAULT_ROOT

    if arg:
        return Path(arg)
    here = Path.cwd()
    return here if (here / "taxonomy" / "taxonomy.yaml").is_file() else DEFAULT_ROOT


def _compile(root: str | None):
    """The whole library, every unit checked (from the compile cache where unchanged)."""
    from .taxonomy import compile_taxonomy

    return compile_taxonomy(_root(root))


def _open(root: str | None):
    """The library's headers; each task compiles when a command first asks for it."""
    from .taxonomy import open_taxonomy

    return open_taxonomy(_root(root))


def _note_problems(tax) -> None:
    """One line on stderr when the headers show mistakes in files this command did not need."""
    if tax.problems:
        n = len(tax.problems)
        print(f"note: {n} problem{'s' if n != 1 else ''} elsewhere in the library (`tessera compile` lists "
              f"{'them' if n != 1 else 'it'})", file=sys.stderr)


# -- compile ----------------------------------------------------------------------------------------------------
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


def cmd_compile(args) -> int:
    from . import taxonomy  # noqa: F401 - import outside the timed region: we report compile time, not start-up

    t0 = time.perf_counter()
    filtered = bool(args.task or args.domain or args.grammar)
    if filtered:
        import fnmatch

        from .taxonomy import compile_taxonomy

        def wanted(info) -> bool:
            return ((not args.task or any(fnmatch.fnmatchcase(info.id, p) for p in args.task)) and
                    (not args.domain or info.domain in args.domain) and
                    (not args.grammar or any(fnmatch.fnmatchcase(info.grammar, g) for g in args.grammar)))

        tax = compile_taxonomy(_root(args.root), tasks=wanted)
        only = select(tax, args.task, args.domain, args.grammar)
    else:
        tax, only = _compile(args.root), None
    info = summary(tax, time.perf_counter() - t0, only)
    if filtered:
        _note_problems(tax)
    warnings = sorted(set(tax.warnings), key=lambda d: (d.pos, d.message, d.code))
    if args.strict and warnings:  # --strict: a warning is an error (same code), and nothing is compiled
        from .errors import strict

        raise CompileFailed(Diagnostics(strict(warnings)))
    for w in warnings:
        print(w, file=sys.stderr)
    info["warnings"] = len(warnings)
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_OK
    from rich.table import Table

    con = _console()
    shown_warnings = f", {len(warnings)} warning{'s' if len(warnings) != 1 else ''}" if warnings else ""
    table = Table(title=f"taxonomy {tax.name} — compiled in {info['compile_seconds'] * 1000:.0f} ms{shown_warnings}")
    for col in ("domain", "grammars", "tasks", "queries", "answer types", "buckets"):
        table.add_column(col)
    shown = set(only) if only is not None else None
    for d, ids in sorted(tax.domains.items()):
        ts = [tax.info(t) for t in ids if shown is None or t in shown]
        if not ts and shown is not None:
            continue
        table.add_row(d, str(len({t.grammar for t in ts})), str(len(ts)), str(sum(len(t.query_space()) for t in ts)),
                      ", ".join(f"{k} {v}" for k, v in sorted(Counter(t.answer_type for t in ts).items())),
                      ", ".join(f"{k} {v}" for k, v in sorted(Counter(t.bucket for t in ts).items())))
    table.add_section()
    table.add_row("total", str(info["grammars"]), str(info["tasks"]), str(info["queries"]),
                  ", ".join(f"{k} {v}" for k, v in info["answer_types"].items()),
                  ", ".join(f"{k} {v}" for k, v in info["buckets"].items()))
    con.print(table)
    fam = Table(title="operation families by domain (a task counts once for each family it names)")
    fam.add_column("family")
    domains = sorted(tax.domains)
    for d in domains:
        fam.add_column(d, justify="right")
    fam.add_column("total", justify="right")
    for op, total in info["operations"].items():
        fam.add_row(op, *(str(sum(op in tax.info(t).operations for t in tax.domains[d]
                                  if shown is None or t in shown) or "·") for d in domains),
                    str(total))
    con.print(fam)
    return EXIT_OK


# -- list -------------------------------------------------------------------------------------------------------
def select(tax, tasks: list[str] | None = None, domains: list[str] | None = None,
           grammars: list[str] | None = None) -> list[str]:
    """Task ids matching every filter given: --task patterns (`charts.bar_*`), --domain names, --grammar ids or
    patterns; each filter repeatable. Read from headers: nothing is compiled."""
    import fnmatch

    for d in domains or ():
        if d not in tax.domains:
            raise TesseraError(f"unknown domain '{d}' (known: {', '.join(sorted(tax.domains))})")
    out = []
    for t in sorted(tax.tasks):
        info = tax.info(t)
        if tasks and not any(fnmatch.fnmatchcase(t, p) for p in tasks):
            continue
        if domains and info.domain not in domains:
            continue
        if grammars and not any(fnmatch.fnmatchcase(info.grammar, g) for g in grammars):
            continue
        out.append(t)
    if not out and (tasks or grammars):
        wanted = " ".join([*(f"--task {p}" for p in tasks or ()), *(f"--grammar {g}" for g in grammars or ())])
        raise TesseraError(f"no task matches {wanted}; `tessera list` shows them all")
    return out


def plain_table(header: tuple[str, ...], rows: list[tuple[str, ...]], title: str) -> str:
    """Columns padded to their widest cell under a title and a rule: what `list` prints for hundreds of rows
    (rich measures every cell of every row several times, which cost `list` a third of a second at 341 tasks)."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([title, fmt(header), "  ".join("─" * w for w in widths), *(fmt(r) for r in rows)])


def cmd_list(args) -> int:
    tax = _open(args.root)
    ids = select(tax, args.task, args.domain, args.grammar)
    rows = [{
        "task": t.id, "domain": t.domain, "grammar": t.grammar, "answer_type": t.answer_type,
        "contract": t.contract, "queries": t.queries, "operations": t.operations, "bucket": t.bucket,
        "summary": t.summary, "source": t.source,
    } for t in (tax.info(i) for i in ids)]
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    lines = [(r["task"], r["answer_type"], "; ".join(f"{k}: {len(v)}" for k, v in r["queries"].items()) or "—",
              ", ".join(r["operations"]), r["bucket"]) for r in rows]
    print(plain_table(("task", "answer", "queries", "operations", "bucket"), lines, f"{len(rows)} tasks"))
    _note_problems(tax)
    return EXIT_OK


# -- sample -----------------------------------------------------------------------------------------------------
def parse_query(text: str | None, task) -> dict | None:
    if not text:
        return None
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise TesseraError(f"--query takes name=value pairs separated by commas, got '{part}'")
        k, v = (s.strip() for s in part.split("=", 1))
        if k not in task.queries:
            known = ", ".join(task.queries) or "none"
            raise TesseraError(f"task {task.id} has no query variable '{k}' (its variables: {known})")
        values = task.queries[k]
        match = [x for x in values if str(x) == v or (isinstance(x, bool) and v.lower() == str(x).lower())]
        if not match:
            raise TesseraError(f"'{v}' is not a value of {k} (values: {', '.join(map(str, values))})")
        out[k] = match[0]
    missing = [k for k in task.queries if k not in out]
    if missing:
        raise TesseraError(f"--query must set every query variable of {task.id}; missing: {', '.join(missing)}")
    return out


def write_instance(inst, out: Path) -> list[Path]:
    from .render.png import image_suffix
    from .trace.instance import canonical_json

    out.mkdir(parents=True, exist_ok=True)
    base = out / inst.instance_id  # the picture is <id>.png, or <id>.jpg under variety strong
    files = [base.with_suffix(image_suffix(inst.png)), base.with_suffix(".json"),
             out / f"{inst.instance_id}.trace.json"]
    files[0].write_bytes(inst.png)
    files[1].write_text(json.dumps(inst.record(), indent=2, ensure_ascii=False) + "\n")
    files[2].write_text(canonical_json(inst.trace) + "\n")
    return files


def cmd_sample(args) -> int:
    from .trace.instance import generate

    tax = _open(args.root)
    task = tax.task(args.task)
    inst = generate(task, args.seed, args.level, parse_query(args.query, task), tax.vocab, variety=args.variety)
    files = write_instance(inst, Path(args.out))
    if args.json:
        print(json.dumps({"instance_id": inst.instance_id, "files": [str(f) for f in files],
                          "answer": inst.answer}, indent=2))
    else:
        con = _console()
        con.print(f"[bold]{task.id}[/] seed {args.seed} level {args.level} query {inst.trace['query']}")
        con.print(inst.prompt)
        con.print(f"answer: [bold]{json.dumps(inst.answer)}[/]   witness: {inst.witness['kind']} "
                  f"{inst.witness.get('objects', '')}")
        for f in files:
            con.print(f"wrote {f}")
    return EXIT_OK


def cmd_levels(args) -> int:
    """A task's or a grammar's difficulty schedule: each `levels:` parameter's value at levels 0-9."""
    from .codegen.levels import LEVELS, level_schedule

    tax = _open(args.root)
    if args.id in tax.tasks:
        compiled = tax.task(args.id)
        sources = [("grammar " + compiled.grammar.id, compiled.grammar.level_schedule),
                   ("task " + compiled.id, compiled.level_schedule)]
    elif args.id in tax.grammars:
        compiled = tax.grammars[args.id]
        sources = [("grammar " + compiled.id, compiled.level_schedule)]
    else:
        tax.task(args.id)  # the unknown-id error, with suggestions
        return EXIT_USAGE
    if args.json:
        rows = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in level_schedule(compiled).items()]
        print("{\n" + ",\n".join(rows) + "\n}" if rows else "{}")
        return EXIT_OK
    from rich.table import Table

    con = _console()
    for title, schedule in sources:
        if not schedule and title.startswith("task"):
            continue
        table = Table(title=f"{title}: levels", title_justify="left")
        table.add_column("parameter")
        for level in LEVELS:
            table.add_column(str(level), justify="right")
        for name, values in schedule.items():
            same = all(v == values[0] for v in values)
            table.add_row(name + (" (constant)" if same else ""), *(escape(json.dumps(v)) for v in values))
        if not schedule:
            table.add_row("(no levels: block)", *[""] * len(LEVELS))
        con.print(table)
    return EXIT_OK


# -- replay -----------------------------------------------------------------------------------------------------
def _compared(results) -> str:
    """What a replay compared, for the summary line: it vouches for those and nothing else."""
    n = len(results)
    absent = {kind: sum(kind not in r.checked for r in results) for kind in ("png", "json")}
    text = "trace, image and instance .json compared" if not any(absent.values()) else "traces compared"
    missing = [f"{absent['png']} without a picture" if absent["png"] else "",
               f"{absent['json']} without a .json" if absent["json"] else ""]
    if any(missing):
        text += f" ({', '.join(m for m in missing if m)} beside the trace: not checked)"
    return text if n else "nothing compared"


def cmd_replay(args) -> int:
    from rich.progress import track

    from .trace.replay import is_dataset, replay_files, trace_files

    tax = _open(args.root)
    if len(args.traces) == 1 and is_dataset(Path(args.traces[0])):
        return _replay_dataset(Path(args.traces[0]), tax, args)
    files = trace_files(args.traces)
    failed = []
    results = []
    for f in track(files, description="replaying", console=_console(True), disable=len(files) < 20):
        r = replay_files(f, tax)
        results.append(r)
        if not r.ok:
            failed.append((f, r))
    if args.json:
        print(json.dumps({"replayed": len(results), "matched": len(results) - len(failed),
                          "results": [{"file": r.where, "instance_id": r.instance_id, "ok": r.ok,
                                       "checked": r.checked, "differences": r.differences} for r in results]},
                         indent=2))
    else:
        con = _console()
        for f, r in failed:
            con.print(f"[red]MISMATCH[/] {escape(str(f))} ({r.task})")
            for d in r.differences:
                con.print(f"  - {d}", markup=False)
        con.print(f"{len(results) - len(failed)}/{len(results)} instances replayed byte for byte; {_compared(results)}")
    return EXIT_FAIL if failed else EXIT_OK


def _progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=_console(True), transient=True)


def _replay_dataset(path: Path, tax, args) -> int:
    from .trace.replay import replay_dataset

    with _progress() as progress:
        results = replay_dataset(path, tax.root, args.workers, progress)
    failed = [r for r in results if not r.ok]
    if args.json:
        print(json.dumps({"replayed": len(results), "matched": len(results) - len(failed),
                          "mismatches": [{"instance_id": r.instance_id, "task": r.task, "where": r.where,
                                          "differences": r.differences} for r in failed]}, indent=2))
    else:
        con = _console()
        for r in failed[:50]:
            con.print(f"[red]MISMATCH[/] {escape(r.instance_id)} ({escape(r.task)}) at {escape(r.where)}")
            for d in r.differences:
                con.print(f"  - {d}", markup=False)
        if len(failed) > 50:
            con.print(f"... and {len(failed) - 50} more mismatches")
        con.print(f"{len(results) - len(failed)}/{len(results)} instances of {path} replayed byte for byte; "
                  "every column of every row compared with its rebuild")
    return EXIT_FAIL if failed else EXIT_OK


# -- build and validate ---------------------------------------------------------------------------------------
def cmd_build(args) -> int:
    from .export.build import build
    from .export.config import load_build_config

    tax = _open(args.root)
    config = load_build_config(Path(args.config), tax)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    con = _console()
    with _progress() as progress:
        result = build(config, tax, Path(args.out), workers, args.ray if args.ray else None, args.ray is not None,
                       progress, discard_stale=args.discard_stale)
    if result.already_complete:
        con.print(f"{args.out} already holds this finished build ({config.spec.build}); nothing to do")
        return EXIT_OK
    print_build_table(con, result, config)
    return EXIT_OK


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


def cmd_validate(args) -> int:
    from .validate.dataset import validate_dataset

    tax = _open(args.root) if args.root else None  # given a library, also say which tasks changed since
    with _progress() as progress:
        rep = validate_dataset(Path(args.dataset), progress, tax)
    if args.json:
        print(json.dumps({"ok": rep.ok, "rows": rep.rows, "tasks": rep.tasks, "problems": rep.problems,
                          "warnings": rep.warnings}, indent=2))
    else:
        con = _console()
        for w in rep.warnings[:20]:
            con.print(f"[yellow]warning[/] {w}")
        for p in rep.problems[:100]:
            con.print(f"[red]problem[/] {escape(p)}")
        if len(rep.problems) > 100:
            con.print(f"... and {len(rep.problems) - 100} more")
        state = "valid" if rep.ok else f"INVALID ({len(rep.problems)} problems)"
        con.print(f"{args.dataset}: {state}; rows {rep.rows}; {rep.tasks} tasks")
    return EXIT_OK if rep.ok else EXIT_FAIL


def cmd_audit(args) -> int:
    from .validate.audit import AuditInputError, parse_threshold_args, run_audit
    from .validate.audit_html import headline_rows
    from .validate.untrusted import UntrustedInput

    try:
        overrides = parse_threshold_args(args.threshold)
        with _progress() as progress:
            result = run_audit(Path(args.dataset), Path(args.out), overrides, progress, args.near_duplicate_bits,
                               _open(args.root))
    except (AuditInputError, UntrustedInput) as exc:  # the dataset or a threshold, not the audit, is at fault
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from rich.table import Table

    con = _console()
    table = Table(title=f"audit of {escape(str(result.report['build']))}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in headline_rows(result.report):
        table.add_row(name, escape(value))
    con.print(table)
    for note in result.report["level_notes"][:20]:
        con.print(f"[yellow]note[/] {escape(note)}")
    for v in result.violations[:60]:
        con.print(f"[red]exceeded[/] {v['threshold']}: {escape(v['task'])}: {escape(v['detail'])}")
    if len(result.violations) > 60:
        con.print(f"... and {len(result.violations) - 60} more (audit.json lists them all)")
    con.print(f"wrote {escape(str(Path(args.out) / 'index.html'))} and audit.json"
              + ("; within every threshold" if result.ok else f"; {len(result.violations)} threshold(s) exceeded"))
    return EXIT_OK if result.ok else EXIT_FAIL


# -- score ------------------------------------------------------------------------------------------------------
def cmd_score(args) -> int:
    from .validate.untrusted import (MAX_RESPONSE_BYTES, MAX_TRACE_BYTES, UntrustedInput, read_json, read_stdin_text,
                                     read_text)
    from .verify.score import score

    try:
        raw = read_json(Path(args.label), MAX_TRACE_BYTES, "label file")
    except UntrustedInput as exc:
        raise TesseraError(f"cannot read a JSON label: {exc}") from None
    label = raw.get("label", raw) if isinstance(raw, dict) else raw
    if not isinstance(label, dict) or "type" not in label or "answer" not in label:
        raise TesseraError(f"{args.label}: expected a verifier label (or an instance .json holding one)")
    if args.response == "-":
        response = read_stdin_text(MAX_RESPONSE_BYTES, "response")
    else:
        response = read_text(Path(args.response), MAX_RESPONSE_BYTES, "response", errors="replace")
    print(json.dumps(score(label, response).to_dict(), indent=2))
    return EXIT_OK


# -- demo -------------------------------------------------------------------------------------------------------
def cmd_demo(args) -> int:
    from .gallery import run_demo

    return run_demo(_root(args.root), Path(args.out), args.per_task, _console(), args.domain)


def cmd_styles(args) -> int:
    from .gallery import contact_sheet, style_instances

    tax = _open(args.root)
    task = tax.task(args.task)
    instances = style_instances(task, args.seed, args.level, tax.vocab, args.styles, args.variety)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(contact_sheet(instances, args.columns))
    answer = json.dumps(instances[0].answer)
    if args.json:
        print(json.dumps({"sheet": str(out), "answer": instances[0].answer,
                          "instances": [i.instance_id for i in instances]}, indent=2))
    else:
        _console().print(f"[bold]{task.id}[/] seed {args.seed}: {len(instances)} styles (plain, then "
                         f"{args.variety}), one answer {answer}; wrote {out}")
    return EXIT_OK


def cmd_dev(args) -> int:
    from .dev import watch

    if args.interval <= 0:
        raise TesseraError("--interval must be a positive number of seconds")
    variety = None if args.variety == "none" else args.variety
    if not args.once:
        print(f"watching {_root(args.root)} for changes (Ctrl-C stops); the sheet is {Path(args.out) / 'sheet.png'}",
              file=sys.stderr)
    return watch(_root(args.root), args.task, args.seed, Path(args.out), variety, args.interval, args.once)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tessera", description="Declarative task-taxonomy compiler for visual RLVR.")
    p.add_argument("--root", help="taxonomy root (default: the current folder if it has taxonomy/, else the bundled one)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the compile cache (also TESSERA_NO_CACHE=1; its folder is "
                        "TESSERA_CACHE_DIR, else ~/.cache/tessera)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    c = sub.add_parser("compile", help="load, check and compile the taxonomy; print a summary")
    c.add_argument("path", nargs="?", help="taxonomy root (same as --root)")
    c.add_argument("--task", action="append", metavar="PATTERN", help="check only these tasks (ids or patterns)")
    c.add_argument("--domain", action="append", metavar="DOMAIN", help="check only this domain's tasks")
    c.add_argument("--grammar", action="append", metavar="GRAMMAR", help="check only the tasks on these grammars")
    c.add_argument("--json", action="store_true")
    c.add_argument("--strict", action="store_true", help="treat warnings as errors (exit 2)")
    c.set_defaults(fn=cmd_compile)

    c = sub.add_parser("list", help="list tasks (from headers: nothing is compiled)")
    c.add_argument("--task", action="append", metavar="PATTERN", help="task ids or patterns like charts.bar_*")
    c.add_argument("--domain", action="append", metavar="DOMAIN")
    c.add_argument("--grammar", action="append", metavar="GRAMMAR", help="grammar ids or patterns")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_list)

    c = sub.add_parser("sample", help="generate one instance: <id>.png, <id>.json, <id>.trace.json")
    c.add_argument("task")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--level", type=int, default=0, choices=range(10), metavar="0..9")
    c.add_argument("--query", help="fix the query, e.g. extreme=lowest")
    c.add_argument("--out", required=True)
    c.add_argument("--variety", choices=("none", "mild", "strong"), default="none",
                   help="render-only visual variety: themes, raster edits, canvas size (answers never change)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_sample)

    c = sub.add_parser("levels", help="print a task's or grammar's difficulty schedule: each `levels:` parameter "
                                      "at levels 0-9")
    c.add_argument("id", metavar="TASK_OR_GRAMMAR")
    c.add_argument("--json", action="store_true", help="the table as JSON: name → [value at level 0..9]")
    c.set_defaults(fn=cmd_levels)

    c = sub.add_parser("dev", help="the author's loop: draw one task at levels 0/5/9 (plain and varied) onto a "
                                   "contact sheet, again on every save; errors as path:line:col")
    c.add_argument("task")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--out", default="out/dev", help="folder for sheet.png and the instances (default out/dev)")
    c.add_argument("--variety", choices=("none", "mild", "strong"), default="strong",
                   help="the sheet's second row (default strong; none draws the plain row only)")
    c.add_argument("--interval", type=float, default=0.5, help="seconds between looks at the files")
    c.add_argument("--once", action="store_true", help="one round, then exit (0, or 2 if the task does not compile)")
    c.set_defaults(fn=cmd_dev)

    c = sub.add_parser("styles", help="one instance under several styles: a PNG contact sheet (witness boxes drawn)")
    c.add_argument("task")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--level", type=int, default=0, choices=range(10), metavar="0..9")
    c.add_argument("--styles", type=int, default=10, help="pictures on the sheet, the plain one first (1..64)")
    c.add_argument("--variety", choices=("mild", "strong"), default="strong")
    c.add_argument("--columns", type=int, default=5)
    c.add_argument("--out", required=True, help="the sheet's PNG path")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_styles)

    c = sub.add_parser("replay", help="rebuild instances (trace files, folders, or a dataset) byte for byte")
    c.add_argument("traces", nargs="+", help="trace files, folders holding *.trace.json, or one dataset folder")
    c.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for a dataset replay")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_replay)

    c = sub.add_parser("build", help="build a dataset: task-uniform, gated, parallel, resumable Parquet shards")
    c.add_argument("config", help="build config YAML (see taxonomy/builds/)")
    c.add_argument("--out", required=True)
    c.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    c.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run on Ray (a local instance, or the cluster at ADDRESS)")
    c.add_argument("--discard-stale", action="store_true",
                   help="resume an unfinished build whose task specs, config, code or task list changed since: "
                        "delete the finished shards made from the old inputs and build them again (without it, "
                        "the build refuses and names what changed); a finished dataset is never deleted")
    c.set_defaults(fn=cmd_build)

    c = sub.add_parser("validate", help="check a dataset: manifest, hashes, schema, counts, gates, split overlap")
    c.add_argument("dataset")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_validate)

    c = sub.add_parser("audit", help="audit a dataset for shortcuts: answer balance, text-only and options-only "
                                     "baselines, image and level diversity; HTML + JSON report")
    c.add_argument("dataset")
    c.add_argument("--out", required=True, help="folder for index.html, audit.json and the hash cache")
    c.add_argument("--threshold", action="append", metavar="NAME=VALUE",
                   help="override a threshold (options_only_margin, options_learned_margin, yes_share_min, yes_share_max, "
                        "top_share_floor, "
                        "top_share_per_k, level_growth, min_rows); repeatable")
    c.add_argument("--near-duplicate-bits", type=int, metavar="N",
                   help="dHash distance that counts as a near-duplicate (default: the build's own, from its manifest)")
    c.set_defaults(fn=cmd_audit)

    c = sub.add_parser("score", help="score a response against a verifier label")
    c.add_argument("label", help="label JSON (or an instance .json holding one)")
    c.add_argument("response", help="response text file, or - for standard input")
    c.set_defaults(fn=cmd_score)

    c = sub.add_parser("demo", help="compile the taxonomy, build a small dataset, validate and replay it, "
                                    "write its gallery")
    c.add_argument("--out", default="out/demo")
    c.add_argument("--per-task", type=int, help="training instances per task (default: taxonomy/builds/demo.yaml)")
    c.add_argument("--domain", action="append", metavar="DOMAIN",
                   help="only this domain's tasks (repeat for several; default: every task)")
    c.set_defaults(fn=cmd_demo)

    from tessera.training.commands import add_training_commands  # export, train: implemented in training/

    add_training_commands(sub)
    return p


_OS_HINTS = {
    "ENOSPC": "the disk is full: free some space, or choose an --out folder on another disk",
    "EDQUOT": "the disk quota is used up: free some space, or choose an --out folder elsewhere",
    "EROFS": "the file system is read-only: choose an --out folder on a writable disk",
    "EACCES": "permission denied: check the folder's owner and mode, or choose another folder",
    "EPERM": "operation not permitted: check the folder's owner and mode, or choose another folder",
    "ENOENT": "no such file or folder: check the path",
    "ENOTDIR": "a part of the path is a file, not a folder: check the path",
    "EISDIR": "the path is a folder where a file was expected: check the path",
    "EMFILE": "too many open files: raise the limit (ulimit -n) or use fewer --workers",
    "EIO": "the disk reported an I/O error: check the disk",
}


def os_error_message(exc: OSError, command: str | None = None) -> str:
    """`error: <path>: <what> (<errno name>)` and a hint on the next line, for every OSError the CLI meets."""
    import errno

    name = errno.errorcode.get(exc.errno) if isinstance(exc.errno, int) else None
    what = exc.strerror or str(exc) or type(exc).__name__
    where = f"{exc.filename}: " if exc.filename is not None else ""
    if exc.filename2 is not None:
        where = f"{exc.filename} → {exc.filename2}: "
    lines = [f"error: {where}{what}" + (f" ({name})" if name else "")]
    hint = _OS_HINTS.get(name or "")
    if command == "build":
        resume = "finished shards are kept and the dataset is not marked finished; rerun the same command to resume"
        hint = f"{hint}; {resume}" if hint else resume
    if hint:
        lines.append(f"hint: {hint}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    saved = os.environ.get("TESSERA_NO_CACHE")
    if args.no_cache:  # in the environment, so that build and replay workers see it too
        os.environ["TESSERA_NO_CACHE"] = "1"
    if getattr(args, "path", None):
        args.root = args.path
    try:
        return _run(args)
    finally:
        if args.no_cache:
            if saved is None:
                os.environ.pop("TESSERA_NO_CACHE", None)
            else:
                os.environ["TESSERA_NO_CACHE"] = saved


def _run(args) -> int:
    try:
        return args.fn(args)
    except CompileFailed as exc:
        diags = exc.diagnostics.sorted()
        for d in diags:
            print(d, file=sys.stderr)
        n = len([d for d in diags if d.severity == "error"])
        print(f"{n} error{'s' if n != 1 else ''}; nothing was compiled", file=sys.stderr)
        return EXIT_USAGE
    except TesseraError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except OSError as exc:
        print(os_error_message(exc, args.command), file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt as exc:  # a build's says what it kept and how to resume
        print(f"interrupted: {exc}" if str(exc) else "interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
