"""Older databases are brought to today's shape: m008 adds rule_lineage_links, m009 renames a status, m011 adds glossary lineages,
m012 copies each ruling's date into ruling_rules, m013 drops the index of ruling_rules by status alone,
m015 and m016 add the column that says a rule was paired by its number alone, m021 stores
ruling_sightings by its key alone."""
from __future__ import annotations

import sqlite_utils

from kb.store.migrations import migrations
from kb.store.tables import RULING_RULES_COLUMNS, TABLES


def test_linked_is_called_same_and_links_table_appears() -> None:
    db = sqlite_utils.Database(memory=True)
    # A database made before m008/m009: migrations up to m007 (m001 makes today's tables, so the
    # links table is dropped as an older database would lack it), rule_links holding "linked".
    migrations.apply(db, stop_before="m008_rule_lineage_links")
    db.table("rule_lineage_links").drop()
    db.table("rule_links").insert_all(
        [{"rule_id": 1, "en_rule_id": 2, "status": "linked"}, {"rule_id": 3, "en_rule_id": 4, "status": "stale"}]
    )
    migrations.apply(db)
    assert [row["status"] for row in db["rule_links"].rows] == ["same", "stale"]
    assert set(db["rule_lineage_links"].columns_dict) == set(TABLES["rule_lineage_links"]["columns"])


def test_glossary_entries_get_a_lineage_column() -> None:
    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m011_glossary_lineages")
    db.table("glossary").transform(drop={"lineage_id"})  # as a database made before m011 is
    db.table("glossary").insert({"id": 1, "version_id": "en-2026-04-17", "term": "Mana Value", "text": "…", "position": 1})
    migrations.apply(db)
    assert list(db["glossary"].rows) == [
        {"id": 1, "version_id": "en-2026-04-17", "term": "Mana Value", "text": "…", "position": 1, "lineage_id": None}
    ]


def test_ruling_links_get_their_rulings_date() -> None:
    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m012_ruling_rules_published_at")
    db.table("ruling_rules").transform(drop={"published_at"})  # as a database made before m012 is
    db.table("rulings").insert_all([{"id": 7, "published_at": "2024-01-12"}, {"id": 8, "published_at": "2019-10-04"}])
    db.table("ruling_rules").insert_all([
        {"ruling_id": 7, "version_id": "en-2024-02-02", "rule_number": "702.19", "method": "keyword"},
        {"ruling_id": 8, "version_id": "en-2019-08-23", "rule_number": "702.19", "method": "keyword"},
        {"ruling_id": 8, "version_id": "en-2019-08-23", "rule_number": "510.1c", "method": "cited"},
    ])
    migrations.apply(db)
    assert sorted((row["ruling_id"], row["rule_number"], row["published_at"]) for row in db["ruling_rules"].rows) == [
        (7, "702.19", "2024-01-12"), (8, "510.1c", "2019-10-04"), (8, "702.19", "2019-10-04"),
    ]


def test_citations_to_check_are_found_by_their_targets() -> None:
    """An older database's ruling_rules goes with its indexes (by status alone, the view read
    every keyword link of a status to find the few citations: 474k at a million rulings); the
    view reads the cited targets, then their links by an index, never a keyword's or a term's
    link (a scan of every cited link was 22 ms at 300k: a code review)."""
    from kb.store.derive_history import CITATIONS_TO_CHECK_VIEW
    from kb.store.schema import ensure_db_shape

    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m013_ruling_rules_status_method")
    db.execute("create index idx_ruling_rules_status on ruling_rules (status)")  # as an older database has
    ensure_db_shape(db, search=False)
    assert "ruling_rules" in db.view_names()
    assert not [row for row in db.execute("select name from sqlite_master where name like 'idx_ruling_rules%'")]
    db.create_view("citations_to_check", CITATIONS_TO_CHECK_VIEW, replace=True)  # as the CR history makes it
    plan = [row[3] for row in db.execute("explain query plan select * from citations_to_check")]
    # The cited targets of the statuses to check, then their links; and the links whose number is
    # in doubt by their partial index (one reading every cited link was 0.35 s at 345k: a code review).
    assert "SEARCH link USING INDEX idx_ruling_rule_links_target_id (target_id=?)" in plan, plan
    assert "SCAN link USING INDEX idx_ruling_rule_links_number_uncertain" in plan, plan
    assert not [step for step in plan if step.startswith("SCAN link") and "INDEX" not in step], plan


