"""Datasets, manifests, traces, instance files, labels and responses are untrusted input (issue 9, classes 1 and 2):
a crafted dataset cannot make `export` write outside --out or copy a file in; `validate` and `replay` name the shard,
row and field; replay compares every side file and every row column; FIFOs, devices, huge files and deep JSON get a
refusal, promptly, from every command that reads them."""
from __future__ import annotations

import json
import os
import shutil
from collections import Counter
import textwrap
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tessera.cli
import tessera.validate.replay
from tessera.cli import main, write_instance
from tessera.export.build import build
from tessera.export.config import load_build_config
from tessera.dataset.rows import write_shard
from tessera.trace.instance import generate
from tessera.dataset.untrusted import (
    MAX_JSON_DEPTH,
    MAX_RESPONSE_BYTES,
    MAX_TRACE_BYTES,
    UntrustedInput,
    decode_png_bounded,
    json_depth,
    parse_json,
)
from tests.conftest import ROOT

TINY = """
build: tiny
seed: 3
select: {tasks: ["charts.bar_chart.value_difference", "icons.shape_grid.empty_cells"]}
per_task: {train: 3, validation: 1}
levels: [0, 4]
shard_size: 4
"""
DEEP = "[" * 100_000
PROMPT_LIMIT = 30.0  # seconds: every refusal here is immediate; the bound only turns a hang into a failure


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, taxonomy) -> Path:
    cfg = tmp_path_factory.mktemp("cfg") / "tiny.yaml"
    cfg.write_text(textwrap.dedent(TINY).lstrip())
    out = tmp_path_factory.mktemp("tiny") / "ds"
    build(load_build_config(cfg, taxonomy), taxonomy, out, workers=1)
    return out


@pytest.fixture(autouse=True)
def compiled_once(monkeypatch, taxonomy):
    """The CLI and dataset replay use the session's taxonomy instead of compiling it on every call."""
    monkeypatch.setattr(tessera.cli, "_compile", lambda root: taxonomy)
    monkeypatch.setattr(tessera.validate.replay, "_init_dataset_worker",
                        lambda root: tessera.validate.replay._DATASET_WORKER.update(taxonomy=taxonomy))


def run(capsys, *argv, limit: float = 120.0) -> tuple[int, str, str]:
    """main() in a daemon thread: a command that blocks (on a FIFO, say) fails the test instead of hanging it."""
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(code=main(["--root", str(ROOT), *map(str, argv)])),
                              daemon=True)
    worker.start()
    worker.join(limit)
    assert not worker.is_alive(), f"tessera {' '.join(map(str, argv))} did not finish in {limit} s"
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return box["code"], out, err


def copy(dataset: Path, tmp_path: Path) -> Path:
    ds = tmp_path / "ds"
    shutil.copytree(dataset, ds)
    return ds


def shard_of(ds: Path, split: str = "train", k: int = 0) -> Path:
    return sorted((ds / "data").glob(f"{split}-*.parquet"))[k]


def tamper(ds: Path, change, keep_schema: bool = True) -> int:
    """Change row 1 of the first train shard with `change(row)` and write it with our schema; or change every row
    and write them with the schema Arrow infers (a column of another type). Returns the first changed row."""
    shard = shard_of(ds)
    rows = pq.read_table(shard).to_pylist()
    if keep_schema:
        change(rows[1])
        write_shard(rows, shard)
        return 1
    for row in rows:
        change(row)
    pq.write_table(pa.Table.from_pylist(rows), shard)
    return 0


def files_under(folder: Path, skip: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if skip not in p.parents and p != skip}


def chunk(kind: bytes, data: bytes) -> bytes:
    import struct
    import zlib

    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_with_header(width: int, height: int, idat: bytes = b"") -> bytes:
    import struct

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + (chunk(b"IDAT", idat) if idat else b"") + chunk(b"IEND", b""))


