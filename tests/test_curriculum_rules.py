"""The curriculum's level-selection rules (threshold, uncertainty, margin) and paired asking, on scripted outcomes:
the threshold rule repeats the choices of earlier runs, the uncertainty rule prefers a pass rate near 1/2, the
margin rule the largest with-minus-without-tools accuracy, paired groups are the configured share, and the rule's
state survives a save and a restore with the same choices after it."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from tessera.errors import TesseraError
from tessera.sample.rng import Rng, derive_seed
from tessera.training.curriculum import (
    STATE_FORMAT, Curriculum, CurriculumActor, CurriculumConfig, CurriculumService, CurriculumStore)

SEEDS = range(2000)

# A state file and config as tessera wrote them before the rules existed (format 1, no outcome windows), and the
# levels that code chose from it for seeds 0..15 (task t.a, levels 0..1) and 0..23 (task t.b, levels 3..6).
OLD_STATE = {
    "format": "tessera.curriculum/1",
    "config": {"enabled": True, "threshold": 0.8, "buffer_size": 4, "level_window": 4, "start_level": 0,
               "max_level": 9, "gate": "off", "gate_weight": 0.1, "save_interval": 5.0},
    "rollouts": 6, "levels": {"t.a": 1, "t.b": 6}, "buffers": {"t.a": [], "t.b": [0.0]},
    "promotions": [{"task": "t.a", "from": 0, "to": 1, "accuracy": 1.0, "rollout": 4}]}
OLD_CHOICES_A = [0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0]
OLD_CHOICES_B = [3, 5, 5, 3, 5, 4, 3, 6, 5, 3, 4, 6, 4, 3, 3, 3, 5, 5, 6, 5, 6, 5, 6, 4]


def scripted(config: CurriculumConfig, task: str, current: int, outcomes: dict) -> Curriculum:
    """A curriculum whose task sits at `current` with, per level, outcomes {tools: [...], plain: [...]}."""
    c = Curriculum(config)
    c.levels[task] = current
    for level, kinds in outcomes.items():
        for tools, results in kinds.items():
            for accuracy in results:
                assert c.record(task, level, accuracy, tools=tools) is None  # never a promotion here
    assert c.level(task) == current
    return c


def shares(c: Curriculum, task: str) -> Counter:
    return Counter(c.choose_level(task, seed) for seed in SEEDS)


def test_threshold_rule_repeats_the_choices_of_an_old_state_and_config(tmp_path):
    config = CurriculumConfig.from_mapping(OLD_STATE["config"])  # an old config: no rule keys, so threshold
    assert config.rule == "threshold" and config.paired_share == 0.0
    (tmp_path / "curriculum.json").write_text(json.dumps(OLD_STATE))
    service = CurriculumService(config, CurriculumStore(tmp_path), restore=True)
    c = service.curriculum
    assert service.restored_from.endswith("curriculum.json") and c.levels == {"t.a": 1, "t.b": 6}
    assert list(c.buffers["t.b"]) == [0.0] and c.outcomes == {}
    assert [service.level_for("t.a", s) for s in range(16)] == OLD_CHOICES_A
    assert [service.level_for("t.b", s) for s in range(24)] == OLD_CHOICES_B
    # Outcome windows do not move threshold choices: it is the uniform draw of the old stream, recomputed here.
    for level, accuracy in [(3, 1.0), (4, 0.0), (5, 1.0), (6, 0.0)] * 8:
        service.record("t.b", level, accuracy, tools=level % 2 == 0)
    assert c.level("t.b") == 6 and len(c.outcomes["t.b"][3]["plain"]) == 8
    for seed in range(24):
        rng = Rng(derive_seed(seed, "t.b", "curriculum/6"))
        assert c.choose_level("t.b", seed) == 3 + rng.below(4) == OLD_CHOICES_B[seed]
    log = [json.loads(line) for line in (tmp_path / "curriculum_log.jsonl").read_text().splitlines()]
    assert [e["event"] for e in log] == ["restore"]  # the threshold rule logs no choices
    saved = c.state_dict()
    assert saved["format"] == STATE_FORMAT == "tessera.curriculum/2"
    assert saved["outcomes"]["t.b"]["4"] == {"tools": [0.0] * 8}


def test_promotion_is_the_same_under_every_rule_and_drops_windows_below_the_range():
    for rule, extra in [("threshold", {}), ("uncertainty", {}), ("margin", {"paired_share": 0.5})]:
        c = Curriculum(CurriculumConfig(rule=rule, buffer_size=10, level_window=2, **extra))
        events = [c.record("t", 0, x, tools=i % 2 == 0) for i, x in enumerate([0.0, 0.0] + [1.0] * 8)]
        assert events[:9] == [None] * 9 and events[9]["to"] == 1, rule  # exactly 0.80 on the 10th
        for x in [1.0] * 10:
            c.record("t", 1, x)
        assert c.level("t") == 2 and c.level_range("t") == (1, 2)
        assert sorted(c.outcomes["t"]) == [1]  # level 0 left the window for good
        assert c.record("t", 0, 1.0) is None and sorted(c.outcomes["t"]) == [1]  # a late level-0 rollout


def test_uncertainty_rule_prefers_the_level_whose_pass_rate_is_near_one_half():
    config = CurriculumConfig(rule="uncertainty", level_window=6, rule_window=32)
    half = [1.0, 0.0] * 16
    outcomes = {0: {None: [1.0] * 32}, 1: {None: [1.0] * 32}, 2: {True: [1.0] * 16, False: [1.0] * 16},
                3: {True: half[:16], False: half[16:]}, 4: {None: [0.0] * 32}, 5: {None: [0.0] * 32}}
    c = scripted(config, "t", 5, outcomes)
    figures = c.figures("t")
    assert {lv: f["weight"] for lv, f in figures.items()} == {0: 0.05, 1: 0.05, 2: 0.05, 3: 1.0, 4: 0.05, 5: 0.05}
    assert figures[3] == {"weight": 1.0, "tools": [0.5, 16], "plain": [0.5, 16]}
    counts = shares(c, "t")
    assert set(counts) == {0, 1, 2, 3, 4, 5}  # the floor keeps every level in play
    assert counts.most_common(1)[0][0] == 3
    assert abs(counts[3] / len(SEEDS) - 1.0 / 1.25) < 0.04  # weight 1 against five of 0.05
    # A level with fewer than rule_min_outcomes outcomes is unexplored: it weighs rule_explore, like level 3.
    sparse = scripted(config, "t", 5, {**outcomes, 4: {None: [0.0] * 7}})
    assert sparse.weight("t", 4) == 1.0
    counts = shares(sparse, "t")
    assert abs(counts[3] / len(SEEDS) - 1.0 / 2.2) < 0.04 and abs(counts[4] / len(SEEDS) - 1.0 / 2.2) < 0.04
    # The same outcomes under the threshold rule: uniform over the six levels.
    uniform = shares(scripted(CurriculumConfig(level_window=6), "t", 5, outcomes), "t")
    assert all(abs(n / len(SEEDS) - 1 / 6) < 0.04 for n in uniform.values())


def test_margin_rule_prefers_the_level_where_tools_help_most():
    config = CurriculumConfig(rule="margin", paired_share=0.25, level_window=6, rule_window=8)
    def rates(tools: int, plain: int) -> dict:  # passes out of 8 with tools and without
        return {True: [1.0] * tools + [0.0] * (8 - tools), False: [1.0] * plain + [0.0] * (8 - plain)}
    outcomes = {0: rates(5, 4), 1: rates(5, 4), 2: rates(2, 4), 3: rates(8, 8), 4: rates(4, 3), 5: rates(6, 2)}
    c = scripted(config, "t", 5, outcomes)
    weights = {lv: c.weight("t", lv) for lv in range(6)}
    assert weights == {0: 0.125, 1: 0.125, 2: 0.05, 3: 0.05, 4: 0.125, 5: 0.5}  # margins; negatives and 0 at floor
    assert c.figures("t")[5] == {"weight": 0.5, "tools": [0.75, 8], "plain": [0.25, 8]}
    counts = shares(c, "t")
    assert counts.most_common(1)[0][0] == 5
    assert abs(counts[5] / len(SEEDS) - 0.5 / sum(weights.values())) < 0.04
    assert abs(counts[3] / len(SEEDS) - 0.05 / sum(weights.values())) < 0.02
    # Too few outcomes of either kind: unexplored (weight rule_explore), even with a full window of the other.
    few = scripted(config, "t", 5, {**outcomes, 2: {True: [1.0] * 8, False: [0.0] * 7}})
    assert few.weight("t", 2) == 1.0 and shares(few, "t").most_common(1)[0][0] == 2
    # A run without tools records tools=None: plain outcomes only, so every level stays unexplored (uniform).
    none = scripted(config, "t", 5, {lv: {None: [1.0] * 8} for lv in range(6)})
    assert {none.weight("t", lv) for lv in range(6)} == {1.0}


def test_paired_asking_offers_tools_to_half_of_a_paired_group_and_to_all_of_the_others():
    config = CurriculumConfig(paired_share=0.3)
    paired = [config.paired("t.a", seed) for seed in range(4000)]
    assert abs(sum(paired) / 4000 - 0.3) < 0.03
    assert paired == [config.paired("t.a", seed) for seed in range(4000)]  # a pure function of (task, seed)
    assert paired != [config.paired("t.b", seed) for seed in range(4000)]  # drawn per task too
    offered = 0
    for seed, is_paired in enumerate(paired[:500]):
        group = [config.tools_for("t.a", seed, i) for i in range(8)]
        assert group == ([True, False] * 4 if is_paired else [True] * 8)
        offered += sum(group)
    assert abs(offered / (500 * 8) - (1 - 0.3 / 2)) < 0.03
    assert not any(CurriculumConfig().paired("t.a", s) for s in range(200))  # default: no pairing
    assert all(CurriculumConfig(paired_share=1.0).paired("t.a", s) for s in range(200))
    assert [CurriculumConfig(paired_share=1.0).tools_for("t.a", 3, i) for i in range(5)] == [
        True, False, True, False, True]  # an odd group: one more with tools
    for bad in (-1, 1.5, True, "0"):
        with pytest.raises(TesseraError, match=f"sample_index must be an integer >= 0, got {bad!r}"):
            config.tools_for("t.a", 0, bad)


def margin_run(service: CurriculumService, task: str, seeds: range) -> list[int]:
    """Groups of 8 on scripted outcomes: right with tools up to level 6, without tools below level 2 only."""
    levels = []
    for seed in seeds:
        level = service.level_for(task, seed)
        levels.append(level)
        for i in range(8):
            tools = service.tools_for(task, seed, i)
            service.record(task, level, 1.0 if (level <= 6 if tools else level < 2) else 0.0, tools)
    return levels


def test_rule_state_survives_save_and_restore_with_the_same_choices_after(tmp_path):
    config = CurriculumConfig(rule="margin", paired_share=0.5, level_window=10, buffer_size=16, threshold=0.5,
                              save_interval=0.0, rule_min_outcomes=4)
    ckpt = tmp_path / "ckpt"
    clock = iter(range(100, 10**6, 10)).__next__  # seconds between choices: every choice looks for a checkpoint
    service = CurriculumService(config, CurriculumStore(tmp_path / "state", ckpt, clock=clock))
    margin_run(service, "t", range(0, 120))
    assert service.curriculum.level("t") == 7  # level 7 is never right: promotions stop there
    (ckpt / "_actor").mkdir(parents=True)
    (ckpt / "_actor" / "latest").write_text("global_step3")
    service.level_for("t", 999)  # the first choice after a checkpoint snapshots the state under its tag
    at_checkpoint = service.state_dict()
    after = margin_run(service, "t", range(120, 220))
    resumed = CurriculumService(config, CurriculumStore(tmp_path / "state", ckpt), restore=True)
    assert resumed.restored_from.endswith("global_step3.json") and resumed.state_dict() == at_checkpoint
    assert margin_run(resumed, "t", range(120, 220)) == after  # the resumed run repeats its choices
    assert resumed.state_dict() == service.state_dict()
    # Levels 2..6 are right with tools only (margin 1, weight 1 each); 0, 1 and 7 have margin 0 (floor 0.05).
    assert {lv: service.curriculum.weight("t", lv) for lv in range(8)} == {
        0: 0.05, 1: 0.05, 2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0, 7: 0.05}
    assert sum(2 <= lv <= 6 for lv in after) >= 85  # expected 100 · 5 / 5.15 = 97

    # Every level choice of the margin rule is logged with the figures of the levels it weighed.
    log = [json.loads(line) for line in (tmp_path / "state" / "curriculum_log.jsonl").read_text().splitlines()]
    choices = [e for e in log if e["event"] == "choice"]
    assert len(choices) == 120 + 1 + 100 + 100
    first, last = choices[0], choices[-1]
    assert first == {"event": "choice", "task": "t", "seed": 0, "rule": "margin", "level": 0, "rollout": 0,
                     "levels": {"0": {"weight": 1.0, "tools": [None, 0], "plain": [None, 0]}}}
    final = resumed.curriculum.figures("t")
    lowest, current = resumed.curriculum.level_range("t")
    assert sorted(int(k) for k in last["levels"]) == list(range(lowest, current + 1))
    assert all(len(e["levels"]) <= config.level_window for e in choices)  # bounded
    assert last["rollout"] == resumed.curriculum.rollouts - 8
    assert set(final) == {int(k) for k in last["levels"]}


def test_the_actor_passes_tools_through():
    actor = CurriculumActor({"curriculum": {"rule": "margin", "paired_share": 1.0, "rule_min_outcomes": 1}})
    assert [actor.tools_for("t", 7, i) for i in range(4)] == [True, False, True, False]
    assert actor.record("t", 0, 1.0, True) == 0.0 and actor.record("t", 0, 0.0, tools=False) == 0.0
    assert actor.record("t", 0, 1.0) == 0.0  # the old three-argument call: a plain outcome
    windows = actor.service.curriculum.outcomes["t"][0]
    assert list(windows["tools"]) == [1.0] and list(windows["plain"]) == [0.0, 1.0]
    assert actor.service.curriculum.weight("t", 0) == 0.5


@pytest.mark.parametrize("curriculum, message", [
    ({"rule": "margins"}, "rule must be one of threshold, uncertainty, margin, got 'margins'"),
    ({"rule": 3}, "curriculum.rule: expected str, got 3"),
    ({"paired_share": 1.5}, "paired_share must be in [0, 1]"),
    ({"paired_share": -0.1}, "paired_share must be in [0, 1]"),
    ({"rule": "margin"}, "rule margin needs paired_share > 0 (its without-tools outcomes come from paired groups)"),
    ({"rule_window": 0}, "rule_window must be at least 1"),
    ({"rule_window": 8, "rule_min_outcomes": 9}, "rule_min_outcomes must be in 1..rule_window"),
    ({"rule_floor": 0}, "rule_floor must be in (0, 1]"),
    ({"rule_explore": 2}, "rule_explore must be in (0, 1]"),
    ({"rule_size": 2}, "curriculum: unknown key(s) rule_size"),
])
def test_config_refuses_bad_rules_and_shares(curriculum, message):
    with pytest.raises(TesseraError) as err:
        CurriculumConfig.from_mapping(curriculum)
    assert message in str(err.value)


def test_malformed_rule_state_is_refused_with_the_file_named(tmp_path):
    bad_kind = {**OLD_STATE, "format": STATE_FORMAT, "outcomes": {"t.a": {"1": {"zoom": [1.0]}}}}
    bad_value = {**OLD_STATE, "format": STATE_FORMAT, "outcomes": {"t.a": {"one": {"tools": [1.0]}}}}
    for state, message in [(bad_kind, "unknown outcome kind(s) zoom at t.a level 1"),
                           (bad_value, "malformed curriculum state"),
                           ({**OLD_STATE, "format": "tessera.curriculum/9"}, "expected format tessera.curriculum/1 "
                                                                            "or tessera.curriculum/2")]:
        (tmp_path / "curriculum.json").write_text(json.dumps(state))
        with pytest.raises(TesseraError) as err:
            CurriculumService(CurriculumConfig(), CurriculumStore(tmp_path), restore=True)
        assert str(err.value).startswith(f"{tmp_path / 'curriculum.json'}: cannot restore the curriculum")
        assert message in str(err.value)


def test_executor_records_plain_outcomes_and_logs_uncertainty_choices(taxonomy, tmp_path):
    pytest.importorskip("openrlhf", reason="install the train extra: make test")
    pytest.importorskip("torch")
    from tests.test_training import StandInEngine, answer_text, latest_instance, make_executor, run_group

    executor = make_executor(tmp_path, rule="uncertainty", buffer_size=8, level_window=2)
    engine = StandInEngine(lambda call: answer_text(latest_instance(executor).label,
                                                    latest_instance(executor).answer))
    task = "icons.shape_field.relation"
    levels = []
    for seed in range(2):
        token = json.dumps({"task": task, "seed": seed, "level": "curriculum"})
        levels.append({o["extra_logs"]["level"] for o in run_group(executor, engine, token)})
    assert levels[0] == {0.0} and len(levels[1]) == 1  # one level per group
    log = [json.loads(line) for line in (tmp_path / "state" / "curriculum_log.jsonl").read_text().splitlines()]
    assert [e["event"] for e in log][:3] == ["choice", "promotion", "choice"]  # 8 right answers: level 0 -> 1
    assert log[0]["levels"] == {"0": {"weight": 1.0, "tools": [None, 0], "plain": [None, 0]}}
    # After the promotion level 0 is explored and always right (floor 0.05), level 1 is unexplored (weight 1).
    assert log[2]["levels"] == {"0": {"weight": 0.05, "tools": [None, 0], "plain": [1.0, 8]},
                                "1": {"weight": 1.0, "tools": [None, 0], "plain": [None, 0]}}
    assert levels[1] == {1.0} and [e["level"] for e in log if e["event"] == "choice"] == [0, 1]
    # Level 1 promoted too: level 0 left the window; the state written at that promotion holds level 1's window.
    assert log[3] == {**log[3], "event": "promotion", "from": 1, "to": 2}
    state = json.loads((tmp_path / "state" / "curriculum.json").read_text())
    assert state["format"] == STATE_FORMAT and state["outcomes"] == {task: {"1": {"plain": [1.0] * 8}}}
