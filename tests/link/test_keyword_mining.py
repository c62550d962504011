"""Keywords mined from localized printings (kb.link.keywords), on printed texts copied from the snapshot."""
from __future__ import annotations

import json
from pathlib import Path

from kb.link.keywords import (
    Keyword,
    KeywordEntry,
    PrintedKeyword,
    agree,
    keyword_items,
    known_terms,
    mine_glued_first_line,
    mine_printing,
    mine_siblings,
    terms_known,
)
from kb.parse.rulings import gatherer_old, mtgjson

GATHERER = Path(__file__).parent.parent / "fixtures" / "gatherer" / "old"
UGIN = Path(__file__).parent.parent / "fixtures" / "mtgjson" / "UGIN-v5.2-2022-04-25.json"
KNOWN = known_terms([
    KeywordEntry("de", "Fliegend", "Flying", "702.9", ["scryfall"], 5, 0, "agreed"),
    KeywordEntry("fr", "Vol", "Flying", "702.9", ["scryfall"], 5, 0, "agreed"),
    KeywordEntry("ja", "飛行", "Flying", "702.9", ["scryfall"], 5, 0, "agreed"),
    KeywordEntry("ko", "비행", "Flying", "702.9", ["scryfall"], 1, 0, "single printing"),
])


def gatherer_birds(*langs: str) -> list[tuple[str, str, str, str]]:
    """The real Gatherer printed pages of Birds of Paradise (Magic 2012 #165)."""
    found = []
    for lang in langs:
        card = gatherer_old.parse((GATHERER / f"birdsofparadise_{lang}.html").read_bytes()).cards[0]
        assert card.printed_text is not None
        found.append((f"multiverse:{card.multiverse_id}", card.lang, card.printed_text, "gatherer"))
    return found

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
# Watcher of the Roost, German (MTGJSON UGIN foreignData, its line breaks lost upstream; shortened).
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


def test_a_text_that_lost_its_line_breaks_is_read_as_its_lines() -> None:
    found = mine_printing("p2", "de", WATCHER_DE, WATCHER_ORACLE, TITLES, "mtgjson")
    assert [(seen.term, seen.en_term) for seen in found] == [("Fliegend", "Flying"), ("Morph", "Morph")]
    # Two plain breaks for the Oracle text's three lines: which line is missing cannot be said.
    assert mine_printing("p2", "de", WATCHER_DE, WATCHER_ORACLE + "\nWhen it is turned face up, you gain 2 life.",
                         TITLES, "mtgjson") == []
    # As many pieces as lines, but the piece for a keyword line is a sentence, longer than any
    # keyword: the text was cut elsewhere than its lines, and its other keyword line is not trusted either.
    oracle = "Flying\nWhen it is turned face up, you gain 2 life.\nMorph {3}"
    printed = "Vol au-dessus de la mêlée, sans jamais se poserQuand elle est retournéeMue {3}"
    assert mine_printing("p5", "fr", printed, oracle, TITLES, "mtgjson") == []


MTGJSON_TITLES = {**TITLES, "deathtouch": ("Deathtouch", "702.2"), "first strike": ("First Strike", "702.7"),
                  "equip": ("Equip", "702.6"), "enchant": ("Enchant", "702.5"), "manifest": ("Manifest", "701.40")}


