"""kb.link.keyword_actions: keyword actions printed inside sentences, on the real MTGJSON UGIN
set file (26 cards in English and ten other languages; nine of them manifest), and on texts
constructed here where a case needs one (each says so)."""
from __future__ import annotations

from pathlib import Path

from kb.link.keyword_actions import ClauseEvidence, action_titles, clause_starts
from kb.parse.rulings import mtgjson

UGIN = Path(__file__).resolve().parent.parent / "fixtures" / "mtgjson" / "UGIN-v5.2-2022-04-25.json"
# Today's titles of the actions these texts print, and of a keyword ability and a stop word.
TITLES = {
    "manifest": ("Manifest", "701.40"), "scry": ("Scry", "701.22"), "mill": ("Mill", "701.17"),
    "morph": ("Morph", "702.37"), "exile": ("Exile", "701.13"), "tap and untap": ("Tap and Untap", "701.26"),
}
ACTIONS = action_titles(TITLES)


def ugin_evidence() -> ClauseEvidence:
    cards = mtgjson.parse(UGIN.read_bytes(), "UGIN").cards
    oracle = {card.oracle_id: card.oracle_text for card in cards if card.lang == "en"}
    evidence = ClauseEvidence()
    for card in cards:
        evidence.add(f"{card.name}|{card.lang}", "mtgjson", card.lang,
                     clause_starts(card.lang, card.printed_text, oracle.get(card.oracle_id), ACTIONS))
    return evidence


def test_only_one_word_actions_that_are_not_everyday_verbs_begin_clauses() -> None:
    assert ACTIONS == {"manifest": ("Manifest", "701.40"), "scry": ("Scry", "701.22"), "mill": ("Mill", "701.17")}


def test_the_ugin_files_manifest_in_every_language_with_words_and_nothing_else() -> None:
    found = {(seen.lang, seen.term, seen.en_term, seen.rule_number) for seen in ugin_evidence().keywords()}
    assert found == {
        ("de", "Manifestiere", "Manifest", "701.40"),
        ("es", "Manifiesta", "Manifest", "701.40"),
        ("fr", "Manifestez", "Manifest", "701.40"),
        ("it", "Manifesta", "Manifest", "701.40"),
        # Clauses ending with their verb: "…カードを予示する", "…카드를 구현화한다" (the Japanese and
        # Korean words for Manifest found nothing: a foreign judges' review).
        ("ja", "予示", "Manifest", "701.40"),
        ("ko", "구현화", "Manifest", "701.40"),
        ("pt", "Manifeste", "Manifest", "701.40"),
        ("ru", "Воплотите", "Manifest", "701.40"),
    }
    printings = {}
    for seen in ugin_evidence().keywords():
        printings.setdefault(seen.lang, set()).add(seen.printing_id)
    # A printing counts where its sentences and clauses pair one to one with the English ones:
    # "Manifest the top card of your library, then put two +1/+1 counters on it." is one clause
    # more than "Manifestiere die oberste Karte deiner Bibliothek und lege dann zwei …".
    # Japanese: "その後それらのカードを予示する" (then manifest those cards) and "…カードを予示する"
    # (Its controller manifests…) count too; Korean printings join more clauses than English.
    assert {lang: len(ids) for lang, ids in printings.items()} == {
        "de": 4, "es": 8, "fr": 8, "it": 8, "ja": 7, "ko": 4, "pt": 4, "ru": 7,
    }


def test_clauses_that_end_with_their_verb_give_the_noun_before_its_ending() -> None:
    cards = mtgjson.parse(UGIN.read_bytes(), "UGIN").cards
    soul_summons = {card.lang: card for card in cards if card.name == "Soul Summons"}
    english = soul_summons["en"].oracle_text
    assert english.startswith("Manifest the top card of your library.")
    # "あなたのライブラリーの一番上のカードを予示する。" and "당신의 서고 맨 위의 카드를 구현화한다.".
    assert clause_starts("ja", soul_summons["ja"].printed_text, english, ACTIONS) == [("予示", ("Manifest", "701.40"))]
    assert clause_starts("ko", soul_summons["ko"].printed_text, english, ACTIONS) == [("구현화", ("Manifest", "701.40"))]
    # Chinese has no spaces and no verb ending to find a word by.
    for lang in ("zhs", "zht"):
        assert soul_summons[lang].printed_text
        assert clause_starts(lang, soul_summons[lang].printed_text, english, ACTIONS) == []
    assert clause_starts("es", soul_summons["es"].printed_text, english, ACTIONS) == [
        ("Manifiesta", ("Manifest", "701.40")),
    ]


def test_a_word_that_begins_other_clauses_too_is_not_the_actions_term() -> None:
    """Constructed German texts in the shapes printings have: two older printings print "Lege …
    in deinen Friedhof" where today's Oracle text says "Mill three cards", and three printings
    begin "Put …" clauses with "Lege" as well; two newer printings print "Mahle"."""
    evidence = ClauseEvidence()
    mill = "Mill three cards."
    for number, (printed, oracle) in enumerate([
        ("Lege die obersten drei Karten deiner Bibliothek in deinen Friedhof.", mill),
        ("Lege die obersten drei Karten deiner Bibliothek in deinen Friedhof.", mill),
        ("Lege eine +1/+1-Marke auf eine Kreatur deiner Wahl.", "Put a +1/+1 counter on target creature."),
        ("Lege eine +1/+1-Marke auf eine Kreatur deiner Wahl.", "Put a +1/+1 counter on target creature."),
        ("Lege eine Karte aus deiner Hand zurück.", "Put a card from your hand on top of your library."),
        ("Mahle drei Karten.", mill),
        ("Wenn diese Kreatur stirbt, mahle zwei Karten.", "When this creature dies, mill two cards."),
    ]):
        evidence.add(f"p{number}", "scryfall", "de", clause_starts("de", printed, oracle, ACTIONS))
    assert {(seen.term, seen.en_term) for seen in evidence.keywords()} == {("Mahle", "Mill")}


def test_one_printing_is_no_evidence() -> None:
    """Constructed: one French printing of "Scry 2." inside a sentence."""
    evidence = ClauseEvidence()
    evidence.add("p1", "scryfall", "fr", clause_starts(
        "fr", "Quand cette créature arrive sur le champ de bataille, regard 2.",
        "When this creature enters, scry 2.", ACTIONS))
    assert evidence.keywords() == []
    evidence.add("p2", "scryfall", "fr", clause_starts("fr", "Regard 2. Piochez une carte.", "Scry 2. Draw a card.", ACTIONS))
    # Printed "regard" once and "Regard" once: shown with its capital.
    assert {(seen.term, seen.en_term, seen.printing_id) for seen in evidence.keywords()} == {
        ("Regard", "Scry", "p1"), ("Regard", "Scry", "p2"),
    }
