"""kb.parse.cr.txt on every real English CR text file we hold (2003–2026)."""
from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from kb.parse.cr import txt as cr_txt
from kb.records import CRDocument, GlossaryEntry, ParseError, Rule

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cr"
ALL_FILES = sorted(str(path.relative_to(FIXTURES)) for path in FIXTURES.glob("en-*/*.txt"))


def read(relative: str) -> bytes:
    return (FIXTURES / relative).read_bytes()


@cache
def parsed(relative: str) -> CRDocument:
    return cr_txt.parse(read(relative), Path(relative).name)


def by_number(doc: CRDocument) -> dict[str, Rule]:
    return {rule.number: rule for rule in doc.rules}


def count(doc: CRDocument, kind: str) -> int:
    return sum(rule.kind == kind for rule in doc.rules)


# file -> effective date, parts, sections, rules, subrules, glossary entries, examples.
# Figures from the task brief (counted independently) except: parts/sections/rules/subrules split
# where the brief gives only the total, 2026-04-17, and 2003/2006 (counted with grep, see below).
# 2022-02-18 / 2022-04-29: the brief says 616 / 621 glossary entries; the files hold 617 / 622.
# In both, the official file lacks the blank line between "Adventurer Card" and "Affinity"
# (bytes: '…Adventurer Cards.”\rAffinity\rA keyword ability that reduces…'), so a count of
# blank-line-separated blocks sees one entry where the document has two terms.
EXPECTED = {
    "en-raw/2026-01-16.txt": ("2026-01-16", 9, 146, 1157, 1957, 725, 276),
    "en-raw/2025-02-07.txt": ("2025-02-07", 9, 144, 1127, 1895, 703, 274),
    "en-derived/2025-02-07-cleaned-lf.txt": ("2025-02-07", 9, 144, 1127, 1895, 703, 274),
    "en-derived/2026-04-17-bom-crcrlf.txt": ("2026-04-17", 9, 147, 1165, 1973, 730, 277),
    "en-raw/2024-02-06.txt": ("2024-02-02", 9, 143, 1108, 1829, 673, 276),
    "en-raw/2022-04-29.txt": ("2022-04-29", 9, 137, 1031, 1620, 622, 265),
    "en-raw/2022-02-18.txt": ("2022-02-18", 9, 137, 1027, 1599, 617, 265),
    "en-raw/2019-01-25.txt": ("2019-01-25", 9, 130, 941, 1387, 554, 243),
    "en-raw/2014-09-26.txt": ("2014-09-25", 9, 126, 864, 1144, 496, 223),
    "en-raw/2013-04-29.txt": ("2013-05-01", 9, 124, 841, 1089, 476, 223),
    # Pre-2009 numbering. grep '^[0-9]{3}\. ?[0-9]+[a-z]?\.? ' finds 514 / 917 numbered lines
    # (255 / 519 with a letter); 61 / 145 "Example" lines before the glossary; glossary = blank-
    # separated blocks that start unindented (205 / 345) + 6 terms in 2003 whose blank line
    # was a \r\r\n page break. 2006 has 81 sections: the 80 of its contents + "215. This
    # section is now empty. …".
    "en-raw/2006-02-01.txt": ("2006-02-01", 6, 81, 398, 519, 345, 145),
    # Second batch, counted with a line scan independent of the parser: numbered lines that open
    # a paragraph (an optional stray space allowed; in 2003-10-01 not a line that a wrapped line
    # with a trailing space runs into), "Example" lines, glossary blocks starting unindented.
    # 2009: 1,600 numbered (3 with a stray space, 702.30d twice) and 195 examples (one " Example:").
    "en-raw-batch2/2009-10-01.txt": ("2009-10-01", 9, 114, 714, 886, 424, 195),
    "en-raw-batch2/2021-06-09.txt": ("2021-06-18", 9, 133, 993, 1537, 591, 260),
    # Hard-wrapped: 686 paragraphs open with a number; 21 wrapped lines that start with one do not.
    "en-raw-batch2/2003-10-01.txt": ("2003-10-01", 5, 69, 319, 367, 299, 89),
    "en-raw/2003-03-15.txt": ("2003-03-15", 5, 66, 259, 255, 211, 61),
}

# The numbered-rule totals the brief gives (rule + subrule).
NUMBERED_TOTALS = {
    "en-raw/2026-01-16.txt": 3114,
    "en-raw/2025-02-07.txt": 3022,
    "en-raw/2024-02-06.txt": 2937,
    "en-raw/2022-04-29.txt": 2651,
    "en-raw/2022-02-18.txt": 2626,
    "en-raw/2019-01-25.txt": 2328,
    "en-raw/2014-09-26.txt": 2008,
    "en-raw/2013-04-29.txt": 1930,
}


