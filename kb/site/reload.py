"""Datasette plugin: keep serving across a refresh that renames a new file over the served one.

Datasette opens database files lazily, one connection per worker thread, and keeps them: after
``os.replace`` those connections still read the old file (it lives on while open), so without
help a running ``mtgkb serve`` would answer from the old data forever. This plugin checks, at
most every ``MTGKB_RELOAD_INTERVAL_MS`` (default 1000) and only when a request arrives, whether
the path of a served file now names another inode. If it does, it opens the new file in a
worker thread (table counts and hash, what ``--inspect-file`` gave at start) and then registers
it under the same name with ``datasette.add_database``. Requests already running keep the old
``Database`` object and its connections, which stay valid; every request after the switch
reads the new file. No request fails and none waits for the switch. Old connections are
closed ``MTGKB_RELOAD_GRACE_S`` seconds (default 60) after their file was replaced.
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any

from datasette import hookimpl
from datasette.database import Database, connections

from kb.checksums import file_sha256
from kb.site.inspect import table_counts
from kb.site.page_cache import file_identity

log = logging.getLogger("kb.site.reload")

INTERVAL_ENV = "MTGKB_RELOAD_INTERVAL_MS"
GRACE_ENV = "MTGKB_RELOAD_GRACE_S"


class GenerationDatabase(Database):
    """A ``Database`` whose per-thread connections belong to this object, not to its name.

    Datasette keys a worker thread's connection by database name, so a new file registered
    under the old name would be read through the old file's connections; a generation key
    keeps them apart.
    """

    def __init__(self, *args: Any, generation: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.generation = generation

    async def execute_fn(self, fn):
        if self.ds.executor is None:
            return await super().execute_fn(fn)
        key = f"{self.name}\x00generation-{self.generation}"

        def in_thread():
            conn = getattr(connections, key, None)
            if not conn:
                conn = self.connect()
                self.ds._prepare_connection(conn, self.name)
                setattr(connections, key, conn)
            return fn(conn)

        return await asyncio.get_event_loop().run_in_executor(self.ds.executor, in_thread)


@dataclass
class _Watched:
    name: str
    path: str
    identity: tuple[int, int] | None


@dataclass
class Reloader:
    datasette: Any
    interval: float
    grace: float
    watched: dict[str, _Watched] = field(default_factory=dict)
    retired: list[tuple[float, Database]] = field(default_factory=list)
    generation: int = 0
    last_check: float = 0.0
    task: asyncio.Task | None = None
    reloads: int = 0

    def watch_current(self) -> None:
        """Note every served file and the inode its path names now."""
        for name, db in self.datasette.databases.items():
            if db.path and not db.is_memory and name not in self.watched:
                self.watched[name] = _Watched(name, str(db.path), file_identity(str(db.path)))

    def check(self) -> None:
        """Cheap and synchronous (a few stat calls): start a switch in the background if due."""
        now = time.monotonic()
        if now - self.last_check < self.interval or (self.task and not self.task.done()):
            return
        self.last_check = now
        self.watch_current()
        self._close_retired(now)
        changed = [w for w in self.watched.values() if (i := file_identity(w.path)) and i != w.identity]
        if changed:
            self.task = asyncio.get_running_loop().create_task(self._switch(changed))

    async def _switch(self, changed: list[_Watched]) -> None:
        for watched in changed:
            try:
                await self._switch_one(watched)
            except Exception:  # keep serving the old file; try again at the next check
                log.exception("could not switch %s to its new file", watched.path)

    async def _switch_one(self, watched: _Watched) -> None:
        identity = file_identity(watched.path)
        # Open the new file by descriptor-backed connection first: if the path is replaced
        # again meanwhile, the next check sees it.
        counts, digest, size = await asyncio.to_thread(_inspect, watched.path)
        old = self.datasette.databases.get(watched.name)
        self.generation += 1
        new = GenerationDatabase(
            self.datasette, path=watched.path, is_mutable=bool(old and old.is_mutable),
            generation=self.generation,
        )
        new._cached_table_counts = counts
        new.cached_hash = None if new.is_mutable else digest
        new.cached_size = size
        # Its schema look-ups cached before it serves (see kb.site.schema_cache), so the first pages
        # after the switch never wait behind public SQL for them.
        from kb.site.schema_cache import warm_database
        from kb.site.warm import keep_out_of_collections, warm_file_maps

        await warm_database(new)
        await warm_file_maps(new)  # and what searches and rule pages keep per file (kb.site.warm)
        keep_out_of_collections(after_swap=True)
        route = old.route if old is not None else None
        if old is not None:
            self.datasette.remove_database(watched.name)
        self.datasette.add_database(new, name=watched.name, route=route)
        inspect = getattr(self.datasette, "inspect_data", None)
        if inspect and watched.name in inspect:
            # Keep Datasette's own idea of the file (``--inspect-file``) in step with it.
            self.datasette.inspect_data = {**inspect, watched.name: {
                **inspect[watched.name], "hash": digest, "size": size,
                "tables": {t: {"count": c} for t, c in counts.items()},
            }}
        watched.identity = identity
        if old is not None:
            self.retired.append((time.monotonic(), old))
        self.reloads += 1
        log.info("now serving %s from its new file (generation %d)", watched.path, self.generation)

    def _close_retired(self, now: float) -> None:
        keep = []
        for retired_at, db in self.retired:
            if now - retired_at >= self.grace:
                db.close()
            else:
                keep.append((retired_at, db))
        self.retired = keep


def _inspect(path: str) -> tuple[dict[str, int], str, int]:
    """Table counts, sha256 and size of a file, as ``datasette inspect`` records them."""
    return table_counts(path), file_sha256(path), os.path.getsize(path)


def reloader_for(datasette: Any) -> Reloader:
    reloader = getattr(datasette, "_mtgkb_reloader", None)
    if reloader is None:
        reloader = Reloader(
            datasette,
            interval=float(os.environ.get(INTERVAL_ENV, "1000")) / 1000,
            grace=float(os.environ.get(GRACE_ENV, "60")),
        )
        datasette._mtgkb_reloader = reloader
    return reloader


@hookimpl
def startup(datasette):
    reloader_for(datasette).watch_current()


@hookimpl
def asgi_wrapper(datasette):
    def wrap(app):
        async def checked(scope, receive, send):
            if scope.get("type") == "http":
                reloader_for(datasette).check()
            await app(scope, receive, send)

        return checked

    return wrap
