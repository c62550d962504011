"""A bulk file imported into a built database leaves its ruling records packed
(kb.store.ruling_writer.RulingWriter.replace_rulings).

Its records are written as read, then written again without the texts their rulings hold. Written
back alone, between other documents' keys (a record's id is its document's hash and its place),
they split pages as they went: a tenth of the table was left free at a million rulings. The rulings
here are generated (bench.corpus: real ruling sentences of the fixtures, generated cards)."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.corpus import ruling_objects
from kb.cli import cli


@pytest.mark.long_proof
def test_a_bulk_file_into_a_built_database_leaves_its_records_packed(
    snapshot_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = tmp_path / "kb.db"
    shutil.copy(snapshot_db, db_path)
    monkeypatch.chdir(tmp_path)
    # A relative path and fixed bytes: the same document id, so the same place among the keys.
    Path("rulings.json").write_text(json.dumps(list(ruling_objects(6000, 600))), encoding="utf-8")
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", "rulings.json"])
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(db_path)
    [(bulk, low, high)] = conn.execute(
        "select document_id, min(id), max(id) from ruling_records group by document_id having count(*) = 6000"
    ).fetchall()
    # Other documents' records on both sides of the file's: written back alone, it would fill the middle.
    below, above = conn.execute(
        "select sum(id < ?), sum(id > ?) from ruling_records where document_id != ?", [low, high, bulk]
    ).fetchone()
    assert below and above
    # As packed as the same table written afresh (VACUUM INTO copies every table in key order).
    conn.execute("vacuum into ?", [str(tmp_path / "vacuumed.db")])
    assert leaf_pages(conn) <= leaf_pages(sqlite3.connect(tmp_path / "vacuumed.db")) * 1.02


def leaf_pages(conn: sqlite3.Connection) -> int:
    return conn.execute("select count(*) from dbstat where name = 'ruling_records' and pagetype = 'leaf'").fetchone()[0]
