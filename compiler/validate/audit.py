"""`tessera audit DATASET --out DIR`: what a model could learn from a dataset without looking at its images.

Per task and overall: answer balance (distinct answers, normalised entropy, top-answer share, option letters, yes
share); shortcut baselines against chance (the majority answer, the most common answer for the same prompt text, a
naive Bayes classifier on the prompt's words, each cross-validated over 5 folds, and the options-only rules of
shortcuts.py); image diversity (dHash distances within a task, near-duplicate pairs within a task, across tasks and
across splits); level diversity (objects, program work, marks, answer magnitude and distinct answers per level);
and generation reliability (rejections and retries the manifest records).

Writes DIR/audit.json (for machines) and DIR/index.html (for people: tables and inline SVG plots, no scripts, no
network). The dataset is untrusted input: it is read through untrusted.py (sizes, types, patterns, shard hashes)
and anything malformed is an AuditInputError naming the file and row. Image hashes are recomputed from the decoded
pixels (never the phash column) and cached in DIR/cache/ under each shard's sha256, so a rerun decodes nothing.

Thresholds (DEFAULT_THRESHOLDS; a build config's `audit:` table, recorded in the manifest, then --threshold NAME=VALUE
override them) are only applied to tasks with at least `min_rows` rows: a rate over a handful of rows is reported,
never flagged.
"""
from __future__ import annotations

import json
import math
import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from .phash import BYTES as HASH_BYTES, SIDE as HASH_SIDE, dhash
from .shortcuts import (OPTION_LINE, OPTION_RULES, answer_index, as_fraction, edit_distance, fraction_slips, numbers,
                        option_texts)
from .untrusted import (MAX_SHARD_BYTES, MAX_SHARD_ROWS, Shard, UntrustedInput, check_row, decode_image_bounded,
                        is_int, read_bytes, read_manifest, row_where, sha256_file, shown)

AUDIT_FORMAT = "tessera.audit/1"
HASH_BITS = HASH_SIDE * HASH_SIDE
FOLDS = 5
MAX_CROSS_TASK_ROWS = 20_000  # cross-task pairs are all-pairs: above this, a deterministic sample by instance id
MAX_VOCABULARY = 2000  # naive Bayes words per task (the most frequent)
LEVEL_GROWTH_RHO = 0.5  # Spearman correlation of a figure's per-level means with the level that counts as growth

DEFAULT_THRESHOLDS: dict[str, float] = {
    "options_only_margin": 0.10,  # each option task's best options-only rule ≤ chance + this
    "options_learned_margin": 0.15,  # each option task's learned options-and-question scorer ≤ chance + this
    "yes_share_min": 0.40,  # each yes/no task's share of "yes" within [min, max]
    "yes_share_max": 0.60,
    "top_share_floor": 0.50,  # each task's top-answer share ≤ max(top_share_per_k / k, floor), k answers seen
    "top_share_per_k": 2.0,
    "level_growth": 1.0,  # 1: every task's answer or program work must grow with level; 0: report only
    "min_rows": 20.0,  # tasks with fewer rows are reported, never flagged
}
THRESHOLD_HELP = {
    "options_only_margin": "an option task's best options-only rule may beat chance by at most this",
    "options_learned_margin": "an option task's learned scorer (options and question words) may beat chance by at "
                              "most this (it learns, so it is allowed more noise than the fixed rules)",
    "yes_share_min": "a yes/no task's share of yes answers must be at least this",
    "yes_share_max": "a yes/no task's share of yes answers must be at most this",
    "top_share_floor": "the top-answer share limit is max(top_share_per_k / k, top_share_floor)",
    "top_share_per_k": "the top-answer share limit is max(top_share_per_k / k, top_share_floor)",
    "level_growth": "1: every task's answer or program work must grow with level (0 turns the check off)",
    "min_rows": "tasks with fewer rows are reported but never flagged",
}


class AuditInputError(UntrustedInput):
    """The dataset (or a threshold) cannot be audited; the CLI exits 2."""


