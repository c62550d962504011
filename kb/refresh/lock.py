"""The refresh lock: one refresh per raw store at a time, released by the kernel even on kill -9."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kb.build.writer_lock import holder_if_held, name_holder
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
        holder = holder_if_held(handle)
        if holder is not None:
            raise RefreshLocked(f"another refresh is running ({holder}); lock {path} is held, exiting")
        name_holder(handle, f"pid {os.getpid()} since {utc_now()}\n")
        yield path
    finally:
        handle.close()