def test_every_fixture_has_expectations() -> None:
    assert sorted(EXPECTED) == ALL_FILES


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts(name: str) -> None:
    doc = parsed(name)
    examples = sum(len(rule.examples) for rule in doc.rules)
    figures = (
        doc.effective_date,
        count(doc, "part"),
        count(doc, "section"),
        count(doc, "rule"),
        count(doc, "subrule"),
        len(doc.glossary),
        examples,
    )
    assert figures == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(NUMBERED_TOTALS))
def test_numbered_rule_totals(name: str) -> None:
    doc = parsed(name)
    assert count(doc, "rule") + count(doc, "subrule") == NUMBERED_TOTALS[name]


@pytest.mark.parametrize(
    ("name", "raw_date", "encoding"),
    [
        ("en-raw/2026-01-16.txt", "January 16, 2026", "utf-8-sig"),
        ("en-raw/2024-02-06.txt", "February 2, 2024", "utf-8-sig"),  # no final period
        ("en-raw/2013-04-29.txt", "May 1, 2013", "utf-16-be"),
        ("en-raw/2006-02-01.txt", "February 1, 2006", "ascii"),  # "current as of"
        ("en-raw/2003-03-15.txt", "March 15, 2003", "ascii"),
    ],
)
def test_header(name: str, raw_date: str, encoding: str) -> None:
    doc = parsed(name)
    assert (doc.lang, doc.raw_date, doc.encoding, doc.method) == ("en", raw_date, encoding, "official")
    # 2013 prints "_Magic: The Gathering_ Comprehensive Rules" (underscores mark italics).
    assert doc.title == "Magic: The Gathering Comprehensive Rules"


def test_rows_2026() -> None:
    rules = by_number(parsed("en-raw/2026-01-16.txt"))
    assert rules["702.78"] == Rule(
        number="702.78", kind="rule", text="", title="Conspire", parent="702", section="702"
    )
    assert rules["702.78a"] == Rule(
        number="702.78a",
        kind="subrule",
        text=(
            "Conspire is a keyword that represents two abilities. The first is a static ability that "
            "functions while the spell with conspire is on the stack. The second is a triggered ability "
            "that functions while the spell with conspire is on the stack. “Conspire” means “As an "
            "additional cost to cast this spell, you may tap two untapped creatures you control that each "
            "share a color with it” and “When you cast this spell, if its conspire cost was paid, copy it. "
            "If the spell has any targets, you may choose new targets for the copy.” Paying a spell’s "
            "conspire cost follows the rules for paying additional costs in rules 601.2b and 601.2f–h."
        ),
        parent="702.78",
        section="702",
        refs=["601.2b", "601.2f", "601.2g", "601.2h"],
    )
    assert rules["702.78b"] == Rule(
        number="702.78b",
        kind="subrule",
        text=(
            "If a spell has multiple instances of conspire, each is paid separately and triggers based "
            "on its own payment, not any other instance of conspire."
        ),
        parent="702.78",
        section="702",
    )
    assert rules["1"] == Rule(number="1", kind="part", text="", title="Game Concepts")
    assert rules["100"] == Rule(number="100", kind="section", text="", title="General", parent="1", section="100")
    assert rules["100.1a"].parent == "100.1" and rules["100.1"].parent == "100"


def test_keyword_headings_ending_in_a_mark_are_titles() -> None:
    """Keyword rules whose names end in "!" or ")" were read as rules of text without a title:
    a search or list by title missed them. The only three in the 46 English files read (every
    other title unchanged), and a keyword section's rule of sentences still is text."""
    rules = by_number(parsed("en-raw/2026-01-16.txt"))
    assert [(rules[n].title, rules[n].text) for n in ("702.163", "702.179", "702.186")] == [
        ("For Mirrodin!", ""), ("Start Your Engines!", ""), ("∞ (Infinity)", ""),
    ]
    assert rules["701.1"].title is None and rules["701.1"].text.startswith("Most actions described")


def test_examples_are_not_rule_text() -> None:
    rule = by_number(parsed("en-raw/2026-01-16.txt"))["101.2"]
    assert rule.text == (
        "When a rule or effect allows or directs something to happen, and another effect states that it "
        "can’t happen, the “can’t” effect takes precedence."
    )
    assert rule.examples == [
        "Example: If one effect reads “You may play an additional land this turn” and another reads "
        "“You can’t play lands this turn,” the effect that precludes you from playing lands wins."
    ]


def test_document_order_and_first_rows() -> None:
    doc = parsed("en-raw/2026-01-16.txt")
    assert [rule.number for rule in doc.rules[:6]] == ["1", "100", "100.1", "100.1a", "100.1b", "100.2"]
    assert [rule.number for rule in doc.rules[-3:]] == ["905.4a", "905.5", "905.6"]
    assert [rule.number for rule in doc.rules if rule.kind == "part"] == [str(n) for n in range(1, 10)]


