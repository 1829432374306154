"""Issue 9, the loader's part: sizes are bounded before anything is built (class 3), the library root is a boundary
and every reader error is one positioned line (class 8), and positions inside every scalar style are exact (class 9).
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import time
from pathlib import Path

import pytest
import yaml

from tessera.cli import main
from tessera.errors import CompileFailed, Diagnostics
from tessera.expr.compile import Site, parse
from tessera.load import yaml_source
from tessera.load.yaml_source import (MAX_DEPTH, MAX_FILE_BYTES, MAX_ITEMS, MAX_KEYS, MAX_NODES, MAX_SCALAR_CHARS,
                                       parse_yaml, read_yaml, scalar_offsets)
from tessera.taxonomy import compile_taxonomy
from tests.test_fuzz import ERROR_LINE, SUMMARY_LINE, make_subset_root


def load(text: str, path: str = "x.yaml"):
    diags = Diagnostics()
    doc = parse_yaml(text, path, diags)
    return doc, [str(d) for d in diags.sorted() if d.severity == "error"]


def read(tmp_path, data: bytes, name: str = "x.yaml"):
    p = tmp_path / name
    p.write_bytes(data)
    diags = Diagnostics()
    doc = read_yaml(p, name, diags)
    return doc, [str(d) for d in diags.sorted() if d.severity == "error"]


def compile_errors(root) -> list[str]:
    with pytest.raises(CompileFailed) as info:
        compile_taxonomy(root)
    return [str(d) for d in info.value.diagnostics.sorted() if d.severity == "error"]


def cli(root) -> tuple[int, list[str]]:
    """`tessera compile` in-process, from inside the root (so paths print relative): exit status, stderr lines."""
    err = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(root)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["--root", str(root), "compile", "--json"])
    finally:
        os.chdir(cwd)
    return code, err.getvalue().splitlines()


@pytest.fixture
def icons_root(tmp_path) -> Path:
    """The icons domain of the bundled library (with every contract and component): compiles in a fifth of a second."""
    return make_subset_root("icons", tmp_path / "lib")


TASK = """\
task: icons.shape_field.probe
grammar: icons.shape_field
summary: a probe
operations: [count]
bucket: counting
{query}answer: {{value: "{answer}", contract: integer_exact}}
witness: {{set: shapes}}
prompt: How many shapes?
"""


def write_task(root: Path, answer: str = "len(shapes)", query: str = "", name: str = "probe.yaml") -> str:
    rel = f"programs/icons/probe/{name}"
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(TASK.format(answer=answer, query=query))
    return str(root / rel)


def test_probe_task_compiles(icons_root):
    write_task(icons_root)
    assert "icons.shape_field.probe" in compile_taxonomy(icons_root).tasks


# -- class 3: sizes before anything is built -----------------------------------------------------------------------
def test_nesting_depth_is_bounded_while_parsing():
    # The root mapping is level 1, so the list opened by the 32nd '[' (column 3 + 31) is one level too many.
    for n in (MAX_DEPTH, 500, 900):
        doc, errs = load("a: " + "[" * n + "]" * n)
        assert doc is None
        assert errs == [f"x.yaml:1:{3 + MAX_DEPTH}: error: mappings and lists nest more than {MAX_DEPTH} levels deep; "
                        f"the limit for an authoring file is {MAX_DEPTH}  [bound]"]
    # Past 1,000 levels libyaml's scanner, looking ahead for a key, stops first: one positioned line all the same.
    assert load("a: " + "[" * 5_000 + "]" * 5_000)[1] == [
        "x.yaml:1:1003: error: YAML syntax: exceeded maximum nesting depth (while increasing flow level)  [yaml-syntax]"] \
        if yaml_source._Base is not yaml.SafeLoader else True
    doc, errs = load("a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))
    assert errs == [] and doc is not None
    # Block style and flow mappings count the same way.
    block = "".join(" " * i + "k:\n" for i in range(40)) + " " * 40 + "k: 1\n"
    assert load(block)[1] == [f"x.yaml:{MAX_DEPTH + 1}:{MAX_DEPTH + 1}: error: mappings and lists nest more than {MAX_DEPTH} "
                              f"levels deep; the limit for an authoring file is {MAX_DEPTH}  [bound]"]
    flow = "a: " + "{b: " * 600 + "1" + "}" * 600
    assert load(flow)[1][0].startswith(f"x.yaml:1:{4 + 4 * (MAX_DEPTH - 1)}: error: mappings and lists nest more")


def test_keys_items_scalars_and_nodes_are_bounded():
    keys = "".join(f"k{i}: 1\n" for i in range(MAX_KEYS + 5))
    assert load(keys)[1] == [f"x.yaml:{MAX_KEYS + 1}:1: error: mapping has more than {MAX_KEYS} keys; the limit for "
                             f"one mapping in an authoring file is {MAX_KEYS}  [bound]"]
    assert load("".join(f"k{i}: 1\n" for i in range(MAX_KEYS)))[1] == []
    items = "a:\n" + "".join(f"  - {i}\n" for i in range(MAX_ITEMS + 1))
    assert load(items)[1] == [f"x.yaml:{MAX_ITEMS + 2}:5: error: list has more than {MAX_ITEMS} items; the limit for "
                              f"one list in an authoring file is {MAX_ITEMS}  [bound]"]
    flow_items = "a: [" + ", ".join(["1"] * (MAX_ITEMS + 1)) + "]"
    assert load(flow_items)[1] == [f"x.yaml:1:{5 + 3 * MAX_ITEMS}: error: list has more than {MAX_ITEMS} items; the "
                                   f"limit for one list in an authoring file is {MAX_ITEMS}  [bound]"]
    assert load("a: " + "x" * (MAX_SCALAR_CHARS + 1))[1] == [
        f"x.yaml:1:4: error: value is {MAX_SCALAR_CHARS + 1} characters long; the limit for one value is "
        f"{MAX_SCALAR_CHARS}  [bound]"]
    assert load("a: " + "x" * MAX_SCALAR_CHARS)[1] == []
    assert load("b: 1\n" + "k" * 201 + ": 1\n")[1] == [
        "x.yaml:2:1: error: key is 201 characters long; the limit for a key is 200  [bound]"]
    # 21 lists of 999 items: each list is allowed, the file is not. With the root mapping, a key and a list per
    # line, line 20 holds values 19,021 to 20,021: the 20,001st is its item 978, at column 7 + 3 × 978.
    many = "".join(f"l{i}: [" + ", ".join(["0"] * 999) + "]\n" for i in range(21))
    assert load(many)[1] == [f"x.yaml:20:2941: error: more than {MAX_NODES} values in one file; the limit keeps "
                             f"compiling fast (split the file)  [bound]"]


def test_anchors_aliases_and_merge_keys_are_refused_where_they_appear():
    doc, errs = load("a: &x [1, 2]\nb: *x\nc:\n  <<: {d: 1}\n  e: 2\n")
    assert errs == ["x.yaml:1:4: error: YAML anchors (&x) are not supported in authoring files  [yaml-syntax]",
                    "x.yaml:2:4: error: YAML aliases (*name) are not supported in authoring files  [yaml-syntax]",
                    "x.yaml:4:3: error: YAML merge keys (<<) are not supported  [yaml-syntax]"]
    assert doc.data == {"a": [1, 2], "b": None, "c": {"e": 2}}
    # Billion laughs: nothing is expanded, the errors stop at a bound, and it ends at once.
    laughs = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9))
    t0 = time.process_time()
    doc, errs = load(laughs)
    assert time.process_time() - t0 < 5  # CPU seconds, generous: it is milliseconds; expanding would be forever
    assert doc is None and len(errs) == 21
    assert errs[0] == "x.yaml:1:4: error: YAML anchors (&a) are not supported in authoring files  [yaml-syntax]"
    # Line 1 has one anchor, line 2 an anchor and 9 aliases, line 3 an anchor and then its 8th alias is the 20th.
    assert errs[-2:] == ["x.yaml:3:29: error: 20 errors in this file; reading it stopped here  [bound]",
                         "x.yaml:3:29: error: YAML aliases (*name) are not supported in authoring files  [yaml-syntax]"]
    # A mapping used as a key, an alias as a key, and a duplicate key: reported, their values dropped.
    doc, errs = load("? [a, b]\n: 1\n*k : 2\nz: 3\nz: 4\n")
    assert errs == ["x.yaml:1:3: error: mapping keys must be plain names  [yaml-syntax]",
                    "x.yaml:3:1: error: YAML aliases (*name) are not supported in authoring files  [yaml-syntax]",
                    "x.yaml:5:1: error: duplicate key 'z'  [duplicate-key]"]
    assert doc.data == {"z": 3}


def test_numbers_out_of_range_are_refused_with_a_position():
    doc, errs = load("a: 1.0e+400\nb: -.inf\nc: .nan\nd: 99999999999999999999\ne: " + "7" * 5000 +
                     "\nf: !!float 1e999\ng: 4611686018427387903\nh: 1.5e+300\n")
    assert errs == [
        "x.yaml:1:4: error: number '1.0e+400' is not finite (infinity and NaN cannot be authored)  [yaml-number]",
        "x.yaml:2:4: error: number '-.inf' is not finite (infinity and NaN cannot be authored)  [yaml-number]",
        "x.yaml:3:4: error: number '.nan' is not finite (infinity and NaN cannot be authored)  [yaml-number]",
        "x.yaml:4:4: error: integer 99999999999999999999 is out of range (limit 4611686018427387904)  [yaml-number]",
        "x.yaml:5:4: error: integer of 5000 digits is out of range (limit 4611686018427387904)  [yaml-number]",
        "x.yaml:6:4: error: number '1e999' is not finite (infinity and NaN cannot be authored)  [yaml-number]",
    ]
    assert doc.data["g"] == 2**62 - 1 and doc.data["h"] == 1.5e300


def test_one_document_per_file_and_empty_files():
    assert load("a: 1\n---\nb: 2\n")[1] == [
        "x.yaml:2:1: error: a file holds one YAML document; remove the second `---`  [yaml-syntax]"]
    assert load("# only a comment\n")[1] == ["x.yaml:1:1: error: file is empty: expected a mapping  [yaml-syntax]"]
    assert load("")[1] == ["x.yaml:1:1: error: file is empty: expected a mapping  [yaml-syntax]"]


def test_query_space_is_sized_before_it_is_built(icons_root, monkeypatch):
    monkeypatch.chdir(icons_root)
    path = "programs/icons/probe/probe.yaml"
    # A range of 10^11 values: refused from its two ends (building it would take terabytes).
    write_task(icons_root, query="query:\n  k: {range: [0, 100000000000]}\n")
    t0 = time.process_time()
    assert compile_errors(icons_root) == [f"{path}:7:6: error: query variable 'k' has 100000000001 values; the "
                                           f"limit is 256 (a query selects among a few variants of one task)  [bound]"]
    assert time.process_time() - t0 < 30  # CPU seconds, generous: a materialised range would not end at all
    write_task(icons_root, query="query:\n  k: {range: [1, 257]}\n")
    assert compile_errors(icons_root)[0].startswith(f"{path}:7:6: error: query variable 'k' has 257 values;")
    write_task(icons_root, query="query:\n  k: {range: [1, 256]}\n")
    assert len(compile_taxonomy(icons_root).tasks["icons.shape_field.probe"].query_space()) == 256
    # Three variables of 256 values each are fine alone, 16M together: the product is refused, not built.
    write_task(icons_root, query="query:\n  a: {range: [1, 256]}\n  b: {range: [1, 256]}\n  c: {range: [1, 256]}\n")
    assert compile_errors(icons_root) == [f"{path}:6:1: error: the query space has 16777216 combinations (a (256) × "
                                           f"b (256) × c (256)); the limit is 1024: use fewer or smaller query "
                                           f"variables  [bound]"]
    write_task(icons_root, query="query:\n  a: {range: [1, 32]}\n  b: [x, y, z, w]\n  c: [true, false]\n")
    assert len(compile_taxonomy(icons_root).tasks["icons.shape_field.probe"].query_space()) == 256
    write_task(icons_root, query="query:\n  a: {range: [1, 33]}\n  b: [x, y, z, w]\n  c: [true, false]\n  d: [1, 2, 3, 4]\n")
    assert compile_errors(icons_root) == [f"{path}:6:1: error: the query space has 1056 combinations (a (33) × b (4) "
                                           f"× c (2) × d (4)); the limit is 1024: use fewer or smaller query variables  [bound]"]


def test_deep_yaml_in_a_program_is_one_error_through_the_cli(icons_root):
    write_task(icons_root)
    path = icons_root / "programs/icons/probe/probe.yaml"
    path.write_text(path.read_text().replace("prompt: How many shapes?", "prompt: " + "[" * 500 + "]" * 500))
    code, lines = cli(icons_root)
    assert code == 2 and lines == [
        f"programs/icons/probe/probe.yaml:8:{8 + MAX_DEPTH}: error: mappings and lists nest more than {MAX_DEPTH} "
        f"levels deep; the limit for an authoring file is {MAX_DEPTH}  [bound]", "1 error; nothing was compiled"]


# -- class 8: the root is a boundary; every reader error is one positioned line -------------------------------------
def test_reader_errors_are_one_line_with_a_position(tmp_path):
    assert read(tmp_path, b"a: 1\nb: 2\nc: ab\xffcd\n")[1] == [
        "x.yaml:3:6: error: file is not UTF-8: byte 0xff at byte offset 15 (invalid start byte); save the file as UTF-8  [file-encoding]"]
    # A multi-byte character cut short at the end of the file; an overlong encoding.
    assert read(tmp_path, "a: é\nb: ".encode() + b"\xc3")[1] == [
        "x.yaml:2:4: error: file is not UTF-8: byte 0xc3 at byte offset 9 (unexpected end of data); save the file as "
        "UTF-8  [file-encoding]"]
    assert read(tmp_path, b"a: \xc0\xaf\n")[1][0].startswith("x.yaml:1:4: error: file is not UTF-8: byte 0xc0 at byte "
                                                            "offset 3")
    assert read(tmp_path, "a: 1\nb: é\x00\n".encode())[1] == [
        "x.yaml:2:5: error: NUL (U+0000) at byte offset 10 is not allowed in a YAML file  [file-encoding]"]  # é is two bytes
    assert read(tmp_path, b"a: 1\rb: \x1b[31m\r")[1] == [
        "x.yaml:2:4: error: ESC (U+001B) at byte offset 8 is not allowed in a YAML file  [file-encoding]"]
    assert read(tmp_path, b"a: 1\r\nb: 2\x0c\r\n")[1] == [
        "x.yaml:2:5: error: form feed (U+000C) at byte offset 10 is not allowed in a YAML file  [file-encoding]"]
    big = b"a: '" + b"x" * MAX_FILE_BYTES + b"'\n"
    assert read(tmp_path, big)[1] == [f"x.yaml:1:1: error: file is {len(big)} bytes; the limit for an authoring file is "
                                      f"{MAX_FILE_BYTES}  [bound]"]
    # A byte-order mark is dropped: the file reads as without it, columns as the author sees them.
    doc, errs = read(tmp_path, b"\xef\xbb\xbfa: 1\nb: [\n")
    assert errs == read(tmp_path, b"a: 1\nb: [\n")[1] and errs[0].startswith("x.yaml:3:1: error: YAML syntax:")
    doc, errs = read(tmp_path, b"\xef\xbb\xbfa: x\n")
    assert errs == [] and doc.data == {"a": "x"} and str(doc.pos(("a",))) == "x.yaml:1:4"


def test_a_fifo_or_a_folder_is_refused_without_reading(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    # Opening a FIFO for reading blocks (no CPU) until a writer comes: only a wall-clock guard can see that, and it
    # is generous because a starved process is not a blocked one.
    def blocked(signum, frame):
        raise AssertionError("read_yaml blocked on the FIFO for 60 s: it opened it for reading")

    old = signal.signal(signal.SIGALRM, blocked)
    signal.setitimer(signal.ITIMER_REAL, 60)
    try:
        assert read_yaml(tmp_path / "pipe.yaml", "pipe.yaml", d := Diagnostics()) is None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert [str(x) for x in d.items] == ["pipe.yaml:1:1: error: not a regular file (a folder, pipe or device cannot be "
                                         "an authoring file)  [file-access]"]
    (tmp_path / "dir.yaml").mkdir()
    assert read_yaml(tmp_path / "dir.yaml", "dir.yaml", d := Diagnostics()) is None
    assert str(d.items[0]) == "dir.yaml:1:1: error: not a regular file (a folder, pipe or device cannot be an " \
                              "authoring file)  [file-access]"
    assert read_yaml(tmp_path / "gone.yaml", "gone.yaml", d := Diagnostics()) is None
    assert str(d.items[0]) == "gone.yaml:1:1: error: cannot read file: No such file or directory  [file-access]"


def test_line_endings_keep_positions(icons_root, monkeypatch):
    monkeypatch.chdir(icons_root)
    path = write_task(icons_root, answer="len(shapes) + @")
    text = Path(path).read_text()
    for ending in ("\n", "\r\n", "\r"):
        Path(path).write_bytes(text.replace("\n", ending).encode())
        assert compile_errors(icons_root) == ["programs/icons/probe/probe.yaml:6:32: error: unexpected character '@' "
                                               "in expression  [expr-syntax]"]


def test_symlinks_leaving_the_root_are_not_followed(icons_root, tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text("SECRET-PASSWORD: [hunter2\n")
    links = icons_root / "programs/icons/links"
    links.mkdir()
    (links / "outside.yaml").symlink_to(secret)
    (links / "dangling.yaml").symlink_to(tmp_path / "nothing-here.yaml")
    (links / "loop.yaml").symlink_to(links / "loop.yaml")
    (links / "relative.yaml").symlink_to(Path("../../../../secret.yaml"))
    (icons_root / "grammars/icons/more").symlink_to(tmp_path, target_is_directory=True)
    code, lines = cli(icons_root)
    assert code == 2
    assert lines == [
        "grammars/icons/more:1:1: error: symbolic link to a folder is not followed (link single files, inside the "
        "taxonomy root)  [file-access]",
        "programs/icons/links/dangling.yaml:1:1: error: symbolic link leads outside the taxonomy root (or nowhere); "
        "it is not followed  [file-access]",
        "programs/icons/links/loop.yaml:1:1: error: symbolic link leads outside the taxonomy root (or nowhere); it is "
        "not followed  [file-access]",
        "programs/icons/links/outside.yaml:1:1: error: symbolic link leads outside the taxonomy root (or nowhere); it "
        "is not followed  [file-access]",
        "programs/icons/links/relative.yaml:1:1: error: symbolic link leads outside the taxonomy root (or nowhere); "
        "it is not followed  [file-access]",
        "5 errors; nothing was compiled"]
    assert not any("SECRET" in ln or "hunter2" in ln for ln in lines)


def test_symlinks_inside_the_root_are_followed(icons_root):
    # A program kept elsewhere in the root and linked into programs/ compiles as if it were there.
    write_task(icons_root)
    shared = icons_root / "shared"
    shared.mkdir()
    (icons_root / "programs/icons/probe/probe.yaml").rename(shared / "probe.yaml")
    (icons_root / "programs/icons/probe/probe.yaml").symlink_to(Path("../../../shared/probe.yaml"))
    assert "icons.shape_field.probe" in compile_taxonomy(icons_root).tasks
    # The taxonomy index behind a link that leaves the root is refused like any other file.
    outside = icons_root.parent / "tax.yaml"
    (icons_root / "taxonomy/taxonomy.yaml").rename(outside)
    (icons_root / "taxonomy/taxonomy.yaml").symlink_to(outside)
    errs = compile_errors(icons_root)
    assert errs == [f"{icons_root}/taxonomy/taxonomy.yaml:1:1: error: symbolic link leads outside the taxonomy "
                    f"root (or nowhere); it is not followed  [file-access]"]


# -- class 9: exact positions inside every scalar style -------------------------------------------------------------
def where(text: str, marker: str) -> str:
    """line:col of the one `marker` in text (lines split at \\n only: the tests below write no other breaks)."""
    assert text.count(marker) == 1, marker
    before = text[:text.index(marker)]
    return f"{before.count(chr(10)) + 1}:{len(before) - before.rfind(chr(10))}"


def syntax_error(text: str, key: str = "e") -> str:
    doc, errs = load(text)
    assert errs == [] and doc is not None
    diags = Diagnostics()
    assert parse(doc.data[key], Site(doc, (key,)), diags) is None
    (d,) = diags.items
    return str(d)


STYLES = [
    # (source, marker of the offending character in the source, the message)
    ('e: len(xs) @ 2\n', "@", "unexpected character '@'"),
    ('e: len(xs)\n  + 1 @ 2\n', "@", "unexpected character '@'"),  # plain, folded onto one line
    ('e: len(xs)\n\n  + 1 @ 2\n', "@", "unexpected character '@'"),  # plain, an empty line kept as \n
    ("e: 'f(''a'', ''b'') @ b'\n", "@", "unexpected character '@'"),
    ("e: 'x + y'''\n", "''", "unexpected character '''"),  # '' is one quote: the error is at the pair
    ('e: "len(xs) +\\t\\t@"\n', "@", "unexpected character '@'"),
    ('e: "caf\\u00e9 + 1"\n', "\\u00e9", "unexpected character 'é'"),
    ('e: "x\\x41\\u0042 @"\n', "@", "unexpected character '@'"),
    ('e: "len(xs)\n    + 1\n    @ 2"\n', "@", "unexpected character '@'"),
    ('e: "len(xs) \\\n    +1 @"\n', "@", "unexpected character '@'"),  # escaped line break
    ('e: >\n  len(xs)\n  + 1 @\n', "@", "unexpected character '@'"),
    ('e: >-\n    len(xs)\n\n      + 1\n    + @\n', "@", "unexpected character '@'"),  # more-indented line kept
    ('e: |\n  len(xs)\n    + 1 @ 2\n', "@", "unexpected character '@'"),
    ('x:\n  e: |2\n      len(xs)\n     + @\n', "@", "unexpected character '@'"),  # indentation indicator
    ('e: |+  # comment\n  a\n\n  + @\n\n', "@", "unexpected character '@'"),
    ('e: [1, "x\\t@"]\n', "@", "unexpected character '@'"),  # a scalar inside a flow list
    ("e: {a: 'b', c: 'd + ''é'' @'}\n", "@", "unexpected character '@'"),
    ('e: "\'😀\' + @"\n', "@", "unexpected character '@'"),  # an astral character is one column
]


@pytest.mark.parametrize("source, marker, message", STYLES)
def test_syntax_error_positions_are_exact_in_every_scalar_style(source, marker, message):
    doc, _ = load(source)
    key_path = ("e",) if "e" in doc.data else ("x", "e")
    value = doc.data[key_path[0]] if len(key_path) == 1 else doc.data["x"]["e"]
    if isinstance(value, (list, dict)):  # inside a flow collection: the item that holds the marker
        loc = key_path + ((1,) if isinstance(value, list) else ("c",))
    else:
        loc = key_path
    cur = doc.data
    for part in loc:
        cur = cur[part]
    diags = Diagnostics()
    assert parse(cur, Site(doc, loc), diags) is None
    assert [str(d) for d in diags.items] == [f"x.yaml:{where(source, marker)}: error: {message} in expression  [expr-syntax]"]


def test_end_of_expression_points_past_its_last_character():
    assert syntax_error('e: "len(xs) +"\n') == "x.yaml:1:14: error: expression ends too early  [expr-syntax]"  # the closing quote
    assert syntax_error("e: >\n  len(xs)\n  +\n") == "x.yaml:3:4: error: expression ends too early  [expr-syntax]"
    assert syntax_error("e: len(xs\n") == "x.yaml:1:10: error: expression ends too early  [expr-syntax]"


def test_type_errors_name_the_token_at_its_position(icons_root, monkeypatch):
    monkeypatch.chdir(icons_root)
    path = write_task(icons_root)
    text = Path(path).read_text()
    cases = [
        ('answer: {value: "len(shapes) + \\u00e9t\\u00e9", contract: integer_exact}', "\\u00e9t",
         "unexpected character 'é' in expression"),
        ('answer: {value: "len(shapes) + \\x41\\x42", contract: integer_exact}', "\\x41", "unknown name 'AB'"),
        ("answer:\n  value: >\n    len(shapes)\n    + nope\n  contract: integer_exact", "nope", "unknown name 'nope'"),
        ("answer:\n  value: 'len(''abc'') + nope'\n  contract: integer_exact", "nope", "unknown name 'nope'"),
        ('answer:\n  value: "len(shapes)\\t+\\t\n    nope"\n  contract: integer_exact', "nope", "unknown name 'nope'"),
    ]
    for replacement, marker, message in cases:
        new = re.sub(r"(?m)^answer: .*$", lambda m: replacement, text)
        Path(path).write_text(new)
        errs = compile_errors(icons_root)
        assert len(errs) == 1 and errs[0].startswith(f"programs/icons/probe/probe.yaml:{where(new, marker)}: error: "
                                                     f"{message}"), (errs, replacement)


def _alphabet_strings(rng: random.Random, n: int) -> list[str]:
    pieces = ["a", "b", " ", "  ", "\n", "\n\n", "\t", "'", '"', "\\", "é", "😀", "#", ":", "-", "x y", "\u2028",
              "len(xs)", "+", "{", "}", "[", ",", "  lead", "trail  "]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))) for _ in range(n)]


@pytest.mark.parametrize("loader", ["libyaml", "pure"])
def test_offsets_agree_with_the_parser_on_generated_scalars(loader, monkeypatch):
    """Any string, dumped by PyYAML in each style (folded at a narrow width) and read back: the mapper reproduces the
    parsed value exactly, and every character it maps that is not an escape or a fold lands on itself."""
    if loader == "pure":
        class Pure(yaml.SafeLoader):
            pass

        Pure.yaml_implicit_resolvers = yaml_source._Loader.yaml_implicit_resolvers
        monkeypatch.setattr(yaml_source, "_Loader", Pure)
    rng = random.Random(9)
    mapped = 0
    for s in _alphabet_strings(rng, 300):
        for style in ("", "'", '"', "|", ">"):
            text = yaml.dump({"k": s}, default_style=style or None, width=12, allow_unicode=True)
            doc, errs = load(text)
            if doc is None or doc.data.get("k") != s:
                continue  # a form PyYAML itself does not round-trip (it chose another style): not the mapper's case
            spot = doc.spots[("k",)]
            offsets = scalar_offsets(doc.text, spot.start, spot.end, spot.style, spot.raw)
            assert offsets is not None, (style, s, text)
            assert len(offsets) == len(s) + 1
            for ch, at in zip(s, offsets):
                if doc.text[at] not in "\\'\r\n \u2028" and ch not in " \n":
                    assert doc.text[at] == ch, (style, s, text)
            mapped += 1
    assert mapped > 1000


def test_block_scalars_with_an_indentation_indicator_and_deep_content():
    # The mapper tries only the indents the parent could have (up to the indicator's column), so content indented
    # thousands of columns costs one decode, and the position is still exact.
    source = "e: |1\n" + " " * 3000 + "len(xs) @\n"
    assert syntax_error(source) == f"x.yaml:{where(source, '@')}: error: unexpected character '@' in expression  [expr-syntax]"
    source = "a:\n  b:\n    e: >3\n         len(xs)\n\n          + @\n"
    doc, _ = load(source)
    diags = Diagnostics()
    parse(doc.data["a"]["b"]["e"], Site(doc, ("a", "b", "e")), diags)
    assert [str(d) for d in diags.items] == [f"x.yaml:{where(source, '@')}: error: unexpected character '@' in "
                                             f"expression  [expr-syntax]"]


def test_template_errors_name_their_line_inside_a_block_scalar(icons_root, monkeypatch):
    monkeypatch.chdir(icons_root)
    path = write_task(icons_root)
    for prompt in (">\n  How many\n  shapes?\n\n  {{ }} are there?", "|\n  How many shapes?\n  Count {{ }}",
                   '"How many\n\n  shapes? {{ }}"'):
        new = Path(path).read_text().replace("prompt: How many shapes?", "prompt: " + prompt)
        Path(path).write_text(new)
        # jinja stops at the closing `}}` (an expression was expected): the error sits on that token.
        line, col = where(new, "{{ }}").split(":")
        errs = compile_errors(icons_root)
        expected = f"programs/icons/probe/probe.yaml:{line}:{int(col) + 3}"
        assert [e.split(": error: ")[0] for e in errs] == [expected], errs
        write_task(icons_root)


def test_taxonomy_patterns_are_id_prefixes(icons_root, monkeypatch):
    # `[...]` sets and `?` make fnmatch's regular expressions slow (seconds a match for a few kilobytes), so a
    # pattern is an id prefix with `*` only.
    monkeypatch.chdir(icons_root)
    tax = icons_root / "taxonomy/taxonomy.yaml"
    new = tax.read_text().replace('tasks: ["icons.*"]', 'tasks: ["icons.*", "' + "[a-" * 3000 + '*", "x?.*"]')
    tax.write_text(new)
    line, col = where(new, '"[a-').split(":")
    t0 = time.process_time()
    assert compile_errors(icons_root) == [
        f"taxonomy/taxonomy.yaml:{line}:{col}: error: '{'[a-' * 26}[a' is not a task pattern: use a task id, or an id "
        f"prefix with * (like charts.*), at most 200 characters of a-z 0-9 _ . *  [taxonomy-listing]",
        f"taxonomy/taxonomy.yaml:{line}:{int(col) + 9005}: error: 'x?.*' is not a task pattern: use a task id, or an "
        f"id prefix with * (like charts.*), at most 200 characters of a-z 0-9 _ . *  [taxonomy-listing]"]
    assert time.process_time() - t0 < 30  # CPU seconds, generous: matching it against every task took minutes


def test_a_quoted_value_with_line_breaks_or_escapes_stays_on_one_line(icons_root):
    # A message that quotes a value holding line or paragraph separators, or a terminal escape, shows them escaped.
    path = Path(write_task(icons_root))
    path.write_text(path.read_text().replace("task: icons.shape_field.probe",
                                             'task: "shapes.x\\u2028y\\nz\\e[31m\\u0085"'))
    code, lines = cli(icons_root)
    assert code == 2 and lines == [
        "programs/icons/probe/probe.yaml:1:7: error: 'shapes.x\\u2028y\\nz\\x1b[31m\\x85' is not a valid name here "
        "(expected lowercase dotted ids like charts.bar_chart)  [bad-id]", "1 error; nothing was compiled"]
    assert all(ERROR_LINE.match(ln) or SUMMARY_LINE.match(ln) for ln in lines)


def test_an_unreadable_folder_is_reported(icons_root, monkeypatch):
    locked = icons_root / "programs/icons/locked"
    locked.mkdir()
    real_scandir = os.scandir

    def scandir(path="."):  # what a folder without read permission gives (the suite may run as root)
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, lines = cli(icons_root)
    assert code == 2 and lines == ["programs/icons/locked:1:1: error: cannot read folder: Permission denied  [file-access]",
                                   "1 error; nothing was compiled"]


def test_deep_or_long_expressions_are_refused_at_parse_time(icons_root, monkeypatch):
    # The expression parser is LALR (no recursion); depth and length are checked on its tree and text.
    monkeypatch.chdir(icons_root)
    for answer, message in (("(" * 1990 + "1" + ")" * 1990, "expression nests 1992 levels deep; the limit is 64 "
                                                             "(name intermediate results as separate steps)"),
                            ("-" * 3000 + "1", "expression nests 3002 levels deep; the limit is 64 (name "
                                               "intermediate results as separate steps)"),
                            ("1" + " + 1" * 1200, "expression is 4801 characters long; the limit is 4000")):
        write_task(icons_root, answer=answer)
        assert compile_errors(icons_root) == [f"programs/icons/probe/probe.yaml:6:18: error: {message}  [bound]"]
