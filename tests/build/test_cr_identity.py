"""Which stored CR version a file of the same date is (kb.build.identity): the same text is the same
version; a copy that prints a rule otherwise, or lacks a rule, an example or a glossary entry the
stored version holds, is kept beside it and never replaces it."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli

OFFICIAL = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw" / "2003-03-15.txt"
EXAMPLE = (b'Example: "Creature - Minotaur" means the card is a creature with the Minotaur subtype. "Creature - Goblin'
           b' Wizard" means the card is a creature with the creature types Goblin and Wizard.\r\n')


def imported(db_path: Path, *paths: Path) -> None:
    for path in paths:
        result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", "wizards", str(path)])
        assert result.exit_code == 0, result.output


def counts(db_path: Path, version_id: str) -> tuple[int, int, int]:
    db = sqlite3.connect(db_path)
    return db.execute(
        "select (select count(*) from rules where version_id = :v),"
        " (select count(*) from rule_examples join rules on rules.id = rule_examples.rule_id where rules.version_id = :v),"
        " (select count(*) from glossary where version_id = :v)", {"v": version_id}).fetchone()


@pytest.mark.parametrize(("damage", "named"), [
    # One "Example:" paragraph gone: the official example was deleted with exit 0 and no word, and
    # the version's file became the damaged copy (a damaged-input review).
    (lambda text: text.replace(EXAMPLE, b"", 1), "212.2a (without 1 of its examples)"),
    (lambda text: text.replace(b"\r\n212.2b ", b"\r\nXXX ", 1), "212.2b (not in the file)"),
    (lambda text: text.replace(b"\r\nWall\r\n", b"\r\nWal\r\n", 1), "glossary entry 'Wall' (not in the file)"),
])
def test_a_copy_that_lacks_what_the_stored_version_holds_never_replaces_it(damage, named: str, tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    imported(db_path, OFFICIAL)
    official = counts(db_path, "en-2003-03-15")
    damaged = tmp_path / "2003-03-15.txt"
    damaged.write_bytes(damage(OFFICIAL.read_bytes()))
    assert damaged.read_bytes() != OFFICIAL.read_bytes()
    imported(db_path, damaged)
    db = sqlite3.connect(db_path)
    assert counts(db_path, "en-2003-03-15") == official
    assert db.execute("select documents.path from cr_versions join documents on documents.id = cr_versions.document_id"
                      " where cr_versions.id = 'en-2003-03-15'").fetchone() == (str(OFFICIAL),)
    notes = [row[0] for row in db.execute("select detail from quality_issues where kind = 'conflicting-version'")]
    assert len(notes) == 1 and named in notes[0] and "kept as version en-2003-03-15-wizards, en-2003-03-15 unchanged" in notes[0]
    assert " in 1 place (" in notes[0] or " places (" in notes[0], notes[0]


def test_a_copy_of_the_same_text_is_the_same_version(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    copy = tmp_path / "copy.txt"
    copy.write_bytes(OFFICIAL.read_bytes().replace(b"\r\n", b"\n"))
    imported(db_path, OFFICIAL, copy)
    assert sqlite3.connect(db_path).execute("select id from cr_versions").fetchall() == [("en-2003-03-15",)]