def test_glossary_2026() -> None:
    doc = parsed("en-raw/2026-01-16.txt")
    assert doc.glossary[0] == GlossaryEntry(
        term="Abandon",
        text=(
            "To turn a face-up ongoing scheme card face down and put it on the bottom of its owner’s "
            "scheme deck. See rule 701.33, “Abandon.”"
        ),
        refs=["701.33"],
    )
    assert doc.glossary[1] == GlossaryEntry(
        term="Ability",
        text=(
            "1. Text on an object that explains what that object does or can do.\n"
            "2. An activated or triggered ability on the stack. This kind of ability is an object.\n"
            "See rule 113, “Abilities,” and section 6, “Spells, Abilities, and Effects.”"
        ),
        refs=["113", "6"],
    )
    assert doc.glossary[-1] == GlossaryEntry(
        term="Zone-Change Triggers", text="Trigger events that involve objects changing zones. See rule 603.6.", refs=["603.6"]
    )


def test_intro_contents_credits_2026() -> None:
    doc = parsed("en-raw/2026-01-16.txt")
    assert doc.intro.startswith("This document is the ultimate authority for Magic: The Gathering® competitive")
    assert doc.intro.endswith("You can download the most recent version from the Magic rules website at Magic.Wizards.com/Rules.")
    assert doc.intro.count("\n\n") == 1
    assert doc.extra["contents"].startswith("1. Game Concepts\n100. General\n")
    assert doc.extra["contents"].endswith("905. Conspiracy Draft\n\nGlossary\n\nCredits")
    assert doc.credits.startswith("Magic: The Gathering Original Game Design: Richard Garfield\n")
    assert "These rules are effective as of January 16, 2026." in doc.credits


@pytest.mark.parametrize(
    ("name", "warnings"),
    [
        (
            "en-raw/2026-01-16.txt",
            [
                "line 1052: rule number '119.1d. ' normalised to '119.1d'",
                "line 2701: rule number '606.5 ' normalised to '606.5'",
            ],
        ),
        (
            "en-raw/2025-02-07.txt",
            [
                "line 1050: rule number '119.1d. ' normalised to '119.1d'",
                "line 2698: rule number '606.5 ' normalised to '606.5'",
                "line 6547: rule number '901.4.' normalised to '901.4'",
            ],
        ),
        ("en-derived/2025-02-07-cleaned-lf.txt", []),
        (
            "en-raw/2022-04-29.txt",
            [
                "line 990: rule number '119.1d. ' normalised to '119.1d'",
                "line 1155: rule number '201.3.  ' normalised to '201.3'",
                "line 2485: rule number '606.5 ' normalised to '606.5'",
                "line 3380: rule number '701.47d  ' normalised to '701.47d'",
            ],
        ),
        ("en-raw/2013-04-29.txt", ["line 3427: rule number '702.93a. ' normalised to '702.93a'"]),
    ],
)
def test_number_fixes_are_warnings(name: str, warnings: list[str]) -> None:
    assert parsed(name).warnings == warnings


def test_malformed_numbers_normalised() -> None:
    rules = by_number(parsed("en-raw/2025-02-07.txt"))
    assert (rules["119.1d"].kind, rules["119.1d"].parent) == ("subrule", "119.1")
    assert rules["119.1d"].text.startswith("In a two-player Brawl game, each player’s starting life total is 25.")
    assert (rules["606.5"].kind, rules["606.5"].parent) == ("rule", "606")
    assert rules["606.5"].text.startswith("If the total cost to activate a loyalty ability contains multiple costs")
    assert rules["901.4"].text.startswith("All plane and phenomenon cards remain in the command zone")
    rules_2022 = by_number(parsed("en-raw/2022-04-29.txt"))
    assert rules_2022["201.3"].text.startswith("Some cards with different English names are treated as though")
    assert rules_2022["701.47d"].text.startswith("If multiple permanents are instructed to connive at the same time")


def test_cleaned_copy_equals_raw_rule_for_rule() -> None:
    raw, cleaned = parsed("en-raw/2025-02-07.txt"), parsed("en-derived/2025-02-07-cleaned-lf.txt")
    assert cleaned.rules == raw.rules
    assert (cleaned.glossary, cleaned.intro, cleaned.credits) == (raw.glossary, raw.intro, raw.credits)


def test_2026_04_17_crcrlf_copy_keeps_structure() -> None:
    """Every line ends in \\r\\r\\n: it must parse like the official CR-only files do."""
    doc = parsed("en-derived/2026-04-17-bom-crcrlf.txt")
    older = by_number(parsed("en-raw/2026-01-16.txt"))
    rules = by_number(doc)
    assert rules["702.78"].title == "Conspire"
    assert rules["101.2"] == older["101.2"]
    assert doc.warnings == [
        "line 1057: rule number '119.1d. ' normalised to '119.1d'",
        "line 2715: rule number '606.5 ' normalised to '606.5'",
    ]


