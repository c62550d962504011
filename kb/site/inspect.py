"""What ``datasette inspect`` records of a database file (table counts, sha256, size), computed
once for ``mtgkb serve``'s inspect file and again by the reloader when a refresh swaps the file."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from kb.checksums import file_sha256


def table_counts(path: Path | str) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        names = [row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")]
        return {name: conn.execute(f'select count(*) from "{name}"').fetchone()[0] for name in names}
    finally:
        conn.close()


def inspect_data(path: Path) -> dict[str, Any]:
    """The entry ``datasette inspect`` writes for ``path``, keyed by its database name."""
    return {
        path.stem: {
            "hash": file_sha256(path),
            "size": path.stat().st_size,
            "file": path.name,
            "tables": {name: {"count": count} for name, count in table_counts(path).items()},
        }
    }
