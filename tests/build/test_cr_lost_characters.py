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
        "nul.txt: 1 rules, examples or glossary entries hold control characters (NUL and the like), which no text prints"
        " (701.49b): bytes damaged in the file, most likely"
    ]


def test_a_file_written_in_cp1252_names_the_question_marks_no_question_ends_with() -> None:
    """The real 2026-01-16 file decoded, then written in cp1252, whose replacement for what it
    cannot hold ("∞", "−") is "?" (a damaged-input review: exit 0 and no word of it)."""
    text = (ROOT / "tests" / "fixtures" / "cr" / "en-raw" / "2026-01-16.txt").read_bytes().decode("utf-8-sig")
    damaged = cr_txt.parse(text.encode("cp1252", errors="replace"), "cp1252.txt")
    assert cr_lost_characters(damaged, "cp1252.txt") == [
        "cp1252.txt: 9 '?' marks stand where no question ends ('? (Infini' in 702.186, '? (the ma' in 702.186a,"
        " 'cards. \u201c?\u201d is fol' in 702.186a, '\u201c? \u2014 [Abil' in 702.186b, 'costs [?4], they' in 606.5's example, \u2026):"
        " characters the file's converter could not write, replaced"
    ]


def test_characters_lost_in_examples_alone_are_named() -> None:
    """The real 2026-01-16 file with its examples' apostrophes replaced by "?" and by U+FFFD, and a
    BEL in one example: published as complete without a word (a review of real files, damaged:
    only rules and glossary entries were read)."""
    text = (ROOT / "tests" / "fixtures" / "cr" / "en-raw" / "2026-01-16.txt").read_bytes().decode("utf-8-sig")

    def in_examples(old: str, new: str, count: int = -1) -> str:
        lines = text.split("\r")
        return "\r".join(line.replace(old, new, count) if line.startswith("Example:") else line for line in lines)

    questioned = cr_txt.parse(in_examples("’", "?").encode(), "questioned.txt")
    words, marks = cr_lost_characters(questioned, "questioned.txt")
    assert words.startswith("questioned.txt: 394 words hold '?' between two letters (can?t in 101.2's example,")
    assert marks.startswith("questioned.txt: 6 '?' marks stand where no question ends ('r Grime.?” The ab' in 201.5a's example,")
    marked = cr_txt.parse(in_examples("’", "\ufffd").encode(), "marked.txt")
    [warning] = cr_lost_characters(marked, "marked.txt")
    assert warning.startswith("marked.txt: 188 rules, examples or glossary entries hold U+FFFD marks, characters the"
                              " file's converter could not read or bytes its encoding leaves undefined (101.2's example,"
                              " 106.5's example, ")
    bell = text.replace("Example: A player’s mana pool", "Example: A player\x07s mana pool", 1)
    assert cr_lost_characters(cr_txt.parse(bell.encode(), "bell.txt"), "bell.txt") == [
        "bell.txt: 1 rules, examples or glossary entries hold control characters (NUL and the like), which no text"
        " prints (106.6's example): bytes damaged in the file, most likely"
    ]
