"""The language of a printed card, told from its type line and script.

An old Gatherer page's "Printed" view shows a card as printed, in whatever language, and never
says which: every card has a type line, so its card-type words (and the script of its text)
tell, without relying on anything page-specific.
"""
from __future__ import annotations

import re

from kb.normalise.lang import chinese_variant

# Card-type words as each language prints them on type lines. Every card has a type line, so
# these identify a printed page's language without relying on anything page-specific. Words
# shared by several languages ("Land", "Planeswalker", "Criatura") are listed for all of them;
# the language with the most hits wins, ties are resolved by order below (most-printed first).
TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("Creature", "Instant", "Sorcery", "Enchantment", "Artifact", "Land", "Planeswalker", "Tribal", "Kindred", "Battle", "Legendary", "Basic"),
    "de": ("Kreatur", "Spontanzauber", "Hexerei", "Verzauberung", "Artefakt", "Land", "Planeswalker", "Stammes", "Legendäre", "Legendärer", "Legendäres", "Standardland", "Schlacht"),
    "fr": ("Créature", "Éphémère", "Rituel", "Enchantement", "Artefact", "Terrain", "Planeswalker", "Tribal", "légendaire", "Bataille"),
    "es": ("Criatura", "Instantáneo", "Conjuro", "Encantamiento", "Artefacto", "Tierra", "Planeswalker", "Tribal", "legendaria", "legendario", "Batalla"),
    "it": ("Creatura", "Istantaneo", "Stregoneria", "Incantesimo", "Artefatto", "Terra", "Planeswalker", "Tribale", "Leggendaria", "Leggendario", "Battaglia"),
    "pt": ("Criatura", "Mágica Instantânea", "Feitiço", "Encantamento", "Artefato", "Terreno", "Planeswalker", "Tribal", "Lendária", "Lendário", "Batalha"),
    "ru": ("Существо", "Мгновенное заклинание", "Волшебство", "Чары", "Артефакт", "Земля", "Planeswalker", "Легендарное", "Племенное", "Битва"),
}
CJK_TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "zhs": ("生物", "瞬间", "法术", "结界", "神器", "地", "鹏洛客", "传奇", "部族"),
    "zht": ("生物", "瞬間", "法術", "結界", "神器", "地", "鵬洛客", "傳奇", "部族"),
}
KANA = re.compile(r"[\u3040-\u30ff]")
HANGUL = re.compile(r"[\uac00-\ud7af]")
HAN = re.compile(r"[\u4e00-\u9fff]")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def detect_printed_language(type_line: str, text: str, name: str) -> str | None:
    """The language of a printed card from its type line and script, or None if unclear."""
    sample = " ".join((type_line, text, name))
    if KANA.search(sample):
        return "ja"
    if HANGUL.search(sample):
        return "ko"
    if HAN.search(sample):
        # Characters only one Chinese script uses decide first: a plain creature's type line
        # ("生物～鳥") holds only words both scripts share, but its text and name do not.
        variant, certainty = chinese_variant(sample)
        if certainty > 0.5:
            return variant
        scores = {lang: sum(word in sample for word in words) for lang, words in CJK_TYPE_WORDS.items()}
        best = max(scores.values())
        winners = [lang for lang, score in scores.items() if score == best]
        return winners[0] if len(winners) == 1 and best else None
    if CYRILLIC.search(sample):
        return "ru"
    words = set(re.findall(r"\w+", type_line))
    scores = {
        lang: sum(1 for word in vocabulary if (word in words if " " not in word else word in type_line))
        for lang, vocabulary in TYPE_WORDS.items()
    }
    best = max(scores.values())
    if best == 0:
        return None
    winners = [lang for lang, score in scores.items() if score == best]
    return winners[0]