def test_cp437_card_names_2019() -> None:
    rule = by_number(parsed("en-raw/2019-01-25.txt"))["700.8a"]
    for name in ("Dandân", "Ghazbán Ogre", "Junún Efreet", "Khabál Ghoul", "Ring of Ma'rûf", "El-Hajjâj"):
        assert name in rule.text


def test_cp1252_quotes_2014() -> None:
    doc = parsed("en-raw/2014-09-26.txt")
    rule = by_number(doc)["101.2"]
    assert rule.text == (
        "When a rule or effect allows or directs something to happen, and another effect states that it "
        "can’t happen, the “can’t” effect takes precedence."
    )
    assert doc.intro.startswith("This document is designed for people who’ve moved beyond the basics of the Magic: The Gathering® game.")


@pytest.mark.parametrize("name", ALL_FILES)
def test_no_replacement_characters(name: str) -> None:
    doc = parsed(name)
    texts = [doc.intro, doc.credits, *(g.term + g.text for g in doc.glossary)]
    texts += [r.text + (r.title or "") + "".join(r.examples) for r in doc.rules]
    assert not any("\ufffd" in text or "\r" in text for text in texts)


def test_pre_2009_numbering_2003() -> None:
    doc = parsed("en-raw/2003-03-15.txt")
    rules = by_number(doc)
    assert rules["102.8"] == Rule(
        number="102.8",
        kind="rule",
        text=(
            "If a player has ten or more poison counters, he or she loses the game the next time a player "
            "would receive priority. (This is a state-based effect. See rule 420.)"
        ),
        parent="102",
        section="102",
        refs=["420"],
    )
    assert (rules["217.9"].title, rules["217.9"].text) == ("Ante", "")
    assert [rule.title for rule in doc.rules if rule.kind == "part"] == [
        "The Game", "Cards", "Turn Structure", "Spells, Abilities, and Effects", "Additional Rules"
    ]
    normalised = [
        f"line {line}: rule number '{number} ' normalised to '{number}'"
        for line, number in ((147, "102.8"), (414, "217.9"), (449, "302.3"), (712, "409.4"), (1258, "502.28"))
    ]
    # The one paragraph of the 31 editions printed after its rule's example ("'Leaves play' triggers
    # are zone-change triggers…"): shown before the example, which a review found unsaid.
    after_example = "line 755: a paragraph of rule 410.10d printed after its example is kept with its text, shown before the example"
    assert doc.warnings == [*normalised[:4], after_example, normalised[4]] + [
        # The official file goes from 214.8i to 214.8k (it prints other j subrules: 502.15j).
        "2003-03-15.txt: subrule 214.8k follows 214.8i: 214.8j is not in the file",
        "2003-03-15.txt: prints mana and tap symbols as plain letters (\"2W\", \"T:\"): 24 passages where they can only"
        " be symbols braced (\"2, T:\" as \"{2}, {T}:\", \"3UU\" as \"{3}{U}{U}\"); other mentions in prose"
        " (\"such as 1\") kept as printed",
    ]
    assert "502.15j" in rules
    terms = [entry.term for entry in doc.glossary]
    # Terms whose blank line was a \r\r\n page break are still separate entries.
    assert terms[terms.index("Fast Effect (Obsolete)") + 1] == "Fear"
    # The expansion-symbol table (one-line subheadings, indented rows) stays in its definition.
    symbol = doc.glossary[terms.index("Expansion Symbol")]
    assert "\nExpansions and Editions\nArabian Nights(r) [symbol]\n" in symbol.text
    assert terms[terms.index("Expansion Symbol") + 1] == "Face-Down"


def test_pre_2009_numbering_2006() -> None:
    rules = by_number(parsed("en-raw/2006-02-01.txt"))
    # "606. 8b Players win …": a space inside the number, followed by three examples.
    assert (rules["606.8b"].kind, rules["606.8b"].parent, len(rules["606.8b"].examples)) == ("subrule", "606.8", 3)
    assert rules["215"] == Rule(
        number="215",
        kind="section",
        text="This section is now empty. See rule 205.4c and rule 420.5e about legendary permanents.",
        parent="2",
        section="215",
        refs=["205.4c", "420.5e"],
    )


# --- refusals ---------------------------------------------------------------------------------


