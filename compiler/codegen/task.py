"""Compile a task program against its grammar and contract."""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field

from ..errors import Diagnostics
from ..expr.builtins import BUILTINS
from ..expr.compile import CONSTANTS, Compiled, Scope, Site, canonical_tree, compile_expr, references
from ..expr.template import Template, compile_template, compared_literals as template_literals
from ..expr.types import ANY, ListT, RecordT, Scalar, Type, accepts, type_of_value, unify
from ..load.library import Loaded
from .contract import CompiledContract
from .grammar import CompiledGrammar, InspectRule, quoted_value, spec_hash
from .levels import compile_levels, warn_no_effect
from ..check.queries import MAX_QUERY_SPACE, MAX_QUERY_VALUES, bounded_query as _bounded_query, query_space  # noqa: F401
from ..check.queries import literals_outside, outside_warning
from .steps import compile_constraints, compile_functions, compile_steps, fields_read



@dataclass
class CompiledTask:
    id: str
    summary: str
    grammar: CompiledGrammar
    contract: CompiledContract
    operations: list[str]
    bucket: str
    queries: dict[str, list]  # every bounded query variable with its finite list of values
    compute: list[tuple[str, Compiled]]
    require: list[tuple[str, Compiled]]
    answer: Compiled
    witness_kind: str
    witness: Compiled
    prompts: list[Template]
    identity: str  # canonical form for duplicate-task detection
    spec_hash: str
    source: str
    # The grammar's inspect rules this task is offered (state list → rule), and those it is not, with why: a
    # task whose program reads the inspected field would have inspect give its answer away (tools.session).
    inspect: dict[str, InspectRule] = field(default_factory=dict)
    inspect_withheld: dict[str, str] = field(default_factory=dict)
    # The vocabulary the task was compiled against (its query values and the grammar's names come from it): what
    # generate() samples with unless a caller passes another. Until 0.10 a caller that passed none sampled with an
    # empty one and failed attempts later with a KeyError.
    vocab: dict = field(default_factory=dict, repr=False, compare=False)
    # The program's own `levels:` (codegen.levels), as a grammar's: compiled parameters and their values at 0-9.
    levels: list[tuple[str, Compiled]] = field(default_factory=list)
    level_schedule: dict[str, list] = field(default_factory=dict)

    @property
    def domain(self) -> str:
        return self.grammar.domain

    @property
    def answer_type(self) -> str:
        return self.contract.type

    def query_space(self) -> list[dict]:
        """Every combination of query values, in a fixed order."""
        return query_space(self.queries)


