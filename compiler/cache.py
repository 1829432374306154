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
entry is rebuilt. Writes go to a temporary file in the same folder and are renamed into place, so a concurrent
process (a 16-worker build) sees a whole entry or none.

Where: $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera. Off: TESSERA_NO_CACHE=1 (or the
CLI's --no-cache). A cache folder that cannot be created or written is the same as no cache: nothing fails.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
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
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "tessera"


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

    out = []
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
    """get/put of JSON entries by (kind, key). A `Cache(None)` stores nothing and finds nothing."""

    def __init__(self, folder: Path | None):
        self.folder = Path(folder) / f"v{FORMAT}" if folder is not None else None
        self.hits = 0
        self.misses = 0
        self._writable = True
        self._made: set[Path] = set()  # folders this process has made (one mkdir each, not one per entry)

    @classmethod
    def default(cls) -> "Cache":
        return cls(default_dir())

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def _path(self, kind: str, k: str) -> Path:
        assert self.folder is not None
        return self.folder / kind / k[:2] / f"{k}.json"

    def get(self, kind: str, k: str) -> Any | None:
        """The data stored for (kind, key), or None: absent, unreadable, too large, not strict JSON, or not an entry
        for this kind and key (a file copied or planted under another name)."""
        if self.folder is None:
            return None
        try:
            fd = os.open(self._path(kind, k), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            self.misses += 1
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
                raise ValueError("not a regular file of a sane size")
            with os.fdopen(fd, "rb", closefd=False) as f:
                raw = f.read(MAX_ENTRY_BYTES + 1)
            if len(raw) > MAX_ENTRY_BYTES:
                raise ValueError("too large")
            entry = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
            if not (isinstance(entry, dict) and entry.get("tessera_cache") == FORMAT and entry.get("kind") == kind
                    and entry.get("key") == k and "data" in entry):
                raise ValueError("not an entry for this key")
        except (OSError, ValueError, RecursionError, UnicodeDecodeError):
            self.misses += 1
            return None
        finally:
            os.close(fd)
        self.hits += 1
        return entry["data"]

    def put(self, kind: str, k: str, data: Any) -> None:
        """Store an entry atomically (temporary file, then rename). Failing to write is not an error."""
        if self.folder is None or not self._writable:
            return
        path = self._path(kind, k)
        # Keys keep their order (no sort_keys): a query's variables and a taxonomy's domains are ordered mappings.
        text = json.dumps({"tessera_cache": FORMAT, "kind": kind, "key": k, "data": data}, separators=(",", ":"),
                          allow_nan=False)
        try:
            if path.parent not in self._made:
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                self._made.add(path.parent)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except (OSError, ValueError):
            self._writable = False  # a read-only or full disk: stop trying, the run goes on uncached