# Known limit: a cut after the closing date line (the last ~0.5%: trademark notices, 2003's
# contact addresses) loses no rules text and is not detected.
@pytest.mark.parametrize("fraction", [0.05, 0.3, 0.5, 0.74, 0.9, 0.98])
@pytest.mark.parametrize("name", ["en-raw/2026-01-16.txt", "en-raw/2013-04-29.txt", "en-raw/2003-03-15.txt"])
def test_truncated_file_refused(name: str, fraction: float) -> None:
    data = read(name)
    with pytest.raises(ParseError, match="^cut.txt: "):
        cr_txt.parse(data[: int(len(data) * fraction)], "cut.txt")


def test_truncated_reasons() -> None:
    data = read("en-raw/2026-01-16.txt")
    with pytest.raises(ParseError, match="truncated: no 'Glossary'"):
        cr_txt.parse(data[: len(data) // 2], "cut.txt")
    with pytest.raises(ParseError, match="truncated: no 'Credits'"):
        cr_txt.parse(data[: data.index(b"\rWorld Rule\r")], "cut.txt")
    with pytest.raises(ParseError, match="truncated: the credits end"):
        cr_txt.parse(data[: data.index(b"Thanks to all our project team members")], "cut.txt")


def test_missing_sections_refused() -> None:
    """Cutting a whole section out (the contents still list it) is refused, not passed over."""
    data = read("en-raw/2026-01-16.txt")
    start, end = data.index(b"\r\r\n5. Turn Structure"), data.index(b"\r\r\n6. Spells, Abilities")
    with pytest.raises(ParseError, match="gap.txt: truncated or damaged: '5. Turn Structure'"):
        cr_txt.parse(data[:start] + data[end:], "gap.txt")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty file"),
        (read("en-raw/metadata.json"), "no 'Magic: The Gathering Comprehensive Rules' title"),
        (random.Random(1).randbytes(30000), "NUL|control characters|not valid"),
        (read("en-raw/2026-01-16.txt")[:200], "no 'Contents' heading"),
    ],
)
def test_not_a_cr_refused(data: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=f"^bad.bin: .*(?:{message})"):
        cr_txt.parse(data, "bad.bin")


def test_other_language_refused() -> None:
    with pytest.raises(ParseError, match="x.txt: .*English"):
        cr_txt.parse(read("en-raw/2026-01-16.txt"), "x.txt", lang="zhs")


# --- sniff, interface, speed --------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FILES)
def test_sniff_accepts_every_encoding(name: str) -> None:
    assert cr_txt.sniff(read(name), name)


def test_sniff_refuses_others() -> None:
    assert not cr_txt.sniff(read("en-raw/metadata.json"), "metadata.json")
    assert not cr_txt.sniff(b"", "empty.txt")
    assert not cr_txt.sniff(random.Random(2).randbytes(5000), "noise.bin")
    body = read("en-raw/2026-01-16.txt")
    assert not cr_txt.sniff(body[body.index(b"Introduction") :], "no-title.txt")


def test_interface() -> None:
    assert cr_txt.FORMAT_NAME == "cr-txt"
    assert "\n" not in cr_txt.DESCRIPTION and cr_txt.DESCRIPTION


# --- second batch: repairs of real files ---------------------------------------------------------


def test_rules_with_a_stray_space_2009() -> None:
    doc = parsed("en-raw-batch2/2009-10-01.txt")
    rules = by_number(doc)
    assert rules["509.1c"].text.startswith("The defending player checks each creature he or she controls")
    assert rules["509.1c"].text.endswith("are exempt from effects that would require them to block.")
    assert rules["509.1b"].text.count("The defending player checks") == 1  # no longer glued on
    assert rules["605.3a"].text.startswith("A player may activate an activated mana ability whenever")
    assert rules["612.2"].text.startswith("A text-changing effect changes only those words")
    assert rules["612.1"].text.count("\n") == 0
    assert [w for w in doc.warnings if "stray space" in w] == [
        "line 1563: rule 509.1c starts with a stray space; read as a rule",
        "line 1851: rule 605.3a starts with a stray space; read as a rule",
        "line 2010: rule 612.2 starts with a stray space; read as a rule",
    ]


def test_misprinted_duplicate_number_keeps_both_2009() -> None:
    """702.30d printed twice, then 702.31: the second is read as 702.30e (its number marked as
    recovered), so that each rule keeps an identity of its own across versions (702.31f and
    702.31g of 2013)."""
    doc = parsed("en-raw-batch2/2009-10-01.txt")
    kicker = [(rule.number, rule.text[:40], rule.number_confidence) for rule in doc.rules if rule.number.startswith("702.30")]
    assert kicker[-2:] == [
        ("702.30d", "Objects with more than one kicker cost h", 1.0),
        ("702.30e", "If part of a spell's ability has its eff", 0.5),
    ]
    assert (
        "line 2680: rule number 702.30d printed a second time (first at line 2678);"
        " read as 702.30e, the next letter, which the file does not print"
    ) in doc.warnings
    assert not [warning for warning in doc.warnings if "duplicate rule number" in warning]


