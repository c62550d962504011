"""Characters a converter could not write, replaced by "?" (kb.build.checks.cr_lost_characters): only
a "?" between two letters was found ("opponent?s"); "∞" written in cp1252 left "? (Infinity)"."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.build.checks import cr_lost_characters
from kb.parse.cr import txt as cr_txt

ROOT = Path(__file__).parent.parent.parent
EDITIONS = sorted((ROOT / "data" / "snapshot" / "cr" / "en").glob("*.txt"))


@pytest.mark.parametrize("path", EDITIONS, ids=[path.stem for path in EDITIONS])
def test_no_real_edition_holds_a_replaced_character(path: Path) -> None:
    assert cr_lost_characters(cr_txt.parse(path.read_bytes(), path.name), path.name) == []


def test_control_characters_in_a_rule_are_named() -> None:
    """Ten NUL bytes inside 701.49b were kept in its text with no word (a damaged-input review): too
    few for the file to be refused as binary."""
    text = (ROOT / "tests" / "fixtures" / "cr" / "en-raw" / "2026-01-16.txt").read_bytes()
    start = text.index(b"\r701.49b ") + 12
    damaged = cr_txt.parse(text[:start] + b"\0" * 10 + text[start:], "nul.txt")
    assert cr_lost_characters(damaged, "nul.txt") == [
        "nul.txt: 1 rules or glossary entries hold control characters (NUL and the like), which no text prints"
        " (701.49b): bytes damaged in the file, most likely"
    ]


def test_a_file_written_in_cp1252_names_the_question_marks_no_question_ends_with() -> None:
    """The real 2026-01-16 file decoded, then written in cp1252, whose replacement for what it
    cannot hold ("∞", "−") is "?" (a damaged-input review: exit 0 and no word of it)."""
    text = (ROOT / "tests" / "fixtures" / "cr" / "en-raw" / "2026-01-16.txt").read_bytes().decode("utf-8-sig")
    damaged = cr_txt.parse(text.encode("cp1252", errors="replace"), "cp1252.txt")
    assert cr_lost_characters(damaged, "cp1252.txt") == [
        "cp1252.txt: 8 '?' marks stand where no question ends ('? (Infini' in 702.186, '? (the ma' in 702.186a,"
        " 'cards. \u201c?\u201d is fol' in 702.186a, '\u201c? \u2014 [Abil' in 702.186b, 'e their ? abiliti' in Harnessed, \u2026):"
        " characters the file's converter could not write, replaced"
    ]
