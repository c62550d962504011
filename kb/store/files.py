"""Database files opened by path: read-only, whatever characters the path holds."""
from __future__ import annotations

from pathlib import Path


def read_only_uri(path: Path | str) -> str:
    """``path`` as a read-only SQLite URI. Written as ``file:{path}?mode=ro`` instead, a path holding
    ``#`` or ``?`` ends the path there: SQLite opens (and creates, read-write, since the mode was
    cut off with it) another file."""
    return f"{Path(path).resolve().as_uri()}?mode=ro"