def test_a_repeated_number_whose_next_letter_is_printed_keeps_both() -> None:
    """Only the evident misprint is read as the next letter: where the file prints that letter
    too, both rules keep the number printed, and the warning says so."""
    lines, newline = _lines_of("en-raw/2026-01-16.txt")
    at = next(index for index, line in enumerate(lines) if line.startswith("702.19c "))
    doc = cr_txt.parse(newline.join(lines[: at + 1] + [lines[at]] + lines[at + 1 :]).encode("utf-8"), "twice.txt")
    assert [rule.number for rule in doc.rules].count("702.19c") == 2
    assert any(warning.startswith(f"line {at + 2}: duplicate rule number 702.19c") for warning in doc.warnings)


def test_closing_date_without_space_2021() -> None:
    doc = parsed("en-raw-batch2/2021-06-09.txt")
    assert (doc.effective_date, doc.raw_date) == ("2021-06-18", "June 18, 2021")
    assert doc.warnings[-1] == "line 7602: closing date 'June18, 2021' differs from 'June 18, 2021'"


def test_terms_printed_with_their_first_definition_2021() -> None:
    """The 2021-06-09 file prints eleven numbered entries with no line break between the term
    and "1.": each is split, its first definition kept, and the repair named at its line."""
    doc = parsed("en-raw-batch2/2021-06-09.txt")
    glossary = {entry.term: entry for entry in doc.glossary}
    assert glossary["Exile"] == GlossaryEntry(
        term="Exile",
        text=(
            "1. A zone. Exile is essentially a holding area for cards. It used to be known as the “removed-from-the-game” zone.\n"
            "2. To put an object into the exile zone from whatever zone it’s currently in. An “exiled” card is one that’s"
            " been put into the exile zone.\n"
            "See rule 406, “Exile.”"
        ),
        refs=["406"],
    )
    assert not [term for term in glossary if "1." in term]
    fused = [warning for warning in doc.warnings if "with its first definition" in warning]
    assert fused == [
        f"line {line}: glossary term {term!r} printed on one line with its first definition; split"
        for line, term in [
            (5785, "Ability"), (5852, "Ante"), (5862, "Archenemy"), (6265, "Draw"), (6385, "Exile"), (6407, "Face Down"),
            (6411, "Face Up"), (6519, "Graveyard"), (6523, "Hand"), (6689, "Library"), (6726, "Loyalty"),
        ]
    ]


def test_hard_wrapped_2003_10_rules_whole() -> None:
    doc = parsed("en-raw-batch2/2003-10-01.txt")
    rules = by_number(doc)
    assert rules["103.4"].text == (
        "If both players would take an action at the same time, the active player (the player whose turn "
        "it is) makes any choices required, then the nonactive player makes any choices required, then the "
        'actions happen simultaneously. This rule is often referred to as the "Active Player, Nonactive '
        'Player (APNAP) rule."'
    )
    assert rules["409.1f"].text.startswith("The player determines the total cost of the spell or ability.")
    assert rules["200.9c"].text.endswith('it means a source of that type—either a source of an ability or a '
                                         'source of damage. See rule 419.8 "Sources of Damage."')
    # No wrapped line became a rule: every number once, in the order printed.
    numbers = [rule.number for rule in doc.rules]
    assert len(numbers) == len(set(numbers))
    assert "line 1912: wrapped line '103.4. If a player must make m' joined to the paragraph of line 1909, " \
        "not read as a rule" in doc.warnings
    # Words hyphenated at a line end are whole again; no rule keeps a line break from wrapping.
    texts = [rule.text for rule in doc.rules]
    assert sum("State-Based Effects" in text for text in texts) == 6
    assert not any("State-\n" in text or "-\nBased" in text for text in texts)


def test_braced_old_codes_2003_10_are_symbols() -> None:
    # 2003-10-01 alone braces Gatherer's codes ("{oW}", "{o3}", "{oT}": 61 in the file), which
    # pages showed as unknown symbols "OW" and "O3"; Scryfall's spelling is "{W}".
    doc = parsed("en-raw-batch2/2003-10-01.txt")
    rules = by_number(doc)
    assert rules["104.3"].text.startswith("The mana symbols are {W}, {U}, {B}, {R}, {G}, ")
    texts = [text for rule in doc.rules for text in (rule.text, *rule.examples)] + [entry.text for entry in doc.glossary]
    assert not [text for text in texts if "{o" in text]
    assert sum(text.count("{T}") for text in texts) == 13


