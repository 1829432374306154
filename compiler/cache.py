"""The compile cache: what checking an unchanged file found, kept on disk as JSON and keyed by content.

A `tessera` process starts by reading the library's headers (ids, references, summaries) and, for `tessera compile`,
by checking every grammar, contract and task. Both depend only on bytes: the files themselves, the vocabulary, the
components a grammar expands, the compiler's own code and the versions of the libraries it parses with. So each
result is stored under a sha256 of exactly those bytes, and a later process that finds the same key takes the
stored result instead of doing the work again (mypy's incremental cache, ninja's dependency log).

What is stored is data, never code: headers, diagnostics (position and message) and a few check results (a task's
identity hash, whether a grammar composes a scene). Compiled closures are always built fresh from the YAML, so a
cached entry can make a run skip a check but can never change an instance's bytes. Entries are read as untrusted:
a regular file of at most MAX_ENTRY_BYTES, strict JSON (no NaN, bounded nesting), the kind and key it claims
checked against the ones asked for, and every field's shape checked by the reader; anything else is a miss and the
entry is rebuilt. The entries live in one SQLite file (see Cache), written a transaction at a time, so a concurrent
process (a 16-worker build) sees whole entries or none.

Where: $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera. Off: TESSERA_NO_CACHE=1 (or the
CLI's --no-cache). A cache folder that cannot be created or written is the same as no cache: nothing fails.
"""
from __future__ import annotations

import hashlib
import json
import os
import atexit
import sqlite3
import stat
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

FORMAT = 1  # bump when what an entry holds changes shape
MAX_ENTRY_BYTES = 8 << 20  # one entry; the largest the bundled library makes is a few kB
_PACKAGE = Path(__file__).resolve().parent
# What the checks run: the Python of load, check, codegen, expr and render (mark and frame specs) and the expression
# grammar. The stages after compiling (sample, execute, trace, export, validate, verify, tools), the CLI, the API,
# fonts, the training package and a wheel's bundled library do not change what a check reports, so editing them
# keeps the cache.
_CODE_SUFFIXES = (".py", ".lark")
_NOT_CODE = ("training", "library", "sample", "execute", "trace", "export", "validate", "verify", "tools", "cli.py",
             "api.py", "gallery.py", "__main__.py")


def default_dir() -> Path | None:
    """The cache folder this process uses, or None when the cache is switched off."""
    if os.environ.get("TESSERA_NO_CACHE", "").strip() not in ("", "0"):
        return None
    explicit = os.environ.get("TESSERA_CACHE_DIR", "").strip()
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg:
        return Path(xdg) / "tessera"
    try:
        return Path.home() / ".cache" / "tessera"
    except (RuntimeError, KeyError):  # no home folder (a bare container user): no cache, nothing fails
        return None