def zip_bomb() -> bytes:
    import zlib

    return zlib.compress(b"\0" * (64 << 20), 9)  # 64 MiB of pixels in about 64 KB


# -- class 1: a crafted dataset ----------------------------------------------------------------------------------
def _set(field, value):
    return lambda r: r.__setitem__(field, value)


def _image(**parts):
    return lambda r: r.__setitem__("image", {**r["image"], **parts})


# (what is changed, the field the error must name, whether the tamper keeps our Parquet schema)
CRAFTED = [
    ("instance id climbing out of --out", _set("instance_id", "../../../escaped"), "instance_id", True),
    ("absolute instance id", _set("instance_id", "/tmp/tessera-absolute-escape"), "instance_id", True),
    ("no image bytes, a system file as path", _image(bytes=None, path="/etc/passwd"), "image.bytes", True),
    ("empty bytes, a relative path out", _image(bytes=b"", path="../../secret.txt"), "image.bytes", True),
    ("good bytes, a forged path", _image(path="/etc/passwd"), "image.path", True),
    ("image bytes that are not a PNG", _image(bytes=b"GIF89a" + b"\0" * 64), "image.bytes", True),
    ("task id with a path in it", _set("task", "../charts.bar_chart"), "task", True),
    ("label nested 100k deep", _set("label", DEEP), "label", True),
    ("label not JSON", _set("label", "{label"), "label", True),
    ("label with NaN", _set("label", '{"type": "integer", "answer": NaN}'), "label", True),
    ("label not a verifier label", _set("label", '{"answer": 1}'), "label", True),
    ("prompt over its cap", _set("prompt", "x" * 70_000), "prompt", True),
    ("level out of range", _set("level", 99), "level", True),
    ("level of the wrong type", lambda r: r.update(level=str(r["level"])), "level", False),
    ("image of the wrong type", _set("image", "/etc/passwd"), "image", False),
    ("a PNG header of 10^10 pixels", lambda r: r["image"].update(bytes=png_with_header(100_000, 100_000)),
     "image.bytes", True),
]