def test_every_keyword_the_real_mtgjson_file_prints_in_other_languages() -> None:
    """Each foreignData text of MTGJSON's UGIN set file, mined against its card's English text;
    each term's English keyword is one the card's own ``keywords`` list names."""
    document = mtgjson.parse(UGIN.read_bytes(), "UGIN")
    english = {card.oracle_id: card for card in document.cards if card.lang == "en"}
    listed = {card["name"]: card.get("keywords") or []
              for card in json.loads(UGIN.read_text(encoding="utf-8"))["data"]["cards"]}
    mined = [
        seen for card in document.cards if card.lang != "en"
        for seen in mine_printing(card.name, card.lang, card.printed_text, english[card.oracle_id].oracle_text,
                                  MTGJSON_TITLES, "mtgjson")
    ]
    found = sorted({
        (seen.lang, seen.term, seen.en_term, seen.rule_number) for seen in mined
        if seen.en_term.casefold() in {keyword.casefold() for keyword in listed[seen.printing_id]}
    })
    every = sorted({(seen.lang, seen.term, seen.en_term, seen.rule_number) for seen in mined})
    assert found == every  # none names a keyword its card does not have
    assert every == [
        ("de", "Ausrüsten", "Equip", "702.6"), ("de", "Erstschlag", "First Strike", "702.7"),
        ("de", "Fliegend", "Flying", "702.9"), ("de", "Morph", "Morph", "702.37"),
        ("de", "Todesberührung", "Deathtouch", "702.2"),
        ("es", "Daña primero", "First Strike", "702.7"), ("es", "Equipar", "Equip", "702.6"),
        ("es", "Metamorfosis", "Morph", "702.37"), ("es", "Toque mortal", "Deathtouch", "702.2"),
        ("es", "Vuela", "Flying", "702.9"),
        ("fr", "Contact mortel", "Deathtouch", "702.2"), ("fr", "Initiative", "First Strike", "702.7"),
        ("fr", "Mue", "Morph", "702.37"), ("fr", "Vol", "Flying", "702.9"), ("fr", "Équipement", "Equip", "702.6"),
        ("it", "Attacco improvviso", "First Strike", "702.7"), ("it", "Equipaggiare", "Equip", "702.6"),
        ("it", "Metamorfosi", "Morph", "702.37"), ("it", "Tocco letale", "Deathtouch", "702.2"),
        ("it", "Volare", "Flying", "702.9"),
        # Chinese, Japanese and Korean: the three cards whose Morph line follows a line ending in a
        # stop, or starts the text and ends in its reminder (the other three glue it to a keyword).
        ("ja", "変異", "Morph", "702.37"), ("ko", "변이", "Morph", "702.37"),
        ("pt", "Equipar", "Equip", "702.6"), ("pt", "Iniciativa", "First Strike", "702.7"),
        ("pt", "Metamorfose", "Morph", "702.37"), ("pt", "Toque mortífero", "Deathtouch", "702.2"),
        ("pt", "Voar", "Flying", "702.9"),
        ("ru", "Оборотень", "Morph", "702.37"), ("ru", "Первый удар", "First Strike", "702.7"),
        ("ru", "Полет", "Flying", "702.9"), ("ru", "Смертельное касание", "Deathtouch", "702.2"),
        ("ru", "Снарядить", "Equip", "702.6"),
        ("zhs", "变身", "Morph", "702.37"), ("zht", "變身", "Morph", "702.37"),
    ]


def test_a_first_keyword_line_glued_to_the_next_is_read_through_the_next_ones_agreed_term() -> None:
    """MTGJSON's Japanese, Korean and Chinese texts of UGIN lost their line breaks: "接死変異 ― …"
    is Ruthless Ripper's "Deathtouch" glued to "Morph—Reveal…". Where the next line's term is
    agreed elsewhere (変異 = Morph on three cards) and the printed face carries that keyword's own
    parameter right after it (a dash, the same cost), what precedes it is the first keyword's term.
    Each term is a keyword the card's own ``keywords`` list names (the reviewer's answer key:
    MTGJSON's foreignData against its English text)."""
    document = mtgjson.parse(UGIN.read_bytes(), "UGIN")
    english = {card.oracle_id: card for card in document.cards if card.lang == "en"}
    agreed = mine_printing_everywhere(document, english)
    known = terms_known(agree(agreed))
    assert {key: term for key, term in known.items() if key[0] in ("ja", "ko", "zhs", "zht")} == {
        ("ja", "Morph"): "変異", ("ko", "Morph"): "변이", ("zhs", "Morph"): "变身", ("zht", "Morph"): "變身",
    }
    glued = sorted(
        (seen.printing_id, seen.lang, seen.term, seen.en_term) for card in document.cards if card.lang != "en"
        for seen in mine_glued_first_line(card.name, card.lang, card.printed_text,
                                          english[card.oracle_id].oracle_text, MTGJSON_TITLES, known, "mtgjson")
    )
    # The next line's term is the printing's too (変異 was said printed on three cards of six).
    assert glued == [
        # Korean Ainok Tracker prints its morph cost {4}{B} (the card's is {4}{R}): not read.
        ("Ainok Tracker", "ja", "先制攻撃", "First Strike"), ("Ainok Tracker", "ja", "変異", "Morph"),
        ("Ainok Tracker", "zhs", "先攻", "First Strike"), ("Ainok Tracker", "zhs", "变身", "Morph"),
        ("Ainok Tracker", "zht", "先攻", "First Strike"), ("Ainok Tracker", "zht", "變身", "Morph"),
        ("Ruthless Ripper", "ja", "変異", "Morph"), ("Ruthless Ripper", "ja", "接死", "Deathtouch"),
        ("Ruthless Ripper", "ko", "변이", "Morph"), ("Ruthless Ripper", "ko", "치명타", "Deathtouch"),
        ("Ruthless Ripper", "zhs", "变身", "Morph"), ("Ruthless Ripper", "zhs", "死触", "Deathtouch"),
        ("Ruthless Ripper", "zht", "死觸", "Deathtouch"), ("Ruthless Ripper", "zht", "變身", "Morph"),
        ("Watcher of the Roost", "ja", "変異", "Morph"), ("Watcher of the Roost", "ja", "飛行", "Flying"),
        ("Watcher of the Roost", "ko", "변이", "Morph"), ("Watcher of the Roost", "ko", "비행", "Flying"),
        ("Watcher of the Roost", "zhs", "变身", "Morph"), ("Watcher of the Roost", "zhs", "飞行", "Flying"),
        ("Watcher of the Roost", "zht", "變身", "Morph"), ("Watcher of the Roost", "zht", "飛行", "Flying"),
    ]
    # A face read as its lines, an English printing, a term that is not the next line's: nothing.
    assert mine_glued_first_line("p", "ja", "接死変異 ― 黒", "Deathtouch\nMorph—Reveal", MTGJSON_TITLES, {}, "") == []
    assert mine_glued_first_line("p", "ja", "接死変異{3}", "Deathtouch\nMorph {4}", MTGJSON_TITLES, known, "") == []
    assert mine_glued_first_line("p", "ja", "接死。変異 ― 黒", "Deathtouch\nMorph—Reveal", MTGJSON_TITLES, known, "") == []


