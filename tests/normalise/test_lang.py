"""detect_lang on real texts: seed page chrome, release notes, Scryfall printed card texts."""
from __future__ import annotations

import pytest

from kb.normalise.lang import chinese_variant, detect_lang

# First sentences of real printed texts of Jace, Vryn's Prodigy in each language, quoted from
# /work/shared/realdata/scryfall/api-2025-11-01/search-langany-594f6881-jace-vryn-s-prodigy-….json
PRINTED = {
    "en": "Draw a card, then discard a card. If there are five or more cards in your graveyard, exile Jace, then return him to the battlefield transformed under his owner's control.",
    "de": "Ziehe eine Karte und wirf dann eine Karte ab.",
    "es": "Roba una carta, luego descarta una carta.",
    "fr": "Piochez une carte, puis défaussez-vous d'une carte.",
    "it": "Pesca una carta, poi scarta una carta.",
    "pt": "Compre um card e depois descarte um card.",
    "ja": "カードを１枚引き、その後カードを１枚捨てる。",
    "ko": "카드 한 장을 뽑은 후 카드 한 장을 버린다.",
    "ru": "возьмите карту, затем сбросьте карту.",
    "zhs": "抓一张牌，然后弃一张牌。",
    "zht": "抽一張牌，然後棄一張牌。",
}


@pytest.mark.parametrize("lang", sorted(PRINTED))
def test_printed_texts_of_every_scryfall_language(lang: str) -> None:
    assert detect_lang("{T}: " + PRINTED[lang])[0] == lang


def test_seed_page_chrome() -> None:
    assert detect_lang("Offizielle Klarstellungen von Wizards of the Coast, nur auf Englisch.")[0] == "de"
    assert detect_lang(
        "Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous est générée "
        "automatiquement (IA) — l'original anglais reste la source de vérité."
    )[0] == "fr"
    assert detect_lang("Tödliches Komplott")[0] == "de"


def test_short_texts_with_game_words() -> None:
    assert detect_lang("Kreatur")[0] == "de"
    assert detect_lang("Convoke")[0] == "en"
    assert detect_lang("Criatura objetivo")[0] == "es"
    assert detect_lang("Criatura alvo")[0] == "pt"
    assert detect_lang("Paradiesvögel")[0] == "de"


def test_cjk_by_script() -> None:
    assert detect_lang("천사") == ("ko", 1.0)
    assert detect_lang("極楽鳥")[0] == "ja"  # no kana, but 楽 is a Japanese-only form
    assert detect_lang("战场") == ("zhs", 1.0)
    assert detect_lang("觸發") == ("zht", 1.0)
    assert chinese_variant("天使") == ("zhs", 0.5)  # no evidence either way


def test_nothing_to_go_on() -> None:
    assert detect_lang("") == ("und", 0.0)
    assert detect_lang("{T} 702.19b 3") == ("und", 0.0)


def _real_scryfall_rulings() -> list[str]:
    """Every ruling text of the real Scryfall rulings lists among the fixtures."""
    import json
    from pathlib import Path

    texts: dict[str, None] = {}
    folder = Path(__file__).parent.parent / "fixtures" / "scryfall"
    for path in sorted(folder.rglob("rulings-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for ruling in data.get("data", []) if isinstance(data, dict) else data:
            texts[ruling["comment"]] = None
    return list(texts)


def test_typographic_punctuation_alone_skips_detection_with_the_same_answer() -> None:
    from kb.normalise.lang import ascii_but_typography
    from kb.store.save import LangDetector

    texts = _real_scryfall_rulings()
    typographic = [text for text in texts if not text.isascii()]
    # 52 distinct real rulings, 11 of them with curly quotes, apostrophes, dashes or ™.
    assert (len(texts), len(typographic)) == (52, 11)
    assert all(ascii_but_typography(text) for text in typographic)
    for text in texts:
        assert LangDetector()(text, "en") == detect_lang(text)[0] == "en"
    # Letters outside ASCII are evidence and still go to detection, as do guillemets.
    assert not ascii_but_typography("Ziehe eine Karte und wirf dann eine Karte ab. Böse Stiefmutter")
    assert not ascii_but_typography("« Piochez une carte »")
    assert LangDetector()("Piochez une carte, puis défaussez-vous d’une carte.", "en") == "fr"