# -- thresholds -------------------------------------------------------------------------------------------------
def _threshold_value(name: str, value: Any, where: str) -> float:
    if name not in DEFAULT_THRESHOLDS:
        raise AuditInputError(f"{where}: unknown threshold {shown(name)} (known: {', '.join(DEFAULT_THRESHOLDS)})")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise AuditInputError(f"{where}: threshold {name} needs a number, got {shown(value)}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise AuditInputError(f"{where}: threshold {name} needs a number ≥ 0, got {shown(value)}")
    return float(value)


def parse_threshold_args(items: list[str] | None) -> dict[str, float]:
    """--threshold NAME=VALUE arguments."""
    out = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not eq:
            raise AuditInputError(f"--threshold {shown(item)}: expected NAME=VALUE (names: "
                                  f"{', '.join(DEFAULT_THRESHOLDS)})")
        out[name.strip()] = _threshold_value(name.strip(), value.strip(), "--threshold")
    return out


def thresholds_for(manifest: dict, overrides: dict[str, float]) -> tuple[dict[str, float], dict[str, str]]:
    """Defaults, then the build config's `audit:` table recorded in the manifest, then the command line; with where
    each value came from."""
    values = dict(DEFAULT_THRESHOLDS)
    source = {k: "default" for k in values}
    config = manifest.get("config")
    table = config.get("audit") if isinstance(config, dict) else None
    if table is not None:
        if not isinstance(table, dict):
            raise AuditInputError(f"manifest.json: config.audit should be a table of thresholds, got "
                                  f"{type(table).__name__}")
        for name, value in table.items():
            if value is None:
                continue
            values[name] = _threshold_value(name, value, "manifest.json: config.audit")
            source[name] = "build config"
    for name, value in overrides.items():
        values[name] = value
        source[name] = "command line"
    if values["yes_share_min"] > values["yes_share_max"]:
        raise AuditInputError(f"thresholds: yes_share_min {values['yes_share_min']} is above yes_share_max "
                              f"{values['yes_share_max']}")
    return values, source


# -- reading the dataset ----------------------------------------------------------------------------------------
@dataclass
class Row:
    instance_id: str
    split: str
    task: str
    level: int
    answer_type: str
    prompt: str
    answer: str  # canonical JSON of the answer
    value: Any  # the parsed answer
    work: float | None
    objects: float | None
    marks: float | None
    options: list[str] | None
    right: int | None
    phash: bytes = b""
    text_px: float | None = None  # height of the smallest answer-bearing text (witness marks), final image pixels
    mark_px: float | None = None  # short side of the smallest answer-bearing non-text mark


def state_size(value: Any) -> int:
    """Scalar values in a state (records and lists count what they hold); iterative, the depth is capped anyway."""
    n, stack = 0, [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        else:
            n += 1
    return n


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value) else None


def magnitude(value: Any) -> float | None:
    """A numeric answer's size: |x| of a number, the length of a list or set answer; None for text."""
    x = _number(value)
    if x is not None:
        return abs(x)
    if isinstance(value, list):
        return float(len(value))
    return None


def answer_sizes(trace: dict) -> tuple[float | None, float | None]:
    """(smallest text height, smallest mark short side) in final-image pixels over the marks the witness names
    (the render map's entries at or under each witness object's path): how small the picture draws what the answer
    is read from, which is where a zoom tool can help. None where the witness names no text, or no other mark."""
    witness = trace.get("witness") if isinstance(trace.get("witness"), dict) else {}
    render = trace.get("render") if isinstance(trace.get("render"), dict) else {}
    render_map = render.get("render_map") if isinstance(render.get("render_map"), dict) else {}
    objects = witness.get("objects") if isinstance(witness.get("objects"), list) else []
    paths = [o for o in objects if isinstance(o, str)]
    text, mark = None, None
    for key, entry in render_map.items():
        if not (isinstance(key, str) and isinstance(entry, dict) and
                any(key == p or key.startswith((p + ".", p + "[")) for p in paths)):
            continue
        box = entry.get("bbox")
        if not (isinstance(box, list) and len(box) == 4 and all(_number(v) is not None for v in box)):
            continue
        w, h = float(box[2]) - float(box[0]), float(box[3]) - float(box[1])
        if entry.get("mark") == "text":
            text = h if text is None else min(text, h)
        else:
            mark = min(w, h) if mark is None else min(mark, w, h)
    return text, mark


def size_figures(rows: list[Row]) -> dict:
    """Per task: the smallest and the median answer-bearing text and mark sizes over its rows, and the smallest per
    level (levels can shrink them at a fixed canvas, to make a zoom tool worth calling)."""
    out: dict[str, Any] = {}
    for name in ("text_px", "mark_px"):
        values = [getattr(r, name) for r in rows if getattr(r, name) is not None]
        by_level: dict[int, float] = {}
        for r in rows:
            v = getattr(r, name)
            if v is not None:
                by_level[r.level] = min(by_level.get(r.level, v), v)
        out[name] = {"min": round(min(values), 2), "median": round(float(np.median(values)), 2),
                     "rows": len(values), "by_level": {lv: round(v, 2) for lv, v in sorted(by_level.items())}} \
            if values else None
    return out


READ_COLUMNS = ["instance_id", "split", "task", "answer_type", "level", "prompt", "answer", "label", "trace"]


def _row(raw: dict, parsed: dict, where: str, split: str) -> Row:
    if raw["split"] != split:
        raise AuditInputError(f"{where}: split column says {shown(raw['split'])}, the shard belongs to {split!r}")
    trace = parsed["trace"]
    work = _number(trace.get("program_work"))
    render = trace.get("render") if isinstance(trace.get("render"), dict) else {}
    decisions = render.get("decisions") if isinstance(render.get("decisions"), dict) else {}
    record = {"prompt": raw["prompt"], "answer_type": raw["answer_type"], "label": parsed["label"],
              "answer": parsed["answer"]}
    options = option_texts(record)
    right = answer_index(record) if options else None
    if right is not None and not 0 <= right < len(options):
        right = None
    text_px, mark_px = answer_sizes(trace)
    return Row(raw["instance_id"], split, raw["task"], raw["level"], raw["answer_type"], raw["prompt"],
               raw["answer"], parsed["answer"], work,
               float(state_size(trace["state"])) if "state" in trace else None, _number(decisions.get("marks")),
               options, right, text_px=text_px, mark_px=mark_px)


def _cache_path(out: Path, sha: str) -> Path:
    return out / "cache" / f"dhash-{sha}.bin"


def _cached_hashes(out: Path, sha: str, rows: int) -> list[bytes] | None:
    path = _cache_path(out, sha)
    if not path.is_file():
        return None
    try:
        data = read_bytes(path, MAX_SHARD_ROWS * HASH_BYTES, "hash cache")
    except UntrustedInput:
        return None
    if len(data) != rows * HASH_BYTES:
        return None  # another shard or a damaged cache: decode again
    return [data[i * HASH_BYTES:(i + 1) * HASH_BYTES] for i in range(rows)]


def _write_cache(out: Path, sha: str, hashes: list[bytes]) -> None:
    path = _cache_path(out, sha)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(b"".join(hashes))
    os.replace(tmp, path)


def read_dataset(dataset: Path, out: Path, progress=None) -> tuple[dict, list[Row], dict]:
    """The manifest, every row (checked), and what the reading cost (decoded images, cached shards)."""
    dataset = Path(dataset)
    if not dataset.exists():
        raise AuditInputError(f"{dataset}: no such dataset folder")
    if not dataset.is_dir():
        raise AuditInputError(f"{dataset}: not a folder (a dataset is the folder `tessera build --out` wrote)")
    if not (dataset / "manifest.json").exists():
        raise AuditInputError(f"{dataset}: no manifest.json; not a finished dataset (an interrupted build? rerun "
                              f"the same `tessera build` command to finish it)")
    try:
        manifest = read_manifest(dataset)
    except UntrustedInput as exc:
        raise AuditInputError(str(exc)) from None
    rows: list[Row] = []
    cost = {"decoded_images": 0, "cached_shards": 0, "shards": 0}
    total = sum(s["rows"] for s in manifest["splits"].values())
    job = progress.add_task("auditing", total=total) if progress else None
    for split, info in manifest["splits"].items():
        for f in info["files"]:
            name = f["name"]
            file = dataset / name
            cost["shards"] += 1
            try:
                sha = sha256_file(file, MAX_SHARD_BYTES, "Parquet shard")
            except UntrustedInput as exc:
                raise AuditInputError(str(exc).replace(str(file), name, 1)) from None
            if sha != f["sha256"]:
                raise AuditInputError(f"{name}: sha256 differs from the manifest (the file was changed after the "
                                      f"build); `tessera validate {dataset}` lists every problem")
            cached = _cached_hashes(out, sha, f["rows"])
            columns = READ_COLUMNS + ([] if cached is not None else ["image"])
            hashes: list[bytes] = []
            try:
                with Shard(file, name) as shard:
                    if shard.num_rows != f["rows"]:
                        raise AuditInputError(f"{name}: {shard.num_rows} rows, the manifest says {f['rows']}")
                    for index, raw in shard.rows(columns):
                        where = row_where(name, index, raw)
                        parsed, problems = check_row(raw, columns)
                        if problems:
                            raise AuditInputError(f"{where}: {problems[0]}")
                        if not isinstance(parsed["trace"].get("state", {}), (dict, list)):
                            raise AuditInputError(f"{where}: field 'trace': state should be an object")
                        row = _row(raw, parsed, where, split)
                        if cached is None:
                            try:
                                row.phash = dhash(decode_image_bounded(raw["image"]["bytes"]))
                            except UntrustedInput as exc:
                                raise AuditInputError(f"{where}: image does not decode: {exc}") from None
                            cost["decoded_images"] += 1
                            hashes.append(row.phash)
                        else:
                            row.phash = cached[index]
                        rows.append(row)
                        if progress:
                            progress.advance(job)
            except AuditInputError:
                raise
            except UntrustedInput as exc:
                raise AuditInputError(str(exc).replace(str(file), name, 1)) from None
            if cached is None:
                _write_cache(out, sha, hashes)
            else:
                cost["cached_shards"] += 1
    if not rows:
        raise AuditInputError(f"{dataset}: the dataset holds no rows")
    return manifest, rows, cost


# -- statistics -------------------------------------------------------------------------------------------------
def normalised_entropy(counts: list[int]) -> float:
    """Shannon entropy of the answer distribution over log(k) for k distinct answers (1: uniform, 0: one answer)."""
    k = len(counts)
    n = sum(counts)
    if k <= 1 or n == 0:
        return 0.0
    p = np.array(counts, dtype=float) / n
    return float(-(p * np.log(p)).sum() / math.log(k))


def top_share_limit(k: int, thresholds: dict) -> float:
    return max(thresholds["top_share_per_k"] / k if k else 1.0, thresholds["top_share_floor"])


def folds(rows: list[Row]) -> np.ndarray:
    """Fold of each row, from its instance id: the same rows land in the same fold on every run."""
    return np.array([int(r.instance_id[:8], 16) % FOLDS for r in rows])


def _most_common(counter: Counter) -> str:
    best = max(counter.values())
    return min(a for a, n in counter.items() if n == best)  # ties broken by the answer text: deterministic


def cv_majority(rows: list[Row], fold: np.ndarray) -> float:
    hits = 0
    for k in range(FOLDS):
        train = Counter(r.answer for r, f in zip(rows, fold) if f != k)
        if not train:
            continue
        guess = _most_common(train)
        hits += sum(1 for r, f in zip(rows, fold) if f == k and r.answer == guess)
    return hits / len(rows)


def cv_prompt_lookup(rows: list[Row], fold: np.ndarray) -> float:
    """The most common answer among training rows with the same prompt text (else the majority answer)."""
    hits = 0
    for k in range(FOLDS):
        by_prompt: dict[str, Counter] = defaultdict(Counter)
        overall = Counter()
        for r, f in zip(rows, fold):
            if f != k:
                by_prompt[r.prompt][r.answer] += 1
                overall[r.answer] += 1
        if not overall:
            continue
        fallback = _most_common(overall)
        for r, f in zip(rows, fold):
            if f == k:
                seen = by_prompt.get(r.prompt)
                hits += (_most_common(seen) if seen else fallback) == r.answer
    return hits / len(rows)


_WORD = re.compile(r"\w+")


def cv_naive_bayes(rows: list[Row], fold: np.ndarray, alpha: float = 1.0) -> float:
    """Multinomial naive Bayes on the prompt's lower-cased words (Laplace smoothing), cross-validated."""
    docs = [Counter(_WORD.findall(r.prompt.lower())) for r in rows]
    hits = 0
    for k in range(FOLDS):
        train = [i for i, f in enumerate(fold) if f != k]
        test = [i for i, f in enumerate(fold) if f == k]
        if not train or not test:
            continue
        freq = Counter()
        for i in train:
            freq.update(docs[i].keys())
        vocab = {w: j for j, (w, _) in enumerate(sorted(freq.items(), key=lambda wn: (-wn[1], wn[0]))
                                                 [:MAX_VOCABULARY])}
        classes = sorted({rows[i].answer for i in train})
        cls = {a: c for c, a in enumerate(classes)}

        def matrix(idx):
            m = np.zeros((len(idx), len(vocab)), dtype=np.float64)
            for row, i in enumerate(idx):
                for w, n in docs[i].items():
                    j = vocab.get(w)
                    if j is not None:
                        m[row, j] = n
            return m

        x_train, x_test = matrix(train), matrix(test)
        y = np.array([cls[rows[i].answer] for i in train])
        counts = np.zeros((len(classes), len(vocab)))
        np.add.at(counts, y, x_train)
        log_word = np.log(counts + alpha) - np.log((counts + alpha).sum(axis=1, keepdims=True))
        log_prior = np.log(np.bincount(y, minlength=len(classes)) / len(y))
        scores = x_test @ log_word.T + log_prior
        guess = scores.argmax(axis=1)  # argmax takes the first of equal scores: the smallest answer text
        hits += sum(1 for g, i in zip(guess, test) if classes[g] == rows[i].answer)
    return hits / len(rows)


def options_only(rows: list[Row]) -> dict | None:
    """Each options-only rule's accuracy over the rows that show options; a rule that cannot decide counts as a
    guess among the options (1/n), so no rule scores below chance by abstaining."""
    shown_rows = [r for r in rows if r.options and r.right is not None]
    if not shown_rows:
        return None
    chance = sum(1 / len(r.options) for r in shown_rows) / len(shown_rows)
    rules = {}
    for name, rule in OPTION_RULES.items():
        hits = decided = 0
        expected = 0.0
        for r in shown_rows:
            pick = rule(r.options)
            if pick is None:
                expected += 1 / len(r.options)
            else:
                decided += 1
                hits += pick == r.right
                expected += pick == r.right
        rules[name] = {"accuracy": expected / len(shown_rows), "hits": hits, "decided": decided}
    best = max(rules, key=lambda n: (rules[n]["accuracy"], -list(OPTION_RULES).index(n)))
    return {"rows": len(shown_rows), "chance": chance, "rules": rules, "best_rule": best,
            "best_accuracy": rules[best]["accuracy"]}


_QUESTION_TOKEN = re.compile(r"\w(?:[\w:/.\-]*\w)?")
MAX_QUESTION_MATCHES = 4


def _shape(text: str) -> str:
    return "".join("a" if c.isalpha() else "9" if c.isdigit() else c for c in text)


def question_tokens(prompt: str, options: list[str]) -> list[str]:
    """Words of the prompt outside its option lines (a square, a time, a label the question names)."""
    shown_options = set(options)
    lines = [ln for ln in prompt.splitlines() if not ((m := OPTION_LINE.match(ln)) and m[2] in shown_options)]
    return _QUESTION_TOKEN.findall("\n".join(lines))


def option_features(texts: list[str], i: int, question: list[str] = ()) -> list[str]:
    """What a model could see in option i without the image: its rank among the options, how each other option
    differs from it (the signed offset and ratio of numbers and times, fraction slips, the edit distance of text),
    and how it differs from same-shaped words of the question, character by character ("f6" against "e4": +1, +2;
    which of them stay equal; whether every step is as large)."""
    n = len(texts)
    feats = [f"n:{n}"]
    nums = numbers(texts)
    if nums is not None:
        v = nums.values
        feats.append(f"rank:{sorted(v).index(v[i])}/{n}")
        parts = [as_fraction(f, x) for f, x in zip(nums.fractions, v)] if any(nums.fractions) else None
        slips = fraction_slips(*parts[i]) if parts and parts[i] else {}
        for j in range(n):
            if j != i:
                feats.append(f"d:{v[j] - v[i]:+.4g}")
                if v[i]:
                    feats.append(f"r:{v[j] / v[i]:.4g}")
                if slips and parts[j]:
                    feats += [f"s:{name}" for name, x in slips.items() if x == Fraction(*parts[j])]
    else:
        lengths = [len(t) for t in texts]
        feats.append(f"lrank:{sorted(lengths).index(lengths[i])}/{n}")
        folded = [t.casefold() for t in texts]
        feats += [f"e:{min(edit_distance(folded[i], folded[j]), 6)}" for j in range(n) if j != i]
    option = texts[i].strip()
    shape = _shape(option)
    matches = [t for t in dict.fromkeys(question) if t != option and _shape(t) == shape][:MAX_QUESTION_MATCHES]
    for t in matches:
        steps = [ord(a) - ord(b) for a, b in zip(option, t)]
        moved = sorted(abs(x) for x in steps if x)
        feats.append(f"qd:{steps}")
        feats.append(f"qa:{moved}")
        feats.append("qsame:" + "".join("=" if x == 0 else "~" for x in steps))
        if len(moved) > 1 and len(set(moved)) == 1:
            feats.append("qeven")
    return feats


def cv_options_learned(rows: list[Row], fold: np.ndarray) -> float:
    """A naive Bayes scorer of 'is this the right option' over option_features (the options and the question's words,
    never the image), trained on the other folds; the highest-scoring option is picked (a tie is a guess among the
    tied). The rules of shortcuts.py are fixed; this one learns whatever relation the task's wrong options keep to
    the right one, or the right one to the question."""
    shown_rows = [(r, f) for r, f in zip(rows, fold) if r.options and r.right is not None]
    if not shown_rows:
        return 0.0
    feats = []
    for r, _ in shown_rows:
        question = question_tokens(r.prompt, r.options)
        feats.append([Counter(option_features(r.options, i, question)) for i in range(len(r.options))])
    expected = 0.0
    for k in range(FOLDS):
        right, wrong = Counter(), Counter()
        for (r, f), per_option in zip(shown_rows, feats):
            if f != k:
                for i, c in enumerate(per_option):
                    (right if i == r.right else wrong).update(c)
        if not right:
            continue
        vocab = len(set(right) | set(wrong)) + 1
        n_right, n_wrong = sum(right.values()) + vocab, sum(wrong.values()) + vocab
        for (r, f), per_option in zip(shown_rows, feats):
            if f != k:
                continue
            scores = [sum(c * (math.log((right[t] + 1) / n_right) - math.log((wrong[t] + 1) / n_wrong))
                          for t, c in per_option[i].items()) for i in range(len(per_option))]
            best = max(scores)
            tied = [i for i, sc in enumerate(scores) if math.isclose(sc, best, rel_tol=1e-9, abs_tol=1e-9)]
            expected += (r.right in tied) / len(tied)
    return expected / len(shown_rows)


def _ranks(values: list[float]) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values), dtype=float)
    sorted_values = np.asarray(values)[order]
    i = 0
    while i < len(values):  # ties share their mean rank
        j = i
        while j + 1 < len(values) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(xs: list[float], ys: list[float]) -> float:
    if len(xs) < 2:
        return 0.0
    rx, ry = _ranks(xs), _ranks(ys)
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def growth(per_level: dict[int, float]) -> dict:
    """Does a figure grow from the lowest level present to the highest? Its per-level means must rise overall
    (highest above lowest) and rank-correlate with the level (Spearman ρ ≥ LEVEL_GROWTH_RHO)."""
    levels = sorted(per_level)
    if len(levels) < 2:
        return {"grows": False, "rho": 0.0, "low": None, "high": None}
    values = [per_level[lv] for lv in levels]
    rho = spearman(levels, values)
    grows = values[-1] > values[0] and rho >= LEVEL_GROWTH_RHO
    return {"grows": bool(grows), "rho": rho, "low": values[0], "high": values[-1]}