def test_a_keyword_two_agreed_terms_print_has_no_known_term() -> None:
    # French prints Première frappe and Initiative for First Strike: neither is the one to read
    # a glued line through.
    entries = [
        KeywordEntry("fr", "Initiative", "First Strike", "702.7", ["mtgjson"], 2, 2, "agreed"),
        KeywordEntry("fr", "Première frappe", "First Strike", "702.7", ["scryfall"], 2, 2, "agreed"),
        KeywordEntry("fr", "Vol", "Flying", "702.9", ["scryfall"], 5, 0, "agreed"),
        KeywordEntry("fr", "Mue", "Morph", "702.37", ["mtgjson"], 1, 0, "single printing"),
    ]
    assert terms_known(entries) == {("fr", "Flying"): "Vol"}


def mine_printing_everywhere(document, english) -> list[PrintedKeyword]:  # type: ignore[no-untyped-def]
    return [
        seen for card in document.cards if card.lang != "en"
        for seen in mine_printing(card.name, card.lang, card.printed_text, english[card.oracle_id].oracle_text,
                                  MTGJSON_TITLES, "mtgjson")
    ]


def test_keywords_with_a_cost_give_the_term_before_it() -> None:
    # Mystic of the Hidden Way (MTGJSON UGIN foreignData, French and Spanish, read as their lines).
    oracle = "Mystic of the Hidden Way can't be blocked.\nMorph {2}{U} (You may cast this card face down.)"
    assert [seen.term for seen in mine_printing(
        "p6", "es", "El Místico no puede ser bloqueado.\nMetamorfosis {2}{U}. (Puedes lanzar esta carta.)",
        oracle, TITLES, "mtgjson")] == ["Metamorfosis"]
    # Another cost than the Oracle text's is not this keyword's: nothing.
    assert mine_printing("p7", "fr", "Le Mystique ne peut pas être bloqué.\nMue {3}{U}", oracle, TITLES, "mtgjson") == []


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


def test_gatherer_siblings_read_through_each_other() -> None:
    observed = mine_siblings(gatherer_birds("de", "fr", "ja"), KNOWN)
    assert [(seen.lang, seen.term, seen.en_term, seen.printing_id) for seen in observed] == [
        ("de", "Fliegend", "Flying", "multiverse:263789"),
        ("fr", "Vol", "Flying", "multiverse:263540"),
        ("ja", "飛行", "Flying", "multiverse:264287"),
    ]


def test_a_printing_never_confirms_itself() -> None:
    # Alone, the German page's "Fliegend" is read only through its own known term: nothing.
    assert mine_siblings(gatherer_birds("de"), KNOWN) == []
    # Only "single printing" (unconfirmed) terms are not used to read siblings.
    assert mine_siblings(gatherer_birds("de", "fr"), {("ko", "비행"): ("Flying", "702.9")}) == []


def test_siblings_that_read_differently_give_nothing() -> None:
    known = {**KNOWN, ("fr", "vol"): ("Fear", "702.36")}
    observed = mine_siblings(gatherer_birds("de", "fr", "ja"), known)
    # If "Vol" meant Fear, the German and Japanese pages would each see two readings (Fear and
    # Flying) and give nothing; the French page's own reading does not count for itself, and
    # the other two agree that its line is Flying.
    assert [(seen.lang, seen.term, seen.en_term) for seen in observed] == [("fr", "Vol", "Flying")]
