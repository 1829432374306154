"""The authoring surfaces as pydantic models. Expressions stay strings here; stage 2 (check) types them."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from typing_extensions import Annotated

ID_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$"
NAME_PATTERN = r"^[a-z][a-z0-9_]*$"

OPERATIONS = (
    "lookup", "filter", "count", "compare", "rank", "aggregate", "logic", "spatial_relation", "topology",
    "matching", "transformation", "state_update", "formula",
)
BUCKETS = ("spatial", "math", "diagram", "pattern_logic", "counting")
ANSWER_TYPES = ("integer", "number", "string", "option", "boolean", "list", "set")


def _as_source(v: Any) -> Any:
    """YAML reads `n: 5` as an int; expressions are text, so scalars become their source form."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return v


Expr = Annotated[str, BeforeValidator(_as_source)]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# -- scene grammars ---------------------------------------------------------------------------------------------
class Canvas(Model):
    width: int = Field(512, ge=64, le=2048)
    height: int = Field(384, ge=64, le=2048)
    # Ranges a build with variety mild or strong samples the canvas from (undeclared: the canvas is fixed):
    # `scale` multiplies the pixels per unit, `aspect` sets width/height at the same area (codegen.grammar checks).
    scale: list[float] | None = None
    aspect: list[float] | None = None


class RasterSpec(Model):
    """How far a build's raster edits may go on this grammar's pictures (render.raster)."""
    strength: Literal["none", "mild", "strong"] = "strong"  # the most it allows: a build's variety is capped to it
    skip: list[str] = []  # edits it opts out of, by name (render/raster.py EDITS)


class InspectSpec(Model):
    """One list of scene objects the inspect tool may name (render.tools.inspect.LIST): what it returns."""
    field: str  # a text field of the list's records: the label inspect reads out
    says: str | None = None  # how the prompt describes the tool's result, e.g. "the store a segment belongs to"


class ToolsSpec(Model):
    """Tools a grammar exposes over its pictures beyond zoom and crop (render.tools); codegen.grammar checks them."""
    # state list → the field inspect returns for a point on one of its marks (a field name, or {field, says})
    inspect: dict[str, InspectSpec | str] = {}


class RenderSpec(Model):
    canvas: Canvas = Canvas()
    # Font classes (spec.fonts.FONT_CLASSES) the scene's text may use when variety picks faces; all if unset.
    fonts: list[str] | None = None
    raster: RasterSpec | None = None
    tools: ToolsSpec | None = None
    # A scene tree: frames, marks, guides, layers, panels, components (checked by codegen/scene.py).
    scene: dict[str, Any]


InputType = Literal["int", "float", "str", "bool"]


class GrammarSpec(Model):
    grammar: str = Field(pattern=ID_PATTERN)
    summary: str
    # Query variables of the task that the state may read (name → type), so a scene can be built towards an answer.
    inputs: dict[str, InputType] = {}
    # Named helpers (name → lambda source), visible to everything the grammar compiles; see compile.function_type.
    functions: dict[str, Expr] = {}
    state: dict[str, Expr]
    require: dict[str, Expr] = {}
    render: RenderSpec
    max_attempts: int = Field(200, ge=1, le=10_000)


# -- scene components -------------------------------------------------------------------------------------------
# The type words of the language (docs/AUTHORING.md, "The language rules in one table"): JSON Schema's words plus
# the domain kinds; a component parameter whose value is a jinja template is a `template`.
PARAM_KINDS = ("list", "number", "integer", "template", "string", "boolean", "color", "fn", "any")
# Words of the earlier vocabularies → the word that replaced each (an old word in a file is error old-type-word).
OLD_TYPE_WORDS = {"int": "integer", "float": "number", "num": "number", "str": "string", "bool": "boolean",
                  "text": "template"}


