"""Card page captures: the two real seeds, plus small constructed pages for other page languages.

Constructed inputs are built inline below and marked as such; they imitate the shape of the
real seeds (same layout, other chrome languages and date formats) and are not real captures.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.parse.rulings import card_page_capture as capture
from kb.records import CardName, ParseError

FIXTURES = Path(__file__).parent.parent / "fixtures"
GERMAN = (FIXTURES / "pages" / "de-lethal-scheme-000.txt").read_bytes()
FRENCH = (FIXTURES / "pages" / "fr-conspiracy-004.txt").read_bytes()


@pytest.fixture(scope="module")
def german():
    return capture.parse(GERMAN, "de-lethal-scheme-000.txt")


@pytest.fixture(scope="module")
def french():
    return capture.parse(FRENCH, "fr-conspiracy-004.txt")


def test_german_page_rulings(german) -> None:
    assert german.format == "card-page-capture"
    assert german.lang == "de"
    assert len(german.rulings) == 11
    assert [r.published_at for r in german.rulings] == ["2022-04-29"] * 5 + ["2024-01-12"] * 6
    assert [r.raw_date for r in german.rulings] == ["29.04.2022"] * 5 + ["12.01.2024"] * 6
    assert {r.source for r in german.rulings} == {"wotc"}
    assert {(r.lang, r.method) for r in german.rulings} == {("en", "official")}
    assert [r.position for r in german.rulings] == list(range(1, 12))
    assert german.issues == []


def test_german_texts_lose_the_glued_date(german) -> None:
    first, last = german.rulings[0], german.rulings[-1]
    assert first.text.startswith("If a resolving spell or ability instructs a specific creature to connive")
    assert first.text.endswith("Abilities that trigger \"when [that creature] connives\" will trigger.")
    assert last.text == ("Tapping a multicolored creature using convoke will pay for or one mana of your "
                         "choice of any of that creature's colors.")


def test_german_card_name(german) -> None:
    assert german.card_names == [CardName(lang="de", name="Tödliches Komplott")]
    assert {(r.card_name, r.card_name_lang) for r in german.rulings} == {("Tödliches Komplott", "de")}
    assert german.extra["claimed_text_lang"] == "en"
    assert german.extra["claimed_method"] == "official"
    assert german.extra["chrome"] == [
        "Tödliches Komplott",
        "Offizielle Klarstellungen von Wizards of the Coast, nur auf Englisch.",
    ]


def test_french_page_rulings(french) -> None:
    assert french.lang == "fr"
    assert len(french.rulings) == 16
    assert {r.published_at for r in french.rulings} == {"2016-08-23"}
    assert {r.raw_date for r in french.rulings} == {"23 août 2016"}
    assert {r.source for r in french.rulings} == {"wotc"}
    assert french.rulings[0].text == "You must name a Magic card. Notably, you can't name a token."
    assert french.rulings[-1].text.startswith("You don't have to play with any conspiracy you draft.")
    assert french.card_names == []
    assert {r.card_name for r in french.rulings} == {None}


def test_french_claims_machine_translation_but_texts_are_english(french) -> None:
    # A "French translation" whose text is English is an English sighting, not French.
    assert {r.lang for r in french.rulings} == {"en"}
    assert {r.method for r in french.rulings} == {"official"}  # English text from source wotc
    assert french.extra["claimed_text_lang"] == "fr"
    assert french.extra["claimed_method"] == "machine"
    assert french.extra["language_mismatch_positions"] == list(range(1, 17))


def test_french_trailing_fragment_is_not_a_ruling(french) -> None:
    assert [issue.kind for issue in french.issues] == ["non-ruling-fragment", "claimed-language-mismatch"]
    assert french.issues[0].detail.startswith("fr-conspiracy-004.txt: line 34: '. If you do, that creature gains")
    assert all("If you do, that creature" not in r.text for r in french.rulings)


def test_a_capture_whose_line_breaks_were_lost_between_rulings_is_read_apart(german) -> None:
    text = GERMAN.decode("utf-8")
    lines = text.split("\n")
    second = next(number for number, line in enumerate(lines) if line.startswith("• ") and number > 2)
    third = next(number for number, line in enumerate(lines) if line.startswith("• ") and number > second)
    # The second and third rulings on the line of the first, as a copy without line breaks gives them.
    joined = "\n".join([*lines[:second - 1], " ".join(lines[second - 1:third + 1]), *lines[third + 1:]])
    page = capture.parse(joined.encode("utf-8"), "de.txt")
    assert [(r.raw_date, r.text) for r in page.rulings] == [(r.raw_date, r.text) for r in german.rulings]
    [issue] = [issue for issue in page.issues if issue.kind == "joined-lines"]
    assert issue.detail.startswith(f"de.txt: lines {second} each held more than one ruling")



def test_a_ruling_whose_date_and_source_line_joined_the_text_before_is_read_apart(french) -> None:
    # The French layout: a "date · source : wotc" line, then the text. Joined to the text before
    # it, two rulings were one, with the second's date inside the first's text.
    lines = FRENCH.decode("utf-8").split("\n")
    joined = "\n".join([*lines[:2], lines[2] + " " + lines[3], *lines[4:]])
    page = capture.parse(joined.encode("utf-8"), "fr-conspiracy-004.txt")
    assert [(r.raw_date, r.text) for r in page.rulings] == [(r.raw_date, r.text) for r in french.rulings]
    assert [issue.kind for issue in page.issues] == ["joined-lines", *(issue.kind for issue in french.issues)]
    # One line fewer in the file: the fragment once on line 34 is on line 33.
    assert page.issues[1].detail.startswith("fr-conspiracy-004.txt: line 33: '. If you do, that creature gains")


def test_rulings_read_apart_keep_the_line_numbers_of_the_file() -> None:
    lines = GERMAN.decode("utf-8").rstrip("\n").split("\n")
    starts = [number for number, line in enumerate(lines) if line.startswith("• ")]
    # Two rulings on one line, and (constructed) a fragment that is no ruling on the last line.
    joined = [*lines[:starts[0]], lines[starts[0]] + " " + lines[starts[1]], *lines[starts[1] + 1:], "w"]
    page = capture.parse("\n".join(joined).encode("utf-8"), "de.txt")
    fragment = next(i for i in page.issues if i.kind == "non-ruling-fragment")
    assert fragment.detail == f"de.txt: line {len(joined)}: 'w'"


def test_sniff() -> None:
    assert capture.sniff(GERMAN)
    assert capture.sniff(FRENCH)
    assert not capture.sniff((FIXTURES / "pages" / "es-cr-rule-page-003.txt").read_bytes())
    assert not capture.sniff((FIXTURES / "release-notes" / "ko-m20-2019-05-31.html").read_bytes())
    assert not capture.sniff((FIXTURES / "release-notes" / "zhs-mh1.docx").read_bytes())


def test_not_a_capture_raises() -> None:
    with pytest.raises(ParseError, match="x.txt: no dated ruling found"):
        capture.parse(b"Just a line\nand another\n", "x.txt")
    with pytest.raises(ParseError, match="x.txt: not UTF-8"):
        capture.parse(b"\xff\xfe\x00bad", "x.txt")


# ------------------------------------------------------------------ constructed pages (not real)

def test_constructed_spanish_page_reads_numeric_dates_day_first() -> None:
    page = (
        "Complot letal\n\n"
        "• 12/01/2024Because convoke isn't an alternative cost, it can be used in conjunction with alternative costs.\n\n"
        "Aclaraciones oficiales de Wizards of the Coast, solo en inglés.\n"
    ).encode()
    parsed = capture.parse(page, "es.txt")
    assert parsed.lang == "es"
    assert [(r.published_at, r.lang, r.card_name) for r in parsed.rulings] == [("2024-01-12", "en", "Complot letal")]
    assert parsed.extra["claimed_method"] == "official"


def test_constructed_japanese_page_with_japanese_text() -> None:
    page = (
        "公式の裁定（機械翻訳）\n"
        "2016年8月23日 · 出典：wotc\n"
        "あなたはマジックのカード名を指定しなければならない。\n"
    ).encode()
    parsed = capture.parse(page, "ja.txt")
    assert parsed.lang == "ja"
    assert [(r.published_at, r.source, r.lang, r.method) for r in parsed.rulings] == [("2016-08-23", "wotc", "ja", "machine")]


def test_constructed_unreadable_and_ambiguous_dates_are_never_guessed() -> None:
    bad = capture.parse("• 31.02.2022Some ruling text here.\n".encode(), "bad.txt")
    assert bad.rulings[0].published_at is None
    # Kept raw and undated; the build reports it once per ruling (tests/store: unparseable-date).
    assert (bad.rulings[0].raw_date, bad.issues) == ("31.02.2022", [])
    ambiguous = capture.parse("• 04.05.2022Some ruling text here.\n".encode(), "amb.txt")
    assert ambiguous.lang is None
    assert ambiguous.rulings[0].published_at is None
    assert [issue.kind for issue in ambiguous.issues] == ["ambiguous-date"]
    assert capture.parse("• 04.05.2022Text.\n".encode(), "amb.txt", lang="de").rulings[0].published_at == "2022-05-04"
