"""Keywords mined from localized printings (kb.link.keywords), on printed texts copied from the snapshot."""
from __future__ import annotations

from kb.link.keywords import Keyword, PrintedKeyword, agree, keyword_items, mine_printing

TITLES = {
    "flying": ("Flying", "702.9"), "trample": ("Trample", "702.19"), "shroud": ("Shroud", "702.18"),
    "morph": ("Morph", "702.37"),
}
# Simic Sky Swallower, German printing (Scryfall, cards-page3-multilang-2019.json in the snapshot).
SWALLOWER_ORACLE = "Flying, trample\nShroud (This creature can't be the target of spells or abilities.)"
SWALLOWER_DE = (
    "Fliegend, verursacht Trampelschaden\n"
    "Verhüllt (Diese Kreatur kann nicht das Ziel von Zaubersprüchen oder Fähigkeiten sein.)"
)
# Watcher of the Roost, German (MTGJSON UGIN foreignData: the line breaks were lost upstream).
WATCHER_ORACLE = "Flying\nMorph—Reveal a white card in your hand. (You may cast this card face down as a 2/2 creature for {3}.)"
WATCHER_DE = "FliegendMorph—Zeige eine weiße Karte auf deiner Hand offen vor. (Du kannst diese Karte verdeckt wirken.)"


def test_keyword_items_drop_reminder_text_and_stops() -> None:
    assert keyword_items("Vuela, arrolla.") == ["Vuela", "arrolla"]
    assert keyword_items("飛行、トランプル") == ["飛行", "トランプル"]
    assert keyword_items("Linceul (Cette créature ne peut pas être la cible de sorts.)") == ["Linceul"]


def test_a_printing_pairs_its_keyword_lines_with_the_oracle_text() -> None:
    found = mine_printing("p1", "de", SWALLOWER_DE, SWALLOWER_ORACLE, TITLES, "scryfall")
    assert [(seen.term, seen.en_term, seen.rule_number) for seen in found] == [
        ("Fliegend", "Flying", "702.9"),
        ("verursacht Trampelschaden", "Trample", "702.19"),
        ("Verhüllt", "Shroud", "702.18"),
    ]


def test_a_text_that_lost_its_line_breaks_is_skipped_not_guessed() -> None:
    assert mine_printing("p2", "de", WATCHER_DE, WATCHER_ORACLE, TITLES, "mtgjson") == []


def test_english_printings_and_missing_texts_give_nothing() -> None:
    assert mine_printing("p3", "en", SWALLOWER_ORACLE, SWALLOWER_ORACLE, TITLES, "scryfall") == []
    assert mine_printing("p4", "de", None, SWALLOWER_ORACLE, TITLES, "scryfall") == []


def seen(term: str, printing: str, en_term: str = "Flying", lang: str = "fr") -> PrintedKeyword:
    return PrintedKeyword(lang, term, en_term, "702.9", printing, "scryfall")


def test_agreement_counts_printings_and_drops_an_odd_one() -> None:
    entries = agree([seen("Vol", "a"), seen("Vol", "b"), seen("vol", "c"), seen("Volant", "d")])
    assert [(e.term, e.printings, e.dissent, e.status) for e in entries] == [("Vol", 3, 1, "agreed")]


def test_a_single_uncontested_printing_is_kept_and_says_so() -> None:
    entries = agree([seen("Полет", "a", lang="ru")])
    assert [(e.lang, e.term, e.printings, e.status) for e in entries] == [("ru", "Полет", 1, "single printing")]


def test_a_translated_cr_confirms_a_single_printing() -> None:
    entries = agree([seen("Volare", "a", lang="it")], [Keyword("it", "Volare", "Flying", "702.9", "glossary")])
    assert [(e.term, e.sources, e.status) for e in entries] == [("Volare", ["cr-glossary", "scryfall"], "agreed")]
