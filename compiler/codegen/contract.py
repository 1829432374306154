"""Compile a reward contract: the answer type a task must produce and the label it binds."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import Diagnostics
from ..expr.types import BOOL, FLOAT, INT, STR, ListT, Type
from ..load.library import Loaded

ITEM_TYPES = {"integer": INT, "number": FLOAT, "string": STR}
SCALAR_TYPES = {"integer": INT, "number": FLOAT, "string": STR, "option": STR, "boolean": BOOL}


@dataclass
class CompiledContract:
    id: str
    type: str
    items: str | None
    expected: Type  # the static type the answer expression must have
    spec: object

    def label(self, answer) -> dict:
        s = self.spec
        return {
            "type": self.type, "answer": answer, "key": s.key, "contract": self.id,
            "tolerance": s.tolerance.model_dump(), "normalize": s.normalize.model_dump(), "items": self.items,
        }


def compile_contract(loaded: Loaded, diags: Diagnostics) -> CompiledContract | None:
    spec, doc = loaded.spec, loaded.doc
    if spec.type in ("list", "set"):
        if spec.items is None:
            diags.error(doc.pos(("type",)), f"a {spec.type} contract needs 'items: integer|number|string'")
            return None
        expected: Type = ListT(ITEM_TYPES[spec.items])
    else:
        if spec.items is not None:
            diags.error(doc.key_pos(("items",)), f"'items' only applies to list and set contracts, not {spec.type}")
            return None
        expected = SCALAR_TYPES[spec.type]
    return CompiledContract(spec.contract, spec.type, spec.items, expected, spec)