class ComponentParam(Model):
    kind: Literal[PARAM_KINDS]  # type: ignore[valid-type]
    default: Expr | None = None  # an expression in the caller's scope; no default = required
    summary: str = ""


class ComponentSpec(Model):
    component: str = Field(pattern=NAME_PATTERN)
    summary: str
    params: dict[str, ComponentParam] = {}
    limits: dict[str, int] = {}  # list parameter → most items the component can draw legibly
    require: dict[str, Expr] = {}  # named bool expressions over the parameters, checked at every use
    fonts: list[str] | None = None  # font classes its text may use (e.g. [handwriting] for sticky notes)
    scene: dict[str, Any]


# -- reward contracts -------------------------------------------------------------------------------------------
class Tolerance(Model):
    abs: float = Field(0.0, ge=0)
    rel: float = Field(0.0, ge=0)


class Normalize(Model):
    case: Literal["fold", "keep"] = "fold"
    whitespace: Literal["collapse", "keep"] = "collapse"
    strip_punctuation: bool = True
    strip_articles: bool = False
    # What the answer is: free text; a time of day read off a 12-hour clock ("3:05", "03:05 pm", "15:05" → "3:05");
    # or, for numbers, a probability ("25%" and "1 in 4" read as 0.25; elsewhere "%" is only a unit).
    form: Literal["text", "clock_time", "probability"] = "text"
    # canonical word → the other spellings that read as it (grey → gray); checked by codegen/contract.py
    synonyms: dict[str, list[str]] = {}


class ContractSpec(Model):
    contract: str = Field(pattern=NAME_PATTERN)
    summary: str
    type: Literal["integer", "number", "string", "option", "boolean", "list", "set"]
    items: Literal["integer", "number", "string"] | None = None
    tolerance: Tolerance = Tolerance()
    normalize: Normalize = Normalize()
    key: str = Field("answer", pattern=NAME_PATTERN)
    # the final-answer convention prompts ask for and the format point rewards (compiler.verify.score.FORMATS):
    # a trailing JSON object {key: ...}, \boxed{...}, or <answer>...</answer>
    format: Literal["json", "boxed", "tag"] = "json"


# -- task programs ----------------------------------------------------------------------------------------------
class AnswerSpec(Model):
    value: Expr
    contract: str


class ProgramSpec(Model):
    task: str = Field(pattern=ID_PATTERN)
    grammar: str = Field(pattern=ID_PATTERN)
    summary: str
    operations: list[Literal[OPERATIONS]] = Field(min_length=1)  # type: ignore[valid-type]
    bucket: Literal[BUCKETS]  # type: ignore[valid-type]
    query: dict[str, Any] = {}  # bounded variables; checked by check.program (lists, ranges, vocab names)
    functions: dict[str, Expr] = {}  # named helpers (name → lambda source) for compute, require, answer, witness
    compute: dict[str, Expr] = {}
    require: dict[str, Expr] = {}
    answer: AnswerSpec
    witness: dict[Literal["bbox", "point", "segment", "set", "sequence", "map", "scalar"], Expr] = Field(
        min_length=1, max_length=1)
    prompt: str | list[str]


# -- taxonomy ---------------------------------------------------------------------------------------------------
class DomainSpec(Model):
    summary: str
    tasks: list[str] = Field(min_length=1)  # task ids or patterns ending in `.*`


class TaxonomySpec(Model):
    taxonomy: str
    version: int
    domains: dict[str, DomainSpec]


# A vocabulary record's field: words, numbers, or (one level down) records of words and numbers — a sprite's
# size and its named anchor boxes (taxonomy/vocab.yaml `sprites`).
VocabAtom = str | int | float
VocabField = VocabAtom | list[str] | list[int | float] | list[dict[str, VocabAtom]]


class VocabSpec(Model):
    # lists of words or numbers, or of records (a chart topic: its title, unit, nouns and categories)
    vocab: dict[str, list[str] | list[int] | list[dict[str, VocabField]]]