SATURATED_SHARE = 0.75  # distinct answers per row at every level above which answer variety is saturated


def level_figures(rows: list[Row]) -> dict:
    by_level: dict[int, list[Row]] = defaultdict(list)
    for r in rows:
        by_level[r.level].append(r)
    figures: dict[str, dict[int, float]] = {"objects": {}, "work": {}, "marks": {}, "answer_magnitude": {},
                                            "distinct_answers": {}}
    counts = {}
    for lv in sorted(by_level):
        group = by_level[lv]
        counts[lv] = len(group)
        for name, get in (("objects", lambda r: r.objects), ("work", lambda r: r.work), ("marks", lambda r: r.marks),
                          ("answer_magnitude", lambda r: magnitude(r.value))):
            values = [v for v in map(get, group) if v is not None]
            if values and len(values) == len(group):
                figures[name][lv] = float(np.mean(values))
        figures["distinct_answers"][lv] = float(len({r.answer for r in group}))
    figures = {k: v for k, v in figures.items() if v}
    grows = {k: growth(v) for k, v in figures.items()}
    answer_key = "answer_magnitude" if "answer_magnitude" in figures else "distinct_answers"
    answer_or_work = grows.get(answer_key, {}).get("grows", False) or grows.get("work", {}).get("grows", False)
    # A reading whose range the picture fixes (a clock hand's angle, a gauge's value) cannot grow in size, and when
    # nearly every row of every level already has its own answer, answer variety cannot grow within the sample
    # either: such a task is harder only through its scene (finer ticks, more objects), which then must grow.
    saturated = all(figures["distinct_answers"][lv] >= SATURATED_SHARE * counts[lv] for lv in counts) and \
        not grows.get("answer_magnitude", {}).get("grows", False)
    scene = grows.get("objects", {}).get("grows", False) or grows.get("marks", {}).get("grows", False)
    return {"rows_per_level": counts, "per_level": figures, "growth": grows, "answer_figure": answer_key,
            "answers_saturated": saturated,
            "answer_or_work_grows": answer_or_work or (saturated and scene),
            "flat": not any(g["grows"] for g in grows.values()), "levels": len(counts)}


