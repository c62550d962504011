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
