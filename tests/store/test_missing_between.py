"""Rules a CR version lacks while the versions on either side print them word for word
(kb.store.version_losses.report_entries_missing_between): a block cut from the end of a section
passes every check of the file itself."""
from __future__ import annotations

from pathlib import Path

import sqlite_utils
from click.testing import CliRunner

from kb.cli import cli

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw"
APRIL_2026 = Path(__file__).parent.parent.parent / "data" / "snapshot" / "cr" / "en" / "2026-04-17.txt"


def issues(db_path: Path) -> list[str]:
    db = sqlite_utils.Database(db_path)
    return [row[0] for row in db.execute("select detail from quality_issues where kind = 'missing-between-versions'")]


def imported_with_a_cut(tmp_path: Path, start: int, end: int) -> Path:
    """The editions of 2025-02-07 and 2026-04-17 around 2026-01-16 with ``[start, end)`` of its
    bytes cut, imported (exit 0: nothing refused)."""
    text = (FIXTURES / "2026-01-16.txt").read_bytes()  # lines end in CR alone, as the official file's
    cut = tmp_path / "2026-01-16.txt"
    cut.write_bytes(text[:start] + text[end:])
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(FIXTURES / "2025-02-07.txt"), str(cut), str(APRIL_2026)])
    assert result.exit_code == 0, result.output
    return db_path


def test_rules_cut_from_the_end_of_a_section_are_named_by_the_versions_around_it(tmp_path: Path) -> None:
    lines = (FIXTURES / "2026-01-16.txt").read_bytes().splitlines(keepends=True)
    cut = tmp_path / "2026-01-16.txt"
    # The subrules at the end of a rule (Plot's 702.170b–f), which nothing cites (a run the file
    # cites is refused: kb.parse.cr.gaps).
    first = next(index for index, line in enumerate(lines) if line.startswith(b"702.170b "))
    after = next(index for index, line in enumerate(lines) if line.startswith(b"702.171. "))
    cut.write_bytes(b"".join(lines[:first] + lines[after:]))
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(FIXTURES / "2025-02-07.txt"), str(cut), str(APRIL_2026)])
    assert result.exit_code == 0, result.output
    # Nothing skips a number: the cut ends a section, and the file alone cannot tell.
    db = sqlite_utils.Database(db_path)
    assert not [row for row in db.execute("select detail from quality_issues where detail like '%not in the file'")]
    assert issues(db_path) == [
        "en-2026-01-16: 5 rules of en-2025-02-07 are missing from it and back in en-2026-04-17 word for word"
        " (702.170b, 702.170c, 702.170d, 702.170e, 702.170f): its file may have lost them"
    ]


def test_a_glossary_entry_cut_from_a_version_is_named_by_the_versions_around_it(tmp_path: Path) -> None:
    """The check joined "removed" to "added", and a glossary entry's changes are "glossary-removed"
    and "glossary-added": an entry cut from a file passed with exit 0 (a damaged-input review)."""
    text = (FIXTURES / "2026-01-16.txt").read_bytes()
    start = text.index("\rBanding, \u201cBands with Other\u201d\r".encode()) + 1
    assert issues(imported_with_a_cut(tmp_path, start, text.index(b"\r\r", start) + 2)) == [
        "en-2026-01-16: 1 glossary entry of en-2025-02-07 is missing from it and back in en-2026-04-17 word for"
        " word (Banding, \u201cBands with Other\u201d): its file may have lost it"
    ]


def test_an_example_cut_from_a_version_is_named_by_the_versions_around_it(tmp_path: Path) -> None:
    """One "Example:" paragraph cut (608.2i's) was below the share examples-lost names, and passed
    with exit 0 (a damaged-input review); the editions on either side print it word for word."""
    text = (FIXTURES / "2026-01-16.txt").read_bytes()
    start = text.index(b"\rExample: A player attacks with Bear Cub", text.index(b"\r608.2i "))
    assert issues(imported_with_a_cut(tmp_path, start, text.index(b"\r", start + 1))) == [
        "en-2026-01-16: 1 rule prints fewer examples than in en-2025-02-07 and en-2026-04-17, which print its examples"
        " word for word (608.2i): its file may have lost them"
    ]


def test_the_editions_we_hold_lack_nothing_their_neighbours_print(snapshot_db: Path) -> None:
    assert issues(snapshot_db) == []