def test_pairings_by_number_alone_are_not_recorded_in_older_rows() -> None:
    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m015_cr_changes_paired_by_number")
    db.table("cr_changes").transform(drop={"paired_by_number"})  # as databases made before m015 are
    db.table("ruling_rules").transform(drop={"paired_by_number"})
    db.table("cr_changes").insert({"id": 1, "kind": "changed", "old_number": "107.14", "new_number": "107.14"})
    db.table("ruling_rules").insert({"ruling_id": 7, "version_id": "en-2014-09-25", "rule_number": "107.14", "method": "cited"})
    migrations.apply(db)
    assert [row["paired_by_number"] for row in db["cr_changes"].rows] == [None]
    assert [row["paired_by_number"] for row in db["ruling_rules"].rows] == [None]
    assert set(db["cr_changes"].columns_dict) == set(TABLES["cr_changes"]["columns"])
    assert set(db["ruling_rules"].columns_dict) == set(RULING_RULES_COLUMNS)


def test_sightings_with_rowids_are_stored_again_by_their_key_alone_every_row_kept() -> None:
    from kb.store.migrations import is_without_rowid
    from kb.store.schema import ensure_db_shape

    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m021_ruling_sightings_without_rowid")
    # As a database made before m021 has it: a rowid table, its index by document.
    db.execute("drop table ruling_sightings")
    spec = TABLES["ruling_sightings"]
    db.table("ruling_sightings").create(spec["columns"], pk=spec["pk"], foreign_keys=spec["foreign_keys"])
    db["ruling_sightings"].create_index(["document_id"])
    rows = [
        {"ruling_id": 7, "document_id": 2, "position": 1, "raw_date": "2024-01-12", "source_as_seen": "wotc", "text_as_seen": None},
        {"ruling_id": 3, "document_id": 2, "position": 0, "raw_date": "12/01/2024", "source_as_seen": None, "text_as_seen": "Vol."},
    ]
    db["ruling_sightings"].insert_all(rows)
    assert not is_without_rowid(db, "ruling_sightings")
    ensure_db_shape(db, search=False)
    assert is_without_rowid(db, "ruling_sightings")
    assert list(db["ruling_sightings"].rows) == sorted(rows, key=lambda row: row["ruling_id"])
    assert db["ruling_sightings"].pks == ["ruling_id", "document_id", "position"]
    indexes = {index.name for index in db["ruling_sightings"].indexes}
    assert "idx_ruling_sightings_document_id" in indexes
    assert db.execute("select count(*) from sqlite_master where name like '%with_rowid%'").fetchone()[0] == 0


