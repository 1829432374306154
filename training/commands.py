"""The `tessera export` and `tessera train` subcommands (registered by compiler/cli.py)."""
from __future__ import annotations

import json
from pathlib import Path

from tessera.errors import TesseraError

EXIT_OK = 0


def _console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def _levels(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise TesseraError(f"--eval-levels takes levels separated by commas, e.g. 0,3,6,9; got '{text}'") from None


def cmd_export(args) -> int:
    from .export import TRAINER_FORMATS, export_offline, export_online, export_trainer

    if args.format in TRAINER_FORMATS:
        if not args.dataset:
            raise TesseraError(f"--format {args.format} exports a built dataset: tessera export DATASET --format "
                               f"{args.format} --out DIR")
        info = export_trainer(Path(args.dataset), Path(args.out), args.format, rows_per_task=args.rows_per_task,
                              splits=args.split, force=args.force)
    elif args.format == "openrlhf":
        if not args.dataset:
            raise TesseraError("--format openrlhf exports a built dataset: tessera export DATASET --format openrlhf "
                               "--out DIR")
        info = export_offline(Path(args.dataset), Path(args.out), images=args.images,
                              rows_per_task=args.rows_per_task, splits=args.split, force=args.force)
    else:
        if args.dataset:
            raise TesseraError("--format openrlhf-online writes (task, seed, level) rows from the taxonomy; "
                               "it takes no DATASET")
        from tessera.cli import _compile

        info = export_online(_compile(args.root), Path(args.out), rows_per_task=args.rows_per_task or 1024,
                             eval_rows_per_task=args.eval_rows_per_task, seed=args.seed, tasks=args.task,
                             domains=args.domain, eval_levels=_levels(args.eval_levels), force=args.force)
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_OK
    con = _console()
    for split, s in info["splits"].items():
        dropped = f", {s['dropped']} rows dropped to equalise tasks" if s.get("dropped") else ""
        con.print(f"{split}: {s['rows']} rows = {s['tasks']} tasks × {s['rows_per_task']}{dropped}", markup=False)
    if "openrlhf_flags" in info:
        con.print(f"wrote {args.out} ({info['kind']}); OpenRLHF flags:", markup=False)
        con.print("  " + " ".join(info["openrlhf_flags"]), markup=False)
    else:
        con.print(f"wrote {args.out} ({info['kind']}); use it with:", markup=False)
        # Paths and Hydra lists such as data.train_files=[/abs/x.parquet]: text, never rich markup (0.8.0 read the
        # brackets as a closing tag and stopped with a MarkupError after writing the export)
        for line in info["usage"].get("overrides", []) or info["usage"].values():
            con.print("  " + line, markup=False)
    return EXIT_OK


def cmd_train(args) -> int:
    from .launch import build_launch, run_launch, validate_with_openrlhf

    launch = build_launch(Path(args.config), mode=args.mode)
    _, warnings = validate_with_openrlhf(launch.argv)
    if args.dry_run:
        print(launch.shell())
        for w in warnings:
            print(f"# openrlhf: {w}")
        for n in launch.notes:
            print(f"# note: {n}")
        print("# accepted by OpenRLHF's argument parser")
        return EXIT_OK
    missing = [n for n in launch.notes if "no export yet" in n]
    if missing:
        raise TesseraError(missing[0].replace(" — ", ": "))
    return run_launch(launch)


def add_training_commands(sub) -> None:
    c = sub.add_parser("export", help="write a prompt set for OpenRLHF (offline instances or online rows), verl or TRL")
    c.add_argument("dataset", nargs="?", help="a `tessera build` dataset folder (offline format)")
    c.add_argument("--format", required=True, choices=("openrlhf", "openrlhf-online", "verl", "trl"))
    c.add_argument("--out", required=True)
    c.add_argument("--images", default="path", choices=("path", "bytes"),
                   help="offline: images as absolute PNG paths under OUT/images (default) or as bytes in the rows")
    c.add_argument("--rows-per-task", type=int, help="rows per task and split (default: offline, the smallest task's "
                                                     "count; online, 1024)")
    c.add_argument("--split", action="append", help="offline: export only this split (repeatable)")
    c.add_argument("--eval-rows-per-task", type=int, default=0, help="online: validation rows per task")
    c.add_argument("--eval-levels", help="online: levels of the validation rows, e.g. 0,3,6,9 (default 0..9)")
    c.add_argument("--seed", type=int, default=0, help="online: first seed of each task's rows")
    c.add_argument("--task", action="append", help="online: only this task (repeatable)")
    c.add_argument("--domain", action="append", help="online: only this domain (repeatable)")
    c.add_argument("--force", action="store_true", help="replace an earlier export at --out")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_export)

    c = sub.add_parser("train", help="launch OpenRLHF GRPO from a training config (training/configs/)")
    c.add_argument("config")
    c.add_argument("--mode", choices=("offline", "online"), help="override the config's mode")
    c.add_argument("--dry-run", action="store_true",
                   help="print the command (checked by OpenRLHF's own argument parser) and do not run it")
    c.set_defaults(fn=cmd_train)
