"""The Hugging Face dataset card every build writes: DIR/README.md, YAML metadata (configs, features, splits, licence,
task categories) then a body (what the rows are, per-task counts, the build config, loading, the verifier contract,
provenance). A pure function of the manifest and the taxonomy: the same build gives the same bytes.

Decision on typed features: the Parquet schema stays as it is (query, answer, label and witness are canonical JSON
strings). The answer's type varies by task (integer, string, list, set, ...), so one typed Arrow column cannot hold
every task's answer without a union or per-task configs, and changing the schema would change every shard's bytes.
The card instead declares each column's feature exactly as the shards carry it and says what each JSON column holds.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import yaml

from ..errors import TesseraError
from ..spec.assets import asset_sets
from ..spec.geo import manifest as geo_manifest
from .layout import DATA_DIR, MANIFEST as MANIFEST_NAME, SHARD_SUFFIX
from .rows import _HF_FEATURES, SCHEMA, write_file_atomic

# The vendored font pool's table (render/fonts/fonts.yaml, written by its vendor script): read as data, so the card
# credits every family without importing the renderer.
FONTS_TABLE = Path(__file__).resolve().parent.parent / "render" / "fonts" / "fonts.yaml"


def font_families() -> list[dict]:
    """The vendored font families, in the table's order: family, classes, licence, package, files."""
    with open(FONTS_TABLE, encoding="utf-8") as f:
        return list(yaml.safe_load(f)["families"])

CARD = "README.md"
MAX_CARD_BYTES = 4 * 1024 * 1024  # validate reads no larger card; a build's card is a few KiB per hundred tasks
# The generated rows carry no third-party content (images are rendered from the grammars); CC BY 4.0 is the usual
# licence for such synthetic data on the Hub.
DATA_LICENSE = "cc-by-4.0"
TASK_CATEGORIES = ["visual-question-answering", "image-text-to-text"]
TAGS = ["synthetic", "visual-reasoning", "rlvr", "verifiable-rewards", "tessera"]

# What each column holds, for the card's column table (the JSON columns are decoded with json.loads).
COLUMN_MEANINGS = {
    "instance_id": "stable id of the instance (hash of its task, scene, prompt and image)",
    "split": "the split this row belongs to",
    "task": "task id (domain.grammar.task)",
    "domain": "domain of the task's scene grammar",
    "grammar": "scene grammar id",
    "bucket": "difficulty bucket of the task",
    "answer_type": "the reward contract's answer type: integer, number, string, option, boolean, list or set",
    "contract": "id of the reward contract that scores a response",
    "operations": "reasoning operation families the task exercises",
    "query": "JSON object: the task's query variables for this instance",
    "level": "difficulty level, 0-9",
    "seed": "the scene sampler's seed",
    "prompt": "the question shown to the model, with its answer-format instruction",
    "answer": "JSON: the exact answer, typed by answer_type (number, string, list, ...)",
    "label": "JSON object: the verifier label (type, answer, key, contract, tolerance, normalize, items); "
             "pass it to the reward function with the response",
    "witness": "JSON: the evidence for the answer in the image (the regions a correct reading looks at)",
    "image": "the rendered scene: a PNG, or a JPEG for pictures built with variety strong",
    "phash": "256-bit dHash of the image (32 bytes), used to keep splits apart",
    "trace": "JSON object: the full generation trace; `tessera replay` rebuilds the row from it byte for byte",
}


def card_features() -> list[dict]:
    """dataset_info.features in the card's YAML form, column by column in the shards' order, from the same feature
    table the shards carry in their metadata (rows._HF_FEATURES), so the two cannot drift apart."""
    out = []
    for name in SCHEMA.names:
        f = _HF_FEATURES[name]
        if f["_type"] == "Image":
            out.append({"name": name, "dtype": "image"})
        elif f["_type"] == "Sequence":
            out.append({"name": name, "sequence": f["feature"]["dtype"]})
        else:
            out.append({"name": name, "dtype": f["dtype"]})
    return out


def split_pattern(split: str) -> str:
    # Split names are identifiers (no '-'), so this matches exactly the split's shards and no other split's.
    return f"{DATA_DIR}/{split}-*{SHARD_SUFFIX}"


def metadata(manifest: dict) -> dict:
    splits = manifest["splits"]
    return {
        "pretty_name": f"Tessera {manifest['build']}",
        "license": DATA_LICENSE,
        "task_categories": list(TASK_CATEGORIES),
        "language": ["en"],
        "tags": list(TAGS),
        "size_categories": [_size_category(sum(s["rows"] for s in splits.values()))],
        "configs": [{"config_name": "default",
                     "data_files": [{"split": s, "path": split_pattern(s)} for s in splits]}],
        "dataset_info": {
            "features": card_features(),
            # num_bytes is left out: on the Hub it means the decoded Arrow size, which the build does not measure.
            "splits": [{"name": s, "num_examples": info["rows"]} for s, info in splits.items()],
            "download_size": sum(f["bytes"] for info in splits.values() for f in info["files"]),
        },
    }


