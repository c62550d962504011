"""Linking rulings seen elsewhere to English rulings.

The real Scryfall rulings of Lethal Scheme are not in /work/shared/realdata, so the English side
is built from the real seed 000 texts themselves, with the two symbols the capture lost put back
("with {T} in the cost", "pay for {1} or one mana", as Wizards prints those convoke rulings). Ruling
ids, oracle ids and the grouping by card and date below are constructed for the tests; every text
is real. The Chinese candidates are real rulings of the real MH1 release notes: the convoke
rulings there are translations of the same Wizards convoke rulings.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from kb.link.ruling_translations import (
    EnglishRuling,
    Match,
    compile_lexicon,
    confined_to_one_card,
    content_score,
    match_translations,
)
from kb.parse.release_notes import zhs as release_notes_zhs
from kb.parse.rulings import card_page_capture

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture(scope="module")
def german():
    return card_page_capture.parse((FIXTURES / "pages" / "de-lethal-scheme-000.txt").read_bytes(), "000")


@pytest.fixture(scope="module")
def french():
    return card_page_capture.parse((FIXTURES / "pages" / "fr-conspiracy-004.txt").read_bytes(), "004")


@pytest.fixture(scope="module")
def chinese():
    return release_notes_zhs.parse((FIXTURES / "release-notes" / "zhs-mh1.docx").read_bytes(), "mh1")


@pytest.fixture(scope="module")
def lexicon() -> list[tuple[str, str]]:
    pairs = json.loads((FIXTURES / "release-notes" / "zh-cr-glossary-terms-2025-02-07.json").read_text("utf-8"))
    return [tuple(pair) for pair in pairs["pairs"]]


@pytest.fixture(scope="module")
def lethal_english(german) -> list[EnglishRuling]:
    texts = [r.text for r in german.rulings]
    texts[7] = texts[7].replace("mana ability with in the cost", "mana ability with {T} in the cost")
    texts[10] = texts[10].replace("will pay for or one mana", "will pay for {1} or one mana")
    return [
        EnglishRuling(f"lethal-{i}", "oracle-lethal-scheme", r.published_at, i, text)
        for i, (r, text) in enumerate(zip(german.rulings, texts, strict=True), start=1)
    ]


def test_english_capture_is_a_sighting_and_lost_symbols_come_back(german, lethal_english) -> None:
    matches = match_translations(german.rulings, lethal_english)
    assert [(m.ruling_id, m.method, m.status, m.confidence) for m in matches] == [
        (f"lethal-{i}", "same-text", "sighting-symbols-dropped" if i in (8, 11) else "sighting",
         0.95 if i in (8, 11) else 1.0)
        for i in range(1, 12)
    ]
    assert matches[7].restored_text == lethal_english[7].text
    assert matches[7].missing_symbols == ["{T}"]
    assert matches[10].restored_text == lethal_english[10].text
    assert matches[10].missing_symbols == ["{1}"]


def test_unknown_card_matches_against_every_english_ruling(french, lethal_english) -> None:
    conspiracy = [
        EnglishRuling(f"conspiracy-{i}", "oracle-conspiracy", "2016-08-23", i, r.text)
        for i, r in enumerate(french.rulings, start=1)
    ]
    matches = match_translations(french.rulings, lethal_english + conspiracy)
    assert [m.ruling_id for m in matches] == [f"conspiracy-{i}" for i in range(1, 17)]
    assert {(m.method, m.status) for m in matches} == {("same-text", "sighting")}


def _translated(chinese, card_name: str, oracle_id: str | None) -> list:
    return [replace(r, oracle_id=oracle_id) for r in chinese.rulings if r.card_name == card_name]


def _mob_rulings(lethal_english: list[EnglishRuling], order: tuple[int, ...]) -> list[EnglishRuling]:
    """Lethal Scheme's English rulings ``order`` (1-based), given the card and date of 集群殴斗's
    Chinese ones, ranked in that order."""
    return [
        replace(lethal_english[i - 1], ruling_id=f"mob-{rank}", oracle_id="oracle-mob",
                published_at="2019-04-29", position=rank)
        for rank, i in enumerate(order, start=1)
    ]


def test_card_date_order(chinese, lethal_english, lexicon) -> None:
    # 集群殴斗 has exactly the three convoke rulings; give the English side the same card and date.
    candidates = _translated(chinese, "集群殴斗", "oracle-mob")
    assert [c.position for c in candidates] == [182, 183, 184]
    english = _mob_rulings(lethal_english, (10, 6, 8))
    matches = match_translations(candidates, english, lexicon)
    assert [(m.ruling_id, m.method, m.status) for m in matches] == [
        ("mob-1", "card-date-order", "translation"),
        ("mob-2", "card-date-order", "translation"),
        ("mob-3", "card-date-order", "translation"),
    ]
    assert [m.confidence for m in matches] == [0.905, 0.857, 0.902]


def test_card_date_order_gives_way_where_content_names_another_ruling(chinese, lethal_english, lexicon) -> None:
    """The same three rulings listed in another order on the English side (the order is
    constructed; the texts are real): by rank, the first two were paired crosswise, each a
    "translation" at ~0.77 (a review). Content names the other ruling for each: content decides."""
    candidates = _translated(chinese, "集群殴斗", "oracle-mob")
    english = _mob_rulings(lethal_english, (6, 10, 8))
    matches = match_translations(candidates, english, lexicon)
    assert [(m.ruling_id, m.method, m.status) for m in matches] == [
        ("mob-2", "content", "translation"), ("mob-1", "content", "translation"), ("mob-3", "content", "translation"),
    ]


def test_card_date_order_needs_equal_counts_else_content_decides(chinese, lethal_english, lexicon) -> None:
    candidates = _translated(chinese, "集群殴斗", "oracle-mob")
    english = _mob_rulings(lethal_english, (6, 8, 10, 9))  # one more, and in another order
    matches = match_translations(candidates, english, lexicon)
    assert [(m.ruling_id, m.method) for m in matches] == [("mob-3", "content"), ("mob-1", "content"), ("mob-2", "content")]


def test_content_when_the_card_is_unknown(chinese, lethal_english, lexicon) -> None:
    # 烈士英魂: the first ruling is about that card only (no English original given), the
    # other three are the convoke rulings.
    candidates = _translated(chinese, "烈士英魂", None)
    matches = match_translations(candidates, lethal_english, lexicon)
    assert matches == [
        Match(0, None, None, 0.0, "unmatched"),
        Match(1, "lethal-10", "content", 0.773, "translation"),
        Match(2, "lethal-6", "content", 0.537, "translation"),
        Match(3, "lethal-8", "content", 0.759, "translation"),
    ]


def test_translations_of_an_unknown_card_are_kept_only_where_they_are_one_cards(chinese, lethal_english, lexicon) -> None:
    # The three convoke rulings of 烈士英魂 (Martyr's Soul) match Lethal Scheme's: the same Wizards
    # texts. Lethal Scheme's English rulings alone: they are that card's (no name says otherwise).
    candidates = _translated(chinese, "烈士英魂", None)
    found = match_translations(candidates, lethal_english, lexicon)
    assert [m.ruling_id for m in confined_to_one_card(found, lethal_english, "烈士英魂", {})] == [
        None, "lethal-10", "lethal-6", "lethal-8"]
    # Constructed: the card named otherwise in Chinese (a name written for this test).
    named = {"oracle-lethal-scheme": {"致命谋略"}}
    assert [m.ruling_id for m in confined_to_one_card(found, lethal_english, "烈士英魂", named)] == [None] * 4
    # Constructed: a second convoke card of the same date prints the same texts: the convoke
    # rulings are both cards', and no other match says which card's these are.
    other = [replace(r, ruling_id=f"other-{r.position}", oracle_id="oracle-other") for r in lethal_english]
    both = lethal_english + other
    found = match_translations(candidates, both, lexicon)
    assert [m for m in found if m.ruling_id] and [m.ruling_id for m in confined_to_one_card(found, both, "烈士英魂", {})] == [None] * 4
    # One text only Lethal Scheme prints says whose they are: the shared ones go to its rulings.
    only_lethal = [r for r in other if r.position != 10]
    found = match_translations(candidates, lethal_english + only_lethal, lexicon)
    kept = confined_to_one_card(found, lethal_english + only_lethal, "烈士英魂", {})
    assert [m.ruling_id for m in kept] == [None, "lethal-10", "lethal-6", "lethal-8"]


def test_content_without_a_term_list_only_trusts_strong_evidence(chinese, lethal_english) -> None:
    candidates = _translated(chinese, "烈士英魂", None)
    matches = match_translations(candidates, lethal_english)
    assert [(m.ruling_id, m.status) for m in matches] == [
        (None, "unmatched"), (None, "unmatched"), (None, "unmatched"), ("lethal-8", "translation")]


def test_content_score_features(chinese, lethal_english, lexicon) -> None:
    tap_ruling = _translated(chinese, "烈士英魂", None)[3]
    compiled = compile_lexicon(lexicon)
    assert content_score(tap_ruling, lethal_english[7], compiled) == (0.759, True)
    assert content_score(tap_ruling, lethal_english[0], compiled) == (0.111, True)
