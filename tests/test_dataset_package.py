"""tessera.dataset is the one place that knows a dataset's on-disk names (issue 25 item 3), and tessera.sample_state is
the generation loop's unrendered sample: the instance generate() builds, without its picture."""
from __future__ import annotations

import ast
import textwrap

import pytest

import tessera
from tessera.dataset import layout
from tessera.errors import TesseraError
from tessera.trace.instance import canonical_json, generate, object_paths
from tessera.trace.record import traced
from tests.conftest import ROOT


# -- one writer and reader of the names -----------------------------------------------------------------------------
def _docstrings(tree: ast.Module) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def spelled_names(source: str) -> list[tuple[int, int, str]]:
    """(line, col, what) wherever `source` spells a name tessera.dataset.layout owns: the manifest's file name, the
    build's state folder, the dataset format, a shard glob or suffix, or the shard-name pattern (`-of-` between
    numbers, as a format or a regular expression). Docstrings and prose in messages are not spellings."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    exact = {layout.MANIFEST: "the manifest's name", layout.STATE_DIR: "the build's state folder",
             layout.DATASET_FORMAT: "the dataset format", layout.SHARD_SUFFIX: "the shard suffix",
             "*" + layout.SHARD_SUFFIX: "a shard glob"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.Constant) and v.value == "-of-"
                                                   for v in node.values):
            found.append((node.lineno, node.col_offset, "a shard-name format"))
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in skip:
            continue
        if node.value in exact:
            found.append((node.lineno, node.col_offset, exact[node.value]))
        elif "-of-\\d" in node.value:
            found.append((node.lineno, node.col_offset, "a shard-name pattern"))
    return sorted(found)


def test_the_check_finds_each_spelling_and_skips_prose():
    source = textwrap.dedent('''
        """Writes manifest.json and data/*.parquet (a docstring names them: not a spelling)."""
        import re
        MANIFEST = "manifest.json"
        SHARD = re.compile(r"(?P<split>\\w+)-\\d{5}-of-\\d{5}\\.parquet")

        def shards(p, split, k, n):
            """Each shard's name: <split>-<k>-of-<n>.parquet."""
            p.glob("*.parquet")
            (p / ".tessera-build").exists()
            name = f"{split}-{k:05d}-of-{n:05d}.parquet"
            raise ValueError(f"{p}: no manifest.json here; a start-of-frame segment")
        ''')
    assert spelled_names(source) == [
        (4, 11, "the manifest's name"),
        (5, 19, "a shard-name pattern"),
        (9, 11, "a shard glob"),
        (10, 9, "the build's state folder"),
        (11, 11, "a shard-name format"),
        (11, 11, "the shard suffix"),  # the format's `.parquet` part
    ]


def test_only_the_dataset_package_spells_the_dataset_names():
    # Before 0.11 build, card, untrusted, replay, audit, the gallery and training/export.py each spelled some of
    # them (build.MANIFEST and card.MANIFEST_NAME, untrusted.SHARD_NAME and build.SHARD_FILE: two shard patterns
    # that disagreed on which split names exist).
    files = [p for p in sorted((ROOT / "compiler").rglob("*.py")) if "dataset" not in p.relative_to(ROOT).parts]
    files += sorted((ROOT / "training").glob("*.py"))
    assert len(files) > 90
    found = {str(p.relative_to(ROOT)): spelled for p in files if (spelled := spelled_names(p.read_text()))}
    assert found == {}


def test_one_shard_name_pattern():
    assert layout.shard_name("train", 3, 12) == "train-00003-of-00012.parquet"
    assert layout.shard_name_split("Train_2-00000-of-00001.parquet") == "Train_2"  # any identifier a config allows
    assert layout.shard_name_split("2nd-00000-of-00001.parquet") is None  # not an identifier: no split's shard
    assert layout.shard_name_split("train-0-of-1.parquet") is None
    assert layout.jsonl_name("eval-00001-of-00002.parquet") == "eval-00001-of-00002.jsonl"


def test_resume_sees_a_leftover_shard_of_any_split_name(tmp_path):
    # A config may name a split `Train` (export.config: any identifier). 0.10's resume check had its own pattern,
    # [a-z][a-z0-9_]*, so a finished `Train` shard of another plan sat beside the new build unnoticed.
    from tessera.export.build import StaleOutput, _check_resume

    (tmp_path / layout.DATA_DIR).mkdir()
    (tmp_path / layout.DATA_DIR / "Train-00000-of-00001.parquet").write_bytes(b"")
    with pytest.raises(StaleOutput, match=r"not a shard of this build's plan .*\(1 shard\(s\)\)"):
        _check_resume(tmp_path, None, None, [])
    (tmp_path / layout.DATA_DIR / "Train-00000-of-00001.parquet").unlink()
    (tmp_path / layout.DATA_DIR / "notes.txt").write_text("not a shard")
    assert _check_resume(tmp_path, None, None, []) == {}


def test_is_dataset(tmp_path):
    assert not layout.is_dataset(tmp_path)
    (tmp_path / layout.DATA_DIR).mkdir()
    (tmp_path / layout.DATA_DIR / layout.shard_name("train", 0, 1)).write_bytes(b"")
    assert layout.is_dataset(tmp_path)


# -- the unrendered sample -----------------------------------------------------------------------------------------
SAMPLED = [  # (task, seed, level, query): a chart, an option task, a yes/no task with its outcome forced, a board
    ("charts.bar_chart.extremum_label", 7, 3, None),
    ("symbolic.spinner.probability_option", 11, 9, None),
    ("graphs.maze.goal_reachable", 5, 6, {"show_ends": True, "outcome": "no"}),
    ("games.chess.move_count", 2, 0, None),
]


@pytest.mark.parametrize("task_id,seed,level,query", SAMPLED)
def test_sample_state_is_the_generated_instance_without_its_picture(taxonomy, task_id, seed, level, query):
    task = taxonomy.tasks[task_id]
    drawn = tessera.sample_state(task, seed, level, query, taxonomy=taxonomy)
    inst = generate(task, seed, level, query, taxonomy.vocab)
    assert (drawn.task, drawn.seed, drawn.level) == (task_id, seed, level)
    assert drawn.query == inst.trace["query"] and (query is None or drawn.query == query)
    assert canonical_json(drawn.state) == canonical_json(inst.trace["state"])
    assert canonical_json(drawn.answer) == canonical_json(inst.answer)
    assert (drawn.prompt, drawn.label) == (inst.prompt, inst.label)
    steps = {k: traced(v, object_paths(drawn.state)) for k, v in drawn.steps.items()}
    assert canonical_json(steps) == canonical_json(inst.trace["steps"])
    assert (drawn.program_work, drawn.attempts) == (inst.trace["program_work"], inst.trace["attempts"])
    # the rejections before the accepted attempt; generate adds any illegible renders after it
    assert all(inst.trace["rejections"].get(k) == n for k, n in drawn.rejections.items())


def test_sample_state_checks_its_arguments_as_generate_does(taxonomy):
    task = taxonomy.tasks["graphs.maze.goal_reachable"]
    with pytest.raises(TesseraError, match=r"query \{'show_ends': True, 'outcome': 'maybe'\} is not in the query "
                                           r"space of graphs.maze.goal_reachable: outcome ∈ \['yes', 'no'\], "
                                           r"show_ends ∈ \[True\]$"):
        tessera.sample_state(task, 1, 0, {"show_ends": True, "outcome": "maybe"}, taxonomy=taxonomy)
    with pytest.raises(TesseraError, match="level must be between 0 and 9, got 10"):
        tessera.sample_state(task, 1, 10, taxonomy=taxonomy)
    with pytest.raises(TesseraError, match="seed must be an integer, got str"):
        tessera.sample_state(task, "1", 0, taxonomy=taxonomy)
