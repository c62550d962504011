"""Abbreviations players and judges type for terms the Comprehensive Rules spell out ("SBA",
"ETB", "CMC", "LKI"): the CR, its glossary and Wizards' rulings never use them, so a search for
one found nothing. Such a word of a query is searched as the rules' words, and the page says so;
so is a contraction typed without its apostrophe ("cant").

Each entry is a community abbreviation of a term the CR uses, in the CR's own words (for a term
the CR has since renamed, its old words: their glossary entry leads to today's term). None of the
abbreviations is a word of the CR (a test checks the snapshot), so reading one as its term loses
no match.
"""
from __future__ import annotations

from kb.site.search_text import compact

ABBREVIATIONS: dict[str, str] = {
    "cda": "characteristic-defining ability",
    "cmc": "converted mana cost",
    "dfc": "double-faced card",
    "dmg": "damage",
    "eot": "end of turn",
    "etb": "enters the battlefield",
    "gy": "graveyard",
    "lki": "last known information",
    "ltb": "leaves the battlefield",
    "mdfc": "modal double-faced card",
    "mv": "mana value",
    "sba": "state-based actions",
    "sbas": "state-based actions",
    "tdfc": "transforming double-faced card",
}

# Contractions typed without their apostrophe ("cant be blocked"): the rules write "can't", which
# the index holds as "can" and "t", so "cant" found nothing and was offered the card "Cast" (an
# English judge's review). None is a word of the CR either.
CONTRACTIONS: dict[str, str] = {
    word.replace("'", ""): word
    for word in ("can't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "won't",
                 "hasn't", "haven't", "couldn't", "wouldn't", "shouldn't")
}


def spelled_out(query: str) -> str | None:
    """``query`` with each word that is one of the abbreviations in the CR's words ("SBA",
    "E.T.B.", "etb tapped" → "enters the battlefield tapped"); None when it has none."""
    words = query.split()
    spelled = [ABBREVIATIONS.get(compact(word)) or CONTRACTIONS.get(word.casefold(), word) for word in words]
    return " ".join(spelled) if spelled != words else None