# -- image hashes -----------------------------------------------------------------------------------------------
def _hash_matrix(hashes: list[bytes]) -> np.ndarray:
    return np.frombuffer(b"".join(hashes), dtype=np.uint8).reshape(len(hashes), HASH_BYTES).view(np.uint64)


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).sum(axis=-1)
    return np.unpackbits(x.view(np.uint8), axis=-1).sum(axis=-1)


def pairwise_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamming distances between every hash of a and every hash of b (rows of 4 × uint64)."""
    return _popcount(a[:, None, :] ^ b[None, :, :]).astype(np.int32)


HIST_BIN = 8


def hash_diversity(rows: list[Row], bits: int, chunk: int = 256) -> dict:
    """Distances between every pair of a task's images (a chunk of rows at a time, so a large task stays small in
    memory): their histogram, and the near-duplicate pairs (within `bits`), also those across splits."""
    m = _hash_matrix([r.phash for r in rows])
    n = len(rows)
    hist = np.zeros(HASH_BITS // HIST_BIN + 1, dtype=np.int64)
    splits = np.array([r.split for r in rows])
    near = cross_split = 0
    examples: list = []
    low, total = None, 0
    for start in range(0, n, chunk):
        d = pairwise_distances(m[start:start + chunk], m)
        ii, jj = _upper_pairs(d.shape[0], n, start)
        pairs = d[ii, jj]
        total += len(pairs)
        if not len(pairs):
            continue
        hist += np.bincount(np.minimum(pairs // HIST_BIN, HASH_BITS // HIST_BIN), minlength=len(hist))
        low = int(pairs.min()) if low is None else min(low, int(pairs.min()))
        hit = pairs <= bits
        near += int(hit.sum())
        cross_split += int((splits[ii[hit] + start] != splits[jj[hit]]).sum())
        for i, j, x in zip(ii[hit][:5], jj[hit][:5], pairs[hit][:5]):
            if len(examples) < 5:
                examples.append([rows[i + start].instance_id, rows[j].instance_id, int(x)])
    median = _histogram_median(hist) if total else None
    return {"pairs": total, "min_distance": low, "median_bin": median, "histogram": hist.tolist(),
            "near_duplicate_pairs": near, "split_near_duplicate_pairs": cross_split, "examples": examples}


def _upper_pairs(rows_in_chunk: int, n: int, start: int) -> tuple[np.ndarray, np.ndarray]:
    """(i within the chunk, j over all rows) with start + i < j: each pair once."""
    i, j = np.nonzero(np.arange(n)[None, :] > (np.arange(rows_in_chunk) + start)[:, None])
    return i, j


def _histogram_median(hist: np.ndarray) -> int:
    """Lower edge of the histogram bin holding the median distance."""
    cum = np.cumsum(hist)
    return int(np.searchsorted(cum, cum[-1] / 2)) * HIST_BIN


def cross_task_near_duplicates(rows: list[Row], bits: int) -> dict:
    """Pairs of images of different tasks within `bits`, counted per task pair (a sample above
    MAX_CROSS_TASK_ROWS rows)."""
    sample = rows
    if len(rows) > MAX_CROSS_TASK_ROWS:
        sample = sorted(rows, key=lambda r: r.instance_id)[:MAX_CROSS_TASK_ROWS]
    m = _hash_matrix([r.phash for r in sample])
    tasks = np.array([r.task for r in sample])
    by_pair: Counter = Counter()
    examples: dict[tuple, list] = {}
    chunk = 256
    for start in range(0, len(sample), chunk):
        d = pairwise_distances(m[start:start + chunk], m)
        ii, jj = np.nonzero(d <= bits)
        for i, j in zip(ii + start, jj):
            if j <= i or tasks[i] == tasks[j]:
                continue
            key = tuple(sorted((str(tasks[i]), str(tasks[j]))))
            by_pair[key] += 1
            examples.setdefault(key, [sample[i].instance_id, sample[j].instance_id, int(d[i - start, j])])
    listed = [{"tasks": list(k), "pairs": n, "example": examples[k]}
              for k, n in sorted(by_pair.items(), key=lambda kv: (-kv[1], kv[0]))]
    return {"rows_compared": len(sample), "sampled": len(sample) < len(rows), "pairs": sum(by_pair.values()),
            "task_pairs": listed}


# -- reliability ------------------------------------------------------------------------------------------------
def reliability(manifest: dict) -> list[dict]:
    stats = manifest.get("tasks")
    if stats is None:
        return []
    if not isinstance(stats, dict):
        raise AuditInputError("manifest.json: 'tasks' should be an object of task → build statistics")
    out = []
    for task, st in stats.items():
        where = f"manifest.json: tasks.{shown(task, 80)}"
        if not isinstance(st, dict):
            raise AuditInputError(f"{where}: expected an object")
        tallies = {}
        for key in ("rejected", "retries"):
            table = st.get(key, {})
            if not isinstance(table, dict) or not all(isinstance(k, str) and is_int(v) and v >= 0
                                                      for k, v in table.items()):
                raise AuditInputError(f"{where}.{key}: expected an object of reason → count")
            tallies[key] = table
        accepted, attempts = st.get("accepted", 0), st.get("attempts", 0)
        if not (is_int(accepted) and is_int(attempts) and accepted >= 0 and attempts >= 0):
            raise AuditInputError(f"{where}: accepted and attempts should be counts")
        rejected = sum(tallies["rejected"].values())
        retries = sum(tallies["retries"].values())
        out.append({"task": task, "accepted": accepted, "attempts": attempts, "rejected": rejected,
                    "retries": retries, "reject_rate": rejected / attempts if attempts else 0.0,
                    "retries_per_row": retries / accepted if accepted else 0.0,
                    "reasons": dict(Counter(tallies["rejected"]).most_common(4)),
                    "retry_reasons": dict(Counter(tallies["retries"]).most_common(4))})
    out.sort(key=lambda s: (-s["reject_rate"], -s["retries_per_row"], s["task"]))
    return out


# -- per task ---------------------------------------------------------------------------------------------------
def display(value: Any) -> str:
    """An answer as a person reads it: text as itself, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def audit_task(rows: list[Row], bits: int) -> dict:
    answers = Counter(r.answer for r in rows)
    shown_as = {r.answer: display(r.value) for r in rows}
    n = len(rows)
    k = len(answers)
    top_answer = _most_common(answers)
    top_n = answers[top_answer]
    fold = folds(rows)
    info: dict[str, Any] = {
        "rows": n, "rows_per_split": dict(sorted(Counter(r.split for r in rows).items())),
        "answer_type": Counter(r.answer_type for r in rows).most_common(1)[0][0],
        "distinct_answers": k, "entropy": normalised_entropy(list(answers.values())),
        "top_answer": shown_as[top_answer], "top_count": top_n, "top_share": top_n / n,
        "answer_counts": {shown_as[a]: c for a, c in sorted(answers.items(), key=lambda an: (-an[1], an[0]))[:12]},
    }
    if info["answer_type"] == "boolean":
        yes = sum(1 for r in rows if r.value is True)
        info["yes"] = {"share": yes / n, "yes": yes, "n": n}
    letters = Counter(r.value for r in rows if r.answer_type == "option" and isinstance(r.value, str))
    if letters:
        info["letters"] = dict(sorted(letters.items()))
    opts = options_only(rows) if info["answer_type"] == "option" else None
    if info["answer_type"] == "option":
        chance = opts["chance"] if opts else 1 / max(len(letters), 1)
    else:
        chance = 1 / k
    info["baselines"] = {"chance": chance, "majority": cv_majority(rows, fold),
                         "prompt_lookup": cv_prompt_lookup(rows, fold), "naive_bayes": cv_naive_bayes(rows, fold),
                         "folds": FOLDS}
    if opts:
        opts["learned"] = cv_options_learned(rows, fold)
        info["options_only"] = opts
    info["images"] = hash_diversity(rows, bits)
    info["levels"] = level_figures(rows)
    info["sizes"] = size_figures(rows)
    return info


