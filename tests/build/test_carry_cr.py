"""A whole build that replaces a file holding exactly its CR documents copies that file's CR
tables instead of reading and comparing every edition again (kb.store.carry_cr), and ends exactly
as a build that reads them."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from kb.build.inputs import path_inputs, snapshot_inputs
from kb.build.publish import build_database, content_digest
from kb.store.carry_cr import CR_TABLES
from site_databases import SNAPSHOT, built_snapshot_db

FIXTURES = Path(__file__).parent.parent / "fixtures"
SCRYFALL = FIXTURES / "scryfall" / "api-2025-11-01"
CR = FIXTURES / "cr" / "en-raw"
CARDS = sorted(SCRYFALL.glob("card-*.json"))
RULINGS = sorted(SCRYFALL.glob("rulings-*.json"))


def inputs(versions: list[Path]) -> list:
    return path_inputs(versions, source_id="wizards") + path_inputs([*CARDS, *RULINGS], source_id="scryfall")


def every_row(path: Path) -> dict[str, list[tuple]]:
    """Every table's rows with their rowids, the search indexes' own tables included (the
    migrations log, which records when it ran, left out)."""
    conn = sqlite3.connect(path)
    try:
        tables = [row[0] for row in conn.execute(
            "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'"
            " and name != '_sqlite_migrations' order by name"
        )]
        found = {}
        for table in tables:
            try:
                found[table] = conn.execute(f"select rowid, * from [{table}] order by rowid").fetchall()
            except sqlite3.OperationalError:  # a table without rowid
                found[table] = sorted(conn.execute(f"select * from [{table}]").fetchall(), key=repr)
        return found
    finally:
        conn.close()


def tables_differing(one: Path, other: Path) -> list[str]:
    """The tables whose rows differ: asserting the rows equal made pytest diff every row of a
    file of 75k rules when one table differed (a CI run spent minutes in difflib)."""
    rows, other_rows = every_row(one), every_row(other)
    return [table for table in sorted(set(rows) | set(other_rows)) if rows.get(table) != other_rows.get(table)]


def digest(path: Path) -> str:
    return content_digest(sqlite_utils.Database(path))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The file a rebuild replaces: one official CR edition, cards and their rulings."""
    path = tmp_path_factory.mktemp("served") / "kb.db"
    build_database(inputs([CR / "2026-01-16.txt"]), path)
    return path


@pytest.mark.long_proof
def test_a_rebuild_of_the_snapshot_carries_its_cr_and_gives_the_same_file(tmp_path: Path) -> None:
    # The bundled snapshot: thirty-one English editions, the Chinese and the Korean CR (the Korean
    # one in two documents joined into one version), Spanish rule pages.
    served = built_snapshot_db()
    rebuilt = tmp_path / "kb.db"
    report = build_database(snapshot_inputs(SNAPSHOT), rebuilt, carry_from=served)
    cr_documents = sqlite_utils.Database(served).execute(
        "select count(*) from documents where format like 'cr-%'").fetchone()[0]
    assert report.cr_documents_carried == cr_documents == 35
    assert "cr carried" in report.derived and "cr history" not in report.derived
    assert "cr translations" not in report.derived
    assert report.links_carried == sqlite_utils.Database(served)["rulings"].count
    assert tables_differing(rebuilt, served) == []


def test_the_same_cr_with_other_rulings_carries_the_cr_and_links_the_new_rulings(served: Path, tmp_path: Path) -> None:
    rebuilt, whole = tmp_path / "kb.db", tmp_path / "whole.db"
    fewer = path_inputs([CR / "2026-01-16.txt"], source_id="wizards") + path_inputs(
        [*CARDS, *RULINGS[1:]], source_id="scryfall")
    report = build_database(fewer, rebuilt, carry_from=served)
    build_database(fewer, whole)
    assert report.cr_documents_carried == 1
    assert digest(rebuilt) == digest(whole)


