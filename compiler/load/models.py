"""The authoring surfaces as pydantic models. Expressions stay strings here; stage 2 (check) types them."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
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


# In the JSON Schemas (compiler/reference.py) an expression is any YAML scalar, marked "x-tessera": "expression" so
# the reference's Expression? column is read from the model; a template (prompt text with {{ }} holes) likewise.
Expr = Annotated[str, BeforeValidator(_as_source),
                 WithJsonSchema({"type": ["string", "number", "boolean"], "x-tessera": "expression"})]
TemplateText = Annotated[str, WithJsonSchema({"type": "string", "x-tessera": "template"})]


class Model(BaseModel):
    # the docstring under a field is its description (docs/reference/files.md and the JSON Schemas)
    model_config = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)


# -- scene grammars ---------------------------------------------------------------------------------------------
class Canvas(Model):
    width: int = Field(512, ge=64, le=2048)
    """pixels across"""
    height: int = Field(384, ge=64, le=2048)
    """pixels down"""
    # Ranges a build with variety mild or strong samples the canvas from (undeclared: the canvas is fixed):
    # `scale` multiplies the pixels per unit, `aspect` sets width/height at the same area (codegen.grammar checks).
    scale: list[float] | None = None
    """[lo, hi]: a varied build multiplies the pixels per unit by a factor from this range"""
    aspect: list[float] | None = None
    """[lo, hi]: a varied build sets width/height from this range at the same area"""


class RasterSpec(Model):
    """How far a build's raster edits may go on this grammar's pictures (render.raster)."""
    strength: Literal["none", "mild", "strong"] = "strong"  # the most it allows: a build's variety is capped to it
    """the most raster variety this grammar allows: a build's variety is capped to it"""
    skip: list[str] = []  # edits it opts out of, by name (render/raster.py EDITS)
    """raster edits this grammar opts out of, by name (docs/reference/variety.md)"""


class InspectSpec(Model):
    """One list of scene objects the inspect tool may name (render.tools.inspect.LIST): what it returns."""
    field: str  # a text field of the list's records: the label inspect reads out
    """a text field of the list's records: the label inspect reads out"""
    says: str | None = None  # how the prompt describes the tool's result, e.g. "the store a segment belongs to"
    """how the prompt describes the tool's result"""


class ToolsSpec(Model):
    """Tools a grammar exposes over its pictures beyond zoom and crop (render.tools); codegen.grammar checks them."""
    # state list → the field inspect returns for a point on one of its marks (a field name, or {field, says})
    inspect: dict[str, InspectSpec | str] = {}
    """state list → the field inspect returns for a point on one of its marks"""


class RenderSpec(Model):
    canvas: Canvas = Canvas()
    """the picture's size in pixels"""
    # Font classes (spec.fonts.FONT_CLASSES) the scene's text may use when variety picks faces; all if unset.
    fonts: list[str] | None = None
    """font classes the scene's text may use when variety picks faces (all when unset)"""
    raster: RasterSpec | None = None
    """how far raster edits may go on its pictures"""
    tools: ToolsSpec | None = None
    """tools over its pictures beyond zoom and crop"""
    # A scene tree: frames, marks, guides, layers, panels, components (checked by codegen/scene.py).
    scene: dict[str, Any]


# The language's one type vocabulary (answer contracts, component params and grammar inputs say the same words).
# The words before 0.11 (int, float, str, bool) are refused by codegen.grammar with code old-type-word, which names
# the new word: the type is read as a plain string here so that message, not pydantic's, is the one shown.
INPUT_TYPES = ("integer", "number", "string", "boolean")
InputScalar = str | bool | int | float


class InputRange(Model):
    """`values: {range: [lo, hi]}` for an integer input: lo..hi, both ends included (as a query variable's range)."""
    range: list[int] = Field(min_length=2, max_length=2)


class InputSpec(Model):
    """A grammar input in the long form: its type, the values it may take, the value a task that does not set it
    gets, and what it means. codegen.grammar checks them; codegen.task checks each task's values against them."""
    type: str  # one of INPUT_TYPES
    """the input's type word: integer, number, string or boolean"""
    values: list[InputScalar] | InputRange | None = None  # None: every value of the type
    """the values a task may give it: a list, or {range: [lo, hi]} (both ends included); none: any of the type"""
    default: InputScalar | None = None  # None: every task must set the input
    """the value of a task that does not set it; none: every task must set it"""
    summary: str = ""
    """one line: what the input means"""