Z_ONE_SIDED_95 = 1.645


def significantly_above(rate: float, n: int, limit: float) -> bool:
    """Does a shortcut's accuracy over n rows beat `limit` beyond sampling noise? Its one-sided 95 % lower bound
    (normal approximation of the binomial) must exceed the limit: 38 % on 66 rows against a limit of 35 % is noise,
    84 % is not. (A build's options-only gate already thins every rule its pilot saw above chance.)"""
    if rate <= limit:
        return False
    return rate - Z_ONE_SIDED_95 * math.sqrt(max(rate * (1 - rate), 1e-12) / max(n, 1)) > limit


def _violations(task: str, info: dict, th: dict) -> list[dict]:
    if info["rows"] < th["min_rows"]:
        return []
    out = []
    opts = info.get("options_only")
    if opts and significantly_above(opts["best_accuracy"], opts["rows"], opts["chance"] + th["options_only_margin"]):
        out.append({"threshold": "options_only", "task": task, "value": opts["best_accuracy"],
                    "limit": opts["chance"] + th["options_only_margin"],
                    "detail": f"rule {opts['best_rule']} is right {opts['best_accuracy']:.0%} of {opts['rows']} "
                              f"rows, chance {opts['chance']:.0%}"})
    if opts and significantly_above(opts["learned"], opts["rows"], opts["chance"] + th["options_learned_margin"]):
        out.append({"threshold": "options_learned", "task": task, "value": opts["learned"],
                    "limit": opts["chance"] + th["options_learned_margin"],
                    "detail": f"a scorer trained on the options and the question's words (no image) is right "
                              f"{opts['learned']:.0%} of {opts['rows']} rows, chance {opts['chance']:.0%}"})
    yes = info.get("yes")
    if yes and not th["yes_share_min"] <= yes["share"] <= th["yes_share_max"]:
        out.append({"threshold": "yes_share", "task": task, "value": yes["share"],
                    "limit": [th["yes_share_min"], th["yes_share_max"]],
                    "detail": f"{yes['yes']} of {yes['n']} answers are yes"})
    limit = top_share_limit(info["distinct_answers"], th)
    if info["top_share"] > limit + 1e-12:
        out.append({"threshold": "top_share", "task": task, "value": info["top_share"], "limit": limit,
                    "detail": f"{info['top_answer']} is {info['top_count']} of {info['rows']} answers "
                              f"({info['distinct_answers']} distinct)"})
    lv = info["levels"]
    if th["level_growth"] and lv["levels"] >= 2 and not lv["answer_or_work_grows"]:
        g = lv["growth"]
        shown_g = ", ".join(f"{k} ρ={v['rho']:.2f}" for k, v in g.items() if k in (lv["answer_figure"], "work"))
        out.append({"threshold": "level_growth", "task": task, "value": 0, "limit": 1,
                    "detail": f"neither the answer nor the program work grows over {lv['levels']} levels "
                              f"({shown_g})"})
    return out


