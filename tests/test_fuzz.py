"""A bounded, seeded fuzz of the authoring library: mutate one file of a copy, compile it through the CLI's `main`
in-process, and require what issue 9 promises of every input — no traceback, no hang, exit 0 or 2, and every error
line `path:line:col: error: message` with the path inside the copy.

Each case compiles a one-domain subset of the bundled library (its grammars and programs, with every contract and
component and the vocabulary), which is what makes a few hundred cases fit well inside a minute. The same engine
runs deeper from bench/fuzz_library.py (`--cases 2000`), with a table per mutation kind.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import os
import random
import re
import shutil
import signal
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import ROOT

DOMAINS = ("puzzles", "games", "three_d", "geometry", "physics", "pages", "symbolic", "icons", "graphs", "charts",
           "illustrations")
SUITE_DOMAINS = DOMAINS[:4]  # the cheapest to compile (about 0.1 s each once warm); the bench runs them all
SUITE_CASES = 170  # with odd_scalar weighted 12 of 24, about 85 cases: each of the 81 odd values is tried
# A case that uses this much CPU is a hang (one compile of a subset takes about 0.1 s of CPU). CPU time, not wall time:
# at load 20 a case gets a tenth of a core, and 0.8.0's 20 wall-clock seconds called a starved case a hang. A mutated
# text cannot make the compiler block (it reads regular files of the copy only), so a hang is computation: the CPU
# timer (ITIMER_PROF, this process's user + system time) is the whole guard.
CASE_CPU_SECONDS = 20

ERROR_LINE = re.compile(r"^(?P<path>[^\n:]+):(?P<line>\d+):(?P<col>\d+): (?:error|warning): \S")
SUMMARY_LINE = re.compile(r"^\d+ errors?; nothing was compiled$")

# Values a mutation puts in place of a scalar: numbers out of range, deep nesting, anchors and aliases, tags,
# odd unicode, control characters, long text, broken expressions and templates, wrong types.
ODD_VALUES: list[bytes] = [s.encode() if isinstance(s, str) else s for s in (
    "1e400", "1.0e+400", "-1.0e+309", ".inf", "-.inf", ".nan", "99999999999999999999999999", "1" * 5000,
    "0x7fffffffffffffffffff", "1:30:00", "0o17", "+.5", "-0", "2024-01-01", "2024-01-01T10:00:00Z",
    "[" * 600 + "]" * 600, "{a: " * 300 + "1" + "}" * 300, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "&a [1, 2]", "*a", "&anchor value", "[&x 1, *x, *x]", "<<: {a: 1}",
    "!!binary aGVsbG8=", "!!python/object:os.system ls", "!!set {a, b}", "!!omap [a: 1]", "!foo bar", "!!float 1e999",
    "!!int 123456789012345678901234567890", "!!str", "~", "null", "", "''", '""',
    '"\\u202e reversed"', "é", "\U0001F600 emoji", "\ufeff", "e\u0301", '"\\u2028 line sep"', '"\\x00"', '"\\t tab"',
    b"\x00", b"\xff\xfe", b"\xc3", b"\x1b[31m", b"\r", "a" * 12000, "len(bars) + " * 400 + "1", "x" * 4100,
    "len(bars", "1 +", ") (", "a $ b", '"unterminated', "bars[", "{{ x", "{% for %}", "{{ bars.pop }}",
    "[]", "{}", "true", "3", "-1", "[1, 1, 1]", "{range: [0, 100000000000]}", "{range: [5, 1]}",
    "[" + ", ".join(["1"] * 1500) + "]", "vocab.nope", "|\n  len(bars) +) 1", ">\n  len(\n  bars", "'it''s ) x'",
    '"a\\tb ) c"', "? complex key", "- item", "key: value: other", "%TAG ! x", "--- second", "...",
)]


@dataclass
class Case:
    index: int
    kind: str
    file: str
    code: int | None = None
    problem: str | None = None  # None when the case behaved
    seconds: float = 0.0  # CPU seconds


@dataclass
class Report:
    cases: list[Case] = field(default_factory=list)

    @property
    def failures(self) -> list[Case]:
        return [c for c in self.cases if c.problem]

    def table(self) -> str:
        runs, fails, exits = Counter(), Counter(), Counter()
        for c in self.cases:
            runs[c.kind] += 1
            fails[c.kind] += bool(c.problem)
            exits[(c.kind, c.code)] += 1
        rows = [f"{'mutation':<16} {'runs':>5} {'failures':>8} {'exit 0':>7} {'exit 2':>7}"]
        for kind in sorted(runs):
            rows.append(f"{kind:<16} {runs[kind]:>5} {fails[kind]:>8} {exits[(kind, 0)]:>7} {exits[(kind, 2)]:>7}")
        rows.append(f"{'total':<16} {len(self.cases):>5} {len(self.failures):>8} "
                    f"{sum(1 for c in self.cases if c.code == 0):>7} {sum(1 for c in self.cases if c.code == 2):>7}")
        return "\n".join(rows)


def make_subset_root(domain: str, dest: Path) -> Path:
    """A library root holding one domain of the bundled library, with every contract and component and the
    vocabulary; the taxonomy index keeps only that domain's entry."""
    for d in ("contracts", "components"):
        shutil.copytree(ROOT / d, dest / d)
    for d in ("grammars", "programs"):
        shutil.copytree(ROOT / d / domain, dest / d / domain)
    (dest / "taxonomy").mkdir()
    shutil.copy(ROOT / "taxonomy/vocab.yaml", dest / "taxonomy/vocab.yaml")
    text = (ROOT / "taxonomy/taxonomy.yaml").read_text()
    head, _, rest = text.partition("domains:\n")
    blocks = re.split(r"(?m)^(?=  \S)", rest)
    (dest / "taxonomy/taxonomy.yaml").write_text(head + "domains:\n" +
                                                 "".join(b for b in blocks if b.startswith(f"  {domain}:")))
    return dest


