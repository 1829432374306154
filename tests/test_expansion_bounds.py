"""What components and named functions cost is bounded by what is charged: a scene that expands components without end
is refused when it compiles (a positioned error naming the chain), a chain of functions each calling the one before
twice compiles in linear time, and evaluating it takes time in proportion to the steps it is charged, at any nesting.
CPU time is measured (time.process_time), with bounds far above the figures measured, so a busy machine cannot flake."""
from __future__ import annotations

import json
import resource
import time
from pathlib import Path

import pytest

from tessera.errors import CompileFailed, SamplingFailed
from tessera.expr.compile import Budget
from tessera.sample.rng import Rng
from tessera.sample.state import Rejected, sample_state
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate
from tests.test_budget import probe_root


# -- components -------------------------------------------------------------------------------------------------
def fan_out_root(tmp: Path, levels: int, fan: int) -> Path:
    """The probe library whose scene uses c1; each of c1..c{levels-1} uses the next `fan` times (layers), and the
    last draws one text mark: fan^(levels-1) uses of the last when every use is compiled."""
    root = probe_root(tmp, {"n": "3"})
    for i in range(1, levels + 1):
        if i < levels:
            body = ["scene:", "  layers:", *[f"    - use: c{i + 1}" for _ in range(fan)]]
        else:
            body = ["scene:", "  marks:", "    - text: {x: 10, y: 10, text: \"'a'\", size: 12}"]
        (root / "components" / f"c{i}.yaml").write_text("\n".join([f"component: c{i}", "summary: Fan-out probe.",
                                                                   *body]) + "\n")
    grammar = root / "grammars/probe/g.yaml"
    grammar.write_text(grammar.read_text().split("  scene:")[0] + "  scene:\n    use: c1\n")
    return root


def compile_errors(root: Path) -> tuple[list[str], float]:
    started = time.process_time()
    with pytest.raises(CompileFailed) as info:
        compile_taxonomy(root)
    return [str(d) for d in info.value.diagnostics.sorted()], time.process_time() - started


def test_components_that_use_components_many_times_are_refused_with_the_chain(tmp_path):
    # 0.8.0 compiled every one of the 40^4 uses of c5 (and 40^3 of c4, ...): past 100 s with no output.
    root = fan_out_root(tmp_path, 5, 40)
    errors, cpu = compile_errors(root)
    # c1 (1), c2 (2), c3 (3), c4 (4) and its 40 uses of c5 (44); c3's next c4 (45) and 40 more (85), ... The 257th
    # use is the 7th c5 of the 6th c4: line 11 of c4.yaml (its uses are lines 5 to 44).
    assert errors == [
        f"{root}/components/c4.yaml:11:12: error: the scene uses components more than 256 times, counting each use "
        f"inside a component and each component once per use (257 uses and 25,486 characters at this use of 'c5': "
        f"{root}/grammars/probe/g.yaml → c1 → c2 → c3 → c4 → c5); each use compiles its component again, so "
        f"components that use other components many times multiply  [component-use]"]
    assert cpu < 3, f"refusing the fan-out took {cpu:.2f} s of CPU"


def test_a_fan_out_under_the_bound_still_compiles(tmp_path):
    # 1 + 15 + 15 * 15 = 241 uses: within the 256 that one scene may compile.
    tax = compile_taxonomy(fan_out_root(tmp_path, 3, 15))
    assert "probe.g.count" in tax.tasks


def test_uses_of_a_large_component_are_refused_by_the_characters_they_compile(tmp_path):
    # Few uses, but each compiles ~100,000 characters of component: the 10th crosses 1,000,000.
    root = fan_out_root(tmp_path, 1, 1)
    listing = json.dumps("[" + ", ".join(str(i) for i in range(120)) + "]")
    lets = "\n".join(f"    v{i}: {listing}" for i in range(200))
    (root / "components/big.yaml").write_text(f"component: big\nsummary: Big.\nscene:\n  let:\n{lets}\n  marks:\n"
                                              f"    - text: {{x: 10, y: 10, text: \"'a'\", size: 12}}\n")
    grammar = root / "grammars/probe/g.yaml"
    grammar.write_text(grammar.read_text().replace("    use: c1\n", "    layers:\n" + "      - use: big\n" * 12))
    errors, cpu = compile_errors(root)
    line = grammar.read_text().splitlines().index("      - use: big") + 10  # the 10th use
    assert errors == [
        f"{root}/grammars/probe/g.yaml:{line}:14: error: the scene compiles more than 1,000,000 characters of "
        f"components, counting each use inside a component and each component once per use (10 uses and 1,003,770 "
        f"characters at this use of 'big': {root}/grammars/probe/g.yaml → big); each use compiles its component "
        f"again, so components that use other components many times multiply  [component-use]"]
    assert cpu < 4, f"refusing the large uses took {cpu:.2f} s of CPU"