@pytest.mark.parametrize("case, change, field, keep_schema", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_crafted_row_is_refused_by_export_validate_and_replay(dataset, tmp_path, capsys, case, change, field,
                                                              keep_schema):
    ds = copy(dataset, tmp_path)
    (tmp_path / "secret.txt").write_text("SECRET-CONTENT")
    row = tamper(ds, change, keep_schema=keep_schema)
    where = f"data/{shard_of(ds).name} row {row}"
    before = files_under(tmp_path, ds)
    out = tmp_path / "export" / "out"  # its parent does not exist yet: not even that is created

    code, _, err = run(capsys, "export", ds, "--format", "openrlhf", "--out", out)
    assert code == 1 and where in err and f"field '{field}'" in err, err
    assert files_under(tmp_path, ds) == before  # nothing written anywhere: not in --out, not outside it
    assert not Path("/tmp/tessera-absolute-escape.png").exists()

    code, out_text, _ = run(capsys, "validate", ds)
    assert code == 1 and f"{where}" in out_text and f"field '{field}'" in out_text, out_text
    code, out_text, _ = run(capsys, "replay", ds, "--workers", "1")
    assert code == 1 and f"at {where}" in out_text and f"field '{field}'" in out_text, out_text


def test_export_of_an_intact_dataset_holds_only_the_rows_bytes(dataset, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = run(capsys, "export", dataset, "--format", "openrlhf", "--out", out)
    assert code == 0, err
    source = {r["instance_id"]: r["image"]["bytes"] for f in (dataset / "data").glob("*.parquet")
              for r in pq.read_table(f).to_pylist()}
    written = sorted((out / "images").rglob("*.png"))
    assert written and all(p.read_bytes() == source[p.stem] for p in written)
    assert all(out in p.resolve().parents for p in out.rglob("*"))


def _manifest(mutate):
    def change(ds: Path):
        m = json.loads((ds / "manifest.json").read_text())
        mutate(m)
        (ds / "manifest.json").write_text(json.dumps(m))
    return change


def _write(text):
    return lambda ds: (ds / "manifest.json").write_text(text)


def _sparse(name, size):
    def change(ds: Path):
        with open(ds / name, "wb") as f:
            f.truncate(size)  # a sparse file: huge to stat, nothing on disk
    return change


def _replace_with_fifo(name):
    def change(ds: Path):
        (ds / name).unlink()
        os.mkfifo(ds / name)
    return change


def _symlink(name, target):
    def change(ds: Path):
        (ds / name).unlink()
        (ds / name).symlink_to(target)
    return change


MANIFESTS = [
    ("a system file as a shard", _manifest(lambda m: m["splits"]["train"]["files"][0].update(name="/etc/passwd")),
     "is not a shard of split train"),
    ("a shard path climbing out", _manifest(lambda m: m["splits"]["train"]["files"][0].update(
        name="data/../../train-00000-of-00002.parquet")), "is not a shard of split train"),
    ("a split name with a slash", _manifest(lambda m: m["splits"].update({"../x": m["splits"]["train"]})),
     "a split name is a plain name"),
    ("a bad task id", _manifest(lambda m: m["splits"]["train"]["per_task"].update({"a/../b": 1})),
     "does not match the pattern"),
    ("a row count that is a string", _manifest(lambda m: m["splits"]["train"].update(rows="12")),
     "expected a row count"),
    ("nested 100k deep", _write(DEEP), f"over the limit of {MAX_JSON_DEPTH}"),
    ("over its size cap", _sparse("manifest.json", 65 << 20), "over the 64 MiB limit"),
    ("a FIFO", _replace_with_fifo("manifest.json"), "is a FIFO, not a regular file"),
    ("a symlink to a device", _symlink("manifest.json", "/dev/zero"),
     "the manifest is reached through a symbolic link"),
]


@pytest.mark.parametrize("case, change, message", MANIFESTS, ids=[c[0] for c in MANIFESTS])
def test_crafted_manifest_is_refused_by_export_and_validate(dataset, tmp_path, capsys, case, change, message):
    ds = copy(dataset, tmp_path)
    change(ds)
    code, _, err = run(capsys, "export", ds, "--format", "openrlhf", "--out", tmp_path / "out", limit=PROMPT_LIMIT)
    assert code == 1 and message in err, err
    assert not (tmp_path / "out").exists()
    code, out, _ = run(capsys, "validate", ds, limit=PROMPT_LIMIT)
    assert code == 1 and message in out, out


@pytest.mark.parametrize("make", [_replace_with_fifo, lambda name: _symlink(name, "/dev/zero"),
                                  lambda name: _sparse(name, 17 << 30)], ids=["fifo", "device", "huge"])
def test_a_shard_that_is_not_a_regular_file_is_refused_promptly(dataset, tmp_path, capsys, make):
    ds = copy(dataset, tmp_path)
    name = f"data/{shard_of(ds).name}"
    make(name)(ds)
    for argv, stream in ((["export", ds, "--format", "openrlhf", "--out", tmp_path / "out"], 2),
                         (["validate", ds], 1), (["replay", ds, "--workers", "1"], 2)):
        code, out, err = run(capsys, *argv, limit=PROMPT_LIMIT)
        text = err if stream == 2 else out
        assert code == 1 and "train-00000-of-00002.parquet" in text, text
        assert "not a regular file" in text or "over the 16384 MiB limit" in text or \
            "reached through a symbolic link" in text, text


@pytest.mark.parametrize("what", ["shard", "data folder", "manifest"])
def test_a_dataset_file_behind_a_link_is_refused_even_when_it_is_a_good_file(dataset, tmp_path, capsys, what):
    """0.8.0's validate passed a dataset whose shard was a symbolic link to a (valid) file outside it. Every reader
    of a dataset now refuses a file reached through a link, whatever it points to."""
    ds = copy(dataset, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    if what == "shard":
        shard = shard_of(ds)
        shutil.copy(shard, outside / shard.name)
        shard.unlink()
        shard.symlink_to(outside / shard.name)
    elif what == "data folder":
        shutil.move(str(ds / "data"), str(outside / "data"))
        (ds / "data").symlink_to(outside / "data")
    else:
        shutil.copy(ds / "manifest.json", outside / "manifest.json")
        (ds / "manifest.json").unlink()
        (ds / "manifest.json").symlink_to(outside / "manifest.json")
    readers = [(["validate", ds], 1), (["export", ds, "--format", "openrlhf", "--out", tmp_path / "out"], 2),
               (["audit", ds, "--out", tmp_path / "audit"], 2)]
    if what != "manifest":  # replay reads the shards' rows and traces, never the manifest
        readers.append((["replay", ds, "--workers", "1"], 2))
    for argv, stream in readers:
        code, out, err = run(capsys, *argv, limit=PROMPT_LIMIT)
        text = out if stream == 1 else err
        assert code in (1, 2) and "reached through a symbolic link" in text, (argv[0], text)


def test_a_shard_of_too_many_rows_is_refused_before_reading(dataset, tmp_path, capsys):
    ds = copy(dataset, tmp_path)
    pq.write_table(pa.table({"instance_id": ["x"] * 100_001}), shard_of(ds))
    code, _, err = run(capsys, "export", ds, "--format", "openrlhf", "--out", tmp_path / "out")
    assert code == 1 and "100001 rows, over the 100000 a shard holds" in err


def test_validate_decodes_no_more_than_the_png_header_promises(dataset, tmp_path, capsys):
    import hashlib

    ds = copy(dataset, tmp_path)

    def bomb(row):
        trace = json.loads(row["trace"])
        png = png_with_header(trace["render"]["width"], trace["render"]["height"], zip_bomb())
        trace["hashes"]["image"] = hashlib.sha256(png).hexdigest()  # consistent with the trace, so it gets decoded
        row.update(trace=json.dumps(trace))
        row["image"].update(bytes=png)

    tamper(ds, bomb)
    code, out, _ = run(capsys, "validate", ds)
    assert code == 1 and "row 1" in out and "image does not decode: the image data inflates past the" in out, out


def test_replay_refuses_a_shard_the_builder_did_not_name(dataset, tmp_path, capsys):
    ds = copy(dataset, tmp_path)
    shutil.copy(shard_of(ds), ds / "data" / "evil.parquet")
    code, _, err = run(capsys, "replay", ds, "--workers", "1")
    assert code == 1 and "evil.parquet: not a shard name the builder writes" in err


# -- class 2: replay compares every column of a row ------------------------------------------------------------
def test_dataset_replay_compares_every_column(dataset, tmp_path, capsys):
    ds = copy(dataset, tmp_path)
    changes = {  # column → a change of one row that keeps the schema and every id pattern
        "answer": lambda r: r.update(answer='"tampered"'),
        "label": lambda r: r.update(label=json.dumps({**json.loads(r["label"]), "answer": "tampered"})),
        "prompt": lambda r: r.update(prompt=r["prompt"] + " Answer 7."),
        "witness": lambda r: r.update(witness=json.dumps({"kind": "scalar", "value": 0})),
        "query": lambda r: r.update(query='{"tampered": 1}'),
        "domain": lambda r: r.update(domain="games"),
        "image.path": lambda r: r["image"].update(path=None),
        "phash": lambda r: r.update(phash=b"\0" * 32),
    }
    todo = iter(changes.items())
    tampered = {}
    for shard in sorted((ds / "data").glob("*.parquet")):
        rows = pq.read_table(shard).to_pylist()
        for row in rows:
            col, change = next(todo)
            change(row)
            tampered[row["instance_id"]] = col
        write_shard(rows, shard)
    assert len(tampered) == len(changes) == 8  # one change per row of the dataset
    code, out, _ = run(capsys, "replay", ds, "--workers", "1", "--json")
    report = json.loads(out)
    assert code == 1 and report["replayed"] == 8 and report["matched"] == 0
    found = {m["instance_id"]: m["differences"] for m in report["mismatches"]}
    assert set(found) == set(tampered)
    for iid, col in tampered.items():
        assert [d for d in found[iid] if not d.startswith("note:")][0].startswith(f"{col}:"), (col, found[iid])
        assert len(found[iid]) == 1, found[iid]  # only the changed column, nothing else is reported
    answer_diff = next(found[i] for i, c in tampered.items() if c == "answer")[0]
    assert answer_diff.startswith("answer: recorded '\"tampered\"', rebuilt '")


def test_dataset_replay_of_an_intact_dataset_says_what_it_compared(dataset, capsys):
    code, out, _ = run(capsys, "replay", dataset, "--workers", "1")
    assert code == 0 and "8/8 instances" in out and "every column of every row compared" in out


# -- class 2: replay compares every side file of a folder --------------------------------------------------------
@pytest.fixture
def sampled(taxonomy, tmp_path) -> tuple[Path, Path, Path, object]:
    inst = generate(taxonomy.tasks["charts.bar_chart.value_difference"], 7, 3, vocab=taxonomy.vocab)
    png, record, trace = write_instance(inst, tmp_path / "inst")
    return png, record, trace, inst


def _edit_json(path: Path, change) -> None:
    value = json.loads(path.read_text())
    change(value)
    path.write_text(json.dumps(value, indent=2) + "\n")


SIDE_TAMPERS = [
    ("png byte", "png", lambda p: p.write_bytes(p.read_bytes()[:-20] + bytes(20)),
     "{id}.png: the image bytes differ from the rebuilt image"),
    ("label answer", "json", lambda p: _edit_json(p, lambda v: v["label"].update(answer=v["label"]["answer"] + 1)),
     "{id}.json: label differs"),
    ("answer", "json", lambda p: _edit_json(p, lambda v: v.update(answer=v["answer"] + 1)), "{id}.json: answer differs"),
    ("prompt", "json", lambda p: _edit_json(p, lambda v: v.update(prompt="What is 2 + 2?")), "{id}.json: prompt differs"),
    ("witness", "json", lambda p: _edit_json(p, lambda v: v.update(witness={"kind": "scalar", "value": 1})),
     "{id}.json: witness differs"),
    ("an added field", "json", lambda p: _edit_json(p, lambda v: v.update(reward_override=1.0)),
     "{id}.json: 'reward_override' is not a field of an instance"),
    ("a removed field", "json", lambda p: _edit_json(p, lambda v: v.pop("label")), "{id}.json: label is missing"),
    ("not a record", "json", lambda p: p.write_text("[1, 2]"), "{id}.json: not an instance record"),
    ("a trace field added", "trace", lambda p: _edit_json(p, lambda v: v.update(note="x")),
     "'note': not a field of a Tessera trace"),
    ("a trace field removed", "trace", lambda p: _edit_json(p, lambda v: v.pop("witness")),
     "witness: missing from the trace"),
    ("the trace's stream seeds", "trace", lambda p: _edit_json(p, lambda v: v.update(stream_overrides={"render": 5})),
     "instance_id: recorded '{id}', rebuilt"),
    ("the trace's answer", "trace", lambda p: _edit_json(p, lambda v: v.update(answer=v["answer"] + 1)),
     "answer: differs"),
]


@pytest.mark.parametrize("case, which, change, message", SIDE_TAMPERS, ids=[c[0] for c in SIDE_TAMPERS])
def test_replay_catches_a_tampered_side_file(sampled, capsys, case, which, change, message):
    png, record, trace, inst = sampled
    change({"png": png, "json": record, "trace": trace}[which])
    code, out, _ = run(capsys, "replay", trace.parent)
    assert code == 1 and "MISMATCH" in out and message.format(id=inst.instance_id) in out, out


def test_score_is_not_fooled_because_replay_fails_first(sampled, tmp_path, capsys):
    png, record, trace, inst = sampled
    wrong = inst.answer + 5
    _edit_json(record, lambda v: (v.update(answer=wrong), v["label"].update(answer=wrong)))
    response = tmp_path / "response.txt"
    response.write_text(json.dumps({"answer": wrong}))
    code, out, _ = run(capsys, "score", record, response)
    assert code == 0 and json.loads(out)["reward"] == 1.0  # score trusts its label: that is why replay checks it
    code, out, _ = run(capsys, "replay", record.parent)
    assert code == 1 and f"{inst.instance_id}.json: answer differs" in out and "label differs" in out


def test_intact_folder_replays_and_says_what_it_compared(sampled, capsys):
    png, record, trace, inst = sampled
    code, out, _ = run(capsys, "replay", trace.parent)
    assert code == 0 and "1/1 instances replayed byte for byte; trace, image and instance .json compared" in out
    png.unlink()
    code, out, _ = run(capsys, "replay", trace.parent, "--json")
    assert code == 0 and json.loads(out)["results"][0]["checked"] == ["trace", "json"]
    code, out, _ = run(capsys, "replay", trace.parent)
    assert code == 0 and "traces compared (1 without a picture beside the trace: not checked)" in out


def test_a_renamed_instance_is_caught(sampled, capsys):
    png, record, trace, inst = sampled
    other = "0" * 24
    for p in (png, record, trace):
        p.rename(p.with_name(p.name.replace(inst.instance_id, other)))
    code, out, _ = run(capsys, "replay", trace.parent)
    assert code == 1 and f"file name: '{other}.trace.json' holds instance {inst.instance_id}" in out


def test_a_symlink_to_a_regular_trace_is_read(sampled, tmp_path, capsys):
    *_, trace, inst = sampled
    link = tmp_path / "link.trace.json"
    link.symlink_to(trace)
    code, out, _ = run(capsys, "replay", link)
    assert code == 0 and "1/1" in out and "1 without a picture" in out  # its side files are named link.*: absent


# -- non-regular, huge and deep files, for every command that reads one -----------------------------------------
def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _device(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")


def _fifo_symlink(path: Path) -> None:
    target = path.with_name(path.name + ".fifo")
    os.mkfifo(target)
    path.unlink(missing_ok=True)
    path.symlink_to(target)


def _huge(size: int):
    def make(path: Path) -> None:
        with open(path, "wb") as f:
            f.truncate(size)
    return make


def _deep(path: Path) -> None:
    path.write_text(DEEP)


def _deep_inside(path: Path) -> None:
    trace = json.loads(path.read_text())
    trace["state"]["nest"] = json.loads("[" * 150 + "]" * 150)
    path.write_text(json.dumps(trace))


def _nan(path: Path) -> None:
    path.write_text(path.read_text().replace('"level":3', '"level":NaN', 1))


def _big_number(path: Path) -> None:
    path.write_text(path.read_text().replace('"seed":7', '"seed":' + "7" * 5000, 1))


FILES = [  # (file kind, make it bad, what the refusal says)
    ("trace", _fifo, "is a FIFO, not a regular file"),
    ("trace", _device, "is a character device (through a symlink)"),
    ("trace", _fifo_symlink, "is a FIFO (through a symlink)"),
    ("trace", _huge(MAX_TRACE_BYTES + 1), "over the 16 MiB limit"),
    ("trace", _deep, f"JSON nested 100000 deep, over the limit of {MAX_JSON_DEPTH}"),
    ("trace", _deep_inside, f"JSON nested 152 deep, over the limit of {MAX_JSON_DEPTH}"),
    ("trace", _nan, "NaN is not a JSON number"),
    ("trace", _big_number, "not valid JSON (Exceeds the limit"),
    ("png", _fifo, "is a FIFO, not a regular file"),
    ("png", _huge(33 << 20), "over the 32 MiB limit"),
    ("json", _fifo_symlink, "is a FIFO (through a symlink)"),
    ("json", _device, "is a character device"),
    ("json", _deep, "JSON nested 100000 deep"),
]


@pytest.mark.parametrize("which, make, message", FILES, ids=[f"{w}-{m.__name__}-{i}" for i, (w, m, _) in
                                                            enumerate(FILES)])
def test_replay_refuses_bad_files_promptly(sampled, capsys, which, make, message):
    png, record, trace, _ = sampled
    make({"png": png, "json": record, "trace": trace}[which])
    for target in (trace.parent, trace):  # found in a folder, or named on the command line
        code, _, err = run(capsys, "replay", target, limit=PROMPT_LIMIT)
        assert code == 1 and message in err, err


SCORE_FILES = [
    ("label", _fifo, "is a FIFO, not a regular file"),
    ("label", _device, "is a character device"),
    ("label", _huge(MAX_TRACE_BYTES + 1), "over the 16 MiB limit"),
    ("label", _deep, "JSON nested 100000 deep"),
    ("response", _fifo, "is a FIFO, not a regular file"),
    ("response", _device, "is a character device"),
    ("response", _huge(MAX_RESPONSE_BYTES + 1), "over the 1 MiB limit"),
]


@pytest.mark.parametrize("which, make, message", SCORE_FILES, ids=[f"{w}-{m.__name__}-{i}" for i, (w, m, _) in
                                                                  enumerate(SCORE_FILES)])
def test_score_refuses_bad_files_promptly(sampled, tmp_path, capsys, which, make, message):
    _, record, _, inst = sampled
    response = tmp_path / "response.txt"
    response.write_text(json.dumps({"answer": inst.answer}))
    make(record if which == "label" else response)
    code, _, err = run(capsys, "score", record, response, limit=PROMPT_LIMIT)
    assert code == 1 and message in err, err


# -- the readers themselves --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, depth", [
    ("1", 0), ("[]", 1), ('{"a": [1, {"b": []}]}', 4), ('["[[[[", "]]]"]', 1), (r'["\"[[[", {"k\\": "{"}]', 2),
    ("[" * 500 + "]" * 500, 500), ("[]" * 1000, 1), ("[" + '"' + "[" * 1000, 1001),
    ('"[[[' + "[" * 1000, 1003),  # not JSON (an unterminated string): counted over, and refused as too deep
])
def test_json_depth_counts_brackets_outside_strings(text, depth):
    assert json_depth(text) == depth


def test_parse_json_refuses_before_parsing():
    assert parse_json('{"a": [1, 2.5, "x"]}', "t", 100) == {"a": [1, 2.5, "x"]}
    for text, message in [(DEEP, "nested 100000 deep"), ("[" * 101 + "]" * 101, "nested 101 deep"),
                          ('{"a": 1}' + " " * 200_000, "over the 200000 bytes limit"), ("1e999", "out of range"),
                          ("[Infinity]", "Infinity is not a JSON number"), (b"\xff[]", "not UTF-8"),
                          ("7" * 5000, "Exceeds the limit")]:
        with pytest.raises(UntrustedInput, match=message):
            parse_json(text, "t", 200_000)


def test_png_decoding_is_bounded_by_its_header(sampled):
    import zlib

    png = sampled[0].read_bytes()
    assert decode_png_bounded(png).shape[2] == 3

    with pytest.raises(UntrustedInput, match="inflates past the 10×10"):
        decode_png_bounded(png_with_header(10, 10, zip_bomb()))
    with pytest.raises(UntrustedInput, match="over the 16384-pixel side"):
        decode_png_bounded(png_with_header(100_000, 100_000))
    with pytest.raises(UntrustedInput, match="holds 5 bytes, a 10×10 RGB image needs 310"):
        decode_png_bounded(png_with_header(10, 10, zlib.compress(b"12345")))


# -- bounded fuzz: mutated traces and rows get a result or a message, never a Python error -----------------------
ODD_VALUES = [None, True, False, 0, -1, 2 ** 70, -(2 ** 70), 1e308, 0.5, "", "x" * 300, "../../etc/passwd",
              "\x1b[31m", [], {}, [[[]]], {"a": 1}, [1, "a", None], {"$ref": "bars[99]"}]


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _mutate(value, path, new):
    if not path:
        return new
    target = value
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return value


def test_fuzzed_traces_replay_or_get_a_message(sampled, taxonomy):
    import random

    from tessera.errors import TesseraError
    from tessera.validate.replay import rebuild

    *_, trace_file, _ = sampled
    original = json.loads(trace_file.read_text())
    # Paths near the top are the ones replay reads; weight them by sampling short paths more often.
    paths = sorted(set(_paths(original)), key=len)
    short = [p for p in paths if len(p) <= 2]
    rng = random.Random(9)
    outcomes = {"replayed": 0, "mismatch": 0, "message": 0}
    for _ in range(300):
        trace = json.loads(json.dumps(original))
        path = rng.choice(short if rng.random() < 0.7 else paths)
        trace = _mutate(trace, path, json.loads(json.dumps(rng.choice(ODD_VALUES))))
        try:
            result, _ = rebuild(trace, taxonomy)
        except TesseraError as exc:
            assert str(exc)
            outcomes["message"] += 1
            continue
        outcomes["replayed" if result.ok else "mismatch"] += 1
    # both paths are exercised (the counts move with the sampled trace's shape); the real check is above: no other error
    assert outcomes["message"] >= 10 and outcomes["mismatch"] >= 10, outcomes


def test_fuzzed_rows_are_checked_not_raised(dataset, taxonomy):
    import random

    from tessera.dataset.rows import SCHEMA
    from tessera.validate.replay import _replay_row
    from tessera.validate.dataset import DatasetReport, _check_row
    from tessera.dataset.untrusted import check_row

    tessera.validate.replay._DATASET_WORKER["taxonomy"] = taxonomy
    base = pq.read_table(shard_of(dataset)).to_pylist()[0]
    rng = random.Random(4)
    odd = [*ODD_VALUES, b"", b"\x89PNG\r\n\x1a\n", "[" * 5000, '{"type": "integer"}', '{"kind": "bbox", "value": 3}']
    failures = 0
    for _ in range(300):
        row = {**base, "image": dict(base["image"])}
        for _ in range(rng.randint(1, 3)):
            col = rng.choice([*SCHEMA.names, "image.bytes", "image.path"])
            if col.startswith("image.") and isinstance(row["image"], dict):
                row["image"][col[6:]] = rng.choice(odd)
            elif not col.startswith("image."):
                row[col] = rng.choice(odd)
        _, problems = check_row(row, SCHEMA.names)
        result = _replay_row(("shard row 0", "train", row))
        assert result.ok is False or not problems
        rep = DatasetReport(Path("."))
        _check_row(rep, "shard row 0", "train", row, set(), Counter(), [])
        failures += not rep.ok
    assert failures > 250  # nearly every mutation is a problem someone is told about


def test_malformed_hashes_are_named_not_blamed_on_the_yaml(sampled, capsys):
    *_, trace, _ = sampled
    for value in (None, 5, [1]):
        _edit_json(trace, lambda v: v.update(hashes=value))
        code, out, _ = run(capsys, "replay", trace)
        assert code == 1 and "hashes: missing from the trace or not an object" in out and "YAML changed" not in out