def test_hard_wrapped_2003_10_examples_whole() -> None:
    """Every Example paragraph is complete: it ends a sentence, and 65 of the 89 are word for word
    the example of an unwrapped edition we hold (2003-03-15 before, 2006-02-01 after; 7 of them only
    once "{oT}" is "{T}" as 2006 prints it, one only once 2003-03-15's "2, T:" is "{2}, {T}:"); the
    other 24 were reworded between editions."""
    examples = [example for rule in parsed("en-raw-batch2/2003-10-01.txt").rules for example in rule.examples]
    unwrapped = {
        example
        for name in ("en-raw/2003-03-15.txt", "en-raw/2006-02-01.txt")
        for rule in parsed(name).rules
        for example in rule.examples
    }
    assert len(examples) == 89
    assert all(example.rstrip().endswith((".", '."', '.")', ".)", ')."')) for example in examples)
    assert sum(example in unwrapped for example in examples) == 65
    assert not any("\n" in example for example in examples)


# --- derived damaged copies (made here from real files) -------------------------------------------


def _lines_of(name: str) -> tuple[list[str], str]:
    return read(name).decode("utf-8-sig").splitlines(), "\r\n"


def _figures(doc: CRDocument) -> tuple[int, ...]:
    return (count(doc, "part"), count(doc, "section"), count(doc, "rule"), count(doc, "subrule"),
            len(doc.glossary), sum(len(rule.examples) for rule in doc.rules))


def test_indented_copy_parses_like_its_original() -> None:
    """A copy out of a PDF indents every line: the indentation is undone, counts stay exact."""
    lines, newline = _lines_of("en-raw/2025-02-07.txt")
    data = newline.join("    " + line if line.strip() else line for line in lines).encode()
    doc = cr_txt.parse(data, "indented.txt")
    assert _figures(doc) == _figures(parsed("en-raw/2025-02-07.txt"))
    assert doc.warnings[0] == "line 1: every line indented by 4 characters; indentation removed"


def test_copy_with_indented_rule_lines_parses_like_its_original() -> None:
    lines, newline = _lines_of("en-raw/2025-02-07.txt")
    indented = ["  " + line if cr_txt.NUMBERED_LINE.match(line) else line for line in lines]
    doc = cr_txt.parse(newline.join(indented).encode(), "indented.txt")
    assert _figures(doc) == _figures(parsed("en-raw/2025-02-07.txt"))


def test_rules_glued_into_text_refused() -> None:
    """Rules that could only be read as continuation text: refused with one line, never 9 parts
    and 2 rules."""
    lines, newline = _lines_of("en-raw/2025-02-07.txt")
    # Every numbered line indented and printed in reverse order inside its section: no indented
    # number follows the one before, so none can be taken for a rule.
    indented = ["\t" + line if cr_txt.NUMBERED_LINE.match(line) else line for line in lines]
    body = [i for i, line in enumerate(indented) if line.startswith("\t")]
    for start in range(len(body)):
        indented[body[start]] = "\t" + lines[body[-1 - start]]
    with pytest.raises(ParseError, match=r"^glued.txt: only \d+ of \d+ numbered lines could be read as rules"):
        cr_txt.parse(newline.join(indented).encode(), "glued.txt")


def test_block_pasted_twice_keeps_every_rule() -> None:
    lines, newline = _lines_of("en-raw/2026-01-16.txt")
    start = lines.index("100. General", 100)
    end = lines.index("101. The Magic Golden Rules", start)
    block = [line for line in lines[start + 1 : end] if cr_txt.NUMBERED_LINE.match(line)]
    doc = cr_txt.parse(newline.join(lines[:end] + block + lines[end:]).encode("utf-8"), "twice.txt")
    original = parsed("en-raw/2026-01-16.txt")
    assert len(doc.rules) == len(original.rules) + len(block)
    repeats = [w for w in doc.warnings if "duplicate rule number" in w]
    assert len(repeats) == len(block)
    assert repeats[0].startswith(f"line {end + 1}: duplicate rule number 100.1 (first printed at line ")


def test_section_cut_out_refused_but_missing_heading_is_a_slip() -> None:
    lines, newline = _lines_of("en-raw/2026-01-16.txt")
    start = lines.index("702. Keyword Abilities", 300)
    end = lines.index("703. Turn-Based Actions", start)
    assert sum(bool(cr_txt.NUMBERED_LINE.match(line)) for line in lines[start:end]) > 700
    cut = newline.join(lines[:start] + lines[end:]).encode("utf-8")
    with pytest.raises(ParseError, match="^cut.txt: truncated or damaged: '702. Keyword Abilities' is in the contents"):
        cr_txt.parse(cut, "cut.txt")
    slip = cr_txt.parse(newline.join(lines[:start] + lines[start + 1 :]).encode("utf-8"), "slip.txt")
    assert count(slip, "section") == 145 and count(slip, "subrule") == 1957
    assert any("'702. Keyword Abilities' is in the contents but its heading is not in the rules" in w
               for w in slip.warnings)


