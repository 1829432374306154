"""Build throughput: instances/s per core for a full build of the bundled library with 1 and 2 workers, next to the
time spent encoding the same PNGs alone (the floor), and peak memory. Prints a table; asserts nothing.

    python bench/bench_build.py [CONFIG]      (default: taxonomy/builds/trace_recipe.yaml)
"""
from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyarrow.parquet as pq  # noqa: E402

from tessera.render.png import decode_png_rgb, encode_png  # noqa: E402


def run_build(config: Path, out: Path, workers: int) -> tuple[float, float]:
    cmd = [sys.executable, "-m", "tessera.cli", "--root", str(ROOT), "build", str(config), "--out", str(out),
           "--workers", str(workers)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak_mb


def main() -> None:
    config = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "taxonomy" / "builds" / "trace_recipe.yaml"
    tmp = Path(tempfile.mkdtemp())
    rows_out = []
    try:
        for workers in (1, 2):
            out = tmp / f"w{workers}"
            seconds, peak = run_build(config, out, workers)
            manifest = json.loads((out / "manifest.json").read_text())
            n = sum(s["rows"] for s in manifest["splits"].values())
            rows_out.append((workers, n, seconds, peak))
        same = all((tmp / "w1" / p.relative_to(tmp / "w2")).read_bytes() == p.read_bytes()
                   for p in (tmp / "w2").rglob("*") if p.is_file())
        pngs = [r["image"]["bytes"] for f in sorted((tmp / "w1" / "data").glob("*.parquet"))
                for r in pq.read_table(f, columns=["image"]).to_pylist()]
        pixels = [decode_png_rgb(p) for p in pngs]
        t0 = time.perf_counter()
        for px in pixels:
            encode_png(px)
        png_s = (time.perf_counter() - t0) / len(pixels)
        shard_mb = sum(p.stat().st_size for p in (tmp / "w1" / "data").glob("*.parquet")) / 2**20
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"config: {config.name}")
    print(f"{'workers':>7} {'rows':>6} {'seconds':>8} {'inst/s':>8} {'inst/s/core':>12} {'peak RSS MB':>12}")
    for workers, n, seconds, peak in rows_out:
        print(f"{workers:>7} {n:>6} {seconds:>8.1f} {n / seconds:>8.1f} {n / seconds / workers:>12.1f} {peak:>12.0f}")
    print(f"PNG encoding alone (the floor): {png_s * 1000:.2f} ms/image = {1 / png_s:.0f} images/s on one core")
    print(f"shards: {shard_mb:.1f} MiB for {rows_out[0][1]} rows ({shard_mb * 1024 / rows_out[0][1]:.1f} KiB/row)")
    print(f"1-worker and 2-worker outputs byte-identical: {same}")
    print("(seconds include interpreter start, taxonomy compile, validation of gates and the manifest)")


if __name__ == "__main__":
    main()
