"""`tessera dev TASK`: the author's loop. Compile one task, draw it at levels 0, 5 and 9 (plain, then with
visual variety) onto one contact sheet, and do it again whenever a file of the library changes.

Each round opens the library afresh (headers from the compile cache, so only the task, its grammar, contract and
components are compiled), so an edit to any of them shows on the next save. Mistakes print as `path:line:col:
error: ...`, the sheet stays as it was, and the loop waits for the next save. Nothing here runs author code: it is
`tessera sample` three times and a picture.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import CompileFailed, TesseraError

LEVELS = (0, 5, 9)


@dataclass
class Round:
    ok: bool
    seconds: float
    lines: list[str]  # what the round prints
    sheet: Path | None = None


def one_round(root: Path, task_id: str, seed: int, out: Path, variety: str | None) -> Round:
    """Compile `task_id` and write `out/sheet.png` (levels 0/5/9 plain, then with `variety`), each instance's
    picture (.png; .jpg under variety strong), .json and .trace.json beside it; or report why not."""
    from .dataset.instance_files import write_instance
    from .gallery import contact_sheet
    from .taxonomy import open_taxonomy
    from .trace.loop import generate

    t0 = time.perf_counter()
    try:
        tax = open_taxonomy(root)
        task = tax.task(task_id)
        rows = [("none", [generate(task, seed, lv, None, tax.vocab) for lv in LEVELS])]
        if variety:
            rows.append((variety, [generate(task, seed, lv, None, tax.vocab, variety=variety) for lv in LEVELS]))
    except CompileFailed as exc:
        diags = exc.diagnostics.sorted()
        n = len([d for d in diags if d.severity == "error"])
        return Round(False, time.perf_counter() - t0,
                     [str(d) for d in diags] + [f"{n} error{'s' if n != 1 else ''} in {task_id}'s files; "
                                                f"waiting for the next save"])
    except TesseraError as exc:  # an unknown id, an unsatisfiable grammar, an evaluation error
        return Round(False, time.perf_counter() - t0, [f"error: {exc}", "waiting for the next save"])
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    instances = []
    for variety_name, insts in rows:
        for lv, inst in zip(LEVELS, insts):
            write_instance(inst, out / f"{variety_name}-level{lv}")
            instances.append(inst)
            if variety_name == "none":
                prompt = " ".join(inst.prompt.split())
                lines.append(f"level {lv}: {prompt[:160]}{'…' if len(prompt) > 160 else ''}")
                lines.append(f"         answer {json.dumps(inst.answer)}  witness {inst.witness['kind']}")
    sheet = out / "sheet.png"
    tmp = sheet.with_suffix(".png.tmp")
    tmp.write_bytes(contact_sheet(instances, columns=len(LEVELS)))
    tmp.replace(sheet)  # a viewer that reloads on change never reads half a file
    seconds = time.perf_counter() - t0
    lines.append(f"wrote {sheet} (levels {', '.join(map(str, LEVELS))}: plain" +
                 (f", then {variety}" if variety else "") + f") in {seconds * 1000:.0f} ms")
    return Round(True, seconds, lines, sheet)


def watch(root: Path, task_id: str, seed: int, out: Path, variety: str | None, interval: float, once: bool,
          stream=None) -> int:
    """Run rounds, one now and one after every change to the library's YAML files (polled every `interval`
    seconds: no watcher thread, no extra dependency). `once` runs a single round: exit status 0, or 2 when the
    task does not compile."""
    from .taxonomy import library_hash

    stream = stream or sys.stdout
    last = None
    try:
        while True:
            now = library_hash(root)
            if now != last:
                last = now
                r = one_round(root, task_id, seed, out, variety)
                stamp = time.strftime("%H:%M:%S")
                print(f"[{stamp}] {task_id} seed {seed}: {'ok' if r.ok else 'failed'}", file=stream)
                for line in r.lines:
                    print(f"  {line}" if r.ok else line, file=stream)
                stream.flush()
                if once:
                    return 0 if r.ok else 2
            time.sleep(interval)
    except KeyboardInterrupt:
        return 0
