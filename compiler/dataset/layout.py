"""Where a dataset's files are and what they are called: the one place that spells the manifest's name, the build's
state folder, the dataset format and the shard names. The builder (export.build) writes them, and validate, replay,
audit, the gallery and training/ find them here (tests/test_dataset_package.py checks no other module spells them).

    DIR/manifest.json                                written last: its presence marks a finished dataset
    DIR/README.md                                    the Hugging Face dataset card (dataset/card.py), just before
    DIR/data/<split>-<k:05d>-of-<n:05d>.parquet      shards, each renamed into place only when complete
    DIR/jsonl/<split>-<k>-of-<n>.jsonl + DIR/images/<split>/<id>.png or .jpg   (optional)
    DIR/.tessera-build/                              while a build runs: its config hash and per-shard statistics
"""
from __future__ import annotations

import re
from pathlib import Path

MANIFEST = "manifest.json"
STATE_DIR = ".tessera-build"
DATASET_FORMAT = "tessera.dataset/1"
DATA_DIR = "data"
JSONL_DIR = "jsonl"
IMAGES_DIR = "images"
SHARD_SUFFIX = ".parquet"
# A split is a Python identifier (export.config checks it), so \w+ and is_split_name cover every split a config
# allows. Before 0.11 the builder's resume check had its own `[a-z][a-z0-9_]*` copy and missed a split like `Train`.
SHARD_NAME = re.compile(r"(?P<split>\w+)-\d{5}-of-\d{5}\.parquet")


def is_split_name(value) -> bool:
    return isinstance(value, str) and value.isidentifier() and len(value) <= 64  # as export.config requires


def shard_name(split: str, index: int, count: int) -> str:
    return f"{split}-{index:05d}-of-{count:05d}{SHARD_SUFFIX}"


def shard_name_split(name: str) -> str | None:
    """The split of a shard file name the builder writes (`<split>-NNNNN-of-NNNNN.parquet`), else None."""
    m = SHARD_NAME.fullmatch(name)
    return m["split"] if m is not None and is_split_name(m["split"]) else None


def jsonl_name(shard: str) -> str:
    """The JSONL file beside a shard (`train-00000-of-00002.parquet` → `train-00000-of-00002.jsonl`)."""
    return shard[: -len(SHARD_SUFFIX)] + ".jsonl" if shard.endswith(SHARD_SUFFIX) else shard


def shard_files(dataset: Path) -> list[Path]:
    """The Parquet files under DIR/data/, sorted (what is on disk; the manifest says what should be)."""
    return sorted((Path(dataset) / DATA_DIR).glob("*" + SHARD_SUFFIX))


def is_dataset(p: Path) -> bool:
    """A built dataset (a manifest or Parquet shards), as opposed to a folder of `tessera sample` output."""
    p = Path(p)
    return p.is_dir() and ((p / MANIFEST).exists() or bool(shard_files(p)))


# -- the files `tessera sample` writes for one instance (replay reads them back) ----------------------------------
TRACE_SUFFIX = ".trace.json"
RECORD_SUFFIX = ".json"
