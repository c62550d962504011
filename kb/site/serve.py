"""Serve the knowledge base with Datasette: immutable, read-only, with our metadata and pages."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from kb.site.metadata import build_metadata

PACKAGE_DIR = Path(__file__).parent
SQL_TIME_LIMIT_MS = 1500


def prepare(db_path: Path) -> tuple[Path, Path]:
    """Write the metadata and inspect files Datasette needs next to the database."""
    metadata_path = db_path.with_name(db_path.stem + ".metadata.json")
    metadata_path.write_text(
        json.dumps(build_metadata(db_path.stem), ensure_ascii=False, indent=2), encoding="utf-8"
    )
    inspect_path = db_path.with_name(db_path.stem + ".inspect.json")
    write_inspect_file(db_path, inspect_path)
    return metadata_path, inspect_path


def write_inspect_file(db_path: Path, inspect_path: Path) -> None:
    """What `datasette inspect` writes: table counts, so immutable serving never counts at start."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db_path}?immutable=1", uri=True)
    try:
        tables = {}
        for (name,) in conn.execute("select name from sqlite_master where type = 'table'"):
            count = conn.execute(f'select count(*) from "{name}"').fetchone()[0]
            tables[name] = {"count": count}
    finally:
        conn.close()
    from kb.build.inputs import sha256_of

    inspect = {
        db_path.stem: {
            "hash": sha256_of(db_path),
            "size": db_path.stat().st_size,
            "file": str(db_path.name),
            "tables": tables,
        }
    }
    inspect_path.write_text(json.dumps(inspect, indent=2), encoding="utf-8")


def datasette_args(db_path: Path, host: str, port: int) -> list[str]:
    metadata_path, inspect_path = prepare(db_path)
    return [
        "serve",
        "-i",
        str(db_path),
        "--inspect-file",
        str(inspect_path),
        "--metadata",
        str(metadata_path),
        "--template-dir",
        str(PACKAGE_DIR / "templates"),
        "--static",
        f"kb-static:{PACKAGE_DIR / 'static'}",
        "--setting",
        "sql_time_limit_ms",
        str(SQL_TIME_LIMIT_MS),
        "--setting",
        "default_page_size",
        "50",
        "--setting",
        "facet_time_limit_ms",
        "400",
        # Suggesting facets tries every column of a table on every page view (580 of the 600 ms
        # of a filtered rules page): the useful facets are configured in the metadata.
        "--setting",
        "suggest_facets",
        "off",
        "--host",
        host,
        "--port",
        str(port),
    ]


def serve(db_path: Path, host: str, port: int) -> None:
    """Replace this process with Datasette, so signals and exit codes are Datasette's own."""
    args = [sys.executable, "-m", "datasette", *datasette_args(db_path, host, port)]
    os.environ["MTGKB_DB_PATH"] = str(db_path.resolve())
    os.execv(sys.executable, args)
