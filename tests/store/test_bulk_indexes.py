"""``indexes_made_after``: a bulk load into an empty (or small) table writes its rows without the
indexes whose keys come in no order, and the table ends with the same indexes as before, made
again by the same declaration (also when the load fails)."""
from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from kb.store.bulk_indexes import indexes_made_after
from kb.store.save_cr import cr_indexes_made_after
from kb.store.schema import ensure_db_shape

CARD_KEY_INDEX = "idx_ruling_records_card_key"


def shaped(path: Path) -> sqlite_utils.Database:
    db = sqlite_utils.Database(path)
    ensure_db_shape(db, search=False)
    db["documents"].insert({"id": 1, "source_id": "scryfall", "status": "parsed"})
    return db


def index_sql(db: sqlite_utils.Database) -> dict[str, str]:
    return {row[0]: row[1] for row in db.execute(
        "select name, sql from sqlite_master where type = 'index' and tbl_name = 'ruling_records' and sql is not null"
    )}


def add_records(db: sqlite_utils.Database, first: int, count: int) -> None:
    db.conn.executemany(
        "insert into ruling_records (id, document_id, position, card_key, text) values (?, 1, ?, ?, 'x')",
        [(first + n, n, f"card-{(first + n) * 7919 % 1000:04d}") for n in range(count)],
    )


def test_an_empty_table_is_written_without_the_index_and_ends_with_it(tmp_path: Path) -> None:
    db = shaped(tmp_path / "kb.db")
    before = index_sql(db)
    assert CARD_KEY_INDEX in before

    with indexes_made_after(db, "ruling_records", ["card_key"]):
        assert CARD_KEY_INDEX not in index_sql(db)
        add_records(db, 0, 500)

    assert index_sql(db) == before
    plan = db.execute("explain query plan select id from ruling_records where card_key = 'card-0757'").fetchall()
    assert CARD_KEY_INDEX in str(plan)
    assert db.execute("select count(*) from ruling_records where card_key = 'card-0757'").fetchone()[0] == 1


def test_the_rulings_indexes_are_made_again_as_they_were(tmp_path: Path) -> None:
    db = shaped(tmp_path / "kb.db")

    def rulings_indexes() -> dict[str, str]:
        return {row[0]: row[1] for row in db.execute(
            "select name, sql from sqlite_master where type = 'index' and tbl_name = 'rulings' and sql is not null")}

    before = rulings_indexes()
    # m033: no index of every ruling by when it was first seen, a partial one of those that were.
    assert "idx_rulings_seen" not in before and "first_seen is not null" in before["idx_rulings_first_seen"]
    with indexes_made_after(db, "rulings", ["published_at"]):
        assert "idx_rulings_published_at" not in rulings_indexes()
    assert rulings_indexes() == before


def test_a_table_holding_more_rows_than_allowed_keeps_its_index(tmp_path: Path) -> None:
    db = shaped(tmp_path / "kb.db")
    add_records(db, 0, 10)

    with indexes_made_after(db, "ruling_records", ["card_key"], up_to_rows=9):
        assert CARD_KEY_INDEX in index_sql(db)
    with indexes_made_after(db, "ruling_records", ["card_key"], up_to_rows=10):
        assert CARD_KEY_INDEX not in index_sql(db)
    assert CARD_KEY_INDEX in index_sql(db)


def test_a_failed_load_still_ends_with_the_index_and_its_error(tmp_path: Path) -> None:
    db = shaped(tmp_path / "kb.db")
    before = index_sql(db)

    with pytest.raises(ValueError, match="a refused document"):
        with indexes_made_after(db, "ruling_records", ["card_key"]):
            add_records(db, 0, 5)
            raise ValueError("a refused document")

    assert index_sql(db) == before


def test_a_unique_index_is_never_dropped(tmp_path: Path) -> None:
    """Without it, ``insert or replace`` would keep both rows of a key."""
    db = shaped(tmp_path / "kb.db")
    unique = {row[0] for row in db.execute(
        "select name from sqlite_master where type = 'index' and tbl_name = 'rulings' and sql like 'CREATE UNIQUE%'")}
    assert "idx_rulings_rowid" in unique

    with indexes_made_after(db, "rulings", ["rowid"], ["published_at"]):
        present = {row[0] for row in db.execute("select name from sqlite_master where tbl_name = 'rulings'")}
        assert "idx_rulings_rowid" in present
        assert "idx_rulings_published_at" not in present


def test_no_bound_drops_the_index_whatever_the_table_holds(tmp_path: Path) -> None:
    """For a block that rewrites the indexed column of nearly every row (rule lineages)."""
    db = shaped(tmp_path / "kb.db")
    add_records(db, 0, 10)
    before = index_sql(db)

    with indexes_made_after(db, "ruling_records", ["card_key"], up_to_rows=None):
        assert CARD_KEY_INDEX not in index_sql(db)

    assert index_sql(db) == before


def rule_index_sql(db: sqlite_utils.Database) -> dict[str, str]:
    return {row[0]: row[1] for row in db.execute(
        "select name, sql from sqlite_master where type = 'index' and tbl_name in ('rules', 'rule_refs', 'glossary')"
        " and sql is not null"
    )}


def test_cr_editions_saved_into_empty_tables_keep_up_only_the_indexes_saving_reads(tmp_path: Path) -> None:
    db = shaped(tmp_path / "kb.db")
    before = rule_index_sql(db)

    with cr_indexes_made_after(db):
        during = set(rule_index_sql(db))
        db.conn.execute("insert into cr_versions (id, lang) values ('en-2025-02-07', 'en')")
        db.conn.execute("insert into rules (id, version_id, number, kind) values (1, 'en-2025-02-07', '100.1', 'rule')")

    # What saving an edition reads (a version's rules, its counts, its positions) stays indexed.
    assert {"idx_rules_version_id_number", "idx_rules_version_id_kind", "idx_rules_version_id_position"} <= during
    assert not during & {"idx_rules_number", "idx_rules_position", "idx_rules_lineage_id",
                         "idx_rules_version_id_parent_number", "idx_rule_refs_target_number", "idx_glossary_lineage_id"}
    assert rule_index_sql(db) == before
    # A table holding rules already (an import into a built database) keeps every index.
    rules_before = {name: sql for name, sql in before.items() if name.startswith("idx_rules_")}
    with cr_indexes_made_after(db):
        assert {name: sql for name, sql in rule_index_sql(db).items() if name.startswith("idx_rules_")} == rules_before
