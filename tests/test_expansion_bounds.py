"""What components and named functions cost is bounded by what is charged: a scene that expands components without end
is refused when it compiles (a positioned error naming the chain), a chain of functions each calling the one before
twice compiles in linear time, and evaluating it takes time in proportion to the steps it is charged, at any nesting.
CPU time is measured (time.process_time), with bounds far above the figures measured, so a busy machine cannot flake."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tessera.errors import CompileFailed
from tessera.taxonomy import compile_taxonomy
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
        f"components that use other components many times multiply"]
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
        f"again, so components that use other components many times multiply"]
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
    with_functions(root / "programs/probe/t.yaml", doubling_chain(30))
    started = time.process_time()
    tax = compile_taxonomy(root)
    assert tax.tasks["probe.g.count"].identity
    assert time.process_time() - started < 3