class GrammarSpec(Model):
    grammar: str = Field(pattern=ID_PATTERN)
    """the grammar's id: DOMAIN.NAME"""
    summary: str
    """one line: what the scenes show"""
    # Query variables of the task that the state may read, so a scene can be built towards an answer: name → its
    # type word (short form), or name → {type, values, default, summary} (InputSpec).
    inputs: dict[str, InputSpec | str] = {}
    """query variables of the task that the state may read: name → a type word, or {type, values, default, summary}"""
    # Named helpers (name → lambda source), visible to everything the grammar compiles; see compile.function_type.
    functions: dict[str, Expr] = {}
    """named helpers (name → lambda), visible to everything the grammar compiles"""
    # Named difficulty parameters (name → expression of `level`): the only place `level` is read (codegen.levels).
    levels: dict[str, Expr] = {}
    """difficulty parameters: name → expression of `level` (0-9), the only place `level` is read; nothing random"""
    state: dict[str, Expr]
    """the sampled state: name → expression, in order (random functions allowed)"""
    require: dict[str, Expr] = {}
    """named conditions a state must meet, else it is sampled again"""
    render: RenderSpec
    """the picture: canvas, fonts, raster bounds, tools and the scene"""
    max_attempts: int = Field(200, ge=1, le=10_000)
    """states sampled before generation gives up"""


# -- scene components -------------------------------------------------------------------------------------------
# The type words of the language (docs/AUTHORING.md, "The language rules in one table"): JSON Schema's words plus
# the domain kinds; a component parameter whose value is a jinja template is a `template`.
PARAM_KINDS = ("list", "number", "integer", "template", "string", "boolean", "color", "fn", "any")
# Words of the earlier vocabularies → the word that replaced each (an old word in a file is error old-type-word).
OLD_TYPE_WORDS = {"int": "integer", "float": "number", "num": "number", "str": "string", "bool": "boolean",
                  "text": "template"}


class ComponentParam(Model):
    kind: Literal[PARAM_KINDS]  # type: ignore[valid-type]
    """the parameter's kind"""
    default: Expr | None = None  # an expression in the caller's scope; no default = required
    """an expression in the caller's scope; no default: the parameter is required"""
    summary: str = ""
    """one line for the docs"""


class ComponentSpec(Model):
    component: str = Field(pattern=NAME_PATTERN)
    """the component's name (the file's name)"""
    summary: str
    """one line: what it draws"""
    params: dict[str, ComponentParam] = {}
    """its parameters"""
    limits: dict[str, int] = {}  # list parameter → most items the component can draw legibly
    """list parameter → most items it draws legibly"""
    require: dict[str, Expr] = {}  # named bool expressions over the parameters, checked at every use
    """named conditions over the parameters, checked at every use"""
    fonts: list[str] | None = None  # font classes its text may use (e.g. [handwriting] for sticky notes)
    """font classes its text may use"""
    scene: dict[str, Any]
    """the scene it draws"""


# -- reward contracts -------------------------------------------------------------------------------------------
class Tolerance(Model):
    abs: float = Field(0.0, ge=0)
    """absolute tolerance of a numeric answer"""
    rel: float = Field(0.0, ge=0)
    """relative tolerance of a numeric answer"""


class Normalize(Model):
    case: Literal["fold", "keep"] = "fold"
    """fold case before comparing, or keep it"""
    whitespace: Literal["collapse", "keep"] = "collapse"
    """collapse runs of white space, or keep them"""
    strip_punctuation: bool = True
    """ignore punctuation"""
    strip_articles: bool = False
    """ignore a, an, the"""
    # What the answer is: free text; a time of day read off a 12-hour clock ("3:05", "03:05 pm", "15:05" → "3:05");
    # or, for numbers, a probability ("25%" and "1 in 4" read as 0.25; elsewhere "%" is only a unit).
    form: Literal["text", "clock_time", "probability"] = "text"
    """what the answer is: free text, a clock time, or (numbers) a probability"""
    # canonical word → the other spellings that read as it (grey → gray); checked by codegen/contract.py
    synonyms: dict[str, list[str]] = {}
    """canonical word → other spellings that read as it"""