def _size_category(rows: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):
        if rows < limit:
            return name
    return "10M<n<100M"


def _cell(text) -> str:
    """A Markdown table cell: author text may hold '|' or newlines."""
    return re.sub(r"\s+", " ", str(text)).replace("|", "\\|").strip()


def _yaml(value) -> str:
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)


VARIETY_MEANINGS = {
    "none": "none: the plain look (one typeface, near-white backgrounds, no raster edits), as for a clean "
            "evaluation set",
    "mild": "mild: themes, fonts, textures, light raster edits (noise, blur, compression, slight warps) and canvas "
            "size variety where a grammar declares a range",
    "strong": "strong: the widest themes, fonts and textures, stronger raster edits (up to a photo-of-paper look) "
              "and the full canvas size and aspect ranges the grammars declare",
}


def _variety_line(variety: str) -> str:
    return (f"Visual variety: **{VARIETY_MEANINGS.get(variety, variety)}**. Variety draws only from the render "
            f"stream: it never changes a state, an answer or a label, and witness geometry is in final-image pixels.")


def render_card(manifest: dict, taxonomy) -> str:
    """The card's text. `manifest` is the build's manifest (without its card entry); the taxonomy gives each task's
    domain, answer type and contract."""
    splits = list(manifest["splits"])
    tasks = sorted({t for s in manifest["splits"].values() for t in s["per_task"]})
    build = manifest["build"]
    total = sum(s["rows"] for s in manifest["splits"].values())
    lines = ["---", _yaml(metadata(manifest)).rstrip("\n"), "---", "",
             f"# Tessera {build}", ""]
    if manifest.get("summary"):
        lines += [manifest["summary"].strip(), ""]
    lines += [
        f"A synthetic visual-reasoning dataset with verifiable answers, compiled by Tessera from the task taxonomy "
        f"`{manifest['taxonomy']['name']}` (version {manifest['taxonomy']['version']}): {total} rows of "
        f"{len(tasks)} task(s) in {len(splits)} split(s) ({', '.join(splits)}). Each row is one rendered scene "
        f"(`image`), a question (`prompt`), the exact answer (`answer`), the verifier label that scores a response "
        f"(`label`), the evidence region (`witness`) and the full generation trace (`trace`), from which "
        f"`tessera replay` rebuilds the row byte for byte. Tasks are balanced: every task has the same number of "
        f"rows per split, and no image of a later split is within "
        f"{manifest['split_overlap']['near_duplicate_bits']} bits (256-bit dHash) of an image of the same task "
        f"in an earlier split.", "",
        _variety_line(manifest.get("variety", "none")), "",
        "## Tasks", "",
        "| task | domain | answer type | contract | " + " | ".join(f"{s} rows" for s in splits) + " |",
        "|---|---|---|---|" + "---:|" * len(splits),
    ]
    for tid in tasks:
        t = taxonomy.tasks.get(tid)
        domain, answer_type, contract = (t.domain, t.answer_type, t.contract.id) if t else ("?", "?", "?")
        counts = [str(manifest["splits"][s]["per_task"].get(tid, 0)) for s in splits]
        lines.append(f"| `{_cell(tid)}` | {_cell(domain)} | {_cell(answer_type)} | `{_cell(contract)}` | "
                     + " | ".join(counts) + " |")
    lines += ["", "## Columns", "",
              "The Parquet shards carry these features (also in their own metadata, so `image` decodes as a PIL "
              "image). `query`, `answer`, `label`, `witness` and `trace` are canonical JSON strings: the answer's "
              "type differs from task to task (see `answer_type`), so they are decoded with `json.loads` rather "
              "than forced into one typed column.", "",
              "| column | feature | holds |", "|---|---|---|"]
    for f in card_features():
        kind = f"list of {f['sequence']}" if "sequence" in f else f["dtype"]
        lines.append(f"| `{f['name']}` | {kind} | {_cell(COLUMN_MEANINGS.get(f['name'], ''))} |")
    lines += ["", "## Loading", "", "```python", "import json", "import datasets", "",
              "ds = datasets.load_dataset(\"path/to/this/folder\")  # splits and features from this card",
              f"row = ds[\"{splits[0]}\"][0]",
              "row[\"image\"]                      # PIL image",
              "answer = json.loads(row[\"answer\"])  # typed by row[\"answer_type\"]",
              "label = json.loads(row[\"label\"])    # what the reward function scores against",
              "```", "",
              "One split alone: `datasets.Dataset.from_parquet(\"data/" + splits[0] + "-*.parquet\")`. "
              "`tessera validate DIR` checks the shards, hashes, rows and this card against `manifest.json`; "
              "`tessera replay DIR` rebuilds every row from its trace."
              + (" `jsonl/` and `images/` hold the same rows as JSON lines with the picture files (PNG, or JPEG under variety strong) beside them (the card's "
                 "configs name only the Parquet shards)." if manifest["config"].get("jsonl") else ""), "",
              "## Verifier and reward contract", "",
              "A response is scored against the row's `label` by the contract it names (`tessera score LABEL "
              "RESPONSE`, or `training/reward_func.py` in training): the final answer is parsed from the response "
              "in the format the prompt asks for, normalized as the contract says (case, synonyms, units, clock "
              "times), and compared with the label's answer within the contract's tolerance. The reward is 1 for a "
              "correct answer and 0 otherwise; the training reward may add a small bonus for a well-formed answer (see "
              "Tessera's README, Train).", "",
              "| contract | answer type | summary |", "|---|---|---|"]
    contracts = {}
    for tid in tasks:
        t = taxonomy.tasks.get(tid)
        if t is not None:
            contracts[t.contract.id] = t.contract
    for cid in sorted(contracts):
        c = contracts[cid]
        kind = f"{c.type} of {c.items}" if c.items else c.type
        lines.append(f"| `{_cell(cid)}` | {_cell(kind)} | {_cell(getattr(c.spec, 'summary', ''))} |")
    lines += ["", "## Credits", "",
              "The pictures may draw icons and objects from these vendored sets (each set's licence file is "
              "`tessera/assets/SET/LICENSE.txt` in the package):", "",
              "| set | licence | attribution |", "|---|---|---|"]
    for aset in asset_sets():
        lines.append(f"| `{_cell(aset.set)}` | [{_cell(aset.licence)}]({aset.licence_url}) | "
                     f"{_cell(aset.attribution)} |")
    lines += ["", "Maps are drawn from these vendored sets (licence files in `tessera/assets/geo/`):", "",
              "| set | source | licence | attribution |", "|---|---|---|---|"]
    for m in geo_manifest():
        lines.append(f"| `{_cell(m['set'])}` | {_cell(m['source'])} | {_cell(m['licence'])} | "
                     f"{_cell(m['attribution'])} |")
    lines += ["", "Text is set in these vendored font families (licence files beside them in "
              "`tessera/render/fonts/`):", "", "| family | licence | Debian package |", "|---|---|---|"]
    for fam in font_families():
        lines.append(f"| {_cell(fam['family'])} | {_cell(fam['licence'])} | {_cell(fam.get('package', ''))} |")
    lines += ["", "## Build config", "",
              f"Config `{build}`, seed {manifest['seed']}, as it was read (its sha256 is `config_sha256` below):", "",
              "```yaml", _yaml(manifest["config"]).rstrip("\n"), "```", "",
              "## Provenance", "",
              "Every shard's sha256, size and row count is in `manifest.json`; each shard also records what its rows "
              "were built from in its Parquet metadata.", "",
              f"- config_sha256: `{manifest['config_sha256']}`",
              f"- code_sha256: `{manifest['code_sha256']}`"]
    for name, version in sorted((manifest.get("versions") or {}).items()):
        lines.append(f"- {_cell(name)} version: `{_cell(version)}`")
    lines += ["", "| task | spec sha256 |", "|---|---|"]
    for tid, h in sorted((manifest["taxonomy"].get("tasks") or {}).items()):
        lines.append(f"| `{_cell(tid)}` | `{_cell(h)}` |")
    return "\n".join(lines) + "\n"