# -- mutations: each takes the file's bytes and a random stream, returns new bytes -------------------------------
def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return b"\n".join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    if len(lines) > 1:
        i = rng.randrange(len(lines) - 1)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return b"\n".join(lines)


def indent(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    how = rng.choice((b" ", b"  ", b"\t", b"    ", b"-"))
    if rng.random() < 0.5 and lines[i].startswith(b" "):
        lines[i] = lines[i][rng.choice((1, 2)):]
    else:
        lines[i] = how + lines[i]
    return b"\n".join(lines)


_SCALAR_LINE = re.compile(rb"^(\s*(?:- )?[\w.]+:[ ]+|\s*- )(\S.*)$")


def odd_scalar(data: bytes, rng: random.Random) -> bytes:
    # The values come in a shuffled cycle (see fuzz()), so that a few hundred cases try each of them.
    value = next(rng.odd_values) if hasattr(rng, "odd_values") else rng.choice(ODD_VALUES)
    lines = _lines(data)
    spots = [i for i, ln in enumerate(lines) if _SCALAR_LINE.match(ln)]
    if not spots:
        return data + b"\nextra: " + value
    i = rng.choice(spots)
    m = _SCALAR_LINE.match(lines[i])
    lines[i] = m.group(1) + value
    return b"\n".join(lines)


def break_expression(data: bytes, rng: random.Random) -> bytes:
    """Damage one character inside a value: drop or double a bracket, insert an operator or a stray character."""
    lines = _lines(data)
    spots = [i for i, ln in enumerate(lines) if _SCALAR_LINE.match(ln)]
    if not spots:
        return data
    i = rng.choice(spots)
    m = _SCALAR_LINE.match(lines[i])
    value = bytearray(m.group(2))
    at = rng.randrange(len(value) + 1)
    value[at:at] = rng.choice((b"(", b")", b"]", b"+", b" $", b"'", b'"', b",", b":", b" #", b"\\", b"{{", b"."))
    lines[i] = m.group(1) + bytes(value)
    return b"\n".join(lines)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def insert_bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice((b"\x00", b"\xff", b"\xc3", b"\r", b"\t", b"\xef\xbb\xbf", b"\x0c", b"\x85",
                                   b"\xe2\x80\xa8", b"\x7f")) + data[at:]


def line_endings(data: bytes, rng: random.Random) -> bytes:
    ending = rng.choice((b"\r\n", b"\r"))
    out = data.replace(b"\n", ending)
    if rng.random() < 0.5:  # and break something, so that positions in a CR file get printed
        return break_expression(out.replace(ending, b"\n"), rng).replace(b"\n", ending)
    return out


def wrong_key(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    spots = [i for i, ln in enumerate(lines) if re.match(rb"^\s*[\w.]+:", ln)]
    if not spots:
        return data
    i = rng.choice(spots)
    lines[i] = re.sub(rb"[\w.]+:", rng.choice((b"summry:", b"x" * 300 + b":", b"<<:", b"&a k:", b"? k\n:")),
                      lines[i], count=1)
    return b"\n".join(lines)


def bom_prefix(data: bytes, rng: random.Random) -> bytes:
    return b"\xef\xbb\xbf" + (break_expression(data, rng) if rng.random() < 0.5 else data)


MUTATIONS = {f.__name__: f for f in (delete_line, duplicate_line, swap_lines, indent, odd_scalar, break_expression,
                                     truncate, insert_bytes, line_endings, wrong_key, bom_prefix)}
WEIGHTS = {"odd_scalar": 12, "break_expression": 2}  # the others 1: odd values are where the bounds are tried


class _Rng(random.Random):
    odd_values: object


# -- running one case ---------------------------------------------------------------------------------------------
class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


def check_output(code, err: str, root: Path) -> str | None:
    """What is wrong with one compile's exit status and stderr, or None."""
    if code not in (0, 2):
        return f"exit {code}"
    if "Traceback" in err:
        return "traceback in stderr"
    lines = err.splitlines()
    if code == 2 and not (lines and SUMMARY_LINE.match(lines[-1])):
        return "exit 2 without the closing summary line"
    for ln in lines:
        if SUMMARY_LINE.match(ln):
            continue
        m = ERROR_LINE.match(ln)
        if not m:
            return f"line without path:line:col: {ln[:200]!r}"
        path = Path(m["path"])
        where = path if path.is_absolute() else root / path
        if not where.resolve().is_relative_to(root.resolve()):
            return f"error names a path outside the copy: {ln[:200]!r}"
    return None


def run_case(root: Path, index: int, rng: random.Random, kinds: list[str] | None = None) -> Case:
    from tessera.cli import main

    files = sorted(p for p in root.rglob("*") if p.suffix == ".yaml")
    target = rng.choice(files)
    pool = [k for k in sorted(kinds or MUTATIONS) for _ in range(WEIGHTS.get(k, 1))]
    kind = rng.choice(pool)
    original = target.read_bytes()
    case = Case(index, kind, str(target.relative_to(root)))
    target.write_bytes(MUTATIONS[kind](original, rng))
    out, err = io.StringIO(), io.StringIO()
    old_handler = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, CASE_CPU_SECONDS)
    cwd = os.getcwd()
    t0 = time.process_time()
    try:
        os.chdir(root)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            case.code = main(["--root", str(root), "compile", "--json"])
        case.problem = check_output(case.code, err.getvalue(), root)
    except _Hang:
        case.problem = f"no result after {CASE_CPU_SECONDS} s of CPU (a hang)"
    except BaseException:  # noqa: BLE001 - any exception escaping main is the finding
        case.problem = "traceback:\n" + traceback.format_exc(limit=-8)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old_handler)
        os.chdir(cwd)
        case.seconds = time.process_time() - t0
        target.write_bytes(original)
    if case.problem:
        case.problem += f"\n  stderr: {err.getvalue()[-1500:]}"
    return case