# -- the whole audit --------------------------------------------------------------------------------------------
@dataclass
class AuditResult:
    report: dict
    violations: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_round(v) for v in value]
    return value


def _weighted(tasks: dict, get) -> float | None:
    pairs = [(info["rows"], v) for info in tasks.values() if (v := get(info)) is not None]
    total = sum(n for n, _ in pairs)
    return sum(n * v for n, v in pairs) / total if total else None


def headline(tasks: dict, violations: list[dict], th: dict, cross: dict, rel: list[dict], rows: list[Row]) -> dict:
    by = defaultdict(set)
    for v in violations:
        by[v["threshold"]].add(v["task"])
    big = {t: i for t, i in tasks.items() if i["rows"] >= th["min_rows"]}
    option_tasks = [t for t, i in big.items() if i.get("options_only")]
    yes_tasks = [t for t, i in big.items() if i.get("yes")]
    attempts = sum(s["attempts"] for s in rel)
    return {
        "tasks": len(tasks), "rows": len(rows), "tasks_flaggable": len(big),
        "option_tasks_within_options_only_limit": [len(option_tasks) - len(by["options_only"]), len(option_tasks)],
        "option_tasks_within_options_learned_limit": [len(option_tasks) - len(by["options_learned"]),
                                                      len(option_tasks)],
        "yes_no_tasks_within_yes_share": [len(yes_tasks) - len(by["yes_share"]), len(yes_tasks)],
        "tasks_within_top_share_limit": [len(big) - len(by["top_share"]), len(big)],
        "tasks_whose_answer_or_work_grows": [len(big) - len(by["level_growth"]), len(big)],
        "tasks_flat_with_level": sum(1 for i in big.values() if i["levels"]["flat"] and i["levels"]["levels"] >= 2),
        "mean_top_share": _weighted(tasks, lambda i: i["top_share"]),
        "mean_entropy": _weighted(tasks, lambda i: i["entropy"]),
        "mean_chance": _weighted(tasks, lambda i: i["baselines"]["chance"]),
        "mean_majority": _weighted(tasks, lambda i: i["baselines"]["majority"]),
        "mean_prompt_lookup": _weighted(tasks, lambda i: i["baselines"]["prompt_lookup"]),
        "mean_naive_bayes": _weighted(tasks, lambda i: i["baselines"]["naive_bayes"]),
        "mean_options_only_best": _weighted(tasks, lambda i: (i.get("options_only") or {}).get("best_accuracy")),
        "mean_options_learned": _weighted(tasks, lambda i: (i.get("options_only") or {}).get("learned")),
        "mean_options_only_chance": _weighted(tasks, lambda i: (i.get("options_only") or {}).get("chance")),
        "pooled_yes_share": _pooled_yes(tasks),
        "near_duplicate_pairs_within_tasks": sum(i["images"]["near_duplicate_pairs"] for i in tasks.values()),
        "near_duplicate_pairs_across_splits": sum(i["images"]["split_near_duplicate_pairs"] for i in tasks.values()),
        "near_duplicate_pairs_across_tasks": cross["pairs"],
        "reject_rate": sum(s["rejected"] for s in rel) / attempts if attempts else None,
        "violations": len(violations),
    }


