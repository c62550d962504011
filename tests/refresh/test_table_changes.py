"""kb.refresh.carry.table_changes: rows added, changed and removed per table, a new file against
the served one; a card file's name records by what they hold, not by their document's key."""
from __future__ import annotations

from pathlib import Path

import sqlite_utils

from kb.refresh.carry import table_changes
from kb.store.schema import ensure_db_shape


def _names(path: Path, rows: list[tuple[int, int, str, str]]) -> None:
    db = sqlite_utils.Database(path)
    ensure_db_shape(db, search=False)
    db["documents"].insert_all([{"id": document, "source_id": "scryfall", "path": f"all-cards-{document}.json"}
                                for document in sorted({row[1] for row in rows})])
    db["card_name_records"].insert_all([
        {"id": row_id, "document_id": document, "oracle_id": "o", "english_name": "Wicked Guardian", "lang": lang,
         "name": name, "name_key": name.lower(), "english_key": "wicked guardian"}
        for row_id, document, lang, name in rows])
    db.close()


def _changes(tmp_path: Path, old: list[tuple[int, int, str, str]], new: list[tuple[int, int, str, str]]) -> dict[str, int]:
    _names(tmp_path / "old.db", old)
    _names(tmp_path / "new.db", new)
    db = sqlite_utils.Database(tmp_path / "new.db")
    db.execute(f"attach database '{tmp_path / 'old.db'}' as old")
    changes = table_changes(db, ["card_name_records"])["card_name_records"]
    return {kind: changes[kind] for kind in ("added", "changed", "removed")}


def test_the_same_names_under_a_new_document_are_no_change(tmp_path: Path) -> None:
    """The file came under a new dated address: every row's key is new, its names are not."""
    old = [(1, 1, "de", "Böse Stiefmutter"), (2, 1, "fr", "Gardienne malfaisante")]
    new = [(3, 2, "de", "Böse Stiefmutter"), (4, 2, "fr", "Gardienne malfaisante")]
    assert _changes(tmp_path, old, new) == {"added": 0, "changed": 0, "removed": 0}


def test_one_name_changed_is_one_added_and_one_removed(tmp_path: Path) -> None:
    old = [(1, 1, "de", "Böse Stiefmutter"), (2, 1, "fr", "Gardienne malfaisante")]
    new = [(3, 2, "de", "Böse Stiefmutter!"), (4, 2, "fr", "Gardienne malfaisante")]
    assert _changes(tmp_path, old, new) == {"added": 1, "changed": 0, "removed": 1}


def test_a_name_two_documents_held_is_removed_once_with_one_of_them(tmp_path: Path) -> None:
    """oracle_cards and all_cards both name the card; all_cards went: one row removed (EXCEPT,
    comparing sets, said none: a code review)."""
    old = [(1, 1, "en", "Wicked Guardian"), (2, 2, "en", "Wicked Guardian")]
    new = [(3, 3, "en", "Wicked Guardian")]
    assert _changes(tmp_path, old, new) == {"added": 0, "changed": 0, "removed": 1}


def test_links_lost_against_a_file_made_before_the_links_view_are_counted(tmp_path: Path) -> None:
    """A served file made before m032 holds the links as the ruling_rules table: its links were
    counted as none, and a refresh that lost most of them passed the shrink guard (a code review)."""
    from kb.store.migrations import migrations
    from kb.store.ruling_links import LinkWriter
    from kb.store.tables import RULING_RULES_COLUMNS

    def link(ruling: int, number: str, status: str = "same") -> dict:
        return {"ruling_id": ruling, "rule_number": number, "version_id": "en-2026-01-16", "method": "keyword",
                "status": status, "lineage_id": f"en-2003-10-01/{number}", "published_at": "2026-02-01"}

    old = sqlite_utils.Database(tmp_path / "old.db")
    migrations.apply(old, stop_before="m032_ruling_rule_links")
    old["ruling_rules"].insert_all([link(ruling, "702.19") for ruling in range(1, 11)])
    old.close()
    new = sqlite_utils.Database(tmp_path / "new.db")
    ensure_db_shape(new, search=False)
    kept = [link(1, "702.19"), link(2, "702.19", "changed"), link(11, "702.9")]
    LinkWriter(new).write([tuple(row.get(column) for column in RULING_RULES_COLUMNS) for row in kept])
    new.execute(f"attach database '{tmp_path / 'old.db'}' as old")
    assert table_changes(new, ["ruling_rule_links"])["ruling_rule_links"] == {
        "before": 10, "after": 3, "added": 1, "changed": 1, "removed": 8,
    }
