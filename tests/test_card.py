"""The dataset card (README.md) every build writes: read through `datasets`' and `huggingface_hub`'s own entry points,
the same bytes for the same build (also after an interruption), listed in the manifest, and checked by validate."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from tessera.cli import main
from tessera.export import build as build_module
from tessera.export.build import build
from tessera.errors import TesseraError
from tessera.dataset import card as card_module
from tessera.dataset.card import CARD, MAX_CARD_BYTES, _cell, card_features, parse_front_matter
from tessera.export.config import load_build_config
from tessera.validate.dataset import validate_dataset
from tests.conftest import ROOT

# A summary with Markdown and YAML specials: neither the front matter nor the tables may break on it.
SMALL = """
build: carded
summary: "Bars | shapes\\n---\\nkey: not metadata"
seed: 5
select: {tasks: ["charts.bar_chart.count_above_mean", "charts.bar_chart.sorted_labels", "icons.shape_grid.*"]}
per_task: {train: 3, validation: 1, test: 1}
levels: [0, 9]
shard_size: 4
"""


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("cfg") / "carded.yaml"
    path.write_text(textwrap.dedent(SMALL).lstrip())
    return path


@pytest.fixture(scope="module")
def dataset(config_path, tmp_path_factory, taxonomy):
    out = tmp_path_factory.mktemp("card") / "ds"
    build(load_build_config(config_path, taxonomy), taxonomy, out, workers=1)
    return out


def manifest_of(ds: Path) -> dict:
    return json.loads((ds / "manifest.json").read_text())


def front_matter(ds: Path) -> dict:
    return parse_front_matter((ds / CARD).read_text())


def copy_of(dataset: Path, tmp_path: Path) -> Path:
    ds = tmp_path / "ds"
    shutil.copytree(dataset, ds)
    return ds


def rewrite_card(ds: Path, edit) -> None:
    """Edit the card's metadata and record its new hash in the manifest: a consistent forgery of both files."""
    text = (ds / CARD).read_text()
    _, meta_text, body = text.split("---\n", 2)
    meta = yaml.safe_load(meta_text)
    edit(meta)
    new = f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{body}".encode()
    (ds / CARD).write_bytes(new)
    manifest = manifest_of(ds)
    manifest["card"] = {"name": CARD, "sha256": hashlib.sha256(new).hexdigest(), "bytes": len(new)}
    (ds / "manifest.json").write_text(json.dumps(manifest))


# -- what the card says ---------------------------------------------------------------------------------------------
def test_metadata_names_splits_shards_counts_and_licence(dataset):
    meta = front_matter(dataset)
    manifest = manifest_of(dataset)
    assert meta["configs"] == [{"config_name": "default", "data_files": [
        {"split": "train", "path": "data/train-*.parquet"}, {"split": "validation", "path": "data/validation-*.parquet"},
        {"split": "test", "path": "data/test-*.parquet"}]}]
    # each pattern matches exactly the shards the manifest lists for that split
    for split, info in manifest["splits"].items():
        assert sorted(f"data/{p.name}" for p in dataset.glob(f"data/{split}-*.parquet")) == \
            sorted(f["name"] for f in info["files"])
    assert meta["dataset_info"]["splits"] == [{"name": "train", "num_examples": 18},
                                              {"name": "validation", "num_examples": 6},
                                              {"name": "test", "num_examples": 6}]
    assert meta["dataset_info"]["download_size"] == sum(f["bytes"] for s in manifest["splits"].values()
                                                        for f in s["files"])
    assert meta["license"] == "cc-by-4.0" and meta["pretty_name"] == "Tessera carded"
    assert meta["task_categories"] == ["visual-question-answering", "image-text-to-text"]
    assert "synthetic" in meta["tags"] and meta["size_categories"] == ["n<1K"]


def test_body_has_counts_table_config_contracts_and_provenance(dataset, taxonomy):
    text = (dataset / CARD).read_text()
    manifest = manifest_of(dataset)
    assert "| task | domain | answer type | contract | train rows | validation rows | test rows |" in text
    assert "| `charts.bar_chart.sorted_labels` | charts | list | `label_sequence` | 3 | 1 | 1 |" in text
    assert "| `icons.shape_grid.common_shape_option` | icons | option | `option_letter` | 3 | 1 | 1 |" in text
    rows = [line for line in text.splitlines() if line.startswith("| `") and line.endswith(" | 3 | 1 | 1 |")]
    assert len(rows) == len(manifest["splits"]["train"]["per_task"]) == 6
    # the build config block reads back as the config the manifest hashes
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert yaml.safe_load(block) == manifest["config"]
    assert f"- config_sha256: `{manifest['config_sha256']}`" in text
    assert f"- code_sha256: `{manifest['code_sha256']}`" in text
    for tid, h in manifest["taxonomy"]["tasks"].items():
        assert f"| `{tid}` | `{h}` |" in text
    summary = taxonomy.tasks["charts.bar_chart.sorted_labels"].contract.spec.summary
    assert f"| `label_sequence` | list of string | {summary} |" in text
    # the summary's '---' line stays in the body, not the metadata
    assert "Bars | shapes\n---\nkey: not metadata" in text.split("\n---\n", 1)[1]
    assert "key" not in front_matter(dataset)