def compile_task(loaded: Loaded, grammar: CompiledGrammar, contract: CompiledContract, vocab: dict,
                 diags: Diagnostics) -> CompiledTask | None:
    spec, doc = loaded.spec, loaded.doc
    names: dict[str, Type] = {**grammar.base_scope, **grammar.schema}
    ok = compile_functions(spec.functions, names, doc, lambda n: n in names, diags)
    queries: dict[str, list] = {}
    for qname, raw in spec.query.items():
        if qname in names or qname in CONSTANTS or not qname.isidentifier() or qname.startswith("_"):
            diags.error(doc.key_pos(("query", qname)), f"query variable '{qname}' clashes with a state field or "
                                                       f"is not a valid name", code="query-type")
            ok = False
            continue
        values = _bounded_query(qname, raw, vocab, doc, diags)
        if values is None:
            ok = False
            continue
        queries[qname] = values
        names[qname] = type_of_value(values).elem
    space = math.prod(len(v) for v in queries.values())  # sized from the variables, never built here
    if space > MAX_QUERY_SPACE:
        sizes = " × ".join(f"{n} ({len(v)})" for n, v in queries.items())
        diags.error(doc.key_pos(("query",)), f"the query space has {space} combinations ({sizes}); the limit is "
                                             f"{MAX_QUERY_SPACE}: use fewer or smaller query variables", code="bound")
        ok = False
    defaults, ok_inputs = _check_inputs(spec, doc, grammar, queries, diags)
    ok = ok and ok_inputs
    for name, values in defaults.items():  # an input the task does not set takes its default, as if pinned
        queries[name] = values
        names[name] = type_of_value(values).elem
    levels, schedule, ok_levels = compile_levels(spec.levels, names, vocab, doc,
                                                 lambda n: n in names or n in CONSTANTS, diags)
    ok = ok and ok_levels

    compute, ok_compute = compile_steps(spec.compute, names, doc, "compute", "task program",
                                        lambda n: n in names or n in CONSTANTS,
                                        "step '{name}' clashes with a state field, query variable, levels parameter "
                                        "or reserved name",
                                        diags)
    require, ok_require = compile_constraints(spec.require, names, doc, "require", "a task requirement",
                                              "requirement", diags)
    ok = ok and ok_compute and ok_require

    answer = compile_expr(spec.answer.value, Scope(names, what="the answer"), Site(doc, ("answer", "value")), diags)
    if answer is None:
        ok = False
    elif not accepts(contract.expected, answer.type) or (contract.expected != answer.type and
                                                          unify(contract.expected, answer.type) is None):
        diags.error(doc.pos(("answer", "value")), f"answer is {answer.type} but contract '{contract.id}' "
                                                  f"({contract.type}) expects {contract.expected}", code="answer-type")
        ok = False

    (wkind, wsource), = spec.witness.items()
    witness = compile_expr(wsource, Scope(names, what="the witness"), Site(doc, ("witness", wkind)), diags)
    if witness is None:
        ok = False
    else:
        wt = witness.type
        if wkind in ("bbox", "point") and not isinstance(wt, RecordT):
            diags.error(doc.pos(("witness", wkind)), f"a {wkind} witness names one scene object (a record), got {wt}",
                    code="answer-type")
            ok = False
        elif wkind in ("set", "sequence") and not (isinstance(wt, ListT) and isinstance(wt.elem, RecordT)):
            diags.error(doc.pos(("witness", wkind)), f"a {wkind} witness is a list of scene objects, got {wt}",
                    code="answer-type")
            ok = False
        elif wkind == "segment" and not (isinstance(wt, ListT) and isinstance(wt.elem, RecordT)):
            diags.error(doc.pos(("witness", wkind)), f"a segment witness is a list of two scene objects, got {wt}",
                    code="answer-type")
            ok = False
        elif wkind == "map" and not (isinstance(wt, RecordT) and wt.fields and
                                     all(isinstance(t, RecordT) for _, t in wt.fields)):
            diags.error(doc.pos(("witness", wkind)), f"a map witness is a record whose fields are scene objects, "
                                                     f"e.g. {{start: a, end: b}}; got {wt}", code="answer-type")
            ok = False
        elif wkind == "scalar" and not isinstance(wt, Scalar):
            diags.error(doc.pos(("witness", wkind)), f"a scalar witness is a number, string or boolean, got {wt}",
                    code="answer-type")
            ok = False

    sources = spec.prompt if isinstance(spec.prompt, list) else [spec.prompt]
    prompts = []
    for i, src in enumerate(sources):
        loc = ("prompt", i) if isinstance(spec.prompt, list) else ("prompt",)
        t = compile_template(src, names, lambda line, col, loc=loc: doc.expr_pos(loc, line - 1, col - 1), diags)
        if t is None:
            ok = False
        else:
            prompts.append(t)
    if not prompts and ok:
        diags.error(doc.pos(("prompt",)), "a task needs at least one prompt template", code="task-shape")
        ok = False

    if ok:
        _warn_unused_queries(spec, doc, grammar, queries, prompts, diags)
        _warn_literals_outside(spec, doc, queries, diags)
        warn_no_effect(schedule, [*spec.levels.values(), *spec.compute.values(), *spec.require.values(),
                                  spec.answer.value, *spec.witness.values()], doc, diags,
                       also_read=[n for t in prompts for n in t.names])
    if spec.grammar.split(".")[0] != spec.task.split(".")[0]:
        diags.error(doc.pos(("task",)), f"task id '{spec.task}' must start with its grammar's domain "
                                        f"'{grammar.domain}.'", code="task-shape")
        ok = False
    if not ok:
        return None
    inspect, withheld = _inspect_offered(spec, grammar)
    return CompiledTask(
        id=spec.task, summary=spec.summary, grammar=grammar, contract=contract, operations=list(spec.operations),
        bucket=spec.bucket, queries=queries, compute=compute, require=require, answer=answer, witness_kind=wkind,
        witness=witness, prompts=prompts, identity=_identity(spec, grammar, contract, queries),
        # Hashed as if the defaults were written out: a program that drops a line pinning an input to its default
        # is the same task, and its traces (which record this hash) still replay.
        spec_hash=spec_hash(spec.model_copy(update={"query": {**spec.query, **defaults}})),
        source=doc.path, inspect=inspect, inspect_withheld=withheld, vocab=vocab,
        levels=levels, level_schedule=schedule,
    )


def _inspect_offered(spec, grammar: CompiledGrammar) -> tuple[dict[str, InspectRule], dict[str, str]]:
    """Which of the grammar's inspect rules this task may use. A rule whose field the program reads anywhere
    (compute, require, answer, the functions they call, the state fields they mention as those were built) is
    withheld: inspect would read out what the answer is computed from, instead of the model reading the picture."""
    if not grammar.inspect:
        return {}, {}
    sources = [*spec.compute.values(), *spec.require.values(), spec.answer.value]
    reads = fields_read(sources, {**grammar.function_sources, **spec.functions}, grammar.state_reads)
    offered, withheld = {}, {}
    for name, rule in grammar.inspect.items():
        if rule.field in reads:
            withheld[name] = f"the program reads '{rule.field}'"
        else:
            offered[name] = rule
    return offered, withheld


