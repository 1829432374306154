"""The files `tessera sample` writes for one instance, `<id>.png` (or `.jpg`), `<id>.json` and `<id>.trace.json`,
which `tessera replay` reads back (validate/replay.py `replay_files`)."""
from __future__ import annotations

import json
from pathlib import Path

from ..trace.record import canonical_json
from .layout import RECORD_SUFFIX, TRACE_SUFFIX


def write_instance(inst, out: Path) -> list[Path]:
    from ..render.png import image_suffix  # numpy and deflate: not at the CLI's start-up

    out.mkdir(parents=True, exist_ok=True)
    base = out / inst.instance_id  # the picture is <id>.png, or <id>.jpg under variety strong
    files = [base.with_suffix(image_suffix(inst.png)), base.with_suffix(RECORD_SUFFIX),
             out / f"{inst.instance_id}{TRACE_SUFFIX}"]
    files[0].write_bytes(inst.png)
    files[1].write_text(json.dumps(inst.record(), indent=2, ensure_ascii=False) + "\n")
    files[2].write_text(canonical_json(inst.trace) + "\n")
    return files