def fuzz(base: Path, cases: int, seed: int = 9, domains=DOMAINS, kinds: list[str] | None = None) -> Report:
    """`cases` seeded cases spread over the domains (one subset root each, built under `base`)."""
    rng = _Rng(seed)
    order = list(ODD_VALUES)
    rng.shuffle(order)
    rng.odd_values = itertools.cycle(order)
    roots = {d: make_subset_root(d, base / d) for d in domains}
    report = Report()
    for i in range(cases):
        report.cases.append(run_case(roots[domains[i % len(domains)]], i, rng, kinds))
    return report


def test_fuzzed_library_never_crashes(tmp_path):
    t0 = time.process_time()
    report = fuzz(tmp_path, SUITE_CASES, domains=SUITE_DOMAINS)
    seconds = time.process_time() - t0
    print(f"\nfuzz: {len(report.cases)} runs, {len(report.failures)} failures, {seconds:.1f} s CPU\n{report.table()}")
    assert len(report.cases) == SUITE_CASES
    # Both outcomes occur, so the mutations reach past the reader and the checks are not vacuous.
    assert sum(c.code == 2 for c in report.cases) > 100 and sum(c.code == 0 for c in report.cases) > 10
    assert not report.failures, "\n\n".join(f"case {c.index} ({c.kind} on {c.file}): {c.problem}"
                                            for c in report.failures[:5])


def test_the_checker_rejects_what_it_should():
    """check_output itself: a traceback, a bare error line, a path outside the copy, a bad exit each fail."""
    root = ROOT
    assert check_output(0, "", root) is None
    assert check_output(2, "programs/x.yaml:3:4: error: bad\n1 error; nothing was compiled\n", root) is None
    assert check_output(2, "programs/x.yaml: error: bad\n1 error; nothing was compiled\n", root).startswith("line")
    assert check_output(2, "/etc/passwd:1:1: error: bad\n1 error; nothing was compiled\n", root).startswith("error")
    assert check_output(2, "x.yaml:1:1: error: a\nsecond line\n1 error; nothing was compiled", root).startswith("line")
    assert check_output(1, "error: boom\n", root) == "exit 1"
    assert check_output(2, "Traceback (most recent call last):\n", root) == "traceback in stderr"


def test_a_case_is_a_hang_by_its_cpu_time_not_by_the_clock(tmp_path, monkeypatch):
    """A case that computes past the CPU bound is a hang; one that only waits (a starved process on a busy machine
    is the same to the clock) for longer than that bound is not."""
    import tessera.cli

    root = make_subset_root("puzzles", tmp_path / "puzzles")
    monkeypatch.setitem(globals(), "CASE_CPU_SECONDS", 0.3)

    def spin(argv):
        while True:
            pass

    def wait(argv):
        time.sleep(0.6)  # twice the bound in wall time, almost no CPU
        return 0

    monkeypatch.setattr(tessera.cli, "main", spin)
    hung = run_case(root, 0, _Rng(1))
    assert hung.problem.startswith("no result after 0.3 s of CPU (a hang)") and hung.seconds >= 0.25
    monkeypatch.setattr(tessera.cli, "main", wait)
    assert run_case(root, 1, _Rng(1)).problem is None