def test_cut_in_glossary_hands_over_the_rules() -> None:
    data = read("en-raw/2026-01-16.txt")
    cut = data[: data.index(b"\rWorld Rule\r")]
    with pytest.raises(cr_txt.TruncatedCR, match="truncated: no 'Credits'") as refused:
        cr_txt.parse(cut, "cut.txt")
    partial = refused.value.partial
    assert (count(partial, "rule"), count(partial, "subrule")) == (1157, 1957)
    assert 700 < len(partial.glossary) < 725
    assert partial.extra["truncated"] == "glossary"
    assert partial.warnings[-1].endswith("rules kept, glossary incomplete, credits missing")


def test_symbols_printed_as_plain_letters_are_braced_where_they_can_only_be_symbols() -> None:
    """The 2003-03-15 file prints no braces ("The tap symbol (T in these rules)"): costs, added mana
    and the glossary's list of symbols are braced as 2003-10-01 prints the same texts; the prose
    that only names a symbol is kept as printed, and the file says so (a review: nine passages
    published unbraced, with no note)."""
    doc = parsed("en-raw/2003-03-15.txt")
    rules = {rule.number: rule for rule in doc.rules}
    glossary = {entry.term: entry.text for entry in doc.glossary}
    assert "a mana cost of {2}{W} is white, and one with a mana cost of {2}{W}{B} is both" in rules["203.2"].text
    assert "a mana cost of {3}{U}{U} translates" in rules["203.3"].text
    assert '"{T}: Add [mana symbol] to your mana pool,"' in rules["214.9e"].text
    assert "Death Bomb costs {2}{B}, not {3}{B}," in rules["409.1f"].examples[0]
    assert '"{T}: Add {G} to your mana pool for each creature' in rules["406.1c"].examples[0]
    assert glossary["Activation Cost"].count('"{2}, {T}: Gain 1 life"') == 1
    assert glossary["Mana Symbol"].splitlines()[:2] == [
        "The mana symbols are {W}, {U}, {B}, {R}, {G}, {0}, numerals, {X}, and {Y}.",
        "Each of the colored mana symbols represents one colored mana: {W} white, {U} blue, {B} black, {R} red, and {G} green.",
    ]
    assert "Numeral symbols (such as 1) are generic mana costs" in glossary["Mana Symbol"]
    assert "(T in these rules)" in glossary["Tap"]
    # The cost as 2003-10-01 prints the same example (its dashes aside).
    later = {rule.number: rule for rule in parsed("en-raw-batch2/2003-10-01.txt").rules}
    assert rules["418.3d"].examples[0][:120] == later["418.3d"].examples[0][:120]
    assert '"{2}, {T}: Target creature gets +0/+3' in later["418.3d"].examples[0]
    # A file with braces is left as it is.
    assert not [w for w in parsed("en-raw-batch2/2003-10-01.txt").warnings if "plain letters" in w]


def test_a_rule_cut_mid_sentence_is_a_warning() -> None:
    # Every line of section 120 cut to 40 characters published "120.1a Damage can’t be dealt to
    # an objec" with no word (a review of damaged input); no rule of the real editions warns.
    lines, newline = _lines_of("en-raw/2026-01-16.txt")
    start = lines.index("120. Damage", 300)
    end = lines.index("121. Drawing a Card", start)
    cut = newline.join(lines[:start] + [line[:40] for line in lines[start:end]] + lines[end:]).encode("utf-8")
    warnings = [w for w in cr_txt.parse(cut, "cut.txt").warnings if "mid-sentence" in w or "has no text" in w]
    assert warnings[:2] == [
        "cut.txt: rule 120.1a ends mid-sentence (“…Damage can’t be dealt to an objec”): a misprint, or the file cut there",
        "cut.txt: rule 120.2a ends mid-sentence (“…Damage may be dealt as a result o”): a misprint, or the file cut there",
    ]
    # The rules and subrules cut (a rule cut to a short line reads as a titled one: not these).
    assert len(warnings) == 15
    assert not [w for w in parsed("en-raw/2026-01-16.txt").warnings if "mid-sentence" in w]


def test_a_page_break_at_a_lines_start_is_no_blank_line() -> None:
    # A form feed after the line "Abandon" read as a blank line between the term and its
    # definition, and the file was refused (a code review).
    data = read("en-raw/2026-01-16.txt")
    at = data.index(b"\rAbandon\r") + len(b"\rAbandon\r")
    broken = cr_txt.parse(data[:at] + b"\x0c" + data[at:], "ff.txt")
    assert [(entry.term, entry.text) for entry in broken.glossary] == [
        (entry.term, entry.text) for entry in parsed("en-raw/2026-01-16.txt").glossary]