# -- named functions --------------------------------------------------------------------------------------------
def doubling_chain(depth: int) -> dict[str, str]:
    """e0 = x -> x + 1, e_i = x -> e_{i-1}(e_{i-1}(x)): e_depth(1) makes 2^depth calls of e0."""
    return {"e0": "x -> x + 1", **{f"e{i}": f"x -> e{i - 1}(e{i - 1}(x))" for i in range(1, depth + 1)}}


def with_functions(path: Path, functions: dict[str, str]) -> None:
    lines = ["functions:", *[f"  {k}: {json.dumps(v)}" for k, v in functions.items()]]
    path.write_text("\n".join(lines) + "\n" + path.read_text())


def test_a_program_calling_a_chain_of_functions_compiles_in_linear_time(tmp_path):
    # 0.8.0 printed each call's function body in its place for the task identity: 2^30 bodies (depth 20 took 20 s).
    root = probe_root(tmp_path, {"n": "3"}, compute={"v": "e30(1)"})
    with_functions(root / "programs/probe/g/count.yaml", doubling_chain(30))
    started = time.process_time()
    tax = compile_taxonomy(root)
    assert tax.tasks["probe.g.count"].identity
    assert time.process_time() - started < 3


@pytest.mark.parametrize("where", ["grammar", "program"])
def test_a_deep_chain_of_functions_ends_at_the_step_budget_in_time(tmp_path, where):
    # 0.8.0: depth 28 took 3.8 s an attempt, depth 30 over 60 s, each at the same 2,000,000 charged steps.
    if where == "grammar":
        root = probe_root(tmp_path, {"v": "e30(1)"})
        with_functions(root / "grammars/probe/g.yaml", doubling_chain(30))
    else:
        root = probe_root(tmp_path, {"n": "3"}, compute={"v": "e30(1)"})
        with_functions(root / "programs/probe/g/count.yaml", doubling_chain(30))
    tax = compile_taxonomy(root)
    task = tax.tasks["probe.g.count"]
    started = time.process_time()
    with pytest.raises(SamplingFailed, match=r"expression evaluation exceeded 2000000 steps \(in `e30\(1\)`\)"):
        generate(task, 1, 0, vocab=tax.vocab)
    cpu = time.process_time() - started
    assert cpu < 5, f"4,000,000 charged steps took {cpu:.2f} s of CPU"  # measured: 0.55 s


def _at_depth(k: int, fn):
    return fn() if k == 0 else _at_depth(k - 1, fn)


def test_no_call_depth_makes_evaluation_cross_a_frame_stack_chunk(tmp_path):
    """CPython 3.11/3.12 map a new frame-stack chunk on each call that crosses a chunk's end and unmap it on return:
    at the depth where a nested function's leaves straddle that end, every call paid an mmap, a page fault and an
    munmap. The same evaluation is started from every caller depth over a range wider than a chunk; the page faults
    it causes count the crossings (one each), which CPU load cannot blur."""
    root = probe_root(tmp_path, {"v": "e30(1)"})
    with_functions(root / "grammars/probe/g.yaml", doubling_chain(30))
    tax = compile_taxonomy(root)
    grammar = tax.tasks["probe.g.count"].grammar

    def attempt() -> int:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        with pytest.raises(Rejected):
            sample_state(grammar, 0, tax.vocab, Rng(1), {}, Budget(20_000))  # about 4,000 calls
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    faults = {k: _at_depth(k, attempt) for k in range(0, 240, 2)}  # 240 frames of ~100 bytes: past a 16 KiB chunk
    worst = max(faults, key=faults.get)
    assert faults[worst] < 400, f"{faults[worst]} page faults starting {worst} frames deeper"
