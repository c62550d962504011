"""Comprehensive Rules before the 2003 format: 1999 Sixth Edition (crystalkeep text) and 2001 Odyssey."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.parse.cr import txt as cr_txt
from kb.parse.cr import txt_1999
from kb.parse.formats import detect_format
from kb.records import CRDocument, ParseError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cr" / "pre-2003"
SIXTH = "cr-1999-04-23-6ED.txt"
ODYSSEY = "cr-2001-09-24-ODY.txt"


def read(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def figures(doc: CRDocument) -> tuple:
    kinds = [rule.kind for rule in doc.rules]
    return (doc.effective_date, kinds.count("part"), kinds.count("section"), kinds.count("rule"),
            kinds.count("subrule"), len(doc.glossary), sum(len(rule.examples) for rule in doc.rules))


def test_formats_detected() -> None:
    assert detect_format(read(SIXTH), SIXTH).name == "cr-txt-1999"
    assert detect_format(read(ODYSSEY), ODYSSEY).name == "cr-txt"


def test_sixth_edition_counts() -> None:
    # Independent line scan: 346 paragraphs open with "NNN.N[a]. " plus "305.3.After" (no space);
    # 150 + 1 of them with a letter; 36 "EXAMPLE:" lines; 175 unindented lines in the glossary.
    assert figures(txt_1999.parse(read(SIXTH), SIXTH)) == ("1999-04-23", 5, 63, 196, 151, 175, 36)


def test_sixth_edition_rows() -> None:
    doc = txt_1999.parse(read(SIXTH), SIXTH)
    rules = {rule.number: rule for rule in doc.rules}
    assert rules["101.4"].text == (
        'The player who plays first skips the draw step (see rule 304, "Draw Step") of his or her first turn.'
    )
    assert rules["101.4"].refs == ["304"]
    assert (rules["214.7a"].kind, rules["214.7a"].parent, rules["214.7a"].examples) == (
        "subrule", "214.7",
        ['Example: Merfolk or Wizard is acceptable, but not Merfolk Wizard. Words like "opponent" or '
         '"swamp" can\'t be chosen because they have other meanings in the game.'],
    )
    assert rules["305.3"].text.startswith("After triggered abilities (if any) are added to the stack")
    assert (rules["1"].title, rules["500"].title) == ("The Game", "Legal Attacks and Blocks")
    assert doc.glossary[0].term == "Ability"
    assert doc.glossary[0].text.endswith('see section 4, "Spells, Abilities, and Effects."')
    assert doc.glossary[-1].term == "Zone"
    assert doc.intro.startswith("This book is designed for people who've moved beyond the basic")
    assert doc.credits.startswith("Magic: The Gathering Original Game Design: Richard Garfield")
    assert doc.warnings == [
        "line 1: 15 Mac Roman characters converted as Latin-1 read as meant ('¨' as '®', 'ª' as '™', "
        "'Ñ' as '—', 'Ò' as '“', 'Ó' as '”', 'Õ' as '’')",
        "line 1: the tap symbol printed as '{Tap}' written {T} (7 places)",
        "line 699: rule number '305.3.' normalised to '305.3'",
        "line 781: rule number '309.2a. ' normalised to '309.2a'",
        "line 1195: rule number '409.3 ' normalised to '409.3'",
        "line 3123: its Index (76 terms with the rules they are in) is not kept (the glossary and the search find those terms)",
    ]
    assert "’" in rules["217.2a"].text


def test_sixth_edition_read_as_printed() -> None:
    """What a review of the parse against the raw file found (lines of cr-1999-04-23-6ED.txt)."""
    doc = txt_1999.parse(read(SIXTH), SIXTH)
    rules = {rule.number: rule for rule in doc.rules}
    # Lines 235-236 and 278-279: "202. Name" over nine dashes, the heading's length (ten or more
    # were read as a ruler, nine as words of the title: "Name ---------").
    assert (rules["202"].title, rules["205"].title) == ("Name", "Type")
    # "502.5. Haste": a heading rule's text is its title, as in every later edition (28 of them).
    assert (rules["502.5"].title, rules["502.5"].text) == ("Haste", "")
    assert sum(1 for rule in doc.rules if rule.kind == "rule" and rule.title) == 28
    # Lines 872-873: " stack." wrapped with one stray space, not an indented paragraph of its own.
    assert rules["314.1b"].text.endswith("This action doesn't go on the stack.")
    # Lines 480, 1196, 1015, 1976, 2984, 2988: the tap symbol is {T}, as in every other edition.
    assert rules["409.3"].text.count("{T}") >= 1
    texts = [rule.text for rule in doc.rules] + [e for rule in doc.rules for e in rule.examples] + [g.text for g in doc.glossary]
    assert not [text for text in texts if "{Tap}" in text]
    tap = next(entry for entry in doc.glossary if entry.term == "Tap")
    assert tap.text.count("{T}") == 2
    # Lines 2337-2339: a table's header and its underline are not words of its first row.
    expansion = next(entry for entry in doc.glossary if entry.term == "Expansion Symbol")
    assert "Expansion and Editions\nArabian Nights" in expansion.text and "---" not in expansion.text
    # Only apostrophes were read again before: the page of 200.1 read "a Òcard,Ó … An Ungluedª card".
    assert rules["200.1"].text.startswith("When a rule or card text refers to a “card,” it means a Magic card")
    assert "An Unglued™ card" in rules["200.1"].text
    assert not {char for rule in doc.rules for char in rule.text} & set("ÒÓÑÕª¨")


def test_a_crystalkeep_file_with_other_characters_has_only_its_apostrophes_read_again() -> None:
    text = read(SIXTH).decode("utf-8").replace("Unglued", "Ünglued ☃", 1)  # a character Latin-1 has not
    doc = txt_1999.parse(text.encode("utf-8"), SIXTH)
    assert doc.warnings[0] == "line 1: 7 Mac Roman apostrophes converted as 'Õ' read as '’'"
    assert "Ünglued ☃ª card" in {rule.number: rule for rule in doc.rules}["200.1"].text


def test_odyssey_counts() -> None:
    # Independent scan: 481 paragraphs open with a number (233 with a letter), 62 "Example" lines,
    # 207 unindented glossary blocks of which 3 are subheadings of the expansion-symbol table.
    doc = cr_txt.parse(read(ODYSSEY), ODYSSEY)
    assert figures(doc) == ("2001-09-24", 5, 66, 248, 233, 204, 62)
    assert doc.title == "Magic: The Gathering Comprehensive Rules"
    assert doc.warnings[0] == "line 1: hard-wrapped text: 1762 wrapped lines joined into their paragraphs"
    # Lines 136-137: a short line that ends mid-sentence goes on into the address that ends it (a
    # line break was kept inside the sentence; a short line is otherwise a heading or a term).
    rules = {rule.number: rule for rule in doc.rules}
    assert rules["100.3"].text.endswith("They can be found at www.wizards.com/DCI/UTR_MTG.asp.")
    assert "\n" not in rules["100.3"].text


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.8, 0.95])
def test_sixth_edition_cut_refused(fraction: float) -> None:
    data = read(SIXTH)
    with pytest.raises(ParseError, match="^cut.txt: "):
        txt_1999.parse(data[: int(len(data) * fraction)], "cut.txt")


def test_sniff_refuses_modern() -> None:
    assert not txt_1999.sniff((FIXTURES.parent / "en-raw" / "2003-03-15.txt").read_bytes())


def test_sixth_edition_with_rules_it_cites_lost_from_its_middle_refused() -> None:
    """Flying, Haste and Landwalk (502.4–502.6, which its glossary cites) cut out: refused, as the
    modern files are (a code review found the 1999 files unchecked)."""
    lines = read(SIXTH).splitlines(keepends=True)
    assert lines[1859].startswith(b"502.4. Flying") and lines[1895].startswith(b"502.7. Protection")
    with pytest.raises(ParseError, match=r"^cut\.txt: rules lost from the middle of the file: 502\.4–502\.6 are not in it"):
        txt_1999.parse(b"".join(lines[:1859] + lines[1895:]), "cut.txt")