def test_a_new_file_is_shaped_as_every_migration_shapes_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A new file is given a copy of the shape made once per process (``_new_file_shape``): its
    schema, its record of applied migrations and its header are those the migrations, indexes
    and views make statement by statement."""
    from kb.store import schema

    copied = sqlite_utils.Database(tmp_path / "copied.db")
    schema.ensure_db_shape(copied)
    stepwise = sqlite_utils.Database(tmp_path / "stepwise.db")
    schema._shape(stepwise)
    schema.ensure_search(stepwise)

    def shape(db: sqlite_utils.Database) -> tuple[list, list, list]:
        return (
            list(db.execute("select type, name, tbl_name, sql from sqlite_master order by type, name")),
            list(db.execute("select migration_set, name from _sqlite_migrations order by id")),
            [db.execute(f"pragma {name}").fetchone() for name in ("user_version", "page_size", "auto_vacuum", "encoding")],
        )

    assert shape(copied) == shape(stepwise)
    assert len(shape(copied)[1]) == len(migrations.pending(sqlite_utils.Database(memory=True)))
    # A file that already has tables is brought forward in place, never overwritten by the copy.
    copied["rules"].insert({"id": 1, "version_id": "en-2026-04-17", "number": "100.1"})
    schema.ensure_db_shape(copied)
    assert copied["rules"].count == 1


def test_ruling_rules_become_links_and_their_targets_every_row_kept() -> None:
    """m032: a row of every column per link (382 MB of a million rulings' links with their
    indexes) becomes the links and the targets they share, read as before through the view."""
    from kb.store.schema import ensure_db_shape

    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m032_ruling_rule_links")
    commander = {"rule_number": "903", "version_id": "en-2026-01-16", "rule_id": 11, "method": "term",
                 "confidence": 0.9, "matched_text": "Commander", "current_number": "903", "current_rule_id": 12,
                 "status": "same", "lineage_id": "en-2003-10-01/903", "in_force_version_id": "en-2026-01-16",
                 "paired_by_number": 0}
    rows = [
        {"ruling_id": 7, **commander, "published_at": "2026-02-01", "number_uncertain": 0},
        {"ruling_id": 8, **commander, "published_at": "2026-03-01", "number_uncertain": 0},
        {"ruling_id": 8, "rule_number": "510.1c", "version_id": "en-2019-08-23", "method": "cited", "status": "unknown",
         "published_at": "2019-10-04", "number_uncertain": None},
        # Cited, the same today, its number on the ruling's date in doubt; and changed and in doubt.
        {"ruling_id": 7, "rule_number": "702.19", "version_id": "en-2025-02-07", "method": "cited", "status": "same",
         "published_at": "2026-02-01", "number_uncertain": 1},
        {"ruling_id": 7, "rule_number": "702.9", "version_id": "en-2025-02-07", "method": "cited", "status": "changed",
         "published_at": "2026-02-01", "number_uncertain": 1},
    ]
    db["ruling_rules"].insert_all(rows)
    db["rulings"].insert_all([{"id": 7, "published_at": "2026-02-01"}, {"id": 8, "published_at": "2019-10-04"}])
    db.execute("create view citations_to_check as select * from ruling_rules")  # as the CR history made it
    ensure_db_shape(db, search=False)
    assert "ruling_rules" in db.view_names() and "ruling_rules" not in db.table_names()
    every = [tuple(row.get(column) for column in RULING_RULES_COLUMNS) for row in rows]
    assert sorted(db.execute("select * from ruling_rules").fetchall(), key=str) == sorted(every, key=str)
    assert (db["ruling_rule_targets"].count, db["ruling_rule_links"].count) == (4, 5)
    # The citations view reads the links again, as today's code makes it: each citation once.
    assert sorted(row[:2] for row in db.execute("select cited_number, cited_version from citations_to_check")) == [
        ("510.1c", "en-2019-08-23"), ("702.19", "en-2025-02-07"), ("702.9", "en-2025-02-07")]


def test_the_index_of_every_ruling_by_when_first_seen_goes() -> None:
    """m033: 24 MB of a million rulings' database served one canned query, which reads the
    rulings by date and a partial index of those first seen later."""
    from kb.store.schema import ensure_db_shape

    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m033_rulings_first_seen")
    db.execute("create index idx_rulings_seen on rulings (coalesce(first_seen, published_at))")  # as older files have
    ensure_db_shape(db, search=False)
    indexes = {row[0] for row in db.execute("select name from sqlite_master where type = 'index' and tbl_name = 'rulings'")}
    assert "idx_rulings_seen" not in indexes and "idx_rulings_first_seen" in indexes