@lru_cache(maxsize=1)
def code_key() -> str:
    """sha256 of the code a check runs (see _NOT_CODE) and of the versions of the libraries that parse and validate
    YAML and expressions."""
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*")):
        rel = path.relative_to(_PACKAGE)
        if path.suffix not in _CODE_SUFFIXES or "__pycache__" in rel.parts or rel.parts[0] in _NOT_CODE:
            continue
        h.update(str(rel).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    h.update(repr((FORMAT, sys.version_info[:3], _versions())).encode())
    return h.hexdigest()


def _versions() -> tuple:
    from importlib.metadata import PackageNotFoundError, version

    out: list[tuple[str, str | None]] = []
    for dist in ("lark", "pydantic", "pydantic-core", "PyYAML", "jinja2"):
        try:
            out.append((dist, version(dist)))
        except PackageNotFoundError:
            out.append((dist, None))
    return tuple(out)


def key(*parts: Any) -> str:
    """A cache key: sha256 of the parts (strings, bytes, or JSON-able values), each length-prefixed so that no two
    different part lists can spell the same bytes."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, str):
            data = b"s" + part.encode("utf-8", "surrogatepass")
        elif isinstance(part, bytes):
            data = b"b" + part
        else:
            data = b"j" + json.dumps(part, sort_keys=True, separators=(",", ":")).encode()
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


class Cache:
    """get/put of JSON entries by (kind, key), in one SQLite file. A `Cache(None)` stores nothing and finds nothing.

    Why SQLite (the standard library's) and not a file per entry: a cold compile of the bundled library stores about
    950 entries, and creating and renaming that many small files cost 0.7 ms of CPU each here (0.7 s, a third of
    the compile); one transaction of rows costs milliseconds. Concurrent processes are SQLite's business (WAL mode,
    a busy timeout): a reader sees whole committed rows or none. The file is still untrusted: it must be a regular
    file holding exactly our one table (a trigger, a view or another table makes it foreign), schema code is not
    trusted (`PRAGMA trusted_schema=OFF`), each value is size-checked before it is fetched, and an unreadable or
    foreign file is moved aside and a new one started. Puts are kept in memory and written by `flush()` (the
    compile calls it when a stage ends, and once more at exit)."""

    def __init__(self, folder: Path | None):
        self.folder = Path(folder) if folder is not None else None
        self.path = self.folder / f"compile-cache-v{FORMAT}.sqlite" if self.folder is not None else None
        self.hits = 0
        self.misses = 0
        self._writable = True
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._pending: dict[tuple[str, str], str] = {}
        self._broken = False

    @classmethod
    def default(cls) -> "Cache":
        return cls(default_dir())

    @property
    def enabled(self) -> bool:
        return self.folder is not None and not self._broken

    # -- the database ------------------------------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection | None:
        """This process's connection (a forked child opens its own), or None when the cache cannot be used."""
        if self._broken or self.path is None:
            return None
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if self._conn is not None:  # opened before a fork: SQLite's rule is never to use (or close) it here
            _INHERITED.append(self._conn)
        self._conn, self._pid = None, os.getpid()
        try:
            self._conn = self._open()
        except (OSError, sqlite3.Error, _Foreign):
            try:
                self._set_aside()
                self._conn = self._open()
            except (OSError, sqlite3.Error, _Foreign):
                self._broken = True  # no usable cache here: every command still runs, uncached
                return None
        atexit.register(self.flush)
        return self._conn

    def _open(self) -> sqlite3.Connection:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.path.lexists(self.path) and not stat.S_ISREG(os.lstat(self.path).st_mode):
            raise _Foreign("not a regular file")
        conn = sqlite3.connect(str(self.path), timeout=30, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA trusted_schema=OFF")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("CREATE TABLE IF NOT EXISTS entries (kind TEXT NOT NULL, key TEXT NOT NULL, "
                         "data TEXT NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID")
            schema = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
            if schema not in ([("table", "entries")], [("table", "entries"), ("index", "sqlite_autoindex_entries_1")]):
                raise _Foreign(f"unexpected schema {schema}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            conn.close()
            raise
        return conn

    def _set_aside(self) -> None:
        """Move an unusable file out of the way (kept for a post-mortem, never read again)."""
        assert self.path is not None
        if os.path.lexists(self.path):
            os.replace(self.path, self.path.with_name(f"{self.path.name}.unusable-{os.getpid()}"))
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if os.path.lexists(side):
                os.unlink(side)

    # -- entries -----------------------------------------------------------------------------------------------
    def get(self, kind: str, k: str) -> Any | None:
        """The data stored for (kind, key), or None: absent, too large, not strict JSON, or not an entry for this
        kind and key (a value copied or planted under another key)."""
        if not self.enabled:
            return None
        raw = self._pending.get((kind, k))
        if raw is None:
            conn = self._db()
            if conn is None:
                return None
            try:
                row = conn.execute("SELECT CASE WHEN length(CAST(data AS BLOB)) <= ? THEN data END, "
                                   "length(CAST(data AS BLOB)) FROM entries WHERE kind = ? AND key = ?",
                                   (MAX_ENTRY_BYTES, kind, k)).fetchone()
            except sqlite3.Error:
                row = None
            raw = row[0] if row is not None else None
        try:
            if not isinstance(raw, str):
                raise ValueError("absent, too large or not text")
            entry = json.loads(raw, parse_constant=_refuse_constant)
            if not (isinstance(entry, dict) and entry.get("tessera_cache") == FORMAT and entry.get("kind") == kind
                    and entry.get("key") == k and "data" in entry):
                raise ValueError("not an entry for this key")
        except (ValueError, RecursionError):
            self.misses += 1
            return None
        self.hits += 1
        return entry["data"]

    def put(self, kind: str, k: str, data: Any) -> None:
        """Keep an entry to write at the next flush. Failing to write is never an error."""
        if not self.enabled or not self._writable:
            return
        # Keys keep their order (no sort_keys): a query's variables and a taxonomy's domains are ordered mappings.
        self._pending[(kind, k)] = json.dumps({"tessera_cache": FORMAT, "kind": kind, "key": k, "data": data},
                                              separators=(",", ":"), allow_nan=False)
        if len(self._pending) >= 4096:
            self.flush()

    def flush(self) -> None:
        """Write the kept entries in one transaction (a forked worker flushes its own before it answers)."""
        if not self._pending:
            return
        rows = [(kind, k, text) for (kind, k), text in self._pending.items()]
        self._pending = {}
        conn = self._db()
        if conn is None or not self._writable:
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT OR REPLACE INTO entries (kind, key, data) VALUES (?, ?, ?)", rows)
            conn.execute("COMMIT")
        except sqlite3.Error:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._writable = False  # a read-only or full disk: stop trying, the run goes on uncached


_INHERITED: list = []  # connections a forked child inherited: kept alive so that no destructor touches them


class _Foreign(Exception):
    """The cache file is not ours (another schema, not a regular file)."""
