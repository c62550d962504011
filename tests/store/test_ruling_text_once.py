"""Each ruling text is stored once: a record whose text is its ruling's points at the ruling
(ruling_records.ruling_id, text null), and every record's text as printed survives every derive."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlite_utils

from kb.build.inputs import path_inputs
from kb.build.load import load_document
from kb.build.publish import build_database
from kb.store.derive_rulings import derive_rulings
from kb.store.save import save_sources
from kb.store.schema import ensure_db_shape

FIXTURES = Path(__file__).parent.parent / "fixtures"
RULINGS = FIXTURES / "scryfall" / "bulk" / "rulings-sample.json"
GERMAN_PAGE = FIXTURES / "pages" / "de-lethal-scheme-000.txt"
# The card data and English rulings of the German page's card (constructed: see their README).
LETHAL_SCHEME = [FIXTURES / "constructed" / "search-lethal-scheme.json", FIXTURES / "constructed" / "rulings-lethal-scheme.json"]


def saved_texts(paths: list[Path], source: str) -> dict[int, str]:
    """The records' texts as the save step writes them, before any derive: the answer key."""
    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    save_sources(db)
    for doc in path_inputs(paths, source_id=source):
        load_document(db, doc)
    return {row[0]: row[1] for row in db.execute("select id, text from ruling_records")}


def printed_texts(db_path: Path) -> dict[int, str]:
    db = sqlite_utils.Database(db_path)
    try:
        return {row[0]: row[1] for row in db.execute("select id, text from ruling_records_as_printed")}
    finally:
        db.close()


def storage(db_path: Path) -> tuple[int, int, int]:
    """(records pointing at a ruling, of them with a text of their own, pointing at no ruling)."""
    db = sqlite_utils.Database(db_path)
    try:
        return db.execute(
            "select count(ruling_id), count(case when ruling_id is not null then text end),"
            " count(case when ruling_id is not null and ruling_id not in (select id from rulings) then 1 end)"
            " from ruling_records"
        ).fetchone()
    finally:
        db.close()


def test_a_bulk_file_stores_each_text_once_and_every_record_reads_its_own(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    build_database(path_inputs([RULINGS], source_id="scryfall"), db_path)
    expected = saved_texts([RULINGS], "scryfall")
    assert len(expected) > 40
    assert printed_texts(db_path) == expected
    pointing, with_text, dangling = storage(db_path)
    # Every record of the sample is the one copy of its ruling's text.
    assert (pointing, with_text, dangling) == (len(expected), 0, 0)
    db = sqlite_utils.Database(db_path)
    assert db.execute("select count(*) from ruling_records where text is not null").fetchone()[0] == 0
    db.close()


def test_texts_survive_when_rulings_are_derived_again_under_new_ids(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    # The German page names its card only by a German name: its rulings are kept by that name.
    build_database(path_inputs([GERMAN_PAGE], source_id="page-capture"), db_path)
    german = saved_texts([GERMAN_PAGE], "page-capture")
    assert printed_texts(db_path) == german
    before = sqlite_utils.Database(db_path)
    old_ids = {row[0] for row in before.execute("select id from rulings")}
    before.close()
    assert storage(db_path)[0] > 0

    # The card and its English rulings arrive: the German page's rulings get the card's
    # Oracle id (new ids) and two of its damaged copies a better text from Scryfall.
    build_database(path_inputs(LETHAL_SCHEME, source_id="scryfall"), db_path, base=db_path)
    after = sqlite_utils.Database(db_path)
    new_ids = {row[0] for row in after.execute("select id from rulings")}
    after.close()
    assert old_ids.isdisjoint(new_ids)
    assert printed_texts(db_path) == german | saved_texts(LETHAL_SCHEME, "scryfall")
    pointing, with_text, dangling = storage(db_path)
    assert pointing > 0 and with_text == 0 and dangling == 0


def test_a_database_whose_records_keep_every_text_is_migrated_and_loses_none(tmp_path: Path) -> None:
    built = tmp_path / "built.db"
    build_database(path_inputs([GERMAN_PAGE], source_id="page-capture"), built)
    old = tmp_path / "old.db"
    shutil.copy(built, old)
    db = sqlite_utils.Database(old)
    # The shape before m010: every record holds its own text, no ruling_id column.
    db.execute(
        "update ruling_records set text = (select text from rulings where rulings.id = ruling_records.ruling_id)"
        " where ruling_id is not null"
    )
    db.execute("drop view ruling_records_as_printed")
    db.execute("drop index idx_ruling_records_empty")  # reads ruling_id: newer than m010 too
    db.execute("alter table ruling_records drop column ruling_id")
    db.execute("delete from _sqlite_migrations where name = 'm010_ruling_record_text_once'")
    # ... and its rulings indexed by card name in full, the rulings of identified cards too.
    db.execute("drop index idx_rulings_card_name")
    db.execute("create index idx_rulings_card_name on rulings (card_name)")
    db.close()
    expected = saved_texts([GERMAN_PAGE], "page-capture")
    assert printed_texts(built) == expected

    build_database(path_inputs(LETHAL_SCHEME, source_id="scryfall"), old, base=old)

    assert printed_texts(old) == expected | saved_texts(LETHAL_SCHEME, "scryfall")
    pointing, with_text, dangling = storage(old)
    assert pointing > 0 and with_text == 0 and dangling == 0
    db = sqlite_utils.Database(old)
    assert db.execute("select sql from sqlite_master where name = 'idx_rulings_card_name'").fetchone()[0].endswith(
        "where card_name is not null"
    )
    # The card page's lookup of a card not identified yet can still read it (SQLite refuses an
    # INDEXED BY it cannot use), and finds the German page's rulings by their German name.
    found = db.execute(
        "select count(*) from rulings indexed by idx_rulings_card_name where oracle_id is null and card_name = ?",
        ["Tödliches Komplott"],
    ).fetchone()[0]
    assert found == 0  # the card is known now: its rulings moved to it
    built_db = sqlite_utils.Database(built)
    assert built_db.execute(
        "select count(*) from rulings indexed by idx_rulings_card_name where oracle_id is null and card_name = ?",
        ["Tödliches Komplott"],
    ).fetchone()[0] == 11
    built_db.close()
    db.close()


def test_a_record_whose_ruling_is_gone_refuses_the_derive(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    build_database(path_inputs([RULINGS], source_id="scryfall"), db_path)
    db = sqlite_utils.Database(db_path)
    # Damage no build makes: a ruling deleted by hand under records that hold no text of their own.
    gone = db.execute("select ruling_id from ruling_records where ruling_id is not null limit 1").fetchone()[0]
    db.execute("delete from rulings where id = ?", [gone])
    with pytest.raises(ValueError, match="point at rulings that are gone"):
        derive_rulings(db)
    db.close()
