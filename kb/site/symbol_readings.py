"""What a symbol means in one CR version, where the CR has given its notation a new meaning.

``{P}`` alone has meant three things: the planeswalker symbol of the planar die (the CR of
2009-10-01: "The planeswalker symbol is {P}", later written ``{PW}``), the Phyrexian symbol with
no colored background (107.4g of the 2013-2024 editions; now ``{H}``), and the pawprint symbol
(107.18 of the 2025 editions on). ``{C}`` was the planar die's chaos symbol (2009, 2014: "One face
has the chaos symbol {C}") before it was colorless mana. Each edition defines its symbols in its
own rules, so the meaning is read from the edition's text, not assumed from a date; a translation
reads its symbols as the English edition it translates. Cards and rulings follow today's notation
(Scryfall's).
"""
from __future__ import annotations

import re
import sqlite3
from collections import OrderedDict

from kb.site.markup import symbol_words
from kb.site.search_db import per_file, table_exists

# What an edition calls a symbol where it defines it ("The pawprint symbol is {P}", "the Phyrexian
# symbol {P} with no colored background", "One face has the chaos symbol {C}", "pawprint symbols
# ({P})"), read aloud as today's token of that symbol is.
READING_OF_NAME = {name: symbol_words(token) for name, token in
                   (("pawprint", "{P}"), ("phyrexian", "{H}"), ("planeswalker", "{PW}"), ("chaos", "{CHAOS}"))}
# One symbol, not a hybrid ("the hybrid Phyrexian symbols {W/U/P}, …" names a family).
DEFINED = re.compile(r"\b(pawprint|phyrexian|planeswalker|chaos) symbols? (?:is )?\(?(\{[A-Za-z]+\})", re.IGNORECASE)


def defined_readings(text: str) -> dict[str, str]:
    """The symbols a rule text defines as something today's notation reads otherwise:
    ``{"P": "Phyrexian symbol"}`` for 107.4g of 2022 ({P} is the pawprint now)."""
    found = {}
    for name, token in DEFINED.findall(text):
        reading = READING_OF_NAME[name.casefold()]
        if reading != symbol_words(token):
            found[token[1:-1].upper()] = reading
    return found


_READINGS: OrderedDict[tuple, dict[str, dict[str, str]]] = OrderedDict()


def symbol_readings(conn: sqlite3.Connection) -> dict[str, dict[str, str]]:
    """CR version id → ``{"P": meaning}`` for the versions whose rules define a symbol as
    something else than it is today (kept per served file); the others read symbols as today."""
    return per_file(conn, _READINGS, _read_symbol_readings)


# The only rules ``DEFINED`` can match: one of its four names and a word starting "symbol" (the
# full-text index finds those in ~3 ms; reading every English rule's text took ~0.2 s at each
# start and after each swap).
DEFINING_RULES = "text: (pawprint OR phyrexian OR planeswalker OR chaos) AND symbol*"


def _read_symbol_readings(conn: sqlite3.Connection) -> dict[str, dict[str, str]]:
    english: dict[str, dict[str, str]] = {}
    where = "cr_versions.lang = 'en' and rules.text like '%symbol%{%'"
    if table_exists(conn, "rules_fts"):
        where += " and rules.rowid in (select rowid from rules_fts where rules_fts match :defining)"
    for version_id, text in conn.execute(
        "select rules.version_id, rules.text from rules join cr_versions on cr_versions.id = rules.version_id"
        f" where {where} order by rules.version_id, rules.position",
        {"defining": DEFINING_RULES},
    ):
        for symbol, reading in defined_readings(text or "").items():
            english.setdefault(version_id, {}).setdefault(symbol, reading)
    readings = dict(english)
    for version_id, original in conn.execute(
        "select id, translates_version_id from cr_versions where lang != 'en' and translates_version_id is not null"
    ):
        if original in english:
            readings[version_id] = english[original]
    return readings