def test_manifest_lists_the_card_and_is_written_after_it(dataset):
    entry = manifest_of(dataset)["card"]
    data = (dataset / CARD).read_bytes()
    assert entry == {"name": CARD, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    assert (dataset / CARD).stat().st_mtime_ns <= (dataset / "manifest.json").stat().st_mtime_ns


# -- read through the libraries' own entry points ------------------------------------------------------------------------
def test_load_dataset_reads_splits_and_features_from_the_card(dataset):
    datasets = pytest.importorskip("datasets")
    ds = datasets.load_dataset(str(dataset))
    assert list(ds) == ["train", "validation", "test"]
    assert {k: len(v) for k, v in ds.items()} == {"train": 18, "validation": 6, "test": 6}
    declared = datasets.Features._from_yaml_list(front_matter(dataset)["dataset_info"]["features"])
    for split in ds.values():
        assert split.features == declared
    assert type(declared["image"]).__name__ == "Image" and declared["level"].dtype == "int32"
    row = ds["test"][0]
    assert row["image"].mode == "RGB" and json.loads(row["label"])["answer"] == json.loads(row["answer"])


def test_load_dataset_follows_the_cards_data_files(dataset, tmp_path):
    """The card, not the shard names, decides the splits: point one split elsewhere and load_dataset follows."""
    datasets = pytest.importorskip("datasets")
    ds = copy_of(dataset, tmp_path)

    def edit(meta):
        meta["configs"][0]["data_files"] = [{"split": "train", "path": "data/train-*.parquet"},
                                            {"split": "everything", "path": "data/*.parquet"}]
        meta["dataset_info"]["splits"] = [{"name": "train", "num_examples": 18},
                                          {"name": "everything", "num_examples": 30}]
    rewrite_card(ds, edit)
    loaded = datasets.load_dataset(str(ds))
    assert {k: len(v) for k, v in loaded.items()} == {"train": 18, "everything": 30}
    # ... and validate says the card no longer describes the dataset
    problems = validate_dataset(ds).problems
    assert any("configs.data_files do not name the manifest's splits" in p for p in problems), problems
    assert any("num_examples" in p for p in problems), problems


def test_huggingface_hub_parses_the_card(dataset):
    hub = pytest.importorskip("huggingface_hub")
    card = hub.DatasetCard.load(dataset / CARD)
    data = card.data
    assert isinstance(data, hub.DatasetCardData)
    assert data.license == "cc-by-4.0" and data.pretty_name == "Tessera carded"
    assert data.task_categories == ["visual-question-answering", "image-text-to-text"]
    assert data.configs[0]["data_files"][2] == {"split": "test", "path": "data/test-*.parquet"}
    assert data.dataset_info["features"] == card_features()
    assert "## Tasks" in card.text and "## Provenance" in card.text


# -- determinism and resume ---------------------------------------------------------------------------------------------
def test_same_build_same_card_bytes_even_after_an_interruption(dataset, config_path, taxonomy, tmp_path, monkeypatch):
    """Stopped between the card and the manifest, the rerun finishes with the same card and manifest; the card names
    no path of the build folder."""
    real = build_module._write_json_atomic

    def stop_at_manifest(path, value):
        if path.name == "manifest.json":
            raise KeyboardInterrupt
        real(path, value)
    monkeypatch.setattr(build_module, "_write_json_atomic", stop_at_manifest)
    out = tmp_path / "elsewhere" / "ds"
    with pytest.raises(KeyboardInterrupt):
        build(load_build_config(config_path, taxonomy), taxonomy, out, workers=2)
    assert (out / CARD).exists() and not (out / "manifest.json").exists()
    monkeypatch.setattr(build_module, "_write_json_atomic", real)
    result = build(load_build_config(config_path, taxonomy), taxonomy, out, workers=2)
    assert result.resumed_shards == len(list((out / "data").glob("*.parquet")))
    assert (out / CARD).read_bytes() == (dataset / CARD).read_bytes()
    assert (out / "manifest.json").read_bytes() == (dataset / "manifest.json").read_bytes()
    assert str(tmp_path) not in (out / CARD).read_text()


# -- validate ---------------------------------------------------------------------------------------------------------
def test_validate_accepts_the_card(dataset, capsys):
    rep = validate_dataset(dataset)
    assert rep.ok and not rep.warnings, (rep.problems, rep.warnings)
    assert main(["validate", str(dataset)]) == 0


@pytest.mark.parametrize("damage, message", [
    ("byte", "README.md: sha256 differs from the manifest (the card was changed)"),
    ("missing", "README.md: listed in the manifest but missing"),
    ("directory", "not a regular file; refusing to read it"),
    ("endless", "README.md: the dataset card is reached through a symbolic link"),
    ("fifo", "not a regular file; refusing to read it"),
    ("huge", "README.md: the dataset card is 5 MiB, over the 4 MiB limit"),
    ("entry", "manifest.json: card: expected {name: README.md, sha256, bytes}"),
])
def test_validate_reports_a_damaged_card(dataset, tmp_path, damage, message, capsys):
    ds = copy_of(dataset, tmp_path)
    card = ds / CARD
    if damage == "byte":
        data = bytearray(card.read_bytes())
        data[len(data) // 2] ^= 0x01
        card.write_bytes(bytes(data))
    elif damage == "missing":
        card.unlink()
    elif damage == "directory":
        card.unlink()
        card.mkdir()
    elif damage == "endless":  # a link to /dev/zero would never end a read
        card.unlink()
        os.symlink("/dev/zero", card)
    elif damage == "fifo":  # nor would a FIFO with no writer even open
        card.unlink()
        os.mkfifo(card)
    elif damage == "huge":
        card.write_bytes(b"-" * (MAX_CARD_BYTES + 1024 * 1024))
    elif damage == "entry":
        manifest = manifest_of(ds)
        manifest["card"] = {"name": "../../etc/passwd", "sha256": "0" * 64, "bytes": 1}
        (ds / "manifest.json").write_text(json.dumps(manifest))
    rep = validate_dataset(ds)
    assert not rep.ok and any(message in p for p in rep.problems), rep.problems
    assert main(["validate", str(ds)]) == 1
    assert "problem" in capsys.readouterr().out


@pytest.mark.parametrize("edit, message", [
    (lambda m: m["dataset_info"]["splits"][0].update(num_examples=19),
     "README.md: dataset_info.splits num_examples {'train': 19, 'validation': 6, 'test': 6} differ from the "
     "manifest's rows {'test': 6, 'train': 18, 'validation': 6}"),
    (lambda m: m["dataset_info"]["features"][10].update(dtype="int64"),
     "README.md: dataset_info.features differ from the Tessera dataset schema"),
    (lambda m: m["configs"][0]["data_files"].pop(),
     "README.md: configs.data_files do not name the manifest's splits (test: data/test-*.parquet, "
     "train: data/train-*.parquet, validation: data/validation-*.parquet)"),
    (lambda m: m.pop("dataset_info"),
     "README.md: dataset_info.splits num_examples (not a list of split names and counts) differ"),
])
def test_validate_checks_the_card_against_the_manifest(dataset, tmp_path, edit, message):
    """A card and manifest edited together (the hash matches) still must describe the shards validate checked."""
    ds = copy_of(dataset, tmp_path)
    rewrite_card(ds, edit)
    problems = validate_dataset(ds).problems
    assert any(p.startswith(message) for p in problems), problems


def test_validate_reports_unreadable_metadata(dataset, tmp_path):
    cases = [(b"no front matter\n", "no YAML front matter"),
             (b"---\n- a list\n---\nbody\n", "the front matter is not a YAML mapping"),
             (b"---\nkey: [unclosed\n---\n", "README.md: its metadata cannot be read"),
             (b"---\nkey: \xff\n---\n", "README.md: its metadata cannot be read"),  # not UTF-8
             # a billion laughs: nine aliases a line expand to 10^9 items when compared or shown
             (("---\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
                 f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
               + "configs: *i\ndataset_info: {splits: *i, features: *i}\n---\n").encode(),
              "the front matter uses a YAML alias (*name); a card's metadata needs none"),
             (b"---\nconfigs: " + b"[" * 5000 + b"]" * 5000 + b"\n---\n", "nests deeper than 20 levels"),
             (b"---\nconfigs: 7\ndataset_info: {splits: 7, features: 7}\n---\n",
              "README.md: configs.data_files do not name the manifest's splits"),
             (b"---\ndataset_info: {splits: [{name: [1], num_examples: 1}]}\n---\n",
              "num_examples (not a list of split names and counts) differ"),
             ]
    for k, (data, message) in enumerate(cases):
        ds = tmp_path / f"ds{k}"
        shutil.copytree(dataset, ds)
        (ds / CARD).write_bytes(data)
        manifest = manifest_of(ds)
        manifest["card"] = {"name": CARD, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        (ds / "manifest.json").write_text(json.dumps(manifest))
        problems = validate_dataset(ds).problems
        assert any(message in p for p in problems), problems


def test_a_dataset_from_before_cards_is_valid_with_a_warning(dataset, tmp_path):
    ds = copy_of(dataset, tmp_path)
    (ds / CARD).unlink()
    manifest = manifest_of(ds)
    del manifest["card"]
    (ds / "manifest.json").write_text(json.dumps(manifest))
    rep = validate_dataset(ds)
    assert rep.ok, rep.problems
    assert rep.warnings == ["README.md: the manifest lists no dataset card (a build from before cards); "
                            "rebuild to get one"]


def test_table_cells_escape_author_text():
    assert _cell("a | b\n  c") == "a \\| b c"
    assert _cell("x" * 3) == "xxx"


def test_a_card_validate_would_refuse_fails_the_build_before_the_manifest(config_path, taxonomy, tmp_path,
                                                                       monkeypatch):
    monkeypatch.setattr(card_module, "MAX_CARD_BYTES", 2000)
    out = tmp_path / "ds"
    with pytest.raises(TesseraError, match=r"the dataset card would be \d+ bytes, over the 2000 that `tessera "
                                           r"validate` reads; select fewer tasks per build"):
        build(load_build_config(config_path, taxonomy), taxonomy, out, workers=1)
    assert not (out / "manifest.json").exists() and not (out / CARD).exists()
    assert not list(out.glob(".README.md.tmp"))


def test_jsonl_builds_say_so_and_load_only_the_parquet(tmp_path, taxonomy):
    datasets = pytest.importorskip("datasets")
    cfg = tmp_path / "j.yaml"
    cfg.write_text("build: j\nseed: 3\nselect: {tasks: [charts.bar_chart.count_above_mean]}\n"
                   "per_task: {train: 2, validation: 1}\nlevels: [0]\njsonl: true\n")
    out = tmp_path / "ds"
    build(load_build_config(cfg, taxonomy), taxonomy, out, workers=1)
    assert "`jsonl/` and `images/` hold the same rows" in (out / CARD).read_text()
    loaded = datasets.load_dataset(str(out))
    assert {k: len(v) for k, v in loaded.items()} == {"train": 2, "validation": 1}
    assert validate_dataset(out).ok


def test_card_credits_every_asset_set_with_its_licence(dataset):
    """The pictures may draw the vendored icon sets (CC BY needs attribution): the card's Credits section names each
    set of compiler/assets/manifest.yaml with its licence and attribution line, and the licence file ships beside it.
    Old code: the card had no credits at all."""
    from tessera.spec.assets import LICENCE_FILE, asset_sets
    text = (dataset / CARD).read_text()
    credits = text.split("## Credits\n", 1)[1].split("\n## ", 1)[0]
    sets = asset_sets()
    assert {s.set for s in sets} >= {"game-icons", "twemoji"}
    for s in sets:
        assert f"| `{s.set}` | [{s.licence}]({s.licence_url}) | {s.attribution} |" in credits
        licence = (s.folder / LICENCE_FILE).read_text()
        assert s.licence in licence and s.licence_url in licence


def test_card_credits_the_map_sets_and_every_font_family(dataset):
    """Every vendored asset is credited in every card: the map sets of compiler/assets/geo/manifest.csv (Natural Earth,
    US Census, with the packages' licences) and each family of the font pool (render/fonts/fonts.yaml) with its
    licence. Old code: the card credited the icon sets only."""
    import csv

    import yaml

    text = (dataset / CARD).read_text()
    credits = text.split("## Credits\n", 1)[1].split("\n## ", 1)[0]
    fonts_dir = ROOT / "compiler" / "render" / "fonts"
    with open(ROOT / "compiler" / "assets" / "geo" / "manifest.csv", newline="") as f:
        maps = list(csv.DictReader(f))
    assert {m["set"] for m in maps} == {"countries", "us-states"}
    for m in maps:
        assert f"| `{m['set']}` | {m['source']} |" in credits and m["attribution"] in credits
    families = yaml.safe_load((fonts_dir / "fonts.yaml").read_text())["families"]
    assert len(families) > 20
    for fam in families:
        assert f"| {fam['family']} | {fam['licence']} |" in credits
    assert "Made with Natural Earth" in credits and "| DejaVu Sans | Bitstream-Vera |" in credits