def _pooled_yes(tasks: dict) -> float | None:
    yes = [i["yes"] for i in tasks.values() if i.get("yes")]
    n = sum(y["n"] for y in yes)
    return sum(y["yes"] for y in yes) / n if n else None


def level_schedules(manifest: dict, tasks: list[str], taxonomy) -> tuple[dict[str, dict | None], list[str]]:
    """Each task's difficulty schedule (`levels:` parameter → its value at levels 0-9, grammar's then program's), read
    from the library when its grammar and program are the ones that built the dataset (else None: the library's
    schedule may not be the one the rows were drawn with); and a note per parameter that never changes."""
    from ..codegen.levels import level_schedule

    inputs = (manifest.get("taxonomy") or {}).get("inputs") or {}
    schedules: dict[str, dict | None] = {}
    notes: list[str] = []
    for t in tasks:
        was = inputs.get(t) if isinstance(inputs.get(t), dict) else {}
        if taxonomy is None or t not in taxonomy.tasks:
            schedules[t] = None
            continue
        task = taxonomy.tasks[t]
        if was.get("program") != task.spec_hash or was.get("grammar") != task.grammar.spec_hash:
            schedules[t] = None
            notes.append(f"{t}: its grammar or program changed in the library since the build; schedule not shown")
            continue
        schedules[t] = level_schedule(task)
        notes += [f"{t}: levels parameter '{name}' is {values[0]!r} at every level (it never changes anything)"
                  for name, values in schedules[t].items() if all(v == values[0] for v in values)]
    return schedules, notes