def _warn_unused_queries(spec, doc, grammar: CompiledGrammar, queries: dict[str, list], prompts: list[Template],
                         diags: Diagnostics) -> None:
    """Warn (unused-query-var) about a query variable that nothing reads: not the grammar (as an input), not a
    step, requirement, answer or witness, not a prompt. Each of its values is then the same task drawn again: the
    query space, and every build's per-query balance, grows for nothing."""
    read: set[str] = set(grammar.inputs)
    for source in [*spec.compute.values(), *spec.require.values(), spec.answer.value, *spec.witness.values()]:
        read |= references(source)[0]
    for t in prompts:
        read |= t.names
    for qname in queries:
        if qname not in read:
            diags.warning(doc.key_pos(("query", qname)), f"query variable '{qname}' is read by no step, requirement, "
                                                         f"answer, witness, prompt or grammar input: its "
                                                         f"{len(queries[qname])} values multiply the query space and "
                                                         f"change nothing (remove it, or use it)",
                          code="unused-query-var")


def _warn_literals_outside(spec, doc, queries: dict[str, list], diags: Diagnostics) -> None:
    """Warn (query-literal-outside) at a literal that a step, requirement, answer, witness or prompt compares with a
    query variable and that is none of the variable's values in this task (`unknown == 'distanse'`): the branch it
    guards is dead, or the test always passes, which is a typo or a task that lost the value it meant."""
    known = {name: values for name, values in queries.items() if not isinstance(values[0], bool)}
    if not known:
        return
    sources = [(src, Site(doc, ("compute", name))) for name, src in spec.compute.items()]
    sources += [(src, Site(doc, ("require", name))) for name, src in spec.require.items()]
    sources += [(spec.answer.value, Site(doc, ("answer", "value")))]
    sources += [(src, Site(doc, ("witness", kind))) for kind, src in spec.witness.items()]
    literals_outside(sources, known, diags)
    templates = spec.prompt if isinstance(spec.prompt, list) else [spec.prompt]
    for i, src in enumerate(templates):
        loc = ("prompt", i) if isinstance(spec.prompt, list) else ("prompt",)
        for name, op, value, line, col in template_literals(src, set(known)):
            outside_warning(name, op, value, known[name], doc.expr_pos(loc, line - 1, col - 1), diags)


def _check_inputs(spec, doc, grammar: CompiledGrammar, queries: dict[str, list],
                  diags: Diagnostics) -> tuple[dict[str, list], bool]:
    """Every input the grammar reads is either a query variable of this task, each of whose values has the input's
    type and is one of the input's values, or left to the input's default. Returns the defaulted inputs as the
    query variables they stand for (name → [default]), and whether all is well (what is not is reported). A query variable
    the task failed to declare properly was reported already; it is not reported twice."""
    ok = True
    defaults: dict[str, list] = {}
    for name, want in grammar.inputs.items():
        decl = grammar.input_decls[name]
        if name not in spec.query:
            if decl.has_default:
                defaults[name] = [decl.default]
                continue
            values = f" (values: {decl.shown()})" if decl.values is not None or decl.span is not None else ""
            diags.error(doc.pos(("grammar",)), f"grammar '{grammar.id}' reads the query variable '{name}' ({want}), "
                                               f"which task '{spec.task}' does not set and which has no default: "
                                               f"add it under query:{values}", code="query-type")
            ok = False
            continue
        if name not in queries:
            ok = False
            continue
        got = type_of_value(queries[name]).elem
        if not accepts(want, got):
            diags.error(doc.pos(("query", name)), f"query variable '{name}' holds {got} values, but grammar "
                                                  f"'{grammar.id}' reads it as {want}", code="query-type")
            ok = False
            continue
        raw = spec.query[name]
        outside = [(i, v) for i, v in enumerate(queries[name]) if not decl.allows(v)]
        for i, v in outside:
            if isinstance(raw, list):
                at = doc.pos(("query", name, i))
            elif isinstance(raw, dict):  # {range: [lo, hi]}: the end that is out
                end = 0 if not decl.allows(queries[name][0]) else 1
                at, v = doc.pos(("query", name, "range", end)), queries[name][-end]
            else:
                at = doc.pos(("query", name))
            diags.error(at, f"query variable '{name}': {quoted_value(v)} is not a value of grammar "
                            f"'{grammar.id}''s input '{name}' (its values: {decl.shown()})", code="input-value")
            ok = False
            if not isinstance(raw, list):
                break  # a range or a vocabulary: one error says it
    return defaults, ok


def _identity(spec, grammar: CompiledGrammar, contract: CompiledContract, queries: dict) -> str:
    """Task identity (DESIGN §1): grammar + program up to literal operands and local names + type + contract."""
    keep = set(grammar.schema) | {"level", "vocab"} | set(BUILTINS)
    rename = {q: "<q>" for q in queries}
    rename.update({step: f"<s{i}>" for i, step in enumerate(spec.compute)})
    fns = dict(spec.functions)
    printed: dict[str, str] = {}  # each function printed once for the whole program

    def canon_of(src) -> str:
        return canonical_tree(src, keep, rename, fns, printed, dict(spec.levels))

    canon = {
        "grammar": grammar.id,
        "compute": [canon_of(src) for src in spec.compute.values()],
        "require": sorted(canon_of(src) for src in spec.require.values()),
        "answer": canon_of(spec.answer.value),
        "witness": [(k, canon_of(v)) for k, v in spec.witness.items()],
        "type": contract.type,
        "contract": contract.id,
    }
    return hashlib.sha256(json.dumps(canon, sort_keys=True).encode()).hexdigest()
