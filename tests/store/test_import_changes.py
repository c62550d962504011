"""kb.store.import_changes: what an import changes, noted by temporary triggers, with the
full-text indexes kept in step row by row. The rulings here are made-up rows (only the
bookkeeping is under test; tests/build/test_incremental.py checks whole imports of real files)."""
from __future__ import annotations

import sqlite_utils

from kb.store.import_changes import ImportChanges
from kb.store.schema import ensure_db_shape


def built() -> sqlite_utils.Database:
    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    db["sources"].insert({"id": "scryfall"})
    db["documents"].insert({"id": 1, "source_id": "scryfall"})
    db.conn.executemany(
        "insert into rulings (id, oracle_id, text, rowid) values (?, ?, ?, ?)",
        [(10, "a", "Flying creatures can block it.", 1), (11, "b", "Trample damage is assigned.", 2)],
    )
    db.conn.executemany(
        "insert into ruling_records (id, document_id, position, oracle_id, text, card_key) values (?, 1, ?, ?, ?, ?)",
        [(100, 0, "a", "Flying creatures can block it.", "a"), (101, 1, "b", "Trample damage is assigned.", "b")],
    )
    ensure_db_shape(db)
    return db


def fts_problems(db: sqlite_utils.Database, table: str) -> str | None:
    try:
        db.execute(f"insert into {table}_fts ({table}_fts, rank) values ('integrity-check', 1)")
    except Exception as error:  # noqa: BLE001 - the message is the finding
        return str(error)
    return None


def matches(db: sqlite_utils.Database, query: str) -> list[int]:
    return [row[0] for row in db.execute("select rowid from rulings_fts where rulings_fts match ? order by rowid", [query])]


def test_writes_during_an_import_reach_the_search_index_row_by_row() -> None:
    db = built()
    db.execute("pragma recursive_triggers = off")  # a plain connection's default
    changes = ImportChanges(db)
    assert "rulings" in changes.mirrored
    db.execute("insert into rulings (id, oracle_id, text, rowid) values (12, 'c', 'Deathtouch kills.', 3)")
    db.execute("delete from rulings where id = 11")
    db.execute("update rulings set text = 'Flying or reach can block it.' where id = 10")
    # A row that "insert or replace" replaces leaves the index too (recursive triggers).
    db.execute("insert or replace into rulings (id, oracle_id, text, rowid) values (12, 'c', 'Menace needs two.', 3)")
    changes.stop()
    assert db.execute("pragma recursive_triggers").fetchone() == (0,)
    assert fts_problems(db, "rulings") is None
    assert (matches(db, "trample"), matches(db, "reach"), matches(db, "deathtouch"), matches(db, "menace")) == ([], [1], [], [3])
    # Stopped: later writes are not mirrored (the build makes what is not kept again).
    db.execute("delete from rulings where id = 12")
    assert fts_problems(db, "rulings") is not None


def test_touched_cards_and_changed_inputs() -> None:
    db = built()
    changes = ImportChanges(db)
    assert changes.touched_card_keys() == set()
    # A document read again replaces its records; a re-keyed record touches both cards.
    db.execute(
        "insert or replace into ruling_records (id, document_id, position, oracle_id, text, card_key)"
        " values (101, 1, 1, 'b', 'Trample damage is assigned.', 'b')"
    )
    db.execute("update ruling_records set card_key = 'name:en:x' where id = 100")
    assert changes.touched_card_keys() == {"a", "b", "name:en:x"}
    assert not changes.changed("cr") and not changes.changed("keyword dictionary")
    # A card without card data (no name, no Oracle text) is nothing card names or the keyword
    # dictionary are made from; card data is.
    db.execute("insert into cards (oracle_id) values ('c')")
    assert not changes.changed("keyword dictionary") and not changes.changed("card names")
    db.execute("insert into cards (oracle_id, name, oracle_text) values ('d', 'Dee', 'Flying')")
    assert changes.changed("keyword dictionary") and changes.changed("card names")
    # Only a CJK name changes the CJK index.
    db.execute("insert into card_names (oracle_id, lang, name, source, name_key) values ('d', 'de', 'Di', 'scryfall', 'di')")
    assert not changes.changed("cjk search")
    db.execute("insert into card_names (oracle_id, lang, name, source, name_key) values ('d', 'ja', 'ディー', 'scryfall', 'ディー')")
    assert changes.changed("cjk search")
    db.execute("insert into cr_versions (id, lang) values ('en-2026-01-16', 'en')")
    assert changes.changed("cr")


def test_an_index_of_other_columns_is_not_kept() -> None:
    db = built()
    db.execute("drop table rulings_fts")
    db.execute("create virtual table rulings_fts using fts5 (text, content=rulings)")
    assert "rulings" not in ImportChanges(db).mirrored


def test_words_an_import_writes_join_the_word_list_of_a_kept_index() -> None:
    from kb.store.schema import ensure_search

    db = built()
    # Twenty more rulings: an import writing two rows lists their words only.
    db.conn.executemany("insert into rulings (id, oracle_id, text, rowid) values (?, 'x', 'Menace.', ?)",
                        [(20 + n, 3 + n) for n in range(20)])
    ensure_search(db, cjk=False)
    words = "select term from search_terms where index_name = 'rulings_fts' order by term"
    assert [row[0] for row in db.execute(words)] == [
        "assigned", "block", "can", "creatures", "damage", "flying", "is", "it", "menace", "trample",
    ]
    changes = ImportChanges(db)
    db.execute("insert into rulings (id, oracle_id, text, rowid) values (12, 'c', 'Deathtouch kills 2 Élans.', 30)")
    db.execute("delete from rulings where id = 11")
    changes.stop()
    ensure_search(db, kept=frozenset(changes.mirrored), cjk=False)
    # Folded as the index folds them ("Élans": "elans"); no number ("2"). Words whose last row
    # went stay listed: asking for them finds nothing.
    assert [row[0] for row in db.execute(words)] == [
        "assigned", "block", "can", "creatures", "damage", "deathtouch", "elans", "flying", "is", "it",
        "kills", "menace", "trample",
    ]


