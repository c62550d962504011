"""An import that adds no CR version keeps the CR-derived tables and derives what a full build does,
deriving and indexing again only what its files change."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlite_utils

from kb.build.inputs import path_inputs, snapshot_inputs
from kb.build.publish import BuildReport, build_database
from kb.records import RulingRecord
from kb.store.derive import link_all
from kb.store.import_changes import ImportChanges
from kb.store.save import LangDetector, save_ruling_records
from kb.store.search_terms import LETTER_TERMS
from site_databases import SNAPSHOT, built_snapshot_db

CONSTRUCTED = Path(__file__).parent.parent / "fixtures" / "constructed"
# The English original of the snapshot's German Lethal Scheme page (constructed: see its README):
# a small rulings file whose import links translations the snapshot could not link before.
SMALL = [CONSTRUCTED / "search-lethal-scheme.json", CONSTRUCTED / "rulings-lethal-scheme.json"]

# Every derived table, with the columns that identify its rows (rulings.rowid, the search
# index's key, is numbered by each build and left out).
DERIVED = {
    "cr_changes": "*",
    "rule_lineages": "*",
    "rules": "id, lineage_id",
    "cr_versions": "id, translates_version_id, translation_match, translation_note",
    "rule_links": "*",
    "glossary_links": "*",
    "keywords": "*",
    "rule_refs": "*",
    "cards": "*",
    "card_names": "*",
    "rulings": "id, oracle_id, card_name, card_name_lang, source, published_at, text, position,"
               " first_seen, last_seen, source_inferred, removed_upstream, identity",
    "ruling_sightings": "*",
    "ruling_translations": "*",
    "ruling_rules": "*",
    "keyword_dictionary": "*",
    "unresolved_card_names": "*",
    "quality_issues": "kind, detail, document_id, ruling_id, rule_id",
    "ruling_records": "*",
    "cjk_search": "kind, key, lang, text",
}
SEARCHED = ("rules", "glossary", "rulings", "ruling_translations", "card_names", "card_name_records")


def rows(path: Path, table: str, columns: str) -> list[tuple]:
    return query(path, f"select {columns} from {table}")


def query(path: Path, sql: str) -> list[tuple]:
    db = sqlite_utils.Database(path)
    try:
        return sorted(db.execute(sql).fetchall(), key=repr)
    finally:
        db.close()


def search_index_problems(path: Path) -> list[str]:
    """FTS5's own check of each full-text index against its table (every row indexed with the
    values it holds, nothing else): an index kept in step by an import must pass it."""
    db = sqlite_utils.Database(path)
    problems = []
    try:
        for table in SEARCHED:
            try:
                db.execute(f"insert into {table}_fts ({table}_fts, rank) values ('integrity-check', 1)")
            except Exception as error:  # noqa: BLE001 - the message is the finding
                problems.append(f"{table}: {error}")
            # Every a–z word of the index is in its word list (the search asks prefixes through it).
            db.execute(f"create virtual table temp.{table}_vocabulary using fts5vocab(main, {table}_fts, row)")
            unlisted = db.execute(
                f"select count(*) from temp.{table}_vocabulary where {LETTER_TERMS} and term not in"
                " (select term from search_terms where index_name = ?)",
                [f"{table}_fts"],
            ).fetchone()[0]
            if unlisted:
                problems.append(f"{table}: {unlisted} words not in search_terms")
    finally:
        db.close()
    return problems


@pytest.fixture(scope="module")
def full_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildReport]:
    """The snapshot and the small file in one build: what both ways of adding the file must equal.

    Its CR tables are carried from the built snapshot, as a refresh's rebuild carries them from the
    served file: tests/build/test_carry_cr.py shows that a rebuild carrying them gives the file a
    rebuild deriving them gives (and the CR history of 31 editions is most of a build's time)."""
    full = tmp_path_factory.mktemp("full") / "full.db"
    inputs = snapshot_inputs(SNAPSHOT) + path_inputs(SMALL, source_id="scryfall")
    return full, build_database(inputs, full, carry_from=built_snapshot_db())


@pytest.mark.long_proof
def test_importing_a_small_rulings_file_keeps_cr_history_and_derives_what_a_full_build_does(
    tmp_path: Path, full_build: tuple[Path, BuildReport]
) -> None:
    imported = tmp_path / "imported.db"
    shutil.copy(built_snapshot_db(), imported)
    report = build_database(path_inputs(SMALL, source_id="scryfall"), imported, base=imported)
    # What was recomputed: card names, rulings and their citations, the keyword dictionary (the
    # file holds card data); not the CR diffs, lineages or translation links (no CR version was
    # added or changed).
    assert report.derived == ["card names", "rulings", "new ruling links", "keyword dictionary"]
    assert search_index_problems(imported) == []

    full, report = full_build
    assert report.derived == ["card names", "cr carried", "rulings", "ruling links", "keyword dictionary"]

    for table, columns in DERIVED.items():
        assert rows(imported, table, columns) == rows(full, table, columns), table
    # The import did link something new: the German page's rulings now have their English original.
    assert rows(imported, "ruling_translations", "count(*)") != [(0,)]
    assert rows(imported, "cr_changes", "count(*)")[0][0] > 1000


def test_an_import_that_adds_a_cr_version_recomputes_the_history(tmp_path: Path) -> None:
    base = tmp_path / "kb.db"
    cr = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw"
    build_database(path_inputs([cr / "2019-01-25.txt"], source_id="wizards"), base)
    report = build_database(path_inputs([cr / "2026-01-16.txt"], source_id="wizards"), base, base=base)
    assert report.derived == ["card names", "cr history", "cr translations", "rulings", "ruling links", "keyword dictionary"]
    assert rows(base, "cr_changes", "count(distinct new_version_id)") == [(1,)]


@pytest.mark.long_proof
def test_a_rulings_file_rewrites_only_its_cards_rulings_and_keeps_the_search_indexes(tmp_path: Path) -> None:
    imported = tmp_path / "imported.db"
    shutil.copy(built_snapshot_db(), imported)
    by_oracle_id = "select id, rowid from rulings where oracle_id is not null"
    before = dict(query(imported, by_oracle_id))
    report = build_database(path_inputs(SMALL[1:], source_id="scryfall"), imported, base=imported)
    # No card data, no printed text: card names and the keyword dictionary stand.
    assert report.derived == ["rulings", "new ruling links"]
    after = dict(query(imported, by_oracle_id))
    # The file's card had no rulings in the snapshot: every ruling of another card keeps its row
    # (a full derive numbered every ruling again; those of cards known only by a printed name are
    # derived again on every import), and the search indexes were kept in step, not made again.
    assert len(after) == len(before) + 11
    assert {ruling_id: rowid for ruling_id, rowid in after.items() if ruling_id in before} == before
    assert search_index_problems(imported) == []
    assert query(imported, "select count(*) from rulings_fts where rulings_fts match 'connives'")[0][0] >= 1


SCRYFALL_RULINGS = sorted((Path(__file__).parent.parent / "fixtures" / "scryfall" / "api-2025-11-01").glob("rulings-*.json"))


def test_more_new_rulings_than_the_database_held_are_indexed_once_as_a_full_build_does(tmp_path: Path, monkeypatch) -> None:
    # 11 rulings, then 67 real ones in one import: the rulings' full-text index is made again from
    # every row at the end instead of kept in step a row at a time, and it, its word list and the
    # derived tables are those of one build of both. A small file keeps the index in step.
    made_again: list[str] = []
    make_index_again = ImportChanges.make_index_again

    def recorded(self: ImportChanges, table: str) -> None:
        made_again.append(table)
        make_index_again(self, table)

    monkeypatch.setattr(ImportChanges, "make_index_again", recorded)
    imported = tmp_path / "imported.db"
    build_database(path_inputs(SMALL[1:], source_id="scryfall"), imported)
    build_database(path_inputs(SCRYFALL_RULINGS, source_id="scryfall"), imported, base=imported)
    assert made_again == ["rulings"]
    full = tmp_path / "full.db"
    build_database(path_inputs(SMALL[1:] + SCRYFALL_RULINGS, source_id="scryfall"), full)
    assert search_index_problems(imported) == []
    for table in ("rulings", "ruling_sightings", "ruling_rules", "quality_issues"):
        assert rows(imported, table, DERIVED[table]) == rows(full, table, DERIVED[table]), table
    assert rows(imported, "search_terms", "*") == rows(full, "search_terms", "*")
    matched = "select rulings.id from rulings_fts join rulings on rulings.rowid = rulings_fts.rowid where rulings_fts match ?"
    for word in ("creature", "transform", "connives", "the"):
        assert query(imported, matched.replace("?", f"'{word}'")) == query(full, matched.replace("?", f"'{word}'")) != []
    made_again.clear()
    build_database(path_inputs(SMALL[:1], source_id="scryfall"), imported, base=imported)
    assert made_again == [] and search_index_problems(imported) == []


@pytest.mark.long_proof
def test_card_data_after_its_rulings_renames_the_card_and_links_again_as_a_full_build_does(
    tmp_path: Path, full_build: tuple[Path, BuildReport]
) -> None:
    # The rulings first, without card data: the card is named from its rulings. Then its card
    # data: its name, its rulings' links to rules (a ruling's own card name is never a keyword)
    # and the translations follow, as in one build of everything.
    stepwise = tmp_path / "stepwise.db"
    shutil.copy(built_snapshot_db(), stepwise)
    build_database(path_inputs(SMALL[1:], source_id="scryfall"), stepwise, base=stepwise)
    lethal_names = "select name, source from card_names where oracle_id = '00000000-0000-4000-8000-00000000c0de' and lang = 'en'"
    unnamed = query(stepwise, lethal_names)
    build_database(path_inputs(SMALL[:1], source_id="scryfall"), stepwise, base=stepwise)
    full, _report = full_build
    for table, columns in DERIVED.items():
        assert rows(stepwise, table, columns) == rows(full, table, columns), table
    assert search_index_problems(stepwise) == []
    assert query(stepwise, lethal_names) == [("Lethal Scheme", "oracle")] != unnamed


def test_a_page_without_cards_read_again_without_a_record_loses_its_sighting(tmp_path: Path) -> None:
    # A page that prints an English ruling without naming its card gives a sighting (of the known
    # ruling with that text and date, or of a ruling of its own). Only a parser that reads the page
    # differently drops such a record again; done here by saving a constructed page (document 1)
    # holding one real ruling text of the snapshot, then saving it again without it.
    path = tmp_path / "kb.db"
    shutil.copy(built_snapshot_db(), path)
    db = sqlite_utils.Database(path)
    # A ruling of a card every record names by Oracle id (no page naming it only by its printed
    # name takes part).
    text, published = db.execute(
        "select text, published_at from rulings where oracle_id is not null and oracle_id not in ("
        " select resolved_oracle_id from ruling_records where oracle_id is null and resolved_oracle_id is not null)"
        " order by id limit 1"
    ).fetchone()
    db["documents"].insert({"id": 1, "source_id": "gatherer", "status": "parsed"})
    sightings = "select * from ruling_sightings order by ruling_id, document_id, position"
    before = db.execute(sightings).fetchall()
    for step in ("read", "read again"):
        changes = ImportChanges(db)
        if step == "read":
            save_ruling_records(db, [RulingRecord(text, published, 0, published, "wotc")], 1, LangDetector())
        else:
            save_ruling_records(db, [], 1, LangDetector())
        link_all(db, changes=changes)
        changes.stop()
        found = [row[1:] for row in db.execute(sightings).fetchall() if row[1] == 1]
        assert found == ([(1, 0, published, "wotc", None)] if step == "read" else [])
    assert db.execute(sightings).fetchall() == before
    db.close()
    assert search_index_problems(path) == []


@pytest.mark.long_proof
def test_a_card_file_that_renames_no_card_reads_no_cr_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A card bulk file whose cards' rulings stay as they were links no ruling again, so the CR
    history (every English version's rules, the whole archive in a refresh) is not read back;
    a rulings file's new rulings need it, and read it once."""
    import kb.store.derive

    reads: list[int] = []
    real = kb.store.derive.link_rulings_where
    monkeypatch.setattr(kb.store.derive, "link_rulings_where", lambda db, where: reads.append(1) or real(db, where))
    imported = tmp_path / "imported.db"
    shutil.copy(built_snapshot_db(), imported)
    links = "select * from ruling_rules"
    before = query(imported, links)
    all_cards = Path(__file__).parent.parent / "fixtures" / "site" / "scryfall-data" / "constructed" / "all-cards-20230404212042.json"
    report = build_database(path_inputs([all_cards], source_id="scryfall"), imported, base=imported)
    assert "new ruling links" in report.derived and reads == []
    assert query(imported, links) == before
    build_database(path_inputs(SMALL[1:], source_id="scryfall"), imported, base=imported)
    assert reads == [1] and len(query(imported, links)) > len(before)