class ContractSpec(Model):
    contract: str = Field(pattern=NAME_PATTERN)
    """the contract's name"""
    summary: str
    """one line: what answers it takes"""
    type: Literal["integer", "number", "string", "option", "boolean", "list", "set"]
    """the answer's type"""
    items: Literal["integer", "number", "string"] | None = None
    """the items' type of a list or set answer"""
    tolerance: Tolerance = Tolerance()
    """how close a number must be"""
    normalize: Normalize = Normalize()
    """how text is compared"""
    key: str = Field("answer", pattern=NAME_PATTERN)
    """the answer's key in a JSON final answer"""
    # the final-answer convention prompts ask for and the format point rewards (compiler.verify.score.FORMATS):
    # a trailing JSON object {key: ...}, \boxed{...}, or <answer>...</answer>
    format: Literal["json", "boxed", "tag"] = "json"
    """the final-answer convention: a JSON object, \\boxed{...} or <answer>...</answer>"""


# -- task programs ----------------------------------------------------------------------------------------------
class AnswerSpec(Model):
    value: Expr
    """the answer, an expression over the state and computed values"""
    contract: str
    """the contract it is scored by"""


class ProgramSpec(Model):
    task: str = Field(pattern=ID_PATTERN)
    """the task's id: DOMAIN.GRAMMAR.NAME (matching its path)"""
    grammar: str = Field(pattern=ID_PATTERN)
    """the grammar it reads"""
    summary: str
    """one line: what the task asks"""
    operations: list[Literal[OPERATIONS]] = Field(min_length=1)  # type: ignore[valid-type]
    """the reasoning operations it needs"""
    bucket: Literal[BUCKETS]  # type: ignore[valid-type]
    """the skill bucket it counts towards"""
    query: dict[str, Any] = {}  # bounded variables; checked by check.program (lists, ranges, vocab names)
    """bounded query variables: name → list of values, {range: [lo, hi]} (both ends included) or a vocab name"""
    functions: dict[str, Expr] = {}  # named helpers (name → lambda source) for compute, require, answer, witness
    """named helpers (name → lambda)"""
    levels: dict[str, Expr] = {}  # named difficulty parameters, as a grammar's (codegen.levels)
    """difficulty parameters: name → expression of `level` (0-9), the only place `level` is read; nothing random"""
    compute: dict[str, Expr] = {}
    """named steps over the state, in order"""
    require: dict[str, Expr] = {}
    """named conditions an instance must meet"""
    answer: AnswerSpec
    """the answer and its contract"""
    witness: dict[Literal["bbox", "point", "segment", "set", "sequence", "map", "scalar"], Expr] = Field(
        min_length=1, max_length=1)
    """one witness of the answer (bbox, point, segment, set, sequence, map or scalar)"""
    prompt: TemplateText | list[TemplateText]
    """the question (a template), or several phrasings"""


# -- taxonomy ---------------------------------------------------------------------------------------------------
class DomainSpec(Model):
    summary: str
    """one line: what the domain covers"""
    tasks: list[str] = Field(min_length=1)  # task ids or patterns ending in `.*`
    """task ids or patterns ending in .*"""


class TaxonomySpec(Model):
    taxonomy: str
    """the taxonomy's name"""
    version: int
    """its version"""
    domains: dict[str, DomainSpec]
    """domain → its summary and tasks"""


# A vocabulary record's field: words, numbers, or (one level down) records of words and numbers — a sprite's
# size and its named anchor boxes (taxonomy/vocab.yaml `sprites`).
VocabAtom = str | int | float
VocabField = VocabAtom | list[str] | list[int | float] | list[dict[str, VocabAtom]]


class VocabSpec(Model):
    # lists of words or numbers, or of records (a chart topic: its title, unit, nouns and categories)
    vocab: dict[str, list[str] | list[int] | list[dict[str, VocabField]]]
    """name → a list of words, numbers or records"""
