"""Per-rule CR pages: the real Spanish capture of 702.78, and constructed pages in other languages."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.parse.cr import rule_page as cr_rule_page
from kb.parse.cr import txt as cr_txt
from kb.parse.cr import zh as cr_zh
from kb.records import ParseError

FIXTURES = Path(__file__).parent.parent / "fixtures"
SPANISH = FIXTURES / "cr-pages" / "es-702.78-conspirar.txt"


@pytest.fixture(scope="module")
def spanish():
    return cr_rule_page.parse(SPANISH.read_bytes(), SPANISH.name)


def test_spanish_rule_and_recovered_subrules(spanish):
    assert (spanish.lang, spanish.effective_date, spanish.extra["detected_lang"]) == ("es", None, "es")
    assert [(r.number, r.kind, r.number_confidence) for r in spanish.rules] == [
        ("702.78", "rule", 1.0), ("702.78a", "subrule", 0.8), ("702.78b", "subrule", 0.8),
    ]
    rule, first, second = spanish.rules
    assert (rule.title, rule.text, rule.parent, rule.section) == ("Conspirar", "", "702", "702")
    assert first.text.startswith("Conspirar es una palabra clave que representa dos habilidades.")
    assert first.refs == ["601.2b", "601.2f", "601.2g", "601.2h"]
    assert second.text == (
        "Si un hechizo tiene varias instancias de conspirar, cada una se paga por separado y se activa"
        " según su propio pago, no según ninguna otra instancia de conspirar."
    )
    assert all(rule.examples == [] for rule in spanish.rules)


def test_navigation_list_is_not_rule_text(spanish):
    listed = spanish.extra["listed_numbers"]
    assert len(listed) == 195
    assert listed[:2] == ["702.1", "702.2"] and listed[-1] == "702.195"
    assert not any("702.1\n" in rule.text or rule.text.startswith("- ") for rule in spanish.rules)


def test_lang_given_wins(spanish):
    doc = cr_rule_page.parse(SPANISH.read_bytes(), SPANISH.name, lang="pt")
    assert doc.lang == "pt"
    assert doc.warnings == ["es-702.78-conspirar.txt: page text looks es, read as pt as asked"]


# Constructed pages, not captures: the same site's layout with other header words, printed
# examples, printed letters, and a rule without subrules. The rule texts are the official
# English (CR 2025-02-07) or our own short placeholder sentences, as marked.
FRENCH_WITH_EXAMPLE = """702.2. Contact mortel
Sous-règles
Contact mortel est une capacité statique.
Exemple : placeholder sentence written for this test.
Une créature qui a subi des blessures d'une source avec le contact mortel est détruite.
Autres règles de cette section
- 702.1
- 702.2
- 702.3
"""
ENGLISH_NO_SUBRULES = """101.1. Whenever a card’s text directly contradicts these rules, the card takes precedence. The card overrides only the rule that applies to that specific situation. The only exception is that a player can concede the game at any time (see rule 104.3a).
Other rules in this section
- 101.1
- 101.2
"""
GERMAN_PRINTED_LETTERS = """702.19. Trampelschaden
Unterregeln
702.19a Trampelschaden ist eine statische Fähigkeit.
702.19b Beispiel: placeholder.
Weitere Regeln in diesem Abschnitt
- 702.18
"""


def test_other_languages_and_shapes():
    french = cr_rule_page.parse(FRENCH_WITH_EXAMPLE.encode(), "fr.txt")
    assert french.lang == "fr"
    assert [(r.number, r.number_confidence) for r in french.rules] == [
        ("702.2", 1.0), ("702.2a", 0.8), ("702.2b", 0.8),
    ]
    assert french.rules[1].examples == ["Exemple : placeholder sentence written for this test."]
    assert french.extra["listed_numbers"] == ["702.1", "702.2", "702.3"]

    english = cr_rule_page.parse(ENGLISH_NO_SUBRULES.encode(), "en.txt")
    assert english.lang == "en"
    assert [(r.number, r.kind, r.title) for r in english.rules] == [("101.1", "rule", None)]
    assert english.rules[0].refs == ["104.3a"]

    german = cr_rule_page.parse(GERMAN_PRINTED_LETTERS.encode(), "de.txt")
    assert german.lang == "de"
    assert [(r.number, r.number_confidence) for r in german.rules] == [
        ("702.19", 1.0), ("702.19a", 1.0), ("702.19b", 1.0),
    ]


def test_sniff_claims_only_rule_pages():
    assert cr_rule_page.sniff(SPANISH.read_bytes(), SPANISH.name)
    assert cr_rule_page.sniff(FRENCH_WITH_EXAMPLE.encode(), "fr.txt")
    for other in (
        FIXTURES / "cr" / "en-raw" / "2025-02-07.txt",
        FIXTURES / "cr-zh" / "2025-02-07-zh.txt",
        FIXTURES / "cr-ko" / "2021-02-15-100.md",
    ):
        assert not cr_rule_page.sniff(other.read_bytes(), other.name), other.name
    assert not cr_txt.sniff(SPANISH.read_bytes(), SPANISH.name)
    assert not cr_zh.sniff(SPANISH.read_bytes(), SPANISH.name)


def test_errors_name_the_file():
    with pytest.raises(ParseError, match="nope.txt: line 1: page does not start with a rule number"):
        cr_rule_page.parse(b"Hola\nSubreglas\n", "nope.txt")
    with pytest.raises(ParseError, match="nav.txt: line 5: navigation list holds no rule numbers"):
        cr_rule_page.parse(b"702.78. Conspirar\nSubreglas\nTexto.\nOtras reglas de este apartado\nnada\n", "nav.txt")
