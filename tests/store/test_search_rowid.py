"""rulings_fts is keyed by the dense rulings.rowid column, on new databases and migrated old ones."""
from __future__ import annotations

import sqlite3
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


def segments(db: sqlite_utils.Database) -> dict[str, int]:
    """Each full-text index's segments (FTS5 keeps one row a segment, or more, in its ``_idx``)."""
    names = [row[0] for row in db.execute("select name from sqlite_master where type = 'table' and name like '%\\_idx' escape '\\'")]
    return {name[: -len("_idx")]: db.execute(f'select count(distinct segid) from "{name}"').fetchone()[0] for name in names}


def test_a_built_files_full_text_indexes_are_one_segment_each(snapshot_db: Path) -> None:
    """A query looks each word up in every segment: the snapshot's card names were 14 segments,
    its CJK bigrams 16, made by several inserts."""
    found = segments(sqlite_utils.Database(sqlite3.connect(f"file:{snapshot_db}?immutable=1", uri=True)))
    assert set(found) >= {"rules_fts", "glossary_fts", "rulings_fts", "card_names_fts", "cjk_search", "cjk_bigrams"}
    assert set(found.values()) == {1}


def test_an_index_kept_in_step_is_merged_only_past_its_bound(tmp_path: Path) -> None:
    from kb.store.schema import KEPT_SEGMENTS_AT_MOST, merge_segments

    db = sqlite_utils.Database(tmp_path / "kb.db")
    db.execute("create virtual table words_fts using fts5(text)")
    for number in range(KEPT_SEGMENTS_AT_MOST):  # a statement outside a transaction writes a segment
        db.execute("insert into words_fts (text) values (?)", [f"ruling {number}"])
    merge_segments(db, "words_fts", KEPT_SEGMENTS_AT_MOST)
    assert segments(db)["words_fts"] == KEPT_SEGMENTS_AT_MOST
    db.execute("insert into words_fts (text) values ('one more')")
    merge_segments(db, "words_fts", KEPT_SEGMENTS_AT_MOST)
    assert segments(db)["words_fts"] == 1
    assert [row[0] for row in db.execute("select text from words_fts where words_fts match 'ruling' order by rowid")] == [
        f"ruling {number}" for number in range(KEPT_SEGMENTS_AT_MOST)]