def test_an_import_writing_many_of_an_index_rows_lists_its_words_again() -> None:
    from kb.store.schema import ensure_search

    db = built()
    changes = ImportChanges(db)
    db.execute("update rulings set text = 'Reach blocks.' where id = 10")
    db.execute("delete from rulings where id = 11")
    changes.stop()
    ensure_search(db, kept=frozenset(changes.mirrored), cjk=False)
    # One row written of one: the index's words read again (cheaper than each row's), so the
    # list is exactly the index's.
    words = "select term from search_terms where index_name = 'rulings_fts' order by term"
    assert [row[0] for row in db.execute(words)] == ["blocks", "reach"]


def test_broken_references_are_found_where_the_import_wrote_them_as_the_whole_check_finds_them() -> None:
    db = built()
    db["cards"].insert_all([{"oracle_id": "a", "name": "A"}, {"oracle_id": "b", "name": "B"}])
    db.execute("insert into ruling_sightings (ruling_id, document_id, position) values (11, 1, 0)")
    assert db.execute("pragma foreign_key_check").fetchall() == []  # what every build leaves
    changes = ImportChanges(db)
    assert changes.foreign_key_violations() == []
    # Written: a ruling of a card no one saved; a sighting of ruling 10 in document 2.
    db.execute("insert into rulings (id, oracle_id, text, rowid) values (12, 'c', 'Menace needs two.', 3)")
    db.execute("insert into ruling_sightings (ruling_id, document_id, position) values (10, 2, 0)")
    # Removed under rows that point at them: card b (ruling 11's), ruling 10 (that new
    # sighting's), and document 1 as an id (its records and ruling 11's sighting).
    db.execute("delete from cards where oracle_id = 'b'")
    db.execute("delete from rulings where id = 10")
    db.execute("update documents set id = 5 where id = 1")
    # Sound again by the end: document 2 saved; card a saved again ("insert or replace").
    db.execute("insert into documents (id, source_id) values (2, 'scryfall')")
    db.execute("insert or replace into cards (oracle_id, name) values ('a', 'A')")
    changes.stop()
    whole = sorted(tuple(row) for row in db.execute("pragma foreign_key_check"))
    # Sightings are stored without rowids: the check names none for them.
    assert whole == [
        ("ruling_records", 100, "documents", 0), ("ruling_records", 101, "documents", 0),
        ("ruling_sightings", None, "documents", 0), ("ruling_sightings", None, "rulings", 1),
        ("rulings", 11, "cards", 0), ("rulings", 12, "cards", 0),
    ]
    assert changes.foreign_key_violations() == whole


def test_rows_stored_without_rowids_are_followed_by_their_keys_each_broken_row_once() -> None:
    db = built()
    db["cards"].insert_all([{"oracle_id": "a", "name": "A"}, {"oracle_id": "b", "name": "B"}])
    changes = ImportChanges(db)
    # Two sightings of one missing document: the whole check lists two rows with the same four
    # values (no rowid to tell them apart), and so must the import's.
    db.execute("insert into ruling_sightings (ruling_id, document_id, position) values (10, 9, 0), (11, 9, 4)")
    db.execute("insert into ruling_sightings (ruling_id, document_id, position) values (10, 1, 2)")  # sound
    changes.stop()
    whole = sorted(tuple(row) for row in db.execute("pragma foreign_key_check"))
    assert whole == [("ruling_sightings", None, "documents", 0)] * 2
    assert changes.foreign_key_violations() == whole
    plan = " ".join(row[3] for row in db.execute(
        "explain query plan select 1 from ruling_sightings as child"
        " where (child.ruling_id, child.document_id, child.position) in (select * from temp.fk_written_ruling_sightings)"
    ))
    # Each written row found by its key (through the key or an index holding it), never a scan.
    assert "SEARCH child USING" in plan and "=? AND" in plan and "SCAN child" not in plan, plan


def test_keys_the_triggers_cannot_follow_fall_back_to_the_whole_check() -> None:
    db = built()
    db.execute("create table pairs (a integer, b integer, primary key (a, b))")
    db.execute("create table pair_notes (a integer, b integer, foreign key (a, b) references pairs (a, b))")
    assert ImportChanges(db).foreign_key_violations() is None


def test_a_table_made_again_during_the_import_falls_back_to_the_whole_check() -> None:
    db = built()
    db["cards"].insert_all([{"oracle_id": "a", "name": "A"}, {"oracle_id": "b", "name": "B"}])
    changes = ImportChanges(db)
    schema = db["ruling_sightings"].schema
    db.execute("drop table ruling_sightings")  # its triggers go with it
    db.execute(schema)
    db.execute("insert into ruling_sightings (ruling_id, document_id, position) values (99, 1, 0)")
    changes.stop()
    assert changes.foreign_key_violations() is None


def test_a_broken_sighting_is_named_without_a_rowid_it_has_not() -> None:
    from kb.build.publish import validate

    db = built()
    changes = ImportChanges(db)
    db.execute("insert into ruling_sightings (ruling_id, document_id, position) values (99, 1, 0)")
    changes.stop()
    problems = validate(db, changes)
    assert "1 foreign key violations (ruling_sightings -> rulings)" in problems, problems
