"""The refresh lock: one refresh per raw store at a time, released by the kernel even on kill -9."""
from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scraper.rawstore import utc_now

LOCK_NAME = "refresh.lock"


class RefreshLocked(Exception):
    """Another refresh holds the lock of this raw store."""


@contextmanager
def refresh_lock(raw_dir: Path) -> Iterator[Path]:
    """Hold ``<raw>/refresh.lock`` (flock, released by the kernel even on kill -9).

    Raises RefreshLocked at once, naming the holder, when another refresh has it.
    """
    raw_dir.mkdir(parents=True, exist_ok=True)
    path = raw_dir / LOCK_NAME
    handle = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown process"
            raise RefreshLocked(
                f"another refresh is running ({holder}); lock {path} is held, exiting"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} since {utc_now()}\n")
        handle.flush()
        yield path
    finally:
        handle.close()