@pytest.mark.parametrize("versions", [
    pytest.param(["2025-02-07.txt", "2026-01-16.txt"], id="one-more"),
    pytest.param(["2025-02-07.txt"], id="another"),
])
def test_other_cr_documents_carry_nothing(served: Path, tmp_path: Path, versions: list[str]) -> None:
    rebuilt, whole = tmp_path / "kb.db", tmp_path / "whole.db"
    report = build_database(inputs([CR / name for name in versions]), rebuilt, carry_from=served)
    build_database(inputs([CR / name for name in versions]), whole)
    assert report.cr_documents_carried == 0 and "cr history" in report.derived
    assert digest(rebuilt) == digest(whole)


@pytest.mark.long_proof
def test_two_texts_of_one_date_carry_only_when_read_in_the_same_order(tmp_path: Path) -> None:
    """The first of two texts dated alike keeps the date's version id (kb.build.identity): the
    served file's CR documents must have been read in this build's order."""
    official = CR / "2026-01-16.txt"
    edited = tmp_path / "edited-2026-01-16.txt"
    edited.write_bytes(official.read_bytes().replace(b"702.19b The cont", b"702.19b (edited) The cont", 1))

    def documents(order: list[tuple[Path, str]]) -> list:
        return [doc for path, source in order for doc in path_inputs([path], source_id=source)]

    in_order = documents([(official, "wizards"), (edited, "local")])
    reversed_order = in_order[::-1]
    served = tmp_path / "served.db"
    build_database(in_order, served)
    assert sqlite_utils.Database(served).execute(
        "select count(*) from quality_issues where kind = 'conflicting-version'").fetchone()[0] == 1

    same, other, other_whole = tmp_path / "same.db", tmp_path / "other.db", tmp_path / "other-whole.db"
    assert build_database(in_order, same, carry_from=served).cr_documents_carried == 2
    assert tables_differing(same, served) == []
    assert build_database(reversed_order, other, carry_from=served).cr_documents_carried == 0
    build_database(reversed_order, other_whole)
    assert tables_differing(other, other_whole) == []
    # Read the other way round, the edited text holds the date's version id.
    version_of = "select version_id from rules where number = '702.19b' and text like '(edited)%'"
    assert sqlite_utils.Database(served).execute(version_of).fetchone()[0] == "en-2026-01-16-local"
    assert sqlite_utils.Database(other).execute(version_of).fetchone()[0] == "en-2026-01-16"


def damaged_copy(served: Path, tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "served.db"
    shutil.copy(served, path)
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()
    return path


@pytest.mark.parametrize("statements", [
    # Read as something else than the whole document (kept with --keep-going).
    pytest.param(["update documents set status = 'failed' where format = 'cr-txt'"], id="not-read-whole"),
    # Built before the order of its CR documents was recorded.
    pytest.param(["drop table cr_read_order"], id="no-read-order"),
    # A CR table of an older schema.
    pytest.param(["alter table rules drop column english_title"], id="older-schema"),
    # A table that cannot be read once rows were copied from the tables before it (a view that
    # fails when read, standing in for damaged pages): what was copied is rolled back.
    pytest.param(["alter table keywords rename to keywords_kept",
                  "create view keywords as select * from keywords_kept where json('{') is not null"], id="damaged"),
])
def test_a_served_file_whose_cr_cannot_be_taken_as_it_is_carries_nothing(
    served: Path, tmp_path: Path, statements: list[str]
) -> None:
    assert CR_TABLES[-1] == "keywords"  # the damaged table is copied last
    rebuilt = tmp_path / "kb.db"
    report = build_database(inputs([CR / "2026-01-16.txt"]), rebuilt,
                            carry_from=damaged_copy(served, tmp_path, *statements))
    assert report.cr_documents_carried == 0 and "cr history" in report.derived
    # Row for row, as the file a build reading every document gave (rowids included: rows copied
    # and then replaced would hold others).
    assert tables_differing(rebuilt, served) == []


def test_a_served_file_that_cannot_be_read_carries_nothing(served: Path, tmp_path: Path) -> None:
    broken = tmp_path / "served.db"
    broken.write_bytes(b"not a database" * 100)
    rebuilt = tmp_path / "kb.db"
    report = build_database(inputs([CR / "2026-01-16.txt"]), rebuilt, carry_from=broken)
    assert report.cr_documents_carried == 0
    assert digest(rebuilt) == digest(served)
