"""rulings_fts is keyed by the dense rulings.rowid column, on new databases and migrated old ones."""
from __future__ import annotations

from pathlib import Path

import sqlite_utils

from kb.build.inputs import path_inputs
from kb.build.publish import build_database
from kb.store.schema import ensure_db_shape

RULINGS = Path(__file__).parent.parent / "fixtures" / "scryfall" / "bulk" / "rulings-sample.json"
FOUND = "select rulings.id from rulings_fts join rulings on rulings.rowid = rulings_fts.rowid where rulings_fts match ?"


def found(db: sqlite_utils.Database, word: str) -> list[int]:
    return sorted(row[0] for row in db.execute(FOUND, [word]))


def containing(db: sqlite_utils.Database, word: str) -> list[int]:
    return sorted(row[0] for row in db.execute("select id from rulings where text like ?", [f"%{word}%"]))


def test_search_rowids_are_dense_and_find_the_rulings_holding_the_word(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    build_database(path_inputs([RULINGS], source_id="scryfall"), db_path)
    db = sqlite_utils.Database(db_path)
    count = db["rulings"].count
    assert count > 40
    assert db.execute("select min(rowid), max(rowid), count(distinct rowid) from rulings").fetchone() == (1, count, count)
    assert db.execute("select min(rowid), max(rowid) from rulings_fts").fetchone() == (1, count)
    assert found(db, "battlefield") == containing(db, "battlefield") != []


def test_a_database_keyed_by_hash_ids_is_migrated(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    build_database(path_inputs([RULINGS], source_id="scryfall"), db_path)
    db = sqlite_utils.Database(db_path)
    # The shape before m006: no rowid column, the index keyed by the rulings' hash ids.
    db.execute("drop index idx_rulings_rowid")
    db["rulings_fts"].drop()
    db.execute("alter table rulings drop column rowid")
    db.execute("delete from _sqlite_migrations where name = 'm006_rulings_search_rowid'")
    db["rulings"].enable_fts(["text", "card_name"])
    assert db.execute("select min(rowid) from rulings_fts").fetchone()[0] > 1 << 40

    ensure_db_shape(db, search=False)

    count = db["rulings"].count
    assert db.execute("select min(rowid), max(rowid) from rulings_fts").fetchone() == (1, count)
    assert found(db, "battlefield") == containing(db, "battlefield") != []
