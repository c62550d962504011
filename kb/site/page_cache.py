"""Pages computed once per served file: an LRU of the page functions' answers and rendered pages, keyed on the file's identity.

The served database never changes while it is served (``mtgkb serve`` opens it immutable; a
refresh renames a new file over it and ``kb.site.reload`` registers a new ``Database`` for it),
so what a page function returns for the same arguments is the same until the file is swapped.
Each ``Database`` object carries its own cache, and every lookup also checks the file's
signature (device, inode, size, modification time, and the WAL file's when there is one): a
new object after a reload starts empty, and a file written in place (a mutable database under
plain ``datasette kb.db``) empties its cache at the next request.

The plugin also keeps the rendered HTML of a page asked for without cookies (no actor, no
messages: the page depends on its URL and the file only).

``MTGKB_PAGE_CACHE=0`` turns it off (the load benchmark compares both in one run).
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

ENV = "MTGKB_PAGE_CACHE"
# Entries per served file. A rule page's data is the largest (its translations and history:
# up to a few hundred KB), so a full cache stays within tens of MB.
MAX_ENTRIES = 512
_MISSING = object()


def enabled() -> bool:
    return os.environ.get(ENV, "1") not in ("0", "off", "no", "false")


def file_identity(path: str | None) -> tuple[int, int] | None:
    """The file the path names now (device and inode); None when there is none (a missing file,
    or between an unlink and a rename), or for a memory database."""
    try:
        stat = os.stat(path) if path else None
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino) if stat else None


def file_signature(path: str | None) -> tuple | None:
    """What changes when the file at ``path`` is replaced or written: None for a memory database."""
    if not path:
        return None
    signature: list[tuple[int, ...] | None] = []
    for name in (path, path + "-wal"):
        try:
            stat = os.stat(name)
        except OSError:
            signature.append(None)
            continue
        signature.append((stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return tuple(signature)


class PageCache:
    """A thread-safe LRU of answers, emptied whenever the file's signature changes."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self.signature: tuple | None = None
        self.entries: OrderedDict[Hashable, Any] = OrderedDict()
        self.lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, signature: tuple | None, key: Hashable) -> Any:
        with self.lock:
            if signature != self.signature:
                self.entries.clear()
                self.signature = signature
                self.misses += 1
                return _MISSING
            value = self.entries.get(key, _MISSING)
            if value is _MISSING:
                self.misses += 1
            else:
                self.hits += 1
                self.entries.move_to_end(key)
            return value

    def put(self, signature: tuple | None, key: Hashable, value: Any) -> None:
        with self.lock:
            if signature != self.signature:
                return  # the file changed while this answer was computed from the old one
            self.entries[key] = value
            self.entries.move_to_end(key)
            while len(self.entries) > self.max_entries:
                self.entries.popitem(last=False)


def cache_of(database: Any) -> PageCache:
    cache = database.__dict__.get("_kb_page_cache")
    if cache is None:
        cache = database.__dict__.setdefault("_kb_page_cache", PageCache())
    return cache


def function_key(fn: Callable, args: tuple) -> Hashable | None:
    """The cache key of ``fn(conn, *args)``, or None when an argument cannot be a key."""
    try:
        key = (fn.__module__, fn.__qualname__, args)
        hash(key)
    except (AttributeError, TypeError):
        return None
    if "<lambda>" in fn.__qualname__ or "<locals>" in fn.__qualname__:
        return None  # a closure's answer depends on what it captured, not on ``args``
    return key


class Slot:
    """Where one call's answer lives: its cache, the file signature it was computed on, its key."""

    def __init__(self, cache: PageCache, signature: tuple | None, key: Hashable) -> None:
        self.cache, self.signature, self.key = cache, signature, key

    def get(self) -> Any:
        """The cached answer, or ``MISSING``."""
        return self.cache.get(self.signature, self.key)

    def put(self, value: Any) -> None:
        self.cache.put(self.signature, self.key, value)


MISSING = _MISSING


def slot_for(database: Any, fn: Callable[..., Any], args: tuple) -> Slot | None:
    """The slot of ``fn(conn, *args)`` on ``database``; None when it is not cached (turned off,
    a memory database, arguments that are no key)."""
    return slot_for_key(database, function_key(fn, args))


def slot_for_key(database: Any, key: Hashable | None) -> Slot | None:
    """The slot of any answer that depends only on ``key`` and the served file."""
    if key is None or not enabled() or getattr(database, "is_memory", False):
        return None
    return Slot(cache_of(database), file_signature(getattr(database, "path", None)), key)