def run_audit(dataset: Path, out: Path, overrides: dict[str, float] | None = None, progress=None,
              near_duplicate_bits: int | None = None, taxonomy=None) -> AuditResult:
    """near_duplicate_bits: the dHash distance at or under which two images count as near-duplicates (default: the
    build's own bound from the manifest, 12 unless its config says otherwise). taxonomy: the library, when given;
    each task's level schedule is read from it (level_schedules)."""
    dataset, out = Path(dataset), Path(out)
    if near_duplicate_bits is not None and not 0 <= near_duplicate_bits <= HASH_BITS:
        raise AuditInputError(f"--near-duplicate-bits should be 0..{HASH_BITS}, got {near_duplicate_bits}")
    if out.exists() and not out.is_dir():
        raise AuditInputError(f"{out}: --out is a file; give a folder for the report")
    out.mkdir(parents=True, exist_ok=True)
    manifest, rows, cost = read_dataset(dataset, out, progress)
    th, source = thresholds_for(manifest, overrides or {})
    bits = manifest.get("split_overlap", {}).get("near_duplicate_bits", 12)
    if near_duplicate_bits is not None:
        bits = near_duplicate_bits
    by_task: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_task[r.task].append(r)
    tasks = {t: audit_task(by_task[t], bits) for t in sorted(by_task)}
    schedules, level_notes = level_schedules(manifest, sorted(by_task), taxonomy)
    for t, schedule in schedules.items():
        tasks[t]["level_schedule"] = schedule
    violations = [v for t, info in tasks.items() for v in _violations(t, info, th)]
    cross = cross_task_near_duplicates(rows, bits)
    rel = reliability(manifest)
    letters = Counter()
    for info in tasks.values():
        letters.update(info.get("letters", {}))
    report = {
        "format": AUDIT_FORMAT, "dataset": str(dataset), "build": manifest.get("build"),
        "thresholds": th, "threshold_sources": source, "near_duplicate_bits": bits,
        "headline": headline(tasks, violations, th, cross, rel, rows),
        "overall": {"rows_per_split": dict(Counter(r.split for r in rows)), "letters": dict(sorted(letters.items())),
                    "answer_types": dict(sorted(Counter(i["answer_type"] for i in tasks.values()).items()))},
        "tasks": tasks, "cross_task_near_duplicates": cross, "reliability": rel,
        "violations": violations, "worst": worst_offenders(tasks, violations), "ok": not violations,
        "reading": cost, "level_notes": level_notes,
    }
    report = _round(report)
    (out / "audit.json").write_text(json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    from .audit_html import write_html

    write_html(report, out / "index.html")
    return AuditResult(report, report["violations"])


def worst_offenders(tasks: dict, violations: list[dict], n: int = 5) -> dict:
    """Per threshold, the tasks furthest past it (largest excess first)."""
    out = {}
    for name in sorted({v["threshold"] for v in violations}):
        hits = [v for v in violations if v["threshold"] == name]

        def excess(v):
            if name == "yes_share":
                lo, hi = v["limit"]
                return max(lo - v["value"], v["value"] - hi)
            if name == "level_growth":  # how far the better of the answer and work figures is from growing
                lv = tasks[v["task"]]["levels"]
                return -max((g["rho"] for k, g in lv["growth"].items() if k in (lv["answer_figure"], "work")),
                            default=0.0)
            return v["value"] - v["limit"]
        out[name] = [{"task": v["task"], "excess": excess(v), "detail": v["detail"]}
                     for v in sorted(hits, key=lambda v: (-excess(v), v["task"]))[:n]]
    return out
