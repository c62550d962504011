"""Bulk files are streamed: both bulk shapes give the same rulings.

The 200 MB bounded-memory proof is a benchmark: ``python -m bench.bulk_import --megabytes 200``.

The bulk file is generated (see bench/bulk_import.py): the real Scryfall rulings bulk file is
not stored anywhere we can reach offline. Its records have the real bulk shape.
"""
from __future__ import annotations

from pathlib import Path

import sqlite_utils

from bench.bulk_import import run


def test_json_lines_gzip_and_json_array_give_the_same_rulings(tmp_path: Path) -> None:
    (tmp_path / "array").mkdir()
    (tmp_path / "lines").mkdir()
    array = run(3, jsonl_gz=False, workdir=tmp_path / "array")
    lines = run(3, jsonl_gz=True, workdir=tmp_path / "lines")
    assert array["rulings_in_file"] == lines["rulings_in_file"]
    rows = [
        list(sqlite_utils.Database(tmp_path / name / "kb.db").query(
            "select id, oracle_id, source, published_at, text, position from rulings order by id"
        ))
        for name in ("array", "lines")
    ]
    assert rows[0] == rows[1]
    assert len(rows[0]) == array["rulings_in_file"]
