"""One writer per database file: a build, an import or a refresh holds ``.<name>.lock`` beside it.

Each of them writes a new file and renames it over the served one, so two at once both exited 0
and the last rename won: a CR edition imported by hand while a cron refresh was building was gone,
and the next refresh said "nothing changed" (an operator's review). The lock is an flock, released
by the kernel even on kill -9; a second writer is refused at once, naming the first. A process
holds it once however often it asks (a refresh's build asks again).
"""
from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from kb.build.files import os_reason
from kb.build.inputs import BuildError


class DatabaseLocked(BuildError):
    """Another build, import or refresh is writing this database."""


_HELD: dict[Path, int] = {}


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(f".{db_path.name}.lock")


# What the file says under its holder's line: it looked like a stale pid file, and deleting it
# while a refresh ran let an import through (an operator's review).
NOTE = ("The writer lock of the database beside it (flock), held only while a build, import or refresh"
        " writes it; the line above names the last holder. Leave this file in place.\n")


def _opened(path: Path) -> IO[str]:
    """The lock file for writing its holder in, or read-only where it cannot be written (another
    user's file, a read-only folder): an flock needs no write access (every refresh exited 1)."""
    try:
        return open(path, "a+", encoding="utf-8")
    except OSError:
        if not path.exists():
            raise
        return open(path, encoding="utf-8")


def holder_if_held(handle: IO[str]) -> str | None:
    """Take ``handle``'s file's exclusive flock at once: None, or, where another process holds
    it, the holder the file names on its first line. (The refresh lock takes its lock so too.)"""
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        return handle.readline().strip() or "another process"
    return None


def name_holder(handle: IO[str], text: str) -> None:
    """Write the holder into the lock file, where it can be (opened read-only, a full disk: the
    lock is held all the same, its holder unsaid)."""
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(text)
        handle.flush()
    except OSError:
        pass


@contextmanager
def writer_lock(db_path: Path, what: str) -> Iterator[None]:
    """Hold ``db_path``'s writer lock for ``what`` ("refresh", "build", "import"); raises
    DatabaseLocked at once when another process holds it."""
    # Beside the file a link names: writers given the link or the file take one lock.
    path = lock_path(Path(os.path.realpath(db_path)))
    if path in _HELD:
        _HELD[path] += 1
        try:
            yield
        finally:
            _HELD[path] -= 1
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = _opened(path)
    except OSError as error:
        raise BuildError(f"{db_path}: cannot take its writer lock {path}: {os_reason(error)}") from None
    try:
        holder = holder_if_held(handle)
        if holder is not None:
            raise DatabaseLocked(
                f"{db_path}: another writer is at work on it ({holder}); lock {path} is held,"
                " nothing written (run again when it has finished)"
            )
        name_holder(handle, f"{what}, pid {os.getpid()} since {datetime.now(UTC).isoformat(timespec='seconds')}\n{NOTE}")
        _HELD[path] = 1
        try:
            yield
        finally:
            del _HELD[path]
    finally:
        handle.close()
