"""An import that adds no CR version keeps the CR-derived tables and derives what a full build does."""
from __future__ import annotations

import shutil
from pathlib import Path

import sqlite_utils

from kb.build.inputs import path_inputs, snapshot_inputs
from kb.build.publish import build_database
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
    "quality_issues": "kind, detail, document_id, ruling_id, rule_id",
}


def rows(path: Path, table: str, columns: str) -> list[tuple]:
    db = sqlite_utils.Database(path)
    try:
        return sorted(db.execute(f"select {columns} from {table}").fetchall(), key=repr)
    finally:
        db.close()


def test_importing_a_small_rulings_file_keeps_cr_history_and_derives_what_a_full_build_does(tmp_path: Path) -> None:
    imported = tmp_path / "imported.db"
    shutil.copy(built_snapshot_db(), imported)
    report = build_database(path_inputs(SMALL, source_id="scryfall"), imported, base=imported)
    # What was recomputed: card names, rulings and their citations; not the CR diffs,
    # lineages or translation links (no CR version was added or changed).
    assert report.derived == ["card names", "rulings", "new ruling links"]

    full = tmp_path / "full.db"
    report = build_database(snapshot_inputs(SNAPSHOT) + path_inputs(SMALL, source_id="scryfall"), full)
    assert report.derived == ["card names", "cr history", "cr translations", "rulings", "ruling links"]

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
    assert report.derived == ["card names", "cr history", "cr translations", "rulings", "ruling links"]
    assert rows(base, "cr_changes", "count(distinct new_version_id)") == [(1,)]
