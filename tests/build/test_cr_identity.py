"""Which stored CR version a file of the same date is (kb.build.identity): the same text is the same
version; a copy that prints a rule otherwise, or lacks a rule, an example or a glossary entry the
stored version holds, is kept beside it and never replaces it."""
from __future__ import annotations

import asyncio
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


def test_a_conflicting_copy_is_never_the_current_rules_nor_a_step_of_their_history(tmp_path: Path) -> None:
    """A refresh review: the 2022-02-18 edition published again with rules cut out was kept beside
    it as a copy, as promised, but it sorted after the edition under the same date and became the
    current rules (Vigilance "not in the current rules") and the last step of every rule's history.
    The copy is not in force: undated, its printed date in ``raw_date``. (Here it lacks 702.20b,
    which nothing cites: a file lacking rules it cites is refused, kb.parse.cr.gaps.)"""
    edition = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw" / "2022-02-18.txt"
    db_path = tmp_path / "kb.db"
    imported(db_path, Path(str(edition).replace("2022-02-18", "2019-01-25")), edition)
    damaged = tmp_path / "damaged.txt"
    text = edition.read_bytes()
    cut = text.index(b"702.20b ")
    damaged.write_bytes(text[:cut] + text[text.index(b"702.20c ", cut):])
    imported(db_path, damaged)
    db = sqlite3.connect(db_path)
    assert db.execute("select id, effective_date, raw_date, status from cr_versions where id like 'en-2022-02-18%' order by id").fetchall() == [
        ("en-2022-02-18", "2022-02-18", "February 18, 2022", "complete"),
        ("en-2022-02-18-wizards", None, "February 18, 2022", "conflicting copy of en-2022-02-18"),
    ]
    assert db.execute("select distinct version_id from current_rules").fetchall() == [("en-2022-02-18",)]
    assert db.execute("select count(*) from current_rules where number = '702.20b'").fetchone() == (1,)
    assert db.execute("select count(*) from cr_changes where new_version_id like '%-wizards' or old_version_id like '%-wizards'"
                      ).fetchone() == (0,)
    # Its page says whose copy it is, and that it is in force on no date.
    from datasette.app import Datasette

    from kb.site.labels import version_name

    assert version_name("en-2022-02-18-wizards") == "Comprehensive Rules of 2022-02-18: the copy from wizards"
    site = Datasette(immutables=[str(db_path)])
    html = asyncio.run(site.client.get("/version/en-2022-02-18-wizards")).text
    assert "in force on no date" in html and "This file prints the date of the" in html
    assert '<a href="/diff?old=en-2022-02-18&amp;new=en-2022-02-18-wizards">where it differs' in html
    assert "nothing to compare it with" not in html
    # Not offered among the editions of a rule (it was, as lacking every rule: a code review).
    html = asyncio.run(site.client.get("/rule/702.20a?version=en-2022-02-18")).text
    assert 'value="en-2022-02-18-wizards"' not in html and 'value="en-2019-01-25"' in html
    # Nor among a search hit's older versions (a docs review), nor as a hit of its own.
    found = asyncio.run(site.client.get("/search.json?q=vigilance")).text
    assert "en-2022-02-18-wizards" not in found and "en-2019-01-25" in found


def test_no_translation_follows_a_conflicting_copy(tmp_path: Path) -> None:
    """The copy's id names the edition's date, and a Chinese translation of that edition followed
    the copy on a tie (its id sorts after the edition's): its rules redirected to the damaged
    text (a code review)."""
    fixtures = Path(__file__).parent.parent / "fixtures"
    edition = fixtures / "cr" / "en-raw" / "2025-02-07.txt"
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", "wizards", str(edition),
                                      str(fixtures / "cr-zh" / "2025-02-07-zh.txt")])
    assert result.exit_code == 0, result.output
    copy = tmp_path / "copy.txt"
    copy.write_bytes(edition.read_bytes().replace(b"702.19b The controller of an attacking creature with trample",
                                                  b"702.19b The controller of an attacking creature with trampel", 1))
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", "cr-copies", str(copy)])
    assert result.exit_code == 0, result.output
    db = sqlite3.connect(db_path)
    assert db.execute("select id, status from cr_versions where lang = 'en' order by id").fetchall() == [
        ("en-2025-02-07", "complete"), ("en-2025-02-07-cr-copies", "conflicting copy of en-2025-02-07")]
    assert db.execute("select translates_version_id from cr_versions where lang = 'zhs'").fetchall() == [("en-2025-02-07",)]
    assert db.execute("""select count(*) from rule_links join rules on rules.id = rule_links.en_rule_id
                         where rules.version_id != 'en-2025-02-07'""").fetchone() == (0,)


def test_an_official_file_lacking_rules_a_copy_of_it_holds_is_said_to(tmp_path: Path) -> None:
    """A refresh review: a damaged official body (nothing in it told: a subrule nothing cites, cut)
    became 2025-02-07's text, and a whole copy of that edition from another source was "not read"
    as a copy of it, exit 0. The official text stays the edition's; the copy is kept beside it, and
    a loss issue on the official file fails its source in a refresh."""
    edition = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw" / "2025-02-07.txt"
    text = edition.read_bytes()
    damaged = tmp_path / "damaged.txt"
    cut = text.index(b"702.19e ")
    damaged.write_bytes(text[:cut] + text[text.index(b"702.19f ", cut):])
    db_path = tmp_path / "kb.db"
    imported(db_path, damaged)  # as the official file (source wizards)
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", "local", str(edition)])
    assert result.exit_code == 0, result.output
    db = sqlite3.connect(db_path)
    assert db.execute("select id, effective_date, status from cr_versions order by id").fetchall() == [
        ("en-2025-02-07", "2025-02-07", "complete"), ("en-2025-02-07-local", None, "conflicting copy of en-2025-02-07")]
    [(kind, detail, path)] = db.execute("""select kind, detail, documents.path from quality_issues
        join documents on documents.id = quality_issues.document_id where kind = 'lacks-what-a-copy-holds'""").fetchall()
    assert path == str(damaged) and detail.startswith(
        "the official file of en-2025-02-07 lacks 1 rule a copy of it from source 'local' holds (702.19e): it may be damaged")
    from kb.refresh.checks import LOSS_KINDS

    assert kind in LOSS_KINDS
    # Read the other way round (the copy first), the damaged official file is the conflicting copy,
    # and the loss is said all the same (a docs review found it said only in one order).
    other = tmp_path / "other.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(other), "--source", "local", str(edition)])
    assert result.exit_code == 0, result.output
    imported(other, damaged)
    db = sqlite3.connect(other)
    assert db.execute("select id, status from cr_versions order by id").fetchall() == [
        ("en-2025-02-07", "complete"), ("en-2025-02-07-wizards", "conflicting copy of en-2025-02-07")]
    [(detail, path)] = db.execute("""select detail, documents.path from quality_issues
        join documents on documents.id = quality_issues.document_id where kind = 'lacks-what-a-copy-holds'""").fetchall()
    assert path == str(damaged) and detail.startswith(
        "the official file of en-2025-02-07 lacks 1 rule a copy of it from another source holds (702.19e)")
