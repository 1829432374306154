"""Compile a reward contract: the answer type a task must produce and the label it binds."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import Diagnostics
from ..expr.types import BOOL, FLOAT, INT, STR, ListT, Type
from ..load.library import Loaded
from ..load.models import ContractSpec

ITEM_TYPES = {"integer": INT, "number": FLOAT, "string": STR}
SCALAR_TYPES = {"integer": INT, "number": FLOAT, "string": STR, "option": STR, "boolean": BOOL}
SYNONYM_WORD = re.compile(r"^[a-z0-9]+$")  # one word as the normaliser leaves it (folded, punctuation split off)
MAX_SYNONYM_GROUPS = 200
MAX_SYNONYM_VARIANTS = 20


@dataclass
class CompiledContract:
    id: str
    type: str
    items: str | None
    expected: Type  # the static type the answer expression must have
    spec: ContractSpec

    def label(self, answer, answer_format: str | None = None) -> dict:
        """The verifier label for one answer; `answer_format` overrides the contract's convention (a build's)."""
        s = self.spec
        answer_format = answer_format or s.format
        normalize = s.normalize.model_dump()
        if not normalize["synonyms"]:
            del normalize["synonyms"]  # contracts without synonyms keep the label bytes they always had
        label = {
            "type": self.type, "answer": answer, "key": s.key, "contract": self.id,
            "tolerance": s.tolerance.model_dump(), "normalize": normalize, "items": self.items,
        }
        if answer_format != "json":
            label["format"] = answer_format  # JSON contracts keep the label bytes they always had
        return label


def _check_normalize(loaded: Loaded[ContractSpec], answer_kind: str, diags: Diagnostics) -> bool:
    """`normalize` settings that the contract's answers can use: clock times and synonyms for text, probability
    for numbers; synonyms are single folded words, each variant naming one canonical word."""
    spec, doc = loaded.spec, loaded.doc
    norm = spec.normalize
    ok = True
    form_kind = {"clock_time": "string", "probability": "number"}.get(norm.form)
    if form_kind and answer_kind != form_kind:
        diags.error(doc.pos(("normalize", "form")),
                    f"'form: {norm.form}' applies to {form_kind} answers, not {answer_kind} ones", code="contract-form")
        ok = False
    if not norm.synonyms:
        return ok
    where = ("normalize", "synonyms")
    if answer_kind != "string" or norm.form != "text":
        diags.error(doc.key_pos(where), f"synonyms apply to text answers, not {answer_kind} ones", code="contract-form")
        return False
    if norm.case != "fold":
        diags.error(doc.key_pos(where), "synonyms need 'case: fold' (they are matched as lower-case words)",
                code="contract-form")
        ok = False
    if len(norm.synonyms) > MAX_SYNONYM_GROUPS:
        diags.error(doc.key_pos(where), f"{len(norm.synonyms)} synonym groups; at most {MAX_SYNONYM_GROUPS}",
                code="bound")
        return False
    owner: dict[str, str] = {}  # word → the canonical word whose group it is in
    for canonical in norm.synonyms:
        owner[canonical] = canonical
    for canonical, variants in norm.synonyms.items():
        if not SYNONYM_WORD.match(canonical):
            diags.error(doc.key_pos(where + (canonical,)),
                        f"synonym '{canonical}' must be one lower-case word of letters and digits",
                                code="contract-form")
            ok = False
        if not variants:
            diags.error(doc.pos(where + (canonical,)), f"synonym '{canonical}' lists no other spellings",
                    code="contract-form")
            ok = False
        if len(variants) > MAX_SYNONYM_VARIANTS:
            diags.error(doc.pos(where + (canonical,)),
                        f"synonym '{canonical}' lists {len(variants)} spellings; at most {MAX_SYNONYM_VARIANTS}",
                                code="bound")
            ok = False
            continue
        for i, word in enumerate(variants):
            pos = doc.pos(where + (canonical, i))
            if not SYNONYM_WORD.match(word):
                diags.error(pos, f"synonym '{word}' must be one lower-case word of letters and digits",
                        code="contract-form")
                ok = False
            elif word == canonical:
                diags.error(pos, f"'{word}' is listed as a synonym of itself", code="contract-form")
                ok = False
            elif word in owner:
                first = owner[word]
                what = "a canonical word" if first == word else f"already a synonym of '{first}'"
                diags.error(pos, f"'{word}' cannot read as '{canonical}': it is {what}", code="contract-form")
                ok = False
            else:
                owner[word] = canonical
    return ok


def compile_contract(loaded: Loaded[ContractSpec], diags: Diagnostics) -> CompiledContract | None:
    spec, doc = loaded.spec, loaded.doc
    if spec.type in ("list", "set"):
        if spec.items is None:
            diags.error(doc.pos(("type",)), f"a {spec.type} contract needs 'items: integer|number|string'",
                    code="missing-key")
            return None
        expected: Type = ListT(ITEM_TYPES[spec.items])
    else:
        if spec.items is not None:
            diags.error(doc.key_pos(("items",)), f"'items' only applies to list and set contracts, not {spec.type}",
                    code="contract-form")
            return None
        expected = SCALAR_TYPES[spec.type]
    answer_kind = spec.type if spec.items is None else spec.items  # the items' kind for a list or set (checked above)
    if not _check_normalize(loaded, answer_kind, diags):
        return None
    return CompiledContract(spec.contract, spec.type, spec.items, expected, spec)