def write_card(out: Path, manifest: dict, taxonomy) -> dict:
    """Write DIR/README.md atomically (temporary name, fsync, rename) and return the manifest's entry for it."""
    path = Path(out) / CARD
    text = render_card(manifest, taxonomy).encode()
    if len(text) > MAX_CARD_BYTES:  # validate would refuse it: say so now, not after the user ships the dataset
        raise TesseraError(f"{path.parent}: the dataset card would be {len(text)} bytes, over the {MAX_CARD_BYTES} "
                           f"that `tessera validate` reads; select fewer tasks per build")
    write_file_atomic(path, text, durable=True)
    return {"name": CARD, "sha256": hashlib.sha256(text).hexdigest(), "bytes": len(text)}


# -- validate's side ------------------------------------------------------------------------------------------------
def check_card(dataset: Path, manifest: dict) -> tuple[list[str], list[str]]:
    """(problems, warnings) about DIR/README.md: present, as the manifest hashes it, and its metadata naming the
    manifest's splits, shards, row counts and the shards' features. Nothing in the card is trusted."""
    from .untrusted import SHA256, UntrustedInput, dataset_own, is_int, open_regular, shown

    entry = manifest.get("card")
    if entry is None:
        return [], [f"{CARD}: the manifest lists no dataset card (a build from before cards); rebuild to get one"]
    if not isinstance(entry, dict) or entry.get("name") != CARD or not isinstance(entry.get("sha256"), str) \
            or not SHA256.fullmatch(entry["sha256"]) or not is_int(entry.get("bytes")):
        return [f"{MANIFEST_NAME}: card: expected {{name: {CARD}, sha256, bytes}}, got {shown(entry)}"], []
    path = Path(dataset) / CARD
    if not os.path.lexists(path):
        return [f"{CARD}: listed in the manifest but missing"], []
    try:
        dataset_own(path, "dataset card", 1)
        with open_regular(path, MAX_CARD_BYTES, "dataset card") as f:
            data = f.read(MAX_CARD_BYTES + 1)
    except UntrustedInput as exc:
        return [str(exc).replace(str(path), CARD, 1)], []
    if hashlib.sha256(data).hexdigest() != entry["sha256"] or len(data) != entry["bytes"]:
        return [f"{CARD}: sha256 differs from the manifest (the card was changed)"], []
    # The hash matched, but manifest and card could both have been edited: the metadata must still describe the
    # shards the manifest lists, or `datasets` would load other files or other row counts than validate checked.
    problems = []
    try:
        meta = parse_front_matter(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        return [f"{CARD}: its metadata cannot be read ({_first_line(exc)})"], []
    splits = manifest["splits"]
    # The card lists splits in the config's order; manifest.json is written with sorted keys: order is not compared.
    want_files = {s: split_pattern(s) for s in splits}
    configs = meta.get("configs")
    files = configs[0].get("data_files") if isinstance(configs, list) and len(configs) == 1 and \
        isinstance(configs[0], dict) else None
    if _pairs(files, "split", "path") != want_files:
        problems.append(f"{CARD}: configs.data_files do not name the manifest's splits "
                        f"({', '.join(f'{s}: {p}' for s, p in sorted(want_files.items()))})")
    info = given if isinstance(given := meta.get("dataset_info"), dict) else {}
    got_rows = _pairs(info.get("splits"), "name", "num_examples")
    want_rows = {s: v["rows"] for s, v in splits.items()}
    if got_rows != want_rows:
        got = shown(got_rows) if got_rows is not None and all(is_int(v) for v in got_rows.values()) else \
            "(not a list of split names and counts)"
        problems.append(f"{CARD}: dataset_info.splits num_examples {got} differ from the manifest's "
                        f"rows {shown(want_rows)}")
    if info.get("features") != card_features():
        problems.append(f"{CARD}: dataset_info.features differ from the Tessera dataset schema")
    return problems, []


def _pairs(items, key: str, value: str) -> dict | None:
    """{item[key]: item[value]} of a list of mappings with distinct string keys, else None (the card is untrusted:
    any other shape is a mismatch, never a TypeError)."""
    if not isinstance(items, list) or not all(isinstance(i, dict) and isinstance(i.get(key), str) for i in items):
        return None
    out = {i[key]: i.get(value) for i in items}
    return out if len(out) == len(items) else None


MAX_FRONT_MATTER_DEPTH = 20  # the card's own metadata nests 4 deep


def parse_front_matter(text: str) -> dict:
    """The YAML between the first two '---' lines, as the Hub reads a card. Read as untrusted: no aliases (a few
    lines of them expand to gigabytes when walked) and bounded nesting (PyYAML builds nodes recursively)."""
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if m is None:
        raise ValueError("no YAML front matter between '---' lines at the top")
    depth = 0
    for event in yaml.parse(m.group(1), Loader=yaml.SafeLoader):  # the event parser does not recurse
        if isinstance(event, yaml.AliasEvent):
            raise ValueError("the front matter uses a YAML alias (*name); a card's metadata needs none")
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_FRONT_MATTER_DEPTH:
                raise ValueError(f"the front matter nests deeper than {MAX_FRONT_MATTER_DEPTH} levels")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
    meta = yaml.safe_load(m.group(1))
    if not isinstance(meta, dict):
        raise ValueError("the front matter is not a YAML mapping")
    return meta


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
