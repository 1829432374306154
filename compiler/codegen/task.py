"""Compile a task program against its grammar and contract."""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field

from ..errors import Diagnostics
from ..expr.builtins import BUILTINS
from ..expr.compile import CONSTANTS, Compiled, Scope, Site, canonical_tree, compile_expr, references
from ..expr.template import Template, compile_template
from ..expr.types import ANY, ListT, RecordT, Scalar, Type, accepts, type_of_value, unify
from ..load.library import Loaded
from .contract import CompiledContract
from .grammar import CompiledGrammar, InspectRule, spec_hash
from ..check.queries import MAX_QUERY_SPACE, MAX_QUERY_VALUES, bounded_query as _bounded_query, query_space  # noqa: F401
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
    ok = _check_inputs(spec, doc, grammar, queries, diags) and ok

    compute, ok_compute = compile_steps(spec.compute, names, doc, "compute", "task program",
                                        lambda n: n in names or n in CONSTANTS,
                                        "step '{name}' clashes with a state field, query variable or reserved name",
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
        spec_hash=spec_hash(spec), source=doc.path, inspect=inspect, inspect_withheld=withheld, vocab=vocab,
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


def _check_inputs(spec, doc, grammar: CompiledGrammar, queries: dict[str, list], diags: Diagnostics) -> bool:
    """Every input the grammar reads is a query variable of this task, and each of its values has the input's type.
    (A query variable the task failed to declare properly was reported already; it is not reported twice.)"""
    ok = True
    for name, want in grammar.inputs.items():
        if name not in spec.query:
            diags.error(doc.pos(("grammar",)), f"grammar '{grammar.id}' reads the query variable '{name}' ({want}), "
                                               f"which task '{spec.task}' does not declare: add it under query:",
                                                       code="query-type")
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
    return ok


def _identity(spec, grammar: CompiledGrammar, contract: CompiledContract, queries: dict) -> str:
    """Task identity (DESIGN §1): grammar + program up to literal operands and local names + type + contract."""
    keep = set(grammar.schema) | {"level", "vocab"} | set(BUILTINS)
    rename = {q: "<q>" for q in queries}
    rename.update({step: f"<s{i}>" for i, step in enumerate(spec.compute)})
    fns = dict(spec.functions)
    printed: dict[str, str] = {}  # each function printed once for the whole program

    def canon_of(src) -> str:
        return canonical_tree(src, keep, rename, fns, printed)

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
